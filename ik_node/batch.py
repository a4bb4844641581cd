# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
``solve_batch``: IK for many targets in one compiled call, on every core.

The targets are solved by :func:`ik_node.solvers.batch_kernel.solve_targets`, a parallel loop
over the one restart driver (:func:`ik_node.solvers.restarts.drive`), so a target's answer is
the one ``solve`` gives it with the same options (``timeout`` aside: the budget is
``max_attempts``), collision avoidance and ``max_joint_change`` included.
"""

from dataclasses import dataclass
import math
import os
import threading
from typing import Optional

from ik_node._jit import compiled_entry
from ik_node.errors import IKInputError
from ik_node.result import IKResult
from ik_node.solve_ik import check_target
from ik_node.solver import keep_solver, Solver, solver_for
from ik_node.solvers import batch_kernel as bk
from ik_node.solvers.codes import CODE_SKIPPED
from ik_node.solvers.outcome import failure_message, RESCUE_METHOD, STATUS_OF_CODE
from ik_node.solvers.restarts import Outcome
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['BatchResult', 'solve_batch', 'batch_memory', 'STATUS_INVALID']

# Status of a target that was not solved because it is not a valid target.
STATUS_INVALID = 'invalid_target'
# A batch whose arrays would need more than this [bytes] is refused (split it).
MAX_BATCH_BYTES = 8 << 30
# The fewest targets a thread takes at a time.
_CHUNK = 64
_STATUS = {**STATUS_OF_CODE, CODE_SKIPPED: STATUS_INVALID}


@dataclass(frozen=True)
class BatchResult:
    """
    Outcome of :func:`solve_batch` for m targets, one row per target.

    q (m, n) [rad or m]: the answer (inside the limits; the seed for an invalid target);
    success (m,) bool; position_error (m,) [m], orientation_error (m,) [rad] (nan for
    position targets and invalid ones); iterations, attempts (m,) int; status (m,) str (the
    values of :class:`ik_node.IKResult`, or ``'invalid_target'``); message: m strings (why a
    target failed, '' when reached); method: the method asked for; rescued (m,) bool: the
    row's answer is that of the damped least-squares rescue ('fabrik', 'ccd'), and its
    IKResult names it (None: no row).
    """

    q: np.ndarray
    success: np.ndarray
    position_error: np.ndarray
    orientation_error: np.ndarray
    iterations: np.ndarray
    attempts: np.ndarray
    status: np.ndarray
    message: tuple
    method: str
    rescued: Optional[np.ndarray] = None

    def __len__(self) -> int:
        """Return the number of targets."""
        return int(self.success.shape[0])

    def result(self, i: int) -> IKResult:
        """Return target ``i``'s outcome as the IKResult ``solve`` would give."""
        return IKResult(q=self.q[i], success=bool(self.success[i]),
                        position_error=float(self.position_error[i]),
                        orientation_error=float(self.orientation_error[i]),
                        iterations=int(self.iterations[i]),
                        method=(RESCUE_METHOD if self.rescued is not None and self.rescued[i]
                                else self.method),
                        attempts=int(self.attempts[i]), message=self.message[i],
                        status=str(self.status[i]))


def batch_memory(m: int, n: int) -> int:
    """Return the bytes the arrays of a batch of ``m`` targets for ``n`` joints take."""
    return m * (8 * (3 + 9 + 3 * n + 2 + 4) + 1)


def _as_rows(targets: ArrayLike) -> tuple:
    """
    Return (array (m, 4, 4) or (m, 3), problems {row: reason}) from the user's targets.

    A row of the wrong shape or type becomes a problem (filled with NaN), not an error.
    """
    try:
        t = np.array(targets, dtype=float)
        if t.ndim in (2, 3) and t.shape[1:] in ((4, 4), (3,)):
            return t, {}
    except (TypeError, ValueError):
        t = None
    if t is not None and t.ndim == 1 and t.shape[0] == 0:
        return np.zeros((0, 4, 4)), {}
    try:
        rows = list(targets)    # type: ignore[arg-type]
    except TypeError as exc:
        raise IKInputError('targets must be an (m, 4, 4) array of poses or an (m, 3) array '
                           f'of positions, got {type(targets).__name__}') from exc
    shapes: list[Optional[tuple]] = []
    for r in rows:
        try:
            shapes.append(np.shape(np.asarray(r, dtype=float)))
        except (TypeError, ValueError):
            shapes.append(None)
    kinds = [s for s in shapes if s in ((4, 4), (3,))]
    if not kinds:
        raise IKInputError('targets must be (4, 4) poses or (3,) positions; none is')
    shape = max(set(kinds), key=kinds.count)
    out = np.full((len(rows),) + shape, np.nan)
    problems = {}
    for i, (r, s) in enumerate(zip(rows, shapes)):
        if s == shape:
            out[i] = np.asarray(r, dtype=float)
        else:
            problems[i] = (f'target must be a {shape} like the others, got '
                           + ('a non-numeric value' if s is None else f'shape {s}'))
    return out, problems


