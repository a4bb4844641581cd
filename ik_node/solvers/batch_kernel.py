# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The restart driver of :mod:`ik_node.solvers.driver`, compiled, over many targets at once.

:func:`solve_targets` runs a range of targets with the GIL released, so that threads (one
per core) run the ranges of one batch side by side. Per target it takes the same steps as
:func:`ik_node.solvers.driver.run_restarts` with a Jacobian method (the attempts of
:mod:`ik_node.solvers.jacobian`): the same starts (the seed, then the driver's seeded draws,
given as a table), the same budget (``max_attempts``, and a wall-clock deadline checked where
the driver checks it), the same final check
(:func:`ik_node.solvers.driver.target_errors_into`), the same out-of-reach tests, seed-joint
restoring and choice of the solution nearest the seed. It has no collision check: callers
that avoid collisions check the answer with the driver's final check. ``solve_batch`` gives
no deadline (its budget is ``max_attempts``, so a result does not depend on the machine's
load); ``solve`` runs its one target here with its timeout
(:mod:`ik_node.solvers.compiled_driver`), which starts when the kernel does.
"""

import math
from typing import NamedTuple

from ik_node import kinematics
from ik_node._jit import monotonic_clock, njit, njit_inline, njit_nogil
from ik_node.solvers.dls import DlsParams, run_attempt
from ik_node.solvers.driver import (_FAR_PROBES, _SAME_END_ATTEMPTS, _SAME_END_RELATIVE,
                                    _UNDERACTUATED_TRIES, target_errors_into, wrap_in_place)
from ik_node.solvers.records import Target
from ik_node.target_checks import inputs_problem, TARGET_OK
import numpy as np

__all__ = ['BatchParams', 'solve_targets', 'solve_target', 'BATCH_REACHED',
           'BATCH_OUT_OF_REACH', 'BATCH_NOT_CONVERGED', 'BATCH_SKIPPED']

_now = monotonic_clock()

# Values of the status column of solve_targets.
BATCH_REACHED = 0
BATCH_OUT_OF_REACH = 1
BATCH_NOT_CONVERGED = 2
BATCH_SKIPPED = 3       # not solved (an invalid target)


class BatchParams(NamedTuple):
    """
    Everything of one batch that is the same for every target.

    pose, point: the DlsParams of the pose attempt and of the position-only probe (priority
    False: the kernel makes the position-first pass of n < 6 and the retries without
    objectives from them, :func:`_variant`; fewer records to pass make the call cheaper).
    obj_pose_on, obj_point_on: whether their packed objectives are active.
    max_iterations, max_attempts, solutions: the options; restarts: the option.
    reach_origin (3,), reach [m], length_scale [m]: the chain's reach bound; stretched [m]:
    the distance from reach_origin beyond which a target is past the stretched reach
    (:func:`ik_node.solvers.reach.stretched_bound`). w (n,): joint weights of the choice
    among solutions; wide (n,): revolute joints spanning more than a turn.
    """

    pose: DlsParams
    point: DlsParams
    obj_pose_on: bool
    obj_point_on: bool
    max_iterations: int
    max_attempts: int
    solutions: int
    restarts: bool
    reach_origin: np.ndarray
    reach: float
    stretched: float
    length_scale: float
    w: np.ndarray
    wide: np.ndarray


@njit
def _variant(p, priority, objectives_on):
    """Return ``p`` with these ``priority`` and ``objectives_on``."""
    return DlsParams(p.method, p.w_pos, p.w_ori, p.w_inv, p.tol_p, p.tol_o, p.max_iter, p.lam0,
                     p.lam_max, p.w0, objectives_on, p.k_null, p.max_step, p.secondary_iter,
                     priority)


@njit
def _with_max_iter(p, k):
    return DlsParams(p.method, p.w_pos, p.w_ori, p.w_inv, p.tol_p, p.tol_o, k, p.lam0,
                     p.lam_max, p.w0, p.objectives_on, p.k_null, p.max_step, p.secondary_iter,
                     p.priority)


@njit_inline
def _run(model, limits, tgt, params, obj, start, max_iterations, deadline):
    """Run one attempt in chunks of params.max_iter (to the deadline); return (q, it, ok)."""
    remaining = max_iterations
    total = 0
    q = start
    p = params
    while True:
        if remaining < p.max_iter:
            p = _with_max_iter(p, remaining)
        q, it, _, _, ok = run_attempt(model, limits, tgt, p, obj, q)
        total += it
        remaining -= it
        if ok or it < p.max_iter or remaining <= 0 or _now() >= deadline:
            return q, total, ok


@njit_inline
def _attempt(model, limits, tgt, first, plain, no_obj, obj, obj_on, underactuated, start,
             max_iterations, deadline):
    """Run the attempt of :func:`ik_node.solvers.jacobian.prepare_jacobian`."""
    iterations = 0
    if underactuated:
        start, it, ok = _run(model, limits, tgt, plain, obj, start, max_iterations, deadline)
        iterations += it
        if ok and not obj_on:
            # The whole pose is met: the position-first pass would stop at once.
            return start, iterations
    q, it, ok = _run(model, limits, tgt, first, obj, start, max_iterations, deadline)
    iterations += it
    if obj_on and not ok:
        q, it, ok = _run(model, limits, tgt, no_obj, obj, start, max_iterations, deadline)
        iterations += it
    return q, iterations


@njit
def _held_by_a_limit(model, q, position, lower, upper, length_scale):
    """:func:`ik_node.solvers.driver._held_by_a_limit`."""
    n = q.shape[0]
    any_on = False
    for i in range(n):
        if q[i] <= lower[i] or q[i] >= upper[i]:
            any_on = True
    if not any_on:
        return False
    J = kinematics.jacobian(model, n, q)
    T = kinematics.tip_pose(model, q)
    e = np.empty(3)
    for k in range(3):
        e[k] = position[k] - T[k, 3]
    eps = 1e-3 * math.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) * length_scale
    for i in range(n):
        g = J[0, i] * e[0] + J[1, i] * e[1] + J[2, i] * e[2]
        if (q[i] <= lower[i] and g < -eps) or (q[i] >= upper[i] and g > eps):
            return True
    return False


@njit_inline
def _solve_one(model, limits, tgt, probe_tgt, bp, obj_pose, obj_point, q0, starts, q_out,
               q_raw, stats, errors, deadline):
    """Solve one target as run_restarts does (to ``deadline``); fill its rows of the outputs."""
    n = q0.shape[0]
    lower = limits.lower
    upper = limits.upper
    continuous = limits.continuous
    pose = tgt.pose
    tol_p = bp.pose.tol_p
    tol_o = bp.pose.tol_o
    underactuated = pose and n < 6
    pose_first = _variant(bp.pose, underactuated, bp.pose.objectives_on)
    pose_no_obj = _variant(bp.pose, underactuated, False)
    point_no_obj = _variant(bp.point, False, False)
    tp = tgt.position
    d0 = tp[0] - bp.reach_origin[0]
    d1 = tp[1] - bp.reach_origin[1]
    d2 = tp[2] - bp.reach_origin[2]
    distance = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    beyond = distance > bp.reach + tol_p
    past_stretched = distance > bp.stretched + tol_p
    max_att = bp.max_attempts if (bp.restarts and not beyond) else 1
    max_att = min(max_att, starts.shape[0] + 1)     # never past the table of starts
    attempts = 0
    draws = 0
    iterations = 0
    n_sol = 0
    sol_d = np.inf
    have_best = False
    best0 = np.inf
    best1 = np.inf
    best_perr = 0.0
    best_oerr = 0.0
    ends = np.empty(max_att)
    n_ends = 0
    point_reached = 0
    far_probes = 0
    stretched = False
    position_met = False
    probing = False
    has_next = False
    next_q = np.empty(n)
    # Scratch of the final check's FK.
    m = model.origin_R.shape[0]
    Rf = np.empty((m + 1, 3, 3))
    pf = np.empty((m + 1, 3))
    zf = np.empty((m, 3))
    while attempts < max_att:
        if attempts > 0 and _now() >= deadline:
            break
        attempts += 1
        if has_next:
            start = next_q.copy()
            has_next = False
        elif attempts == 1:
            start = q0.copy()
        else:
            start = starts[draws].copy()
            draws += 1
            for i in range(n):
                if continuous[i]:
                    start[i] += q0[i]
        # One call site: a literal argument (False) would compile _attempt a second time.
        if probing:
            t, first, plain, no_obj, obj, obj_on = (probe_tgt, bp.point, bp.point, point_no_obj,
                                                    obj_point, bp.obj_point_on)
        else:
            t, first, plain, no_obj, obj, obj_on = (tgt, pose_first, bp.pose, pose_no_obj,
                                                    obj_pose, bp.obj_pose_on)
        q, it = _attempt(model, limits, t, first, plain, no_obj, obj, obj_on,
                         underactuated and not probing, start, bp.max_iterations, deadline)
        iterations += it
        q = np.minimum(np.maximum(q, lower), upper)
        wrap_in_place(q, q0, continuous, bp.wide, lower, upper)
        perr, oerr = target_errors_into(model, tgt, q, Rf, pf, zf)
        if perr <= tol_p and (not pose or oerr <= tol_o):
            if n_sol == 0 or bp.solutions > 1:
                q_raw[:] = q
            if attempts > 1:
                # keep_seed_joints: back to the seed, one joint at a time, while still met.
                for i in range(n):
                    if q[i] != q0[i]:
                        old = q[i]
                        q[i] = q0[i]
                        p2, o2 = target_errors_into(model, tgt, q, Rf, pf, zf)
                        if p2 <= tol_p and (not pose or o2 <= tol_o):
                            perr, oerr = p2, o2
                        else:
                            q[i] = old
            n_sol += 1
            d = 0.0
            for i in range(n):
                d += bp.w[i] * (q[i] - q0[i]) ** 2
            if d < sol_d:
                sol_d = d
                q_out[:] = q
                errors[0] = perr
                errors[1] = oerr
            if n_sol >= bp.solutions or attempts == 1:
                break
            continue
        k0 = max(perr - tol_p, 0.0)
        if not have_best or k0 < best0 or (k0 == best0 and oerr < best1):
            have_best = True
            best0 = k0
            best1 = oerr
            best_perr = perr
            best_oerr = oerr
            if n_sol == 0:
                q_out[:] = q
        if not position_met and not beyond and perr > tol_p and past_stretched:
            # Beyond the stretched reach: position attempts from where this one ended and
            # from the seed give the best stretched pose, then no more restarts.
            far_probes += 1
            if far_probes <= _FAR_PROBES:
                probing = True
                has_next = True
                if far_probes == 1:
                    next_q[:] = q
                else:
                    next_q[:] = q0
                continue
            stretched = True
            break
        if perr <= tol_p:
            if probing:
                probing = False
                has_next = True
                next_q[:] = q
            position_met = True
            if underactuated:
                point_reached += 1
                if point_reached >= _UNDERACTUATED_TRIES:
                    break
            continue
        if position_met:
            if underactuated:
                point_reached += 1
                if point_reached >= _UNDERACTUATED_TRIES:
                    break
            continue
        if pose and not probing:
            probing = True
            continue
        if _held_by_a_limit(model, q, tp, lower, upper, bp.length_scale):
            n_ends = 0
            continue
        ends[n_ends] = perr
        n_ends += 1
        if n_ends >= _SAME_END_ATTEMPTS:
            lo = np.inf
            hi = -np.inf
            for k in range(n_ends - _SAME_END_ATTEMPTS, n_ends):
                lo = min(lo, ends[k])
                hi = max(hi, ends[k])
            if hi - lo <= _SAME_END_RELATIVE * hi + 0.1 * tol_p:
                stretched = True
                break
    stats[1] = attempts
    stats[2] = iterations
    if n_sol > 0:
        stats[0] = 1
        stats[3] = BATCH_REACHED
    else:
        stats[0] = 0
        stats[3] = BATCH_OUT_OF_REACH if (beyond or stretched) else BATCH_NOT_CONVERGED
        errors[0] = best_perr
        errors[1] = best_oerr


@njit_nogil
def solve_targets(model, limits, positions, rotations, pose, valid, q0, starts, bp, obj_pose,
                  obj_point, q_out, q_raw, stats, errors, deadline, lo, hi):
    """
    Solve targets lo..hi-1 (the GIL released: threads run disjoint ranges side by side).

    deadline [s of ``time.perf_counter``]: no attempt of any target starts after it (but the
    first); ``np.inf`` for none.

    positions (m, 3) [m], rotations (m, 3, 3) (ignored unless ``pose``), valid (m,) bool (an
    invalid row is skipped: status BATCH_SKIPPED), q0 (m, n) seeds inside the limits, starts
    (k, n) the driver's random starts (before adding the seed to continuous joints), bp:
    :class:`BatchParams`. Outputs: q_out (m, n) the answer, q_raw (m, n) the first solution
    before seed joints were restored, stats (m, 4) int (success, attempts, iterations,
    status), errors (m, 2) position [m] and orientation [rad] error of q_out.
    """
    eye = np.eye(3)
    for j in range(lo, hi):
        if not valid[j]:
            stats[j, 3] = BATCH_SKIPPED
            continue
        tgt = Target(positions[j], rotations[j], pose)
        probe_tgt = Target(positions[j], eye, False)
        _solve_one(model, limits, tgt, probe_tgt, bp, obj_pose, obj_point, q0[j], starts,
                   q_out[j], q_raw[j], stats[j], errors[j], deadline)


@njit
def solve_target(records, T, pose, q0, timeout):
    """
    Check one target and seed, and solve it as :func:`solve_targets` solves a row.

    records: the solve's constant records in one object
    (:func:`ik_node.solvers.solve_records.make_solve_records`: model, limits, starts, bp,
    obj_pose, obj_point as :func:`solve_targets` takes them). T (4, 4): the target pose (a
    point target: its position, with ``pose`` False); q0 (n,): the seed, clamped into the
    limits here. timeout [s]: no attempt but the first starts after it, counted from when this
    kernel starts (its code is loaded by then: the loading is not counted). Returns (q (n,),
    success, attempts, iterations, status, position error [m], orientation error [rad],
    problem): problem is the code of
    :func:`ik_node.target_checks.inputs_problem`, and nothing is solved unless it is
    TARGET_OK. For ``solve``: the one target's arrays are made here, where making one costs
    tens of nanoseconds, not the microsecond numpy takes from Python.
    """
    deadline = _now() + timeout
    model = records.model
    limits = records.limits
    n = q0.shape[0]
    problem = inputs_problem(T, pose, q0, limits.lower, limits.upper)
    if problem != TARGET_OK:
        return q0.copy(), False, 0, 0, BATCH_SKIPPED, 0.0, 0.0, problem
    position = np.empty(3)
    rotation = np.empty((3, 3))
    for i in range(3):
        position[i] = T[i, 3]
        for j in range(3):
            rotation[i, j] = T[i, j]
    q_out = q0.copy()
    q_raw = np.empty(n)
    stats = np.zeros(4, dtype=np.int64)
    errors = np.zeros(2)
    _solve_one(model, limits, Target(position, rotation, pose),
               Target(position, np.eye(3), False), records.bp, records.obj_pose,
               records.obj_point, q0, records.starts, q_out, q_raw, stats, errors, deadline)
    return q_out, stats[0] != 0, stats[1], stats[2], stats[3], errors[0], errors[1], problem
