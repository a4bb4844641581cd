# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Jacobian solvers: damped least squares (DLS), pseudo-inverse and Jacobian transpose.

One attempt from one start configuration runs in a compiled kernel; restarts, budgets and
the choice among solutions live in :mod:`ik_node.solvers.restarts`. The kernel takes records:
the chain (:class:`ik_node.model.kinematics.ChainModel`), its :class:`Limits`, the :class:`Target`
and the :class:`DlsParams`.

Per iteration, with the weighted error e = [w_p (p* - p); w_o log(R* Rᵀ)] and the matching
rows of J (6 x n, or 3 x n for position targets), the primary step is

- DLS:  Δq = W⁻¹Jᵀ(J W⁻¹Jᵀ + λ²I)⁻¹ e, a Levenberg-Marquardt iteration: a step is taken only
  when it lowers E = ½|e|²; λ² = μ(E + λ₀²) + λ_s², where μ shrinks after a good step and
  grows after a rejected one, and λ_s² = λ_max²(1 - w/w₀)² min(1, E/E_s) rises as the
  manipulability w = √det(J Jᵀ) falls below w₀ (Nakamura & Hanafusa) and fades once the
  error is small (E < E_s), so a target near a singularity is still met to a tight
  tolerance.

Scale: position rows are divided by the arm's length L (its reach bound), so e, J, E, λ and
w are dimensionless and a UR3 and a KR210 (a UR3 scaled up fourfold, say) take the same
iterations; position_weight multiplies on top of that.
- pinv: Δq = J⁺e, SVD with singular values below 1e-6 dropped; step length capped.
- jt:   Δq = α Jᵀe with α = (e·JJᵀe)/|JJᵀe|² (Buss); step length capped.

Arms with fewer joints than the pose task has rows (n < 6) take position as the primary task
and orientation as the secondary one, Δq = J_p# e_p + (J_o N_p)# (e_o - J_o J_p# e_p), so they
reach the point and come as close to the orientation as their joints allow.

