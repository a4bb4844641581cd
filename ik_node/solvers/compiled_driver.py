# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
What ``solve`` and ``solve_batch`` build for the compiled driver, and its call for one target.

The driver (:func:`ik_node.solvers.restarts.drive`) takes the arm's records
(:class:`ik_node.solvers.restarts.DriverRecords`: model, limits, the table of random starts,
its parameters, the collision model) and the method's attempt records
(:class:`ik_node.solvers.attempts.MethodAttempts`, of every built-in method). They depend on
the chain and the options only: a :class:`CompiledSolve` (held by an :class:`ik_node.Solver`)
makes them once and keeps them, unless objectives are given (they may change between calls,
e.g. a posture's reference) or ``rng_seed`` is None (every call draws its own starts).
"""

from typing import Callable, Optional

from ik_node._jit import compiled_entry, readonly
from ik_node.options import SolveOptions
from ik_node.result import IKResult
from ik_node.solvers import batch_kernel as bk
from ik_node.solvers.attempts import MethodAttempts
from ik_node.solvers.outcome import result_of
from ik_node.solvers.restarts import CollisionCheck, DriverParams, DriverRecords
from ik_node.solvers.solve_holder import make_solve_records
from ik_node.solvers.stretched_reach import stretched_bound
from ik_node.target_checks import pose_matrix, raise_for, TARGET_OK
import numpy as np

__all__ = ['driver_records', 'start_table', 'CompiledSolve']

# The collision check of a solve without avoid_collisions (the types of a real one).
_NO_COLLISIONS = CollisionCheck(False, readonly(np.zeros(0)),
                                readonly(np.zeros(0, dtype=np.int64)), np.zeros((0, 16)))


def driver_records(chain, opts: SolveOptions, starts: Optional[np.ndarray] = None,
                   rescue: bool = False) -> DriverRecords:
    """
    Return the driver's records of a solve on ``chain`` with ``opts``.

    starts: the table of random starts (:func:`start_table`; drawn now when None).
    """
    w = opts.solution_weights(chain.n)
    mc = opts.max_joint_change
    params = DriverParams(
        tol_p=float(opts.position_tolerance), tol_o=float(opts.orientation_tolerance),
        max_attempts=int(opts.max_attempts), solutions=int(opts.solutions),
        restarts=bool(opts.restarts), max_change=np.inf if mc is None else float(mc),
        reach_origin=np.array(chain.reach_origin, dtype=float), reach=float(chain.reach),
        stretched=float(stretched_bound(chain)), length_scale=float(chain.length_scale),
        w=np.ones(chain.n) if w is None else np.array(w, dtype=float),
        wide=np.array(chain.wide_revolute, dtype=bool), rescue=bool(rescue))
    if opts.avoid_collisions:
        setup = chain.collision_setup
        F, K = setup.model.flat
        collide = CollisionCheck(True, F, K, setup.packed(opts.obstacles).rows)
    else:
        collide = _NO_COLLISIONS
    if starts is None:
        starts = start_table(chain, opts)
    return DriverRecords(chain.model, chain.limits, starts, params, collide)


def start_table(chain, opts: SolveOptions) -> np.ndarray:
    """
    Return the random starts 2..max_attempts: rows (k, n) of ``default_rng(rng_seed)``.

    k x n x 8 bytes: at most 56 MB for a 7-joint arm at the largest ``max_attempts`` (1e6),
    whose attempts would take 20 s at least. Draws within the limits (before the seed is
    added to continuous joints, which the kernel does); with ``max_joint_change`` c, offsets
    uniform in [-c, c] from the seed.
    The draws of one generator: the table of fewer attempts is a prefix of a longer one.
    """
    k = max(int(opts.max_attempts) - 1, 1) if opts.restarts else 1
    rng = np.random.default_rng(opts.rng_seed)
    if opts.max_joint_change is not None:
        c = float(opts.max_joint_change)
        return rng.uniform(-c, c, (k, chain.n))
    return chain.random_q(rng, k)


class _Kept:
    """
    The records of one target kind (pose or point) and the kernel's compiled code.

    ``handle``: the records in the one object the kernel takes
    (:func:`ik_node.solvers.solve_holder.make_solve_records`). ``entry``: numba's
    dispatcher works out the type of every argument on each call. The types depend only on
    the chain and the options (every other argument is made with fixed types: the target
    and seed by ``solve``), so the compiled code found on the first call is called directly
    afterwards (None until then). ``collision_model``: the chain's collision model the
    records were made from (a chain whose held joints changed has another).
    """

    __slots__ = ('handle', 'entry', 'collision_model')

    def __init__(self, handle, collision_model):
        self.handle = handle
        self.entry: Optional[Callable] = None
        self.collision_model = collision_model


class CompiledSolve:
    """
    The compiled driver's solve for one chain, validated options and built-in method.

    Makes the records on first use of each target kind and keeps them, with the table of
    random starts (see the module's docstring for when they are made on every call).
    """

    __slots__ = ('chain', 'opts', 'build', 'rescue', 'method', 'keeps', '_starts', '_kept')

    def __init__(self, chain, opts: SolveOptions, method: str, build: Callable,
                 rescue: bool):
        """
        Keep ``chain`` and the validated ``opts`` of ``method``.

        build(chain, opts, pose) -> MethodAttempts: the method's attempt records
        (:data:`ik_node.solvers.attempts.BUILDERS`); rescue: the method has a rescue
        attempt.
        """
        self.chain = chain
        self.opts = opts
        self.build = build
        self.rescue = rescue
        self.method = method
        self.keeps = not opts.objectives and opts.rng_seed is not None
        self._starts: Optional[np.ndarray] = None
        self._kept: list[Optional[_Kept]] = [None, None]     # by pose: [point, pose]

    def starts(self) -> np.ndarray:
        """Return the table of random starts, kept unless ``rng_seed`` is None."""
        if self.opts.rng_seed is None:
            return start_table(self.chain, self.opts)
        if self._starts is None:
            # Writable like a table drawn per call: one type, so one compiled kernel.
            self._starts = start_table(self.chain, self.opts)
        return self._starts

    def records(self, pose: bool) -> tuple[DriverRecords, MethodAttempts]:
        """Return the driver's and the attempts' records for pose (else point) targets."""
        return (driver_records(self.chain, self.opts, self.starts(), self.rescue),
                self.build(self.chain, self.opts, pose))

    def _handle(self, pose: bool):
        return make_solve_records(*self.records(pose))

    def _collision_model(self):
        return self.chain.collision_setup.model if self.opts.avoid_collisions else None

    def solve(self, target: np.ndarray, q0: np.ndarray) -> IKResult:
        """
        Solve one target in one compiled call of the driver.

        target: (4, 4) pose or (3,) position; q0 (n,); both fresh, writable, C-ordered
        float64 arrays, as ``target_and_seed_arrays`` makes them (the kept compiled entry
        takes them without checking their types). The kernel checks them (and clamps q0
        into the limits) first; IKInputError for a problem. The timeout counts from when
        the kernel starts: neither the arm's stretched reach, estimated once per chain on
        its first solve, nor the loading of the kernel eats it.
        """
        pose = target.shape == (4, 4)
        if not self.keeps:
            return self._run(bk.solve_target, self._handle(pose), target, q0)
        kept = self._kept[pose]
        if kept is None:
            kept = self._kept[pose] = _Kept(self._handle(pose), self._collision_model())
        elif (kept.collision_model is not None
              and kept.collision_model is not self.chain.collision_setup.model):
            # The chain's held joints changed: records of its new collision model.
            kept.collision_model = self.chain.collision_setup.model
            kept.handle = self._handle(pose)
        if kept.entry is not None:
            return self._run(kept.entry, kept.handle, target, q0)
        # The dispatcher loads or compiles the code for these types on the first call; that
        # code is called directly afterwards (every argument has the same types then).
        result = self._run(bk.solve_target, kept.handle, target, q0)
        kept.entry = compiled_entry(bk.solve_target, (kept.handle, np.eye(4), True, q0, 0.0))
        return result

    def _run(self, entry, handle, target: np.ndarray, q0: np.ndarray) -> IKResult:
        """Run the kernel ``entry`` (bk.solve_target or its compiled code) on one target."""
        T, pose = pose_matrix(target)
        q, q_blocked, outcome, problem = entry(handle, T, pose, q0, float(self.opts.timeout))
        if problem != TARGET_OK:
            raise_for(problem, target, q0)
        return result_of(self.chain, self.opts, self.method, q, q_blocked, outcome, pose,
                         T[:3, 3])
