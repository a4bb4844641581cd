# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
FABRIK and CCD on a URDF arm: joint-position FABRIK mapped back to joint angles.

The points of the arm are the origins of its moving joints p_0 ... p_{m-1} and the tip p_m,
from forward kinematics at the current q. One FABRIK iteration is

- forward pass (points only): t_m <- target; for a pose target, t_{m-1} is the last joint's
  origin carried rigidly by the target frame (that origin is fixed in the tip frame, so this
  is where it must go); then for k = m-1 ... 0, t_k <- t_{k+1} + d_k u(p_k - t_{k+1}),
  d_k = |p_{k+1} - p_k|. Joints that share a point (a spherical wrist, Panda's shoulder) have
  d_k = 0 and share the target point.
- backward pass (joint angles): for k = 0 ... m-1 in order, with joints 0 ... k-1 already
  set, joint k takes the angle about its axis that best aligns the points beyond it with
  their FABRIK targets in least squares: with v_i = p_i - p_k and w_i = t_i - p_k,
  min_theta sum_i |Rot(a, theta) v_i - w_i|^2 has the closed form
  theta = atan2(sum_i w_i . (a x v_i), sum_i w_i . (v_i - (a . v_i) a)). Points on the axis
  drop out by themselves. A prismatic joint takes the mean displacement along its axis.
  The value is clamped into the joint limits, and the points beyond are moved with it, so
  the next joint sees where they really are: the backward pass yields a valid q, and its
  forward kinematics is the pose that is judged (never the FABRIK points).

For a pose target two virtual points ride on the tip frame, at ``s`` along its x and y axes,
with their targets on the target frame; aligning them aligns the orientation.

CCD (``MODE_CCD``) is the same machinery without the forward pass: joints from the tip to the
base each take the angle that best aligns the tip (and the virtual points) with the target.

The loop stops when within tolerance, when the tip moved less than ``min_change`` in one
iteration, or at the iteration cap, and keeps the best q seen. Everything runs in one
compiled kernel per attempt; restarts are in :mod:`ik_node.solvers.fabrik_method`.
"""

import math
from typing import NamedTuple

from ik_node._jit import njit, njit_inline
from ik_node.model import kinematics
from ik_node.spatial.linalg import damped_least_squares
from ik_node.spatial.rotations import rotation_about_axis, rotation_vector_from_matrix
import numpy as np

__all__ = ['arm_attempt', 'ArmParams', 'ArmPoints', 'MODE_FABRIK', 'MODE_CCD']

MODE_FABRIK = 0
MODE_CCD = 1

# A joint whose lever on the points it aligns is below this fraction of their distance from
# it does not move: the points lie on (or next to) its axis, such as a wrist roll about a
# position target, or a KR 210's tool 0.2 mm off its flange axis. The angle atan2 gives such a
# joint comes from a residual far larger than its lever, so it could be anything, up to a
# flip by pi, and it would jump from one warm-started step to the next (0.74 rad per 1 mm on
# a KR 210); the other joints, and the damped least-squares polish, do the work instead.
_MIN_LEVER = 1e-2


class ArmParams(NamedTuple):
    """
    Parameters of one FABRIK/CCD attempt (:func:`arm_attempt`).

    mode: MODE_FABRIK or MODE_CCD. tol_p [m], tol_o [rad]: tolerances. max_iter: iteration
    cap. min_change [m]: stall threshold of the tip's motion per iteration. s_virtual [m]:
    offset of the two virtual orientation points. tip_weight: weight of the tip (and virtual
    points) against joint points. next_only: each joint aligns only the next point off its
    axis. window, progress: stop when the best score did not fall below progress times its
    value ``window`` iterations ago (window 0: off). polish_iter: damped least-squares steps
    that finish an attempt stopping short of the tolerance.
    """

    mode: int
    tol_p: float
    tol_o: float
    max_iter: int
    min_change: float
    s_virtual: float
    tip_weight: float
    next_only: bool
    window: int
    progress: float
    polish_iter: int


class ArmPoints(NamedTuple):
    """
    The points of one attempt, updated in place as joints move.

    R_a (m + 1, 3, 3), p (m + 1, 3), z (m, 3): the frames, origins (then the tip) and unit
    axes of the moving joints from forward kinematics; Rt (3, 3): the tip frame; vp (2, 3),
    vt (2, 3): the virtual orientation points and their targets; tgt (m + 1, 3): the FABRIK
    targets of the points; weights (m + 1,): the weight of each point in a joint's alignment.
    """

    R_a: np.ndarray
    p: np.ndarray
    z: np.ndarray
    Rt: np.ndarray
    vp: np.ndarray
    vt: np.ndarray
    tgt: np.ndarray
    weights: np.ndarray


@njit
def _orientation_error(R, tR):
    """Return the angle [rad] between rotations R and tR."""
    # M = tR^T R
    t = 0.0
    sx = 0.0
    sy = 0.0
    sz = 0.0
    M = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            M[i, j] = tR[0, i] * R[0, j] + tR[1, i] * R[1, j] + tR[2, i] * R[2, j]
    t = M[0, 0] + M[1, 1] + M[2, 2]
    sx = M[2, 1] - M[1, 2]
    sy = M[0, 2] - M[2, 0]
    sz = M[1, 0] - M[0, 1]
    return math.atan2(math.sqrt(sx * sx + sy * sy + sz * sz), t - 1.0)


@njit
def _rotate_about(P, i, o, R3):
    """Rotate row i of P about point o by rotation R3, in place."""
    x = P[i, 0] - o[0]
    y = P[i, 1] - o[1]
    z = P[i, 2] - o[2]
    P[i, 0] = o[0] + R3[0, 0] * x + R3[0, 1] * y + R3[0, 2] * z
    P[i, 1] = o[1] + R3[1, 0] * x + R3[1, 1] * y + R3[1, 2] * z
    P[i, 2] = o[2] + R3[2, 0] * x + R3[2, 1] * y + R3[2, 2] * z


@njit_inline
def _follow_joint(model, q, pts, nv, s_virtual, coupled, k, dv):
    """Update the points beyond joint k after it turned or slid by ``dv``."""
    if dv == 0.0:
        return
    if coupled:
        # A joint that drives another one (mimic): recompute every point from FK.
        _refresh(model, q, pts, nv, s_virtual)
    else:
        _move_beyond(k, pts, nv, model.types, pts.z[k].copy(), pts.p[k].copy(), dv)


@njit
def _set_joint(q, k, delta, index, mult, lower, upper, continuous):
    """Move joint value k by ``delta`` (clamped); return the change really made."""
    c = index[k]
    s = mult[k]
    if s == 0.0:
        return 0.0
    old = q[c]
    new = old + delta / s
    if continuous[c]:
        new = (new + math.pi) % (2.0 * math.pi) - math.pi
        q[c] = new
        d = new - old
        return s * ((d + math.pi) % (2.0 * math.pi) - math.pi)
    if new < lower[c]:
        new = lower[c]
    elif new > upper[c]:
        new = upper[c]
    q[c] = new
    return s * (new - old)


@njit_inline
def _align_joint(k, pts, types, nv, w_virtual, first):
    """
    Return the best motion of joint k: an angle [rad] or a displacement [m].

    Points first ... m of ``pts.p`` are aligned with ``pts.tgt`` (``pts.weights``), and the
    nv virtual points ``pts.vp`` with ``pts.vt``; joint k's origin is p[k], its unit axis z[k].
    """
    p = pts.p
    tgt = pts.tgt
    weights = pts.weights
    vp = pts.vp
    vt = pts.vt
    m = p.shape[0] - 1
    a = pts.z[k]
    o = p[k]
    if types[k] == kinematics.JOINT_PRISMATIC:
        num = 0.0
        den = 0.0
        for i in range(first, m + 1):
            w = weights[i]
            if w == 0.0:
                continue
            num += w * ((tgt[i, 0] - p[i, 0]) * a[0] + (tgt[i, 1] - p[i, 1]) * a[1]
                        + (tgt[i, 2] - p[i, 2]) * a[2])
            den += w
        for i in range(nv):
            num += w_virtual * ((vt[i, 0] - vp[i, 0]) * a[0] + (vt[i, 1] - vp[i, 1]) * a[1]
                                + (vt[i, 2] - vp[i, 2]) * a[2])
            den += w_virtual
        return num / den if den > 0.0 else 0.0
    S = 0.0
    C = 0.0
    lever = 0.0
    reach = 0.0
    for i in range(first, m + 1 + nv):
        if i <= m:
            w = weights[i]
            v0 = p[i, 0] - o[0]
            v1 = p[i, 1] - o[1]
            v2 = p[i, 2] - o[2]
            w0 = tgt[i, 0] - o[0]
            w1 = tgt[i, 1] - o[1]
            w2 = tgt[i, 2] - o[2]
        else:
            w = w_virtual
            v0 = vp[i - m - 1, 0] - o[0]
            v1 = vp[i - m - 1, 1] - o[1]
            v2 = vp[i - m - 1, 2] - o[2]
            w0 = vt[i - m - 1, 0] - o[0]
            w1 = vt[i - m - 1, 1] - o[1]
            w2 = vt[i - m - 1, 2] - o[2]
        if w == 0.0:
            continue
        av = a[0] * v0 + a[1] * v1 + a[2] * v2
        cx = a[1] * v2 - a[2] * v1
        cy = a[2] * v0 - a[0] * v2
        cz = a[0] * v1 - a[1] * v0
        S += w * (w0 * cx + w1 * cy + w2 * cz)
        C += w * (w0 * (v0 - av * a[0]) + w1 * (v1 - av * a[1]) + w2 * (v2 - av * a[2]))
        wn = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
        lever += w * math.sqrt(cx * cx + cy * cy + cz * cz) * wn
        reach += w * math.sqrt(v0 * v0 + v1 * v1 + v2 * v2) * wn
    if lever <= _MIN_LEVER * reach or (S == 0.0 and C == 0.0):
        return 0.0
    return math.atan2(S, C)


@njit_inline
def _move_beyond(k, pts, nv, types, a, o, dv):
    """Apply joint k's motion dv to everything beyond it: points, axes, tip frame, virtuals."""
    p = pts.p
    z = pts.z
    Rt = pts.Rt
    vp = pts.vp
    m = p.shape[0] - 1
    if types[k] == kinematics.JOINT_PRISMATIC:
        for i in range(k + 1, m + 1):
            for j in range(3):
                p[i, j] += dv * a[j]
        for i in range(nv):
            for j in range(3):
                vp[i, j] += dv * a[j]
        return
    R3 = rotation_about_axis(a, dv)
    for i in range(k + 1, m + 1):
        _rotate_about(p, i, o, R3)
    for i in range(k + 1, m):
        x = z[i, 0]
        y = z[i, 1]
        w = z[i, 2]
        for j in range(3):
            z[i, j] = R3[j, 0] * x + R3[j, 1] * y + R3[j, 2] * w
    for i in range(nv):
        _rotate_about(vp, i, o, R3)
    for c in range(3):
        x = Rt[0, c]
        y = Rt[1, c]
        w = Rt[2, c]
        for j in range(3):
            Rt[j, c] = R3[j, 0] * x + R3[j, 1] * y + R3[j, 2] * w


@njit_inline
def _refresh(model, q, pts, nv, s_virtual):
    """Recompute FK into p, z and the tip frame Rt, and the virtual points from them."""
    p = pts.p
    Rt = pts.Rt
    vp = pts.vp
    m = p.shape[0] - 1
    kinematics.forward_kinematics(model, q, pts.R_a, p, pts.z)
    Rt[:, :] = pts.R_a[m]
    for i in range(nv):
        for j in range(3):
            vp[i, j] = p[m, j] + s_virtual * Rt[j, i]


@njit_inline
def _start_q(limits, q_init):
    """Return q_init clamped into the limits, continuous joints wrapped into [-pi, pi)."""
    q = np.minimum(np.maximum(q_init, limits.lower), limits.upper)
    for c in range(q.shape[0]):
        if limits.continuous[c]:
            q[c] = (q_init[c] + math.pi) % (2.0 * math.pi) - math.pi
    return q


@njit_inline
def _points(m, target, params):
    """Return the ArmPoints of an attempt: scratch, and the virtual points' targets set."""
    tp = target.position
    tR = target.rotation
    weights = np.ones(m + 1)
    weights[m] = params.tip_weight
    vt = np.empty((2, 3))
    for i in range(2):
        for j in range(3):
            vt[i, j] = tp[j] + params.s_virtual * tR[j, i]
    return ArmPoints(np.empty((m + 1, 3, 3)), np.empty((m + 1, 3)), np.empty((m, 3)),
                     np.empty((3, 3)), np.empty((2, 3)), vt, np.empty((m + 1, 3)), weights)


@njit_inline
def _followers(index, m):
    """
    Return (m,) True for joints that follow an earlier one (mimic: they share a q entry).

    Moving one moves the others, so FK is recomputed after each move, and a follower is not
    visited: its master moves it.
    """
    follower = np.zeros(m, dtype=np.bool_)
    for k in range(m):
        for k2 in range(k):
            if index[k2] == index[k]:
                follower[k] = True
    return follower


@njit_inline
def _forward_pass(pts, target, v):
    """Run FABRIK's forward pass: the targets tgt of the points, from the tip to the base."""
    p = pts.p
    tgt = pts.tgt
    Rt = pts.Rt
    tp = target.position
    tR = target.rotation
    m = p.shape[0] - 1
    for j in range(3):
        tgt[m, j] = tp[j]
    start = m - 1
    if target.pose and m >= 1:
        # the last joint origin is fixed in the tip frame: carry it with the target
        for j in range(3):
            v[j] = p[m - 1, j] - p[m, j]
        for j in range(3):
            acc = 0.0
            for r in range(3):
                # tR Rt^T v
                acc += tR[j, r] * (Rt[0, r] * v[0] + Rt[1, r] * v[1] + Rt[2, r] * v[2])
            tgt[m - 1, j] = tp[j] + acc
        start = m - 2
    for k in range(start, -1, -1):
        d = math.sqrt((p[k + 1, 0] - p[k, 0]) ** 2 + (p[k + 1, 1] - p[k, 1]) ** 2
                      + (p[k + 1, 2] - p[k, 2]) ** 2)
        for j in range(3):
            v[j] = p[k, j] - tgt[k + 1, j]
        nrm = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
        if nrm > 0.0:
            for j in range(3):
                tgt[k, j] = tgt[k + 1, j] + d * v[j] / nrm
        else:
            for j in range(3):
                tgt[k, j] = tgt[k + 1, j]


@njit_inline
def _next_off_axis(pts, k):
    """Weigh only the first point beyond joint k that is off its axis (``next_only``)."""
    p = pts.p
    z = pts.z
    weights = pts.weights
    m = p.shape[0] - 1
    for i in range(k + 1, m):
        weights[i] = 0.0
    for i in range(k + 1, m):
        dx = p[i, 0] - p[k, 0]
        dy = p[i, 1] - p[k, 1]
        dz = p[i, 2] - p[k, 2]
        ad = dx * z[k, 0] + dy * z[k, 1] + dz * z[k, 2]
        if dx * dx + dy * dy + dz * dz - ad * ad > 1e-12:
            weights[i] = 1.0
            break


@njit_inline
def _joint_pass(model, limits, q, pts, params, follower, coupled, nv):
    """
    Move each joint to its best alignment, points following.

    FABRIK (params.mode): base to tip, each joint aligning the points beyond it with their
    targets; CCD: tip to base, each joint aligning the tip (and the virtual points).
    """
    m = pts.p.shape[0] - 1
    fabrik = params.mode == MODE_FABRIK
    for step in range(m):
        k = step if fabrik else m - 1 - step
        if follower[k]:
            continue
        if fabrik and params.next_only:
            _next_off_axis(pts, k)
        dv = _align_joint(k, pts, model.types, nv, params.tip_weight, k + 1 if fabrik else m)
        dv = _set_joint(q, k, dv, model.index, model.mult, limits.lower, limits.upper,
                        limits.continuous)
        _follow_joint(model, q, pts, nv, params.s_virtual, coupled, k, dv)


@njit_inline
def _refresh_tip(pts, nv, s_virtual):
    """Set the tip frame Rt from the last FK's frames, and the virtual points from it."""
    p = pts.p
    Rt = pts.Rt
    vp = pts.vp
    m = p.shape[0] - 1
    Rt[:, :] = pts.R_a[m]
    for i in range(nv):
        for j in range(3):
            vp[i, j] = p[m, j] + s_virtual * Rt[j, i]


@njit
def arm_attempt(model, limits, target, params, q_init):
    """
    Run one FABRIK or CCD attempt (params.mode) from ``q_init`` (n,).

    model: ChainModel; limits: Limits; target: Target; params: ArmParams.
    Returns (best q, iterations, position error [m], orientation error [rad], converged,
    polish iterations); when converged, the best q is the one that met the tolerances.
    """
    tp = target.position
    tR = target.rotation
    pose = target.pose
    tol_p = params.tol_p
    tol_o = params.tol_o
    window = params.window
    m = model.origin_R.shape[0]
    q = _start_q(limits, q_init)
    pts = _points(m, target, params)
    R_a = pts.R_a
    p = pts.p
    nv = 2 if pose else 0
    best_q = q.copy()
    best_score = math.inf
    best_p = math.inf
    best_o = math.inf
    prev = np.empty(3)
    v = np.empty(3)
    follower = _followers(model.index, m)
    coupled = follower.any()      # not a constant False: numba would compile for each value
    hist = np.empty(max(window, 1))
    it = 0
    ok = False
    while True:
        kinematics.forward_kinematics(model, q, R_a, p, pts.z)
        perr = math.sqrt((p[m, 0] - tp[0]) ** 2 + (p[m, 1] - tp[1]) ** 2
                         + (p[m, 2] - tp[2]) ** 2)
        oerr = _orientation_error(R_a[m], tR) if pose else 0.0
        score = perr / tol_p + (oerr / tol_o if pose else 0.0)
        met = perr <= tol_p and (not pose or oerr <= tol_o)
        if score < best_score or met:
            # When met, the q returned is the one that met the tolerances, whatever scored
            # best before.
            best_score = min(score, best_score)
            best_q[:] = q
            best_p = perr
            best_o = oerr
        if met:
            ok = True
            break
        if it > 0:
            moved = math.sqrt((p[m, 0] - prev[0]) ** 2 + (p[m, 1] - prev[1]) ** 2
                              + (p[m, 2] - prev[2]) ** 2)
            if moved < params.min_change and (not pose or oerr <= tol_o):
                break
        # slow progress: the best score did not halve over the last ``window`` iterations
        if window > 0:
            hist[it % window] = best_score
            if it >= window and best_score > params.progress * hist[(it + 1) % window]:
                break
        if it >= params.max_iter:
            break
        it += 1
        for j in range(3):
            prev[j] = p[m, j]
        _refresh_tip(pts, nv, params.s_virtual)
        if params.mode == MODE_FABRIK:
            _forward_pass(pts, target, v)
        else:
            for j in range(3):
                pts.tgt[m, j] = tp[j]
        _joint_pass(model, limits, q, pts, params, follower, coupled, nv)
    polish_it = 0
    if not ok and params.polish_iter > 0:
        best_q, polish_it, best_p, best_o, ok = _polish(model, limits, target, params, best_q,
                                                        best_p, best_o)
    return best_q, it, best_p, best_o, ok, polish_it


@njit
def _pose_residual(p_tip, R_tip, tp, tR, pose, e):
    """Fill e with [tp - p; rotvec(tR R^T)]; return (position error, orientation error)."""
    for j in range(3):
        e[j] = tp[j] - p_tip[j]
    perr = math.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2])
    if not pose:
        return perr, 0.0
    w = rotation_vector_from_matrix(tR @ R_tip.T)
    for j in range(3):
        e[3 + j] = w[j]
    return perr, math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])


