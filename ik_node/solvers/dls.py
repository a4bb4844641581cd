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

from ik_node._jit import njit, njit_inline
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


@njit
def run_attempt(model, limits, target, params, obj, q_init):
    """
    Run one solve attempt from ``q_init`` (n,); return (q, iterations, perr, oerr, converged).

    model: ChainModel; limits: Limits; target: Target; params: DlsParams; obj: the packed
    objectives (:func:`ik_node.solvers.objectives.pack_objectives`), used when
    params.objectives_on.
    """
    n = q_init.shape[0]
    lower = limits.lower
    upper = limits.upper
    tp = target.position
    tR = target.rotation
    pose = target.pose
    method = params.method
    w_pos = params.w_pos
    w_ori = params.w_ori
    w_inv = params.w_inv
    tol_p = params.tol_p
    tol_o = params.tol_o
    max_iter = params.max_iter
    lam0 = params.lam0
    lam_max = params.lam_max
    w0 = params.w0
    obj_on = params.objectives_on
    k_null = params.k_null
    max_step = params.max_step
    secondary_iter = params.secondary_iter
    priority = params.priority
    m = model.origin_R.shape[0]
    rows = 6 if pose else 3
    # Every array of the loop is made here and never rebound: an array variable rebound or
    # made in the loop costs reference count updates at each step (see ik_node.model.kinematics).
    # R, p, z: the frames of the last FK (a trial step's); J, e: those of q, the current
    # iterate, updated when a step is taken (a rejected step leaves them as they were).
    R = np.empty((m + 1, 3, 3))
    p = np.empty((m + 1, 3))
    z = np.empty((m, 3))
    J = np.zeros((6, n))
    Jw = np.zeros((6, n))
    e = np.zeros(6)
    e_new = np.zeros(6)
    w_eff = w_inv.copy()

    q = np.minimum(np.maximum(q_init, lower), upper)
    q_new = np.empty(n)
    dq = np.empty(n)
    # Scratch of the manipulability and of the DLS step (rows <= n).
    G = np.empty((min(rows, n), min(rows, n)))
    Gw = np.empty((rows, rows))
    A_s = np.empty((rows, rows))
    # Scratch of the tall form: JᵀJ and the damped system (n, n).
    Gt = np.empty((n, n))
    At = np.empty((n, n))
    y_s = np.empty(rows)
    # Scratch of the position-first step (n < 6): Gt holds N_p there.
    S3 = np.empty((3, 3))
    y3 = np.empty(3)
    first_scratch = PriorityScratch(S3, y3, Gt, np.empty((3, n)), np.empty(n))
    kinematics.tip_and_jacobian(model, n, q, R, p, z, J)
    d0, d1, d2, r0, r1, r2 = tip_error(p, R, m, tp, tR, pose)
    perr, oerr = _fill_error(e, (w_pos, w_ori), d0, d1, d2, r0, r1, r2)
    # Merit of LM's step test. An arm with n < 6 cannot in general meet a pose: position
    # comes first, so the merit is the position error alone (with an orientation term, a
    # step toward the point that turned the tip away was refused, and attempts stalled
    # micrometres short of it); once the point is held, steps are judged by the
    # orientation ('orienting' below).
    under = pose and n < 6 and priority
    # The common step, taken without _primary_step's slices and returned arrays (the loop
    # is a leaf of inlined helpers, see ik_node.model.kinematics).
    plain = method == METHOD_DLS and not under and rows <= n
    # The same for more task rows than joints (a 3-joint leg given a pose).
    tall = method == METHOD_DLS and not under and rows > n
    # And position first (n < 6, at least the three joints the position rows need).
    first = method == METHOD_DLS and under and n >= 3
    unit_weights = True
    for i in range(n):
        unit_weights = unit_weights and w_inv[i] == 1.0
    c_ori = 1.0 if not under else 0.0
    stall_ratio, stall_count = _STALL_POSE if method == METHOD_DLS and pose else _STALL_POINT
    E = _merit(e, rows, c_ori)
    mu = 1.0
    null_scale = 1.0
    stall = 0
    it = 0
    extra = 0
    secondary = False
    while it < max_iter:
        reached = perr <= tol_p and (not pose or oerr <= tol_o)
        if reached:
            if not obj_on or extra >= secondary_iter:
                break
            secondary = True
        # Secondary iterations move in the null space within a band of 10x the tolerances;
        # once they are spent, plain primary steps bring the error back under tolerance.
        null_now = obj_on and extra < secondary_iter
        if secondary:
            extra += 1
        it += 1
        _weighted_rows(J, rows, w_pos, w_ori, Jw)
        lam2 = mu * (E + lam0 * lam0)
        if plain:
            weighted_gram_into(Jw, w_inv, Gw)
        elif tall:
            column_gram_into(Jw, rows, Gt)
        if method == METHOD_DLS and lam_max > 0.0:
            if plain and unit_weights:
                # J Jᵀ is the step's gram matrix: factor it once more, undamped.
                shifted_into(Gw, 0.0, A_s)
                wm = math.sqrt(ldl_in_place(A_s)[1])
            elif tall:
                shifted_into(Gt, 0.0, At)
                wm = math.sqrt(ldl_in_place(At)[1])
            else:
                wm = sqrt_det_gram_into(Jw, rows, G)
            if wm < w0:
                # Fades with the error: near a target that itself lies close to a
                # singularity, the steps are short anyway, and full damping would stall
                # the solve short of a tight tolerance.
                lam2 += (lam_max * lam_max * (1.0 - wm / w0) ** 2
                         * min(1.0, E / _SINGULAR_MERIT))
        for i in range(n):
            w_eff[i] = w_inv[i]
        # The step; then joints on a limit that it pushes further out are frozen, and DLS
        # solves again without them.
        for solve in range(2):
            if plain:
                # damped_least_squares_wide, written out in leaf calls (see
                # ik_node.model.kinematics): Gw holds J W Jᵀ.
                if solve == 1:
                    weighted_gram_into(Jw, w_eff, Gw)
                shifted_into(Gw, lam2, A_s)
                ok = ldl_in_place(A_s)[0]
                if ok:
                    for i in range(rows):
                        y_s[i] = e[i]
                    ldl_substitute_in_place(A_s, y_s)
                    step_from_multipliers(Jw, y_s, w_eff, dq)
            elif tall:
                # damped_least_squares' tall form, in leaf calls; dq holds Jᵀe, then Δq.
                tall_system_into(Gt, Jw, e, rows, w_eff, lam2, At, dq)
                ok = ldl_in_place(At)[0]
                if ok:
                    ldl_substitute_in_place(At, dq)
            else:
                status = _priority_step_into(Jw, e, w_eff, lam2, first_scratch, dq) \
                    if first else -1
                ok = status == 1
                if status < 0:
                    ok = _primary_step_into(method, Jw, rows, e, w_eff, lam2, dq)
            if not ok or solve == 1 or method != METHOD_DLS:
                break
            frozen = False
            for i in range(n):
                if (q[i] <= lower[i] and dq[i] < 0.0) or (q[i] >= upper[i] and dq[i] > 0.0):
                    w_eff[i] = 0.0
                    frozen = True
            if not frozen:
                break
        if not ok:
            mu = min(mu * 10.0, _MU_MAX)
            continue
        if method != METHOD_DLS:
            _cap_in_place(dq, max_step)
        if null_now:
            _add_null_step(model, limits, q, obj, Jw, rows, (k_null * null_scale, max_step),
                           dq)
        # Into the spare buffer (no array made per step): q + dq clamped into the limits.
        for i in range(n):
            q_new[i] = min(max(q[i] + dq[i], lower[i]), upper[i])
        kinematics.forward_kinematics(model, q_new, R, p, z)
        d0, d1, d2, r0, r1, r2 = tip_error(p, R, m, tp, tR, pose)
        perr_new, oerr_new = _fill_error(e_new, (w_pos, w_ori), d0, d1, d2, r0, r1, r2)
        E_new = _merit(e_new, rows, c_ori)
        # With n < 6, once the point is held, a step that keeps it and turns the tip
        # closer to the wanted orientation is progress even if the merit does not drop.
        orienting = under and perr_new <= 0.5 * tol_p
        better = E_new < E or (orienting and oerr_new < oerr)
        keeps_goal = (secondary and null_now and perr_new <= 10.0 * tol_p
                      and (not pose or oerr_new <= 10.0 * tol_o))
        if method == METHOD_DLS and not better and not keeps_goal:
            # Rejected LM step: keep the current Jacobian and shorten the null-space step,
            # whose second-order drift may be what spoilt the step; damp harder unless only
            # the null-space step moved (secondary iterations at the goal).
            null_scale *= 0.5
            if secondary and null_now:
                if null_scale < 1e-3:
                    extra = secondary_iter
                continue
            mu = min(mu * 10.0, _MU_MAX)
            if mu >= _MU_MAX:
                break
            continue
        if orienting:
            gain = (oerr - oerr_new) / max(oerr, 1e-12)
        else:
            gain = (E - E_new) / max(E, 1e-300)
        # Take the step: the frames are q_new's.
        kinematics.jacobian_from_frames(model, n, p, z, J)
        for i in range(n):
            q[i] = q_new[i]
        for i in range(6):
            e[i] = e_new[i]
        perr, oerr, E = perr_new, oerr_new, E_new
        if gain < stall_ratio:
            stall += 1
            if stall >= stall_count and not secondary:
                break
        else:
            stall = 0
        mu = max(mu * 0.3, _MU_MIN)
        null_scale = min(null_scale * 1.5, 1.0)
    converged = perr <= tol_p and (not pose or oerr <= tol_o)
    return q, it, perr, oerr, converged
