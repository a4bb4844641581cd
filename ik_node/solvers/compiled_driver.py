# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
What ``solve`` and ``solve_batch`` build for the compiled driver, and its call for one target.

The driver (:func:`ik_node.solvers.restarts.drive`) takes the arm's records
(:class:`ik_node.solvers.restarts.DriverRecords`: model, limits, the table of random starts,
its parameters, the collision model) and the method's attempt records
(:class:`ik_node.solvers.jacobian.JacobianAttempts`). They depend on the chain and the
options only; they are kept for the same chain and options without objectives.
"""

from typing import Callable, Optional

from ik_node._jit import compiled_entry, readonly
from ik_node.options import SolveOptions
from ik_node.result import IKResult
from ik_node.solvers import batch_kernel as bk
from ik_node.solvers.jacobian import jacobian_attempts
from ik_node.solvers.outcome import result_of
from ik_node.solvers.reach import stretched_bound
from ik_node.solvers.restarts import CollisionCheck, DriverParams, DriverRecords
from ik_node.solvers.solve_records import make_solve_records
from ik_node.target_checks import pose_matrix, raise_for, TARGET_OK
import numpy as np

__all__ = ['applies', 'driver_records', 'start_table', 'solve_one', 'kept_for', 'solve_kept',
           'MAX_TABLE_ATTEMPTS']

# What a solve keeps for recent (chain, options, method, pose or point) without objectives,
# and the start tables of recent (chain, rng_seed): they depend on nothing else, and
# building them costs more than a short solve. The entries hold the chain and options, so
# their ids are not reused meanwhile.
_KEPT: dict = {}
_STARTS: dict = {}
_CACHE_SIZE = 64
# The most attempts a compiled solve takes (its table of starts is drawn up front). At
# 20 µs or more per attempt, they outlast the default 50 ms timeout twice over.
MAX_TABLE_ATTEMPTS = 4096
# The collision check of a solve without avoid_collisions (the types of a real one).
_NO_COLLISIONS = CollisionCheck(False, readonly(np.zeros(0)),
                                readonly(np.zeros(0, dtype=np.int64)), np.zeros((0, 16)))


class _Kept:
    """
    The records of one (chain, options, method, pose) and the kernel's compiled code.

    ``entry``: numba's dispatcher works out the type of every argument on each call. The
    types depend only on the chain and the options (every other argument is made with fixed
    types: the target and seed by ``solve``), so the compiled code found on the first call
    is called directly afterwards (None until then). ``handle``: the records in the one
    object the kernel takes (:func:`ik_node.solvers.solve_records.make_solve_records`).
    ``collision_model``: the chain's collision model the records were made from (a chain
    whose held joints changed has another).
    """

    __slots__ = ('chain', 'opts', 'code', 'pose', 'handle', 'entry', 'collision_model')

    def __init__(self, chain, opts: SolveOptions, code: int, pose: bool, collision_model):
        self.chain = chain
        self.opts = opts
        self.code = code
        self.pose = pose
        self.handle = _handle(chain, code, opts, pose)
        self.entry: Optional[Callable] = None
        self.collision_model = collision_model


def applies(opts: SolveOptions) -> bool:
    """
    Return True when a Jacobian method's solve with ``opts`` runs in the compiled driver.

    Not with more than :data:`MAX_TABLE_ATTEMPTS` attempts (the kernel takes a table of
    random starts, drawn whole: too long to draw within a timeout for a huge
    ``max_attempts``). With ``rng_seed`` None the table is drawn afresh on every call.
    """
    return opts.max_attempts <= MAX_TABLE_ATTEMPTS


def _collision_model(chain, opts: SolveOptions):
    return chain.collision_setup.model if opts.avoid_collisions else None


def driver_records(chain, opts: SolveOptions, rescue: bool = False) -> DriverRecords:
    """Return the driver's records of a solve on ``chain`` with ``opts``."""
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
    return DriverRecords(chain.model, chain.limits, start_table(chain, opts), params, collide)


def kept_for(chain, code: int, opts: SolveOptions, pose: bool) -> Optional[_Kept]:
    """
    Return what is kept for these arguments (made now if need be).

    None with objectives (they may change between calls, e.g. a posture's reference) or
    with ``rng_seed`` None (every call draws its own starts).

    :func:`solve_kept` takes it; ``solve`` keeps it for options given again.
    """
    if opts.objectives or opts.rng_seed is None:
        return None
    key = (id(chain), id(opts), code, pose)
    kept = _KEPT.get(key)
    if kept is None or kept.chain is not chain or kept.opts is not opts:
        kept = _Kept(chain, opts, code, pose, _collision_model(chain, opts))
        if len(_KEPT) >= _CACHE_SIZE:
            _KEPT.clear()
        _KEPT[key] = kept
    return kept


