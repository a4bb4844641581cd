# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The restart driver's steps for the Jacobian methods, run in one compiled call.

:func:`ik_node.solvers.driver.run_restarts` calls a method's kernel once per attempt and
takes its decisions in Python; for a target solved in a few dozen microseconds of kernel
time, those calls cost more than the iterations. :mod:`ik_node.solvers.batch_kernel` takes
the same steps in compiled code, so ``solve`` runs a 'dls', 'pinv' or 'jt' target there
(:func:`solve_one`) whenever the driver would not need Python between attempts: no collision
check and no ``max_joint_change`` bound (those solves stay with the driver). ``solve_batch``
runs its rows through the same kernel. This module holds what both build for the kernel:
the parameter records and the table of random starts, kept for the same chain and options.
"""

from typing import Callable, Optional

from ik_node._jit import compiled_entry
from ik_node.options import SolveOptions
from ik_node.result import (IKResult, STATUS_NOT_CONVERGED, STATUS_OUT_OF_REACH,
                            STATUS_REACHED)
from ik_node.solvers import batch_kernel as bk
from ik_node.solvers.driver import _failure_message, Check, out_of_reach, point_only_status
from ik_node.solvers.jacobian import attempt_records
from ik_node.solvers.reach import stretched_bound
from ik_node.solvers.records import make_target
from ik_node.solvers.solve_records import make_solve_records
from ik_node.target_checks import pose_matrix, raise_for, TARGET_OK
import numpy as np

__all__ = ['applies', 'batch_params', 'start_table', 'failure', 'solve_one', 'kept_for',
           'solve_kept', 'STATUS_OF_CODE', 'MAX_TABLE_ATTEMPTS']

STATUS_OF_CODE = {bk.BATCH_REACHED: STATUS_REACHED, bk.BATCH_OUT_OF_REACH: STATUS_OUT_OF_REACH,
                  bk.BATCH_NOT_CONVERGED: STATUS_NOT_CONVERGED}

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


class _Kept:
    """
    The records of one (chain, options, method, pose) and the kernel's compiled code.

    ``entry``: numba's dispatcher works out the type of every argument on each call. The
    types depend only on the chain and the options (every other argument is made with fixed
    types: the target and seed by ``solve``), so the compiled code found on the first call
    is called directly afterwards (None until then). ``handle``: the records and the table
    of starts in the one object the kernel takes
    (:func:`ik_node.solvers.solve_records.make_solve_records`; None until the first call).
    """

    __slots__ = ('chain', 'opts', 'records', 'entry', 'table', 'handle')

    def __init__(self, chain, opts: SolveOptions, records: tuple):
        self.chain = chain
        self.opts = opts
        self.records = records
        self.entry: Optional[Callable] = None
        # start_table(chain, opts) of solve_one (the same rows on every call: a seeded
        # generator's draws); None until its first call.
        self.table: Optional[np.ndarray] = None
        self.handle = None


def applies(opts: SolveOptions) -> bool:
    """
    Return True when a Jacobian method's solve with ``opts`` runs in :func:`solve_one`.

    Not with a collision check or a ``max_joint_change`` bound (they need Python between
    attempts), nor with ``rng_seed`` None or more than :data:`MAX_TABLE_ATTEMPTS` attempts
    (the driver draws starts one at a time as attempts need them; the kernel takes a table
    of them, drawn whole: afresh on every call without a seed, and too long to draw within
    a timeout for a huge ``max_attempts``).
    """
    return (not opts.avoid_collisions and opts.max_joint_change is None
            and opts.rng_seed is not None and opts.max_attempts <= MAX_TABLE_ATTEMPTS)


def batch_params(chain, code: int, opts: SolveOptions, pose: bool) -> tuple:
    """
    Return (BatchParams, packed pose objectives, packed point objectives) of a solve.

    code: METHOD_DLS, METHOD_PINV or METHOD_JT; pose: pose targets (else positions). Kept
    for the same chain and options when they have no objectives (objectives may change
    between calls, e.g. a posture objective's reference).
    """
    kept = kept_for(chain, code, opts, pose)
    return kept.records if kept is not None else _records(chain, code, opts, pose)


def kept_for(chain, code: int, opts: SolveOptions, pose: bool) -> Optional[_Kept]:
    """
    Return what is kept for these arguments (made now if need be); None with objectives.

    :func:`solve_kept` takes it; ``solve`` keeps it for options given again.
    """
    if opts.objectives or opts.avoid_collisions:
        return None
    key = (id(chain), id(opts), code, pose)
    kept = _KEPT.get(key)
    if kept is None or kept.chain is not chain or kept.opts is not opts:
        kept = _Kept(chain, opts, _records(chain, code, opts, pose))
        if len(_KEPT) >= _CACHE_SIZE:
            _KEPT.clear()
        _KEPT[key] = kept
    return kept


def _records(chain, code: int, opts: SolveOptions, pose: bool) -> tuple:
    """Build what :func:`batch_params` returns."""
    pose_rec = make_target(np.eye(4) if pose else np.zeros(3))
    params, obj_pose, on_pose = attempt_records(code, chain, pose_rec, opts)
    point, obj_point, on_point = attempt_records(code, chain, make_target(np.zeros(3)), opts)
    w = opts.solution_weights(chain.n)
    bp = bk.BatchParams(
        pose=params, point=point,
        obj_pose_on=bool(on_pose), obj_point_on=bool(on_point),
        max_iterations=int(opts.max_iterations), max_attempts=int(opts.max_attempts),
        solutions=int(opts.solutions), restarts=bool(opts.restarts),
        reach_origin=np.array(chain.reach_origin, dtype=float), reach=float(chain.reach),
        stretched=float(stretched_bound(chain)), length_scale=float(chain.length_scale),
        w=np.ones(chain.n) if w is None else np.array(w, dtype=float),
        wide=np.array(chain.wide_revolute, dtype=bool))
    return bp, obj_pose, obj_point


def start_table(chain, opts: SolveOptions) -> np.ndarray:
    """
    Return the driver's random starts 2..max_attempts as :class:`Starts` draws them.

    Rows (k, n), before the seed is added to continuous joints (the kernel adds it). One
    table per chain and ``rng_seed`` is kept and grown as later calls need more rows (the
    draws of one generator, so a shorter table is a prefix of a longer one); with
    ``rng_seed`` None the table is drawn afresh.
    """
    k = max(int(opts.max_attempts) - 1, 1) if opts.restarts else 1
    seed = opts.rng_seed
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


def failure(chain, pose: bool, status: str, perr: float, oerr: float, position: np.ndarray,
            attempts: int, tol_p: float) -> tuple:
    """
    Return (status, message) of a target the kernel did not solve, as the driver gives them.

    status: the kernel's (STATUS_OF_CODE); perr [m], oerr [rad]: the best attempt's errors;
    position (3,): the target's [m].
    """
    beyond = out_of_reach(chain, position, tol_p)
    status = point_only_status(chain, pose, status, perr, tol_p)
    return status, _failure_message(status, beyond, attempts, Check(perr, oerr, False), pose)


def solve_one(chain, target: np.ndarray, q0: np.ndarray, opts: SolveOptions, code: int,
              method: str) -> IKResult:
    """
    Solve one validated target as ``run_restarts`` does, in one compiled call.

    target: (4, 4) pose or (3,) position; q0 (n,); both fresh, writable, C-ordered float64
    arrays, as ``solve`` makes them (the kept compiled entry takes them without checking
    their types). The kernel checks them (and clamps q0 into the limits) first;
    IKInputError for a problem. code: the method's METHOD_* code. The timeout counts
    from when the kernel starts: neither the arm's stretched reach, estimated once per chain
    on its first solve, nor the loading of the kernel eats it (nor do they in the driver).
    """
    pose = target.shape == (4, 4)
    kept = kept_for(chain, code, opts, pose)
    if kept is not None:
        return solve_kept(kept, target, q0, method)
    handle = make_solve_records(chain.model, chain.limits, start_table(chain, opts),
                                *_records(chain, code, opts, pose))
    return _solve(chain, opts, method, bk.solve_target, handle, target, q0)


def solve_kept(kept: _Kept, target: np.ndarray, q0: np.ndarray, method: str) -> IKResult:
    """:func:`solve_one` with the records of :func:`kept_for` (for the target's kind)."""
    if kept.entry is not None:
        return _solve(kept.chain, kept.opts, method, kept.entry, kept.handle, target, q0)
    if kept.table is None:
        kept.table = start_table(kept.chain, kept.opts)
    kept.handle = make_solve_records(kept.chain.model, kept.chain.limits, kept.table,
                                     *kept.records)
    # The dispatcher loads or compiles the code for these types on the first call; that
    # code is called directly afterwards (every argument has the same types then).
    result = _solve(kept.chain, kept.opts, method, bk.solve_target, kept.handle, target, q0)
    kept.entry = compiled_entry(bk.solve_target, (kept.handle, np.eye(4), True, q0, 0.0))
    return result


def _solve(chain, opts: SolveOptions, method: str, entry, handle, target: np.ndarray,
           q0: np.ndarray) -> IKResult:
    """Run the kernel ``entry`` (bk.solve_target or its compiled code) on one target."""
    T, pose = pose_matrix(target)
    q, success, attempts, iterations, code_out, perr, oerr, problem = entry(
        handle, T, pose, q0, float(opts.timeout))
    if problem != TARGET_OK:
        raise_for(problem, target, q0)
    status, message = STATUS_OF_CODE[code_out], ''
    if not success:
        status, message = failure(chain, pose, status, perr, oerr, T[:3, 3], attempts,
                                  opts.position_tolerance)
    return IKResult.of_solver(q, bool(success), perr, oerr if pose else float('nan'),
                              iterations, method, attempts, message, status)