Secondary objectives add -k (I - J⁺J) ∇h, capped in length; once the target is reached,
``secondary_iterations`` more steps follow the objectives within 10x the tolerances, and
plain steps then bring the error back under them; joints that sit on a limit and
are pushed outward are frozen for the step (their weight set to 0) so the others can still
make progress. Every iterate is clamped into the limits.
"""

import math
from typing import NamedTuple

from ik_node._jit import njit, njit_guarded, njit_inline
from ik_node.model import kinematics
from ik_node.solvers.objectives import objective_gradient
from ik_node.spatial.linalg import (cholesky_factor, cholesky_solve_in_place, cholesky_substitute,
                                    column_gram_into, damped_least_squares, ldl_in_place,
                                    ldl_substitute_in_place, shifted_into, sqrt_det_gram_into,
                                    step_from_multipliers, tall_system_into, weighted_gram_into)
from ik_node.spatial.rotations import rotation_vector_of_entries
import numpy as np

__all__ = ['METHOD_DLS', 'METHOD_PINV', 'METHOD_JT', 'METHOD_CODES', 'DlsParams', 'tip_error',
           'run_attempt', 'PriorityScratch']

METHOD_DLS = 0
METHOD_PINV = 1
METHOD_JT = 2
METHOD_CODES = {'dls': METHOD_DLS, 'pinv': METHOD_PINV, 'jt': METHOD_JT}


class DlsParams(NamedTuple):
    """
    Parameters of one Jacobian attempt (:func:`run_attempt`).

    method: METHOD_DLS, METHOD_PINV or METHOD_JT. w_pos [1/m] (already divided by the arm's
    length), w_ori [1/rad]: row weights. w_inv (n,): inverse joint weights. tol_p [m],
    tol_o [rad]: tolerances. max_iter: iteration cap. lam0, lam_max, w0: damping terms (on
    the dimensionless weighted system). objectives_on, k_null, max_step, secondary_iter:
    null-space objectives. priority: position first for pose targets with n < 6.
    """

    method: int
    w_pos: float
    w_ori: float
    w_inv: np.ndarray
    tol_p: float
    tol_o: float
    max_iter: int
    lam0: float
    lam_max: float
    w0: float
    objectives_on: bool
    k_null: float
    max_step: float
    secondary_iter: int
    priority: bool


class PriorityScratch(NamedTuple):
    """Scratch of the position-first step (:func:`_priority_step_into`), n joints."""

    S: np.ndarray       # (3, 3)
    y: np.ndarray       # (3,)
    N: np.ndarray       # (n, n): the position rows' null-space projector
    H: np.ndarray       # (3, n)
    dq2: np.ndarray     # (n,)


_MU_MIN = 1e-3
_MU_MAX = 1e8
# An attempt stops when a count of accepted steps in a row each lower the merit by less
# than a ratio of itself (_STALL_POSE, _STALL_POINT: ratio, count): the signature of a
# minimum with a nonzero error (a local minimum, or a target out of reach that stretches the
# arm ever more slowly), where going on would spend the budget for micrometres.
# - A DLS pose attempt (n < 6 too) stops at _STALL_POSE: at that rate halving the error
#   takes about 70 iterations, a tight tolerance hundreds; converging attempts drop the
#   merit by far more per step, and a restart costs less than the crawl. On 12 of the
#   benchmark arms at 1e-5 m / 1e-5 rad (200 targets each, an attempt from mid-range and
#   five from random starts), failed attempts then end after 12-20 iterations on average
#   instead of 24-52, the expected iterations per solved target fall by 17-46% (about 40%
#   on most arms), and 0-4% of first attempts that would have converged restart instead.
# - Every other attempt stops at _STALL_POINT: a position attempt ends where the arm is
#   stretched to within a few parts per million of its closest approach, so the driver can
#   tell an out-of-reach point by attempts from several starts ending at the same distance,
#   and the reach estimate is that of the stretched arm (:mod:`ik_node.solvers.stretched_reach`)
#   (the driver probes a pose's point with position attempts); 'pinv' and 'jt' converge
#   linearly, and crawl by nature.
_STALL_POSE = (1e-2, 3)
_STALL_POINT = (1e-5, 6)
# Merit (dimensionless, ½|e|² with positions in arm lengths) below which the singularity
# damping fades out: an error of about 1.4% of the arm's length.
_SINGULAR_MERIT = 1e-4


@njit
def tip_error(p, R, k, tp, tR, pose):
    """
    Return the error of the tip frame (p[k], R[k]): (p* - p, log(R* Rᵀ)), six numbers.

    The rotation part is 0 for a point target. Numbers out, no array written: the caller
    fills its error vector (:func:`_fill_error`), so no array of the caller is held across
    the call to the rotation's log (see ik_node.model.kinematics on reference counts).
    """
    d0 = tp[0] - p[k, 0]
    d1 = tp[1] - p[k, 1]
    d2 = tp[2] - p[k, 2]
    if not pose:
        return d0, d1, d2, 0.0, 0.0, 0.0
    # R* Rᵀ: the rotation from the tip to the target, entry (i, j) = row i of R* times row j
    # of R.
    r0, r1, r2 = rotation_vector_of_entries(
        _rows_dot(tR, 0, R, k, 0), _rows_dot(tR, 0, R, k, 1), _rows_dot(tR, 0, R, k, 2),
        _rows_dot(tR, 1, R, k, 0), _rows_dot(tR, 1, R, k, 1), _rows_dot(tR, 1, R, k, 2),
        _rows_dot(tR, 2, R, k, 0), _rows_dot(tR, 2, R, k, 1), _rows_dot(tR, 2, R, k, 2))
    return d0, d1, d2, r0, r1, r2


@njit
def _fill_error(e, w, d0, d1, d2, r0, r1, r2):
    """
    Fill the weighted error e (6,) from :func:`tip_error`'s numbers.

    w: the row weights (w_pos, w_ori). Returns (position error [m], orientation error [rad]).
    """
    w_pos, w_ori = w
    e[0] = w_pos * d0
    e[1] = w_pos * d1
    e[2] = w_pos * d2
    e[3] = w_ori * r0
    e[4] = w_ori * r1
    e[5] = w_ori * r2
    return math.sqrt(d0 * d0 + d1 * d1 + d2 * d2), math.sqrt(r0 * r0 + r1 * r1 + r2 * r2)


@njit_inline
def _rows_dot(A, i, R, k, j):
    """
    Return row i of A (3, 3) times row j of R[k].

    Inlined into its caller: called with literal rows, each of the nine calls would be a
    kernel of its own to compile (numba types a constant argument as its value).
    """
    return A[i, 0] * R[k, j, 0] + A[i, 1] * R[k, j, 1] + A[i, 2] * R[k, j, 2]


@njit
def _weighted_rows(J, rows, w_pos, w_ori, Jw):
    n = J.shape[1]
    for i in range(rows):
        s = w_pos if i < 3 else w_ori
        for c in range(n):
            Jw[i, c] = s * J[i, c]


@njit
def _pinv_nullspace(J):
    """Return (J⁺, I - J⁺J) from the SVD, singular values below 1e-6 · σ_max dropped."""
    r, n = J.shape
    U, s, Vt = np.linalg.svd(J, full_matrices=False)
    tol = 1e-6 * max(s[0], 1e-12) if s.shape[0] > 0 else 1e-12
    P = np.zeros((n, r))
    N = np.eye(n)
    for k in range(s.shape[0]):
        if s[k] > tol:
            for i in range(n):
                for j in range(r):
                    P[i, j] += Vt[k, i] * U[j, k] / s[k]
                for j in range(n):
                    N[i, j] -= Vt[k, i] * Vt[k, j]
    return P, N


@njit
def _regularised_gram(J):
    """Return J Jᵀ plus 1e-12 of its trace on the diagonal: positive definite for r < n."""
    A = J @ J.T
    eps = 1e-12 * max(np.trace(A), 1e-300)
    for i in range(A.shape[0]):
        A[i, i] += eps
    return A


@njit
def _project_null(J, g):
    """
    Return (I - J⁺J) g for a (r, n) J.

    With r < n and J of full row rank, (I - J⁺J) g = g - Jᵀ(J Jᵀ)⁻¹ J g: one r x r Cholesky
    solve (regularised, :func:`_regularised_gram`). Otherwise, or when the
    factorisation fails near a singularity, the SVD form is used.
    """
    r, n = J.shape
    if r < n:
        y, ok = cholesky_solve_in_place(_regularised_gram(J), J @ g)
        if ok:
            return g - J.T @ y
    _, N = _pinv_nullspace(J)
    return N @ g


@njit
def _null_projector(J):
    """
    Return I - J⁺J for a (r, n) J with r < n: I - Jᵀ(J Jᵀ)⁻¹J by one r x r Cholesky factor.

    Regularised (:func:`_regularised_gram`); when the factorisation still fails
    (J far from full row rank), the SVD form is used.
    """
    r, n = J.shape
    L = _regularised_gram(J)
    if not cholesky_factor(L):
        _, N = _pinv_nullspace(J)
        return N
    N = np.eye(n)
    col = np.empty(r)
    for c in range(n):
        for i in range(r):
            col[i] = J[i, c]
        y = cholesky_substitute(L, col)
        for i in range(n):
            s = 0.0
            for k in range(r):
                s += J[k, i] * y[k]
            N[i, c] -= s
    return N


@njit
def _primary_step(method, Jw, rows, e, w_inv, lam2):
    """
    Return (Δq, ok) for the primary task: pinv, jt, or DLS with position first (n < 6).

    run_attempt takes every other DLS step itself (its plain and tall forms).
    """
    if method == METHOD_PINV:
        P, _ = _pinv_nullspace(Jw[:rows])
        return P @ e[:rows], True
    if method == METHOD_JT:
        Jr = Jw[:rows]
        g = Jr.T @ e[:rows]
        JJe = Jr @ g
        den = JJe @ JJe
        alpha = (e[:rows] @ JJe) / den if den > 1e-300 else 0.0
        return alpha * g, True
    Jp = np.ascontiguousarray(Jw[:3])
    Jo = np.ascontiguousarray(Jw[3:6])
    dq1, ok = damped_least_squares(Jp, e[:3], w_inv, lam2)
    if not ok:
        return dq1, False
    Np = _null_projector(Jp)
    Joh = Jo @ Np
    r2 = e[3:6] - Jo @ dq1
    dq2, ok2 = damped_least_squares(Joh, r2, w_inv, lam2)
    if ok2:
        dq1 = dq1 + Np @ dq2
    return dq1, True


@njit
def _primary_step_into(method, Jw, rows, e, w_inv, lam2, dq):
    """:func:`_primary_step` into dq (n,); return ok."""
    step, ok = _primary_step(method, Jw, rows, e, w_inv, lam2)
    for i in range(dq.shape[0]):
        dq[i] = step[i]
    return ok


@njit
def _priority_step_into(Jw, e, w_inv, lam2, scratch, dq):
    """
    DLS with position first (n < 6) into dq (n,), in loops; return a status.

    Δq = Δq₁ + N Δq₂: Δq₁ the DLS step of the position rows J_p of Jw (6, n), N the null-space
    projector of J_p in the metric of the joint weights, N = I - W J_pᵀ(J_p W J_pᵀ + εI)⁻¹ J_p
    with W = diag(w_inv) and ε 1e-12 of the trace (so J_p N = 0, and a joint frozen with
    w_inv 0 stays still), Δq₂ the DLS step of J_o N toward what Δq₁ leaves of the
    orientation error. For 3 <= n < 6; scratch: a PriorityScratch. Returns 1 for a step,
    0 when the damped position system is not positive definite (dq zero), -1 when the
    projector's factorisation fails (dq unset; the caller takes _primary_step's SVD form).
    A leaf: no array is made or returned here.

    With unit weights and no frozen joint this is _primary_step's form, whose projector is
    unweighted: it still moved a joint frozen on a limit (against the limit, where the clamp
    holds it). On 1000 reachable SO-101 poses at 1e-5 the weighted projector takes 20% fewer
    iterations (p95 166 against 223) with the same successes.
    """
    S = scratch.S
    y = scratch.y
    N = scratch.N
    H = scratch.H
    dq2 = scratch.dq2
    n = dq.shape[0]
    weighted_gram_into(Jw, w_inv, S)
    shifted_into(S, lam2, S)
    if not ldl_in_place(S)[0]:
        for i in range(n):
            dq[i] = 0.0
        return 0
    for i in range(3):
        y[i] = e[i]
    ldl_substitute_in_place(S, y)
    step_from_multipliers(Jw, y, w_inv, dq)
    # N = I - W J_pᵀ (J_p W J_pᵀ + εI)⁻¹ J_p, ε = 1e-12 of the trace (_regularised_gram).
    weighted_gram_into(Jw, w_inv, S)
    trace = S[0, 0] + S[1, 1] + S[2, 2]
    shifted_into(S, 1e-12 * max(trace, 1e-300), S)
    if not ldl_in_place(S)[0]:
        return -1
    for c in range(n):
        for i in range(3):
            y[i] = Jw[i, c]
        ldl_substitute_in_place(S, y)
        for i in range(n):
            N[i, c] = (1.0 if i == c else 0.0) - w_inv[i] * (Jw[0, i] * y[0] + Jw[1, i] * y[1]
                                                             + Jw[2, i] * y[2])
    # H = J_o N_p; y = e_o - J_o Δq₁.
    for i in range(3):
        t = e[3 + i]
        for k in range(n):
            t -= Jw[3 + i, k] * dq[k]
        y[i] = t
        for c in range(n):
            t = 0.0
            for k in range(n):
                t += Jw[3 + i, k] * N[k, c]
            H[i, c] = t
    weighted_gram_into(H, w_inv, S)
    shifted_into(S, lam2, S)
    if ldl_in_place(S)[0]:
        ldl_substitute_in_place(S, y)
        step_from_multipliers(H, y, w_inv, dq2)
        for i in range(n):
            t = 0.0
            for k in range(n):
                t += N[i, k] * dq2[k]
            dq[i] += t
    return 1


@njit
def _add_null_step(model, limits, q, obj, Jw, rows, gain_cap, dq):
    """
    Add the objectives' null-space step -gain (I - J⁺J) ∇h, capped, to dq (n,).

    gain_cap: (gain, the step's largest length).
    """
    gain, max_step = gain_cap
    n = q.shape[0]
    grad = objective_gradient(model, n, q, limits.lower, limits.upper, obj)
    dn = _project_null(np.ascontiguousarray(Jw[:rows]), grad)
    step = _cap(-gain * dn, max_step)
    for i in range(n):
        dq[i] += step[i]


@njit
def _cap_in_place(dq, max_norm):
    """Scale dq down to the length max_norm if it is longer."""
    s = math.sqrt(dq @ dq)
    if s > max_norm and s > 0.0:
        f = max_norm / s
        for i in range(dq.shape[0]):
            dq[i] *= f


@njit
def _merit(e, rows, c_ori):
    E = e[0] * e[0] + e[1] * e[1] + e[2] * e[2]
    if rows == 6:
        E += c_ori * (e[3] * e[3] + e[4] * e[4] + e[5] * e[5])
    return 0.5 * E


@njit
def _cap(dq, max_norm):
    s = math.sqrt(dq @ dq)
    if s > max_norm and s > 0.0:
        return dq * (max_norm / s)
    return dq


# run_attempt's loop calls leaf kernels (that call no other kernel) and helpers of numbers.
# On the benchmark arms, a helper that took the loop's arrays and called kernels itself made
# plain DLS 10-30% slower (called, or inlined by numba), and so did arrays that the loop got
# back from a call instead of making them in run_attempt (hence the inlined _loop_arrays,
# _step_arrays and _first_error); kernels off the plain DLS path (_tall_step_into,
# _other_step_into, _amend_step) call others. Every array of the loop is made before it and
# never rebound: an array made or rebound in the loop costs reference count updates at each
# step (see ik_node.model.kinematics).

# How run_attempt takes its primary step (_step_kind).
_PLAIN = 0      # DLS, rows <= n: the damped system J W Jᵀ + λ²I (rows, rows)
_TALL = 1       # DLS, rows > n (a 3-joint leg given a pose): JᵀJ + λ²W⁻¹ (n, n)
_FIRST = 2      # DLS with position first (n < 6, at least the three joints of the point)
_PRIMARY = 3    # pinv, jt, or position first on fewer than three joints (_primary_step)


@njit
def _step_kind(method, under, rows, n):
    """Return the step's kind (_PLAIN, _TALL, _FIRST or _PRIMARY) of :func:`run_attempt`."""
    if method != METHOD_DLS:
        return _PRIMARY
    if under:
        return _FIRST if n >= 3 else _PRIMARY
    return _PLAIN if rows <= n else _TALL


@njit
def _attempt_mode(params, rows, n):
    """
    Return (mode, position first, the merit's orientation factor, stall test) of run_attempt.

    mode: (step kind, rows, unit joint weights, method); stall test: (ratio, count), see
    _STALL_POSE. The merit is that of LM's step test. An arm with n < 6 cannot in general meet
    a pose: position comes first, so the merit is the position error alone (with an
    orientation term, a step toward the point that turned the tip away was refused, and
    attempts stalled micrometres short of it); once the point is held, steps are judged by
    the orientation (:func:`_verdict`).
    """
    method = params.method
    under = rows == 6 and n < 6 and params.priority
    mode = (_step_kind(method, under, rows, n), rows, np.all(params.w_inv == 1.0), method)
    stall_test = _STALL_POSE if method == METHOD_DLS and rows == 6 else _STALL_POINT
    return mode, under, 1.0 if not under else 0.0, stall_test


@njit_inline
def _loop_arrays(m, q_init, lower, upper, w_inv):
    """
    Return run_attempt's arrays of the iterate, its frames and errors (m joint frames).

    R, p, z: the frames of the last FK (a trial step's); J, Jw (6, n): the Jacobian of the
    iterate and its weighted rows; e, e_new (6,): the errors of the iterate and the trial;
    q: q_init clamped into the limits; q_new, dq (n,): the trial iterate and the step;
    w_eff: the joint weights of a step (w_inv, 0 for a frozen joint). Inlined: the caller's
    loop then works on arrays it made, which the compiler tells apart (made by a call, it
    ran some 10% slower).
    """
    n = q_init.shape[0]
    return (np.empty((m + 1, 3, 3)), np.empty((m + 1, 3)), np.empty((m, 3)), np.zeros((6, n)),
            np.zeros((6, n)), np.zeros(6), np.zeros(6),
            np.minimum(np.maximum(q_init, lower), upper), np.empty(n), np.empty(n), w_inv.copy())


@njit_inline
def _step_arrays(kind, rows, n):
    """
    Return the scratch of run_attempt's step of ``kind``: (G, Gram, A, y, PriorityScratch).

    G: the manipulability's gram; Gram, A: the step's gram matrix and damped system, (rows,
    rows) for _PLAIN (damped_least_squares_wide in leaf calls) and (n, n) for _TALL; with
    unit joint weights, Gram is J Jᵀ (JᵀJ), so the manipulability takes one factorisation
    of it, undamped; y (rows,): the multipliers of _PLAIN. Inlined, as :func:`_loop_arrays`.
    """
    k = n if kind == _TALL else rows
    first = PriorityScratch(np.empty((3, 3)), np.empty(3), np.empty((n, n)), np.empty((3, n)),
                            np.empty(n))
    return (np.empty((min(rows, n), min(rows, n))), np.empty((k, k)), np.empty((k, k)),
            np.empty(rows), first)


@njit_inline
def _first_error(model, target, q, frames, J, e, merit):
    """
    Fill the frames (R, p, z), J and e (6,) of q; return (perr, oerr, E) as run_attempt begins.

    merit: (row weights (w_pos, w_ori), rows, the merit's orientation factor). Inlined, as
    :func:`_loop_arrays` (called, it made the attempt a few % slower).
    """
    R, p, z = frames
    w, rows, c_ori = merit
    kinematics.tip_and_jacobian(model, q.shape[0], q, R, p, z, J)
    d0, d1, d2, r0, r1, r2 = tip_error(p, R, R.shape[0] - 1, target.position, target.rotation,
                                       target.pose)
    perr, oerr = _fill_error(e, w, d0, d1, d2, r0, r1, r2)
    return perr, oerr, _merit(e, rows, c_ori)


@njit
def _amend_step(model, limits, q, obj, Jw, rows, terms, dq):
    """
    Cap dq (n,) for pinv and jt, and add the objectives' null-space step (:func:`_add_null_step`).

    terms: (cap dq, add the null-space step, its gain, the largest step length).
    """
    cap, null_now, gain, max_step = terms
    if cap:
        _cap_in_place(dq, max_step)
    if null_now:
        _add_null_step(model, limits, q, obj, Jw, rows, (gain, max_step), dq)


@njit
def _reached(perr, oerr, tols, pose):
    """Return whether perr [m] and, for a pose, oerr [rad] are within tols (p, o)."""
    return perr <= tols[0] and (not pose or oerr <= tols[1])


@njit
def _begin(perr, oerr, tols, pose, plan, progress):
    """
    Return (stop, secondary, null-space step now, extra) as an iteration of run_attempt begins.

    plan: (objectives on, secondary iterations); progress: (extra, secondary), the secondary
    iterations taken and whether the target was reached once. When it is reached, the attempt
    stops unless objectives are on and secondary iterations remain: these move in the null
    space within a band of 10x the tolerances (:func:`_verdict`); once they are spent, plain
    primary steps bring the error back under tolerance.
    """
    obj_on, secondary_iter = plan
    extra, secondary = progress
    if _reached(perr, oerr, tols, pose):
        if not obj_on or extra >= secondary_iter:
            return True, secondary, False, extra
        secondary = True
    null_now = obj_on and extra < secondary_iter
    return False, secondary, null_now, extra + 1 if secondary else extra


@njit_guarded
def _singular_damping(lam2, wm, E, damp):
    """
    Return λ² with the singularity term λ_s² added when the manipulability wm is below w₀.

    damp: (λ₀, λ_max, w₀); E: the merit. The term fades with the error: near a target that
    itself lies close to a singularity, the steps are short anyway, and full damping would
    stall the solve short of a tight tolerance.
    """
    _, lam_max, w0 = damp
    if wm < w0:
        lam2 += lam_max * lam_max * (1.0 - wm / w0) ** 2 * min(1.0, E / _SINGULAR_MERIT)
    return lam2


@njit
def _tall_step_into(G, Jw, e, rows, w_eff, lam2, A, dq):
    """
    DLS step of kind _TALL into dq (n,): damped_least_squares' tall form in leaf calls; ok.

    G (n, n): JᵀJ of the rows of Jw; A (n, n): the damped system; dq holds Jᵀe, then Δq.
    """
    tall_system_into(G, Jw, e, rows, w_eff, lam2, A, dq)
    ok = ldl_in_place(A)[0]
    if ok:
        ldl_substitute_in_place(A, dq)
    return ok


@njit
def _other_step_into(mode, Jw, e, w_eff, lam2, scratch, dq):
    """Step of kind _FIRST or _PRIMARY into dq (n,); return ok. mode: see _attempt_mode."""
    kind, rows, _, method = mode
    status = _priority_step_into(Jw, e, w_eff, lam2, scratch, dq) if kind == _FIRST else -1
    if status < 0:
        return _primary_step_into(method, Jw, rows, e, w_eff, lam2, dq)
    return status == 1


@njit
def _freeze_pushed(q, dq, lower, upper, w_eff):
    """Set w_eff to 0 for joints on a limit that dq pushes further out; return if any was."""
    frozen = False
    for i in range(q.shape[0]):
        if (q[i] <= lower[i] and dq[i] < 0.0) or (q[i] >= upper[i] and dq[i] > 0.0):
            w_eff[i] = 0.0
            frozen = True
    return frozen


@njit
def _clamped_sum_into(q, dq, lower, upper, q_new):
    """Fill q_new with q + dq clamped into [lower, upper]."""
    for i in range(q.shape[0]):
        q_new[i] = min(max(q[i] + dq[i], lower[i]), upper[i])


@njit
def _copy_into(a, b):
    """Copy the first len(b) entries of a into b."""
    for i in range(b.shape[0]):
        b[i] = a[i]


@njit_guarded
def _gain(E, E_new, oerr, oerr_new, orienting):
    """Return the relative progress of an accepted step: of the orientation when orienting."""
    if orienting:
        return (oerr - oerr_new) / max(oerr, 1e-12)
    return (E - E_new) / max(E, 1e-300)


@njit
def _verdict(E, E_new, errs, errs_new, goal, tols):
    """
    Return (the trial step is taken, it is judged by the orientation) for a step of run_attempt.

    errs, errs_new: (position, orientation) errors before and after the step; goal: (position
    first (n < 6), a secondary step at the goal, pose). With n < 6, once the point is held, a
    step that keeps it and turns the tip closer to the wanted orientation is progress even if
    the merit does not drop; a secondary step is taken while it stays within 10x the
    tolerances.
    """
    under, at_goal, pose = goal
    orienting = under and errs_new[0] <= 0.5 * tols[0]
    better = E_new < E or (orienting and errs_new[1] < errs[1])
    keeps_goal = (at_goal and errs_new[0] <= 10.0 * tols[0]
                  and (not pose or errs_new[1] <= 10.0 * tols[1]))
    return better or keeps_goal, orienting


@njit
def _reject(mu, null_scale, extra, secondary_iter, at_goal):
    """
    Return (μ, null-space scale, secondary steps, stop) after a rejected LM step.

    The current Jacobian stays and the null-space step is shortened, since its second-order
    drift may be what spoilt the step; damping grows unless only the null-space step moved
    (at_goal: secondary iterations at the goal), whose iterations end once the scale falls
    below 1e-3. stop: μ reached its cap.
    """
    null_scale *= 0.5
    if at_goal:
        return mu, null_scale, secondary_iter if null_scale < 1e-3 else extra, False
    mu = min(mu * 10.0, _MU_MAX)
    return mu, null_scale, extra, mu >= _MU_MAX


@njit
def _after_step(gain, stall, mu, null_scale, stall_test):
    """
    Return (stall, μ, null-space scale) after a step taken with relative progress ``gain``.

    stall counts steps in a row whose gain is below stall_test's ratio (see _STALL_POSE);
    μ shrinks and the null-space step grows back toward its full length.
    """
    stall = stall + 1 if gain < stall_test[0] else 0
    return stall, max(mu * 0.3, _MU_MIN), min(null_scale * 1.5, 1.0)


@njit
def run_attempt(model, limits, target, params, obj, q_init):
    """Run one attempt from ``q_init`` (n,); return (q, iterations, perr, oerr, converged)."""
    # (ChainModel, Limits, Target, DlsParams; obj: objectives.pack_objectives' record)
    n, m, lower, upper = q_init.shape[0], model.origin_R.shape[0], limits.lower, limits.upper
    pose, method, w_inv = target.pose, params.method, params.w_inv
    w, tols, damp = (params.w_pos, params.w_ori), (params.tol_p, params.tol_o), \
        (params.lam0, params.lam_max, params.w0)
    plan, rows = (params.objectives_on, params.secondary_iter), 6 if pose else 3
    mode, under, c_ori, stall_test = _attempt_mode(params, rows, n)
    kind, unit_weights = mode[0], mode[2]
    R, p, z, J, Jw, e, e_new, q, q_new, dq, w_eff = _loop_arrays(m, q_init, lower, upper, w_inv)
    G, Gram, A, y, first_scratch = _step_arrays(kind, rows, n)
    perr, oerr, E = _first_error(model, target, q, (R, p, z), J, e, (w, rows, c_ori))
    mu, null_scale, stall, it, extra, secondary = 1.0, 1.0, 0, 0, 0, False
    while it < params.max_iter:
        stop, secondary, null_now, extra = _begin(perr, oerr, tols, pose, plan, (extra, secondary))
        if stop:
            break
        it += 1
        _weighted_rows(J, rows, w[0], w[1], Jw)
        lam2 = mu * (E + damp[0] * damp[0])
        if kind == _PLAIN:
            weighted_gram_into(Jw, w_inv, Gram)
        elif kind == _TALL:
            column_gram_into(Jw, rows, Gram)
        if method == METHOD_DLS and damp[1] > 0.0:
            if (kind == _PLAIN and unit_weights) or kind == _TALL:
                shifted_into(Gram, 0.0, A)
                wm = math.sqrt(ldl_in_place(A)[1])
            else:
                wm = sqrt_det_gram_into(Jw, rows, G)
            lam2 = _singular_damping(lam2, wm, E, damp)
        _copy_into(w_inv, w_eff)
        # The step; joints on a limit it pushes further out are frozen, and DLS solves again.
        for solve in range(2):
            if kind == _PLAIN:
                if solve == 1:
                    weighted_gram_into(Jw, w_eff, Gram)
                shifted_into(Gram, lam2, A)
                ok = ldl_in_place(A)[0]
                if ok:
                    _copy_into(e, y)        # (y has the first rows entries)
                    ldl_substitute_in_place(A, y)
                    step_from_multipliers(Jw, y, w_eff, dq)
            elif kind == _TALL:
                ok = _tall_step_into(Gram, Jw, e, rows, w_eff, lam2, A, dq)
            else:
                ok = _other_step_into(mode, Jw, e, w_eff, lam2, first_scratch, dq)
            if (not ok or solve == 1 or method != METHOD_DLS
                    or not _freeze_pushed(q, dq, lower, upper, w_eff)):
                break
        if not ok:
            mu = min(mu * 10.0, _MU_MAX)
            continue
        if method != METHOD_DLS or null_now:
            _amend_step(model, limits, q, obj, Jw, rows, (method != METHOD_DLS, null_now,
                        params.k_null * null_scale, params.max_step), dq)
        _clamped_sum_into(q, dq, lower, upper, q_new)
        kinematics.forward_kinematics(model, q_new, R, p, z)
        d0, d1, d2, r0, r1, r2 = tip_error(p, R, m, target.position, target.rotation, pose)
        perr_new, oerr_new = _fill_error(e_new, w, d0, d1, d2, r0, r1, r2)
        E_new = _merit(e_new, rows, c_ori)
        taken, orienting = _verdict(E, E_new, (perr, oerr), (perr_new, oerr_new),
                                    (under, secondary and null_now, pose), tols)
        if method == METHOD_DLS and not taken:
            mu, null_scale, extra, stop = _reject(mu, null_scale, extra, plan[1],
                                                  secondary and null_now)
            if stop:
                break
            continue
        gain = _gain(E, E_new, oerr, oerr_new, orienting)
        kinematics.jacobian_from_frames(model, n, p, z, J)  # the frames are q_new's
        _copy_into(q_new, q)
        _copy_into(e_new, e)
        perr, oerr, E = perr_new, oerr_new, E_new
        stall, mu, null_scale = _after_step(gain, stall, mu, null_scale, stall_test)
        if stall >= stall_test[1] and not secondary:
            break
    return q, it, perr, oerr, _reached(perr, oerr, tols, pose)