def _row_problems(t: np.ndarray, problems: dict) -> np.ndarray:
    """Return valid (m,) bool; fill ``problems`` with the reason of each invalid row."""
    m = t.shape[0]
    flat = t.reshape(m, int(np.prod(t.shape[1:])))
    bad = ~np.all(np.isfinite(flat), axis=1)
    if t.ndim == 3:
        with np.errstate(invalid='ignore'):
            R = t[:, :3, :3]
            gram = np.einsum('mij,mkj->mik', R, R) - np.eye(3)
            det = np.linalg.det(np.where(np.isfinite(R), R, 0.0))
            bad |= np.any(np.abs(t[:, 3, :] - (0.0, 0.0, 0.0, 1.0)) > 1e-9, axis=1)
            bad |= np.any(np.abs(gram) > 1e-6, axis=(1, 2)) | (np.abs(det - 1.0) > 1e-6)
            p = t[:, :3, 3]
    else:
        p = t
    with np.errstate(invalid='ignore'):
        bad |= np.any(np.abs(p) > 1e6, axis=1)
    for i in problems:
        bad[i] = True
    for i in np.flatnonzero(bad):
        if i in problems:
            continue
        try:
            check_target(t[i])
        except IKInputError as exc:
            problems[int(i)] = str(exc)
        else:
            bad[i] = False      # rounding at the edge of a tolerance: solve accepts it
    return ~bad


def _seeds(chain, q0: Optional[ArrayLike], m: int) -> np.ndarray:
    if q0 is None:
        return np.tile(chain.mid, (m, 1))
    try:
        q = np.array(q0, dtype=float)
    except (TypeError, ValueError) as exc:
        raise IKInputError(f'q0 must be ({chain.n},) or (m, {chain.n}) numbers: {exc}') from exc
    if q.shape == (chain.n,):
        q = np.tile(q, (m, 1))
    if q.shape != (m, chain.n):
        raise IKInputError(f'q0 must have shape ({chain.n},) or ({m}, {chain.n}), got {q.shape}')
    if not np.all(np.isfinite(q)):
        raise IKInputError('q0 is not finite')
    return np.clip(q, chain.lower, chain.upper)