@njit
def _polish(model, limits, target, params, q_start, perr, oerr):
    """
    Finish with damped least-squares steps (Levenberg-Marquardt); return like arm_attempt.

    Used only when the FABRIK or CCD iterations stopped short of the tolerance; each step
    solves (J J^T + lam2 I) y = e, dq = J^T y, clamps into the limits and is kept only if it
    lowers the error (else lam2 grows tenfold).
    """
    lower = limits.lower
    upper = limits.upper
    tol_p = params.tol_p
    tol_o = params.tol_o
    max_iter = params.polish_iter
    tp = target.position
    tR = target.rotation
    pose = target.pose
    m = model.origin_R.shape[0]
    n = q_start.shape[0]
    rows = 6 if pose else 3
    R_a = np.empty((m + 1, 3, 3))
    p = np.empty((m + 1, 3))
    z = np.empty((m, 3))
    J = np.zeros((6, n))
    e = np.zeros(6)
    e_new = np.zeros(6)
    ones = np.ones(n)
    q = q_start.copy()
    kinematics.tip_and_jacobian(model, n, q, R_a, p, z, J)
    perr, oerr = _pose_residual(p[m], R_a[m], tp, tR, pose, e)
    E = e[:rows] @ e[:rows]
    lam2 = 1e-6
    it = 0
    ok = False
    while it < max_iter:
        it += 1
        dq, good = damped_least_squares(np.ascontiguousarray(J[:rows]), e[:rows].copy(), ones,
                                        lam2 * (1.0 + E))
        if not good:
            lam2 *= 10.0
            continue
        q_new = np.minimum(np.maximum(q + dq, lower), upper)
        kinematics.forward_kinematics(model, q_new, R_a, p, z)
        pn, on = _pose_residual(p[m], R_a[m], tp, tR, pose, e_new)
        E_new = e_new[:rows] @ e_new[:rows]
        if E_new < E:
            q = q_new
            E = E_new
            perr = pn
            oerr = on
            lam2 = max(lam2 * 0.1, 1e-9)
            if perr <= tol_p and (not pose or oerr <= tol_o):
                ok = True
                break
            kinematics.tip_and_jacobian(model, n, q, R_a, p, z, J)
            _pose_residual(p[m], R_a[m], tp, tR, pose, e)
        else:
            lam2 *= 10.0
            if lam2 > 1e6:
                break
    return q, it, perr, oerr, ok
