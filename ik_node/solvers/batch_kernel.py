# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The compiled entry points of the restart driver: one target (``solve``) or many (batches).

Both run :func:`ik_node.solvers.restarts.drive`, the one driver. :func:`solve_targets` runs a
range of targets with the GIL released, so that threads (one per core) run the ranges of
one batch side by side; ``solve_batch`` gives it no deadline (its budget is
``max_attempts``, so a result does not depend on the machine's load). :func:`solve_target`
checks and solves one target with a timeout that starts when the kernel does.
"""

from typing import NamedTuple

from ik_node._jit import monotonic_clock, njit, njit_nogil
from ik_node.solvers.codes import CODE_SKIPPED
from ik_node.solvers.restarts import drive, Outcome
from ik_node.solvers.target_records import Target
from ik_node.target_checks import inputs_problem, TARGET_OK
import numpy as np

__all__ = ['BatchRows', 'BatchOut', 'solve_targets', 'solve_target']

_now = monotonic_clock()


class BatchRows(NamedTuple):
    """
    The targets and seeds of a batch of m.

    positions (m, 3) [m], rotations (m, 3, 3) (ignored unless ``pose``), valid (m,) bool (an
    invalid row is skipped: code CODE_SKIPPED), q0 (m, n) seeds inside the limits.
    """

    positions: np.ndarray
    rotations: np.ndarray
    pose: bool
    valid: np.ndarray
    q0: np.ndarray


class BatchOut(NamedTuple):
    """
    The answers of a batch of m, the fields of :class:`ik_node.solvers.restarts.Outcome`.

    q (m, n): the answer; q_blocked (m, n): the last answer within tolerance that collided;
    the others (m,), one per Outcome field.
    """

    q: np.ndarray
    q_blocked: np.ndarray
    success: np.ndarray
    attempts: np.ndarray
    iterations: np.ndarray
    code: np.ndarray
    position_error: np.ndarray
    orientation_error: np.ndarray
    blocked: np.ndarray
    too_far_joint: np.ndarray
    too_far_change: np.ndarray
    rescued: np.ndarray


@njit
def _store(out, j, o):
    """Write Outcome ``o`` to row j of ``out``."""
    out.success[j] = o.success
    out.attempts[j] = o.attempts
    out.iterations[j] = o.iterations
    out.code[j] = o.code
    out.position_error[j] = o.position_error
    out.orientation_error[j] = o.orientation_error
    out.blocked[j] = o.blocked
    out.too_far_joint[j] = o.too_far_joint
    out.too_far_change[j] = o.too_far_change
    out.rescued[j] = o.rescued


@njit_nogil
def solve_targets(rec, ctx, rows, out, deadline, lo, hi):
    """
    Solve targets lo..hi-1 of ``rows`` into ``out`` (threads run disjoint ranges side by side).

    The GIL is released. rec: DriverRecords; ctx: the attempt records; rows: BatchRows; out:
    BatchOut.
    deadline [s of the kernels' clock]: no attempt of any target starts after it (but the
    first); ``np.inf`` for none.
    """
    eye = np.eye(3)
    for j in range(lo, hi):
        if not rows.valid[j]:
            out.code[j] = CODE_SKIPPED
            continue
        tgts = (Target(rows.positions[j], rows.rotations[j], rows.pose),
                Target(rows.positions[j], eye, False))
        _store(out, j, drive(rec, ctx, tgts, rows.q0[j], out.q[j], out.q_blocked[j],
                             deadline))


@njit_nogil
def solve_target(records, T, pose, q0, timeout):
    """
    Check one target and seed, and solve it as :func:`solve_targets` solves a row.

    records: rec and ctx in one object (:func:`ik_node.solvers.solve_holder.make_solve_records`).
    T (4, 4): the target pose (a point target: its position, with ``pose`` False); q0 (n,):
    the seed, clamped into the limits here. timeout [s]: no attempt but the first starts
    after it, counted from when this kernel starts (its code is loaded by then). Returns
    (q (n,), q_blocked (n,), Outcome, problem): problem is the code of
    :func:`ik_node.target_checks.inputs_problem`, and nothing is solved unless it is
    TARGET_OK (the Outcome then has zero attempts and code CODE_SKIPPED). The GIL is
    released: a goal searched on a thread of its own (the node's goal worker) spends up to
    its whole budget in this one call while the command timer goes on.
    """
    deadline = _now() + timeout
    rec = records.rec
    limits = rec.limits
    problem = inputs_problem(T, pose, q0, limits.lower, limits.upper)
    q_out = q0.copy()
    q_blocked = q0.copy()
    if problem != TARGET_OK:
        return q_out, q_blocked, _skipped(), problem
    position = np.empty(3)
    rotation = np.empty((3, 3))
    for i in range(3):
        position[i] = T[i, 3]
        for j in range(3):
            rotation[i, j] = T[i, j]
    tgts = (Target(position, rotation, pose), Target(position, np.eye(3), False))
    o = drive(rec, records.ctx, tgts, q0, q_out, q_blocked, deadline)
    return q_out, q_blocked, o, problem


@njit
def _skipped():
    return Outcome(False, 0, 0, CODE_SKIPPED, 0.0, 0.0, False, -1, np.inf, False)