def _handle(chain, code: int, opts: SolveOptions, pose: bool):
    return make_solve_records(driver_records(chain, opts),
                              jacobian_attempts(code, chain, opts, pose))


def start_table(chain, opts: SolveOptions) -> np.ndarray:
    """
    Return the random starts 2..max_attempts: rows (k, n) of ``default_rng(rng_seed)``.

    Draws within the limits (before the seed is added to continuous joints, which the
    kernel does); with ``max_joint_change`` c, offsets uniform in [-c, c] from the seed. One
    table of draws within the limits per chain and ``rng_seed`` is kept and grown as later
    calls need more rows (the draws of one generator, so a shorter table is a prefix of a
    longer one); with ``rng_seed`` None the table is drawn afresh.
    """
    k = max(int(opts.max_attempts) - 1, 1) if opts.restarts else 1
    seed = opts.rng_seed
    if opts.max_joint_change is not None:
        c = float(opts.max_joint_change)
        return np.random.default_rng(seed).uniform(-c, c, (k, chain.n))
    hit = _STARTS.get((id(chain), seed)) if seed is not None else None
    if hit is None or hit[0] is not chain:
        hit = (chain, np.random.default_rng(seed), np.empty((0, chain.n)))
    _, rng, table = hit
    if table.shape[0] < k:
        grow = max(k, 2 * table.shape[0]) - table.shape[0]
        table = np.concatenate([table, chain.random_q(rng, grow)])
        if seed is not None:
            if len(_STARTS) >= _CACHE_SIZE:
                _STARTS.clear()
            _STARTS[(id(chain), seed)] = (chain, rng, table)
    return table[:k]


def solve_one(chain, target: np.ndarray, q0: np.ndarray, opts: SolveOptions, code: int,
              method: str) -> IKResult:
    """
    Solve one validated target in one compiled call of the driver.

    target: (4, 4) pose or (3,) position; q0 (n,); both fresh, writable, C-ordered float64
    arrays, as ``solve`` makes them (the kept compiled entry takes them without checking
    their types). The kernel checks them (and clamps q0 into the limits) first;
    IKInputError for a problem. code: the method's METHOD_* code. The timeout counts
    from when the kernel starts: neither the arm's stretched reach, estimated once per chain
    on its first solve, nor the loading of the kernel eats it.
    """
    pose = target.shape == (4, 4)
    kept = kept_for(chain, code, opts, pose)
    if kept is not None:
        return solve_kept(kept, target, q0, method)
    return _solve(chain, opts, method, bk.solve_target, _handle(chain, code, opts, pose),
                  target, q0)


def solve_kept(kept: _Kept, target: np.ndarray, q0: np.ndarray, method: str) -> IKResult:
    """:func:`solve_one` with the records of :func:`kept_for` (for the target's kind)."""
    if (kept.collision_model is not None
            and kept.collision_model is not kept.chain.collision_setup.model):
        # The chain's held joints changed: records of its new collision model.
        kept.collision_model = kept.chain.collision_setup.model
        kept.handle = _handle(kept.chain, kept.code, kept.opts, kept.pose)
    if kept.entry is not None:
        return _solve(kept.chain, kept.opts, method, kept.entry, kept.handle, target, q0)
    # The dispatcher loads or compiles the code for these types on the first call; that
    # code is called directly afterwards (every argument has the same types then).
    result = _solve(kept.chain, kept.opts, method, bk.solve_target, kept.handle, target, q0)
    kept.entry = compiled_entry(bk.solve_target, (kept.handle, np.eye(4), True, q0, 0.0))
    return result


def _solve(chain, opts: SolveOptions, method: str, entry, handle, target: np.ndarray,
           q0: np.ndarray) -> IKResult:
    """Run the kernel ``entry`` (bk.solve_target or its compiled code) on one target."""
    T, pose = pose_matrix(target)
    q, q_blocked, outcome, problem = entry(handle, T, pose, q0, float(opts.timeout))
    if problem != TARGET_OK:
        raise_for(problem, target, q0)
    return result_of(chain, opts, method, q, q_blocked, outcome, pose, T[:3, 3])