def _run_threads(args: tuple, m: int, threads: Optional[int]) -> None:
    """Run the kernel over rows 0..m-1 on ``threads`` threads (None: every core)."""
    if m == 0:
        return
    k = max(1, min(threads or os.cpu_count() or 1, m))
    if k == 1:
        bk.solve_targets(*args, 0, m)
        return
    # numba's dispatcher types every argument on each call (about 20 µs for these records,
    # holding the GIL): the threads call the compiled code it found for the first.
    bk.solve_targets(*args, 0, 0)
    entry = compiled_entry(bk.solve_targets, (*args, 0, 0))
    # Guided self-scheduling: each thread takes a share of the rows left (at least _CHUNK),
    # so the chunks are large at first (few calls) and small at the end, where hard targets
    # (many restarts) would otherwise leave one thread working alone. On Panda poses,
    # 2 threads: 44,000 solves/s against 41,000 with fixed chunks of 64 from a thread pool
    # and 34,000 with one half each (medians of 7, one process).
    lock = threading.Lock()
    next_row = [0]
    errors: list = []

    def work() -> None:
        try:
            while True:
                with lock:
                    lo = next_row[0]
                    if lo >= m or errors:
                        return
                    hi = min(lo + max(_CHUNK, (m - lo) // (2 * k)), m)
                    next_row[0] = hi
                entry(*args, lo, hi)
        except BaseException as exc:  # noqa: B902 - handed to the caller's thread
            errors.append(exc)

    workers = [threading.Thread(target=work, name=f'ik_node-batch-{i}') for i in range(k)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]


def solve_batch(chain, targets: ArrayLike, q0: Optional[ArrayLike] = None, method: str = 'dls',
                threads: Optional[int] = None, **options) -> BatchResult:
    """
    Solve IK for each of ``targets``, in compiled code on every core.

    targets: (m, 4, 4) poses or (m, 3) positions [m] in the base_link frame. A target that is
    not valid (NaN, a bad rotation, a wrong shape in a list) fails alone, with status
    ``'invalid_target'`` and the reason in ``message``; the others are solved.
    q0: (n,) seed for every target or (m, n) one per target; None: mid-range.
    method: a built-in method of :func:`ik_node.solve_ik.methods` (not a registered one).
    options: those of ``solve``; the budget per target is ``max_attempts`` (``timeout`` is
    accepted and not applied, so that the answer does not depend on the machine's load).
    threads: how many threads run the compiled kernel (None: one per core).

    Returns a :class:`BatchResult`; row i is what ``solve(chain, targets[i], q0, method,
    **options)`` returns when its timeout does not cut it short. Raises IKInputError for a
    bad method, option or seed, or a batch too large for memory.
    """
    solver = solver_for(chain, method, options)
    if solver is None:
        solver = Solver(chain, method, **options)
        keep_solver(solver, options)
    if not solver.compiled:
        raise IKInputError(f'solve_batch runs the built-in methods, got the registered '
                           f'method {method!r}')
    opts = solver.options
    t, problems = _as_rows(targets)
    m = t.shape[0]
    need = batch_memory(m, chain.n)
    if need > MAX_BATCH_BYTES:
        raise IKInputError(f'a batch of {m} targets needs about {need / 2**30:.1f} GiB; '
                           f'split it into batches under {MAX_BATCH_BYTES / 2**30:.0f} GiB')
    seeds = _seeds(chain, q0, m)
    valid = _row_problems(t, problems)
    pose = t.ndim == 3
    positions = np.ascontiguousarray(t[:, :3, 3] if pose else t)
    rotations = (np.ascontiguousarray(t[:, :3, :3]) if pose
                 else np.broadcast_to(np.eye(3), (m, 3, 3)).copy())
    positions[~valid] = 0.0
    rotations[~valid] = np.eye(3)
    rows = bk.BatchRows(positions, rotations, pose, valid, seeds)
    out = _outputs(seeds)
    _run_threads((*solver.compiled_records(pose), rows, out, np.inf), m, threads)
    status = np.array([_STATUS[int(c)] for c in out.code], dtype=object)
    messages = [''] * m
    for i, reason in problems.items():
        messages[i] = reason
    for i in np.flatnonzero(valid & ~out.success):
        o = Outcome(*(getattr(out, name)[i] for name in Outcome._fields))
        messages[i] = failure_message(chain, opts, o, pose, positions[i], out.q_blocked[i])
    oerr = out.orientation_error.copy()
    if not pose:
        oerr[:] = math.nan
    return BatchResult(q=out.q, success=out.success, position_error=out.position_error,
                       orientation_error=oerr, iterations=out.iterations,
                       attempts=out.attempts, status=status, message=tuple(messages),
                       method=method, rescued=out.rescued)


def _outputs(seeds: np.ndarray) -> bk.BatchOut:
    """Return the output rows of a batch with these (m, n) seeds (NaN errors until solved)."""
    m = seeds.shape[0]
    return bk.BatchOut(
        q=seeds.copy(), q_blocked=seeds.copy(), success=np.zeros(m, dtype=bool),
        attempts=np.zeros(m, dtype=np.int64), iterations=np.zeros(m, dtype=np.int64),
        code=np.zeros(m, dtype=np.int64), position_error=np.full(m, np.nan),
        orientation_error=np.full(m, np.nan), blocked=np.zeros(m, dtype=bool),
        too_far_joint=np.full(m, -1, dtype=np.int64), too_far_change=np.full(m, np.inf),
        rescued=np.zeros(m, dtype=bool))
