# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Joint constraints for point-chain FABRIK: hinges, elliptic-cone ball joints, twist limits.

Geometry. Bone j runs from point p_j to p_{j+1}; its frame R_j (3, 3) has the bone along its
local +z axis. Joint j joins the parent frame P (R_{j-1}, or the root frame for j = 0) to
bone j. Each joint has a rest rotation B (3, 3): the rest frame of bone j is P B, and the
constraint is stated in that rest frame.

- :class:`BallJoint`: the bone direction u = (P B)^T d (rest-frame coordinates) must lie in
  the cone {u_z > 0, (u_x / (u_z tan a_x))^2 + (u_y / (u_z tan a_y))^2 <= 1}, where a_x is the
  +x or -x half-angle and a_y the +y or -y half-angle depending on the quadrant. The cross
  section of the cone at unit distance is made of four quarter ellipses (an ellipse when the
  opposite half-angles are equal), as in Aristidou & Lasenby, "FABRIK", Graph. Models 2011.
  The frame is R_j = P B S(u) Rz(tau), S(u) the shortest rotation taking +z to u, and the
  twist tau about the bone must lie in [twist_lower, twist_upper].
- :class:`HingeJoint`: R_j = P B Rot(a, theta) with theta in [lower, upper], a the hinge axis
  in the rest frame (normally perpendicular to +z, so the bone turns in a plane).
- ``None`` in a constraint list: a free ball joint (any direction, any twist).

The kernels below are numba-compiled through :func:`ik_node._jit.njit`; constraint lists are
packed once into flat arrays (:func:`pack_constraints`) for them.
"""

from dataclasses import dataclass, field
import math
from typing import NamedTuple, Optional, Sequence, Union

from ik_node._jit import njit
from ik_node.errors import IKInputError
from ik_node.spatial.rotations import rotation_about_axis
from ik_node.spatial.vectors import matmul, matTvec, matvec, unit
import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    'BallJoint', 'HingeJoint', 'Constraint', 'PackedConstraints', 'pack_constraints',
    'constraint_violation', 'KIND_FREE', 'KIND_BALL', 'KIND_HINGE',
]

KIND_FREE = 0
KIND_BALL = 1
KIND_HINGE = 2

_HALF_PI = 0.5 * math.pi
_MAX_CONE = _HALF_PI - 1e-6


def _rest(rest: Optional[ArrayLike]) -> np.ndarray:
    if rest is None:
        return np.eye(3)
    B = np.array(rest, dtype=float)
    if B.shape != (3, 3) or not np.all(np.isfinite(B)):
        raise IKInputError(f'rest must be a finite (3, 3) rotation, got shape {B.shape}')
    if not np.allclose(B.T @ B, np.eye(3), atol=1e-6) or np.linalg.det(B) < 0.0:
        raise IKInputError('rest must be a proper rotation matrix')
    return B


@dataclass(frozen=True)
class BallJoint:
    """
    A ball joint bounded by an elliptic cone about the rest +z axis, with a twist range.

    ``limits`` are the cone half-angles [rad] towards +x, -x, +y, -y of the rest frame, each in
    [0, pi/2); one number gives a circular cone, two numbers (a_x, a_y) an ellipse. ``twist``
    is the allowed rotation [rad] about the bone, within [-pi, pi]. ``rest`` (3, 3) is the rest
    frame relative to the parent bone's frame (identity: the cone is centred on the parent bone).
    """

    limits: Union[float, Sequence[float]] = _MAX_CONE
    twist: Sequence[float] = (-math.pi, math.pi)
    rest: Optional[ArrayLike] = field(default=None, compare=False)

    def packed_limits(self) -> np.ndarray:
        """Return the (4,) half-angles (+x, -x, +y, -y) [rad]."""
        lim = np.atleast_1d(np.asarray(self.limits, dtype=float))
        if lim.size == 1:
            lim = np.repeat(lim, 4)
        elif lim.size == 2:
            lim = np.array([lim[0], lim[0], lim[1], lim[1]])
        if lim.shape != (4,) or not np.all(np.isfinite(lim)):
            raise IKInputError(f'ball joint limits must be 1, 2 or 4 angles, got {self.limits}')
        if np.any(lim < 0.0) or np.any(lim >= _HALF_PI):
            raise IKInputError(f'ball joint half-angles must be in [0, pi/2), got {lim}')
        return lim


@dataclass(frozen=True)
class HingeJoint:
    """
    A hinge: rotation by theta in [lower, upper] [rad] about ``axis`` of the rest frame.

    The bone is the rest +z axis turned about ``axis`` (unit, rest-frame coordinates).
    ``lower`` >= -pi and ``upper`` <= pi. ``rest`` as for :class:`BallJoint`.
    """

    axis: Sequence[float] = (1.0, 0.0, 0.0)
    lower: float = -math.pi
    upper: float = math.pi
    rest: Optional[ArrayLike] = field(default=None, compare=False)


Constraint = Optional[Union[BallJoint, HingeJoint]]


class PackedConstraints(NamedTuple):
    """Flat arrays for the kernels, one row per joint (n joints)."""

    kind: np.ndarray    # (n,) int: KIND_FREE, KIND_BALL, KIND_HINGE
    rest: np.ndarray    # (n, 3, 3) rest rotation in the parent frame
    axis: np.ndarray    # (n, 3) hinge axis (rest frame); unused otherwise
    limits: np.ndarray  # (n, 4) ball: tan of half-angles (+x, -x, +y, -y); hinge: lo, hi, 0, 0
    twist: np.ndarray   # (n, 2) twist range [rad] (free and ball joints)


def pack_constraints(constraints: Optional[Sequence[Constraint]], n: int) -> PackedConstraints:
    """Pack a list of ``n`` constraints (``None`` = free joint) into :class:`PackedConstraints`."""
    if constraints is None:
        constraints = [None] * n
    constraints = list(constraints)
    if len(constraints) != n:
        raise IKInputError(f'expected {n} constraints (one per bone), got {len(constraints)}')
    kind = np.zeros(n, dtype=np.int64)
    rest = np.tile(np.eye(3), (n, 1, 1))
    axis = np.zeros((n, 3))
    limits = np.zeros((n, 4))
    twist = np.tile(np.array([-math.pi, math.pi]), (n, 1))
    for j, c in enumerate(constraints):
        if c is None:
            continue
        rest[j] = _rest(c.rest)
        if isinstance(c, BallJoint):
            kind[j] = KIND_BALL
            limits[j] = np.tan(c.packed_limits())
            tw = np.asarray(c.twist, dtype=float)
            if tw.shape != (2,) or not (-math.pi <= tw[0] <= tw[1] <= math.pi):
                raise IKInputError(f'twist must be (lower, upper) within [-pi, pi], got {c.twist}')
            twist[j] = tw
        elif isinstance(c, HingeJoint):
            kind[j] = KIND_HINGE
            a = np.asarray(c.axis, dtype=float)
            na = float(np.linalg.norm(a)) if a.shape == (3,) else 0.0
            if not na > 1e-9 or not np.isfinite(na):
                raise IKInputError(f'hinge axis must be a non-zero 3-vector, got {c.axis}')
            if abs(a[2]) / na > 1.0 - 1e-9:
                raise IKInputError('a hinge axis along the bone (+z) cannot move the bone')
            if not (-math.pi <= c.lower <= c.upper <= math.pi):
                raise IKInputError(f'hinge limits must satisfy -pi <= lower <= upper <= pi, '
                                   f'got ({c.lower}, {c.upper})')
            axis[j] = a / na
            limits[j, 0] = c.lower
            limits[j, 1] = c.upper
        else:
            raise IKInputError(f'unknown constraint {c!r} for joint {j}')
    return PackedConstraints(kind, rest, axis, limits, twist)


# ---------------------------------------------------------------------------------------------
@njit
def shortest_rotation(a, b):
    """
    Return the smallest rotation taking unit vector ``a`` onto unit vector ``b``.

    For opposite vectors the half turn is about an axis perpendicular to ``a``.
    """
    cx = a[1] * b[2] - a[2] * b[1]
    cy = a[2] * b[0] - a[0] * b[2]
    cz = a[0] * b[1] - a[1] * b[0]
    s = math.sqrt(cx * cx + cy * cy + cz * cz)
    c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    ax = np.empty(3)
    if s < 1e-12:
        if c > 0.0:
            return np.eye(3)
        # any axis perpendicular to a
        if abs(a[0]) < 0.9:
            ax[0] = 0.0
            ax[1] = a[2]
            ax[2] = -a[1]
        else:
            ax[0] = -a[2]
            ax[1] = 0.0
            ax[2] = a[0]
        return rotation_about_axis(unit(ax), math.pi)
    ax[0] = cx / s
    ax[1] = cy / s
    ax[2] = cz / s
    return rotation_about_axis(ax, math.atan2(s, c))


@njit
def swing_from_z(u):
    """Return the shortest rotation taking +z onto the unit vector ``u``."""
    z = np.zeros(3)
    z[2] = 1.0
    return shortest_rotation(z, u)


@njit
def rot_z(tau):
    """Return the rotation by ``tau`` [rad] about +z."""
    c = math.cos(tau)
    s = math.sin(tau)
    R = np.eye(3)
    R[0, 0] = c
    R[0, 1] = -s
    R[1, 0] = s
    R[1, 1] = c
    return R


@njit
def twist_about_z(M):
    """Return the twist angle [rad] of rotation M about +z (swing-twist decomposition)."""
    return math.atan2(M[1, 0] - M[0, 1], M[0, 0] + M[1, 1])


@njit
def wrap_angle(x):
    """Return ``x`` [rad] wrapped into [-pi, pi)."""
    return (x + math.pi) % (2.0 * math.pi) - math.pi


@njit
def clamp_angle(theta, lo, hi):
    """Clamp ``theta`` [rad] into [lo, hi] (within [-pi, pi]), going to the nearer bound."""
    if theta >= lo and theta <= hi:
        return theta
    dlo = abs(wrap_angle(theta - lo))
    dhi = abs(wrap_angle(theta - hi))
    return lo if dlo <= dhi else hi


@njit
def best_angle_about(a, v, w):
    """
    Return theta maximising w . Rot(a, theta) v, for unit axis ``a``.

    Closed form: with v_perp = v - (a.v) a, theta = atan2(w . (a x v), w . v_perp).
    """
    av = a[0] * v[0] + a[1] * v[1] + a[2] * v[2]
    cx = a[1] * v[2] - a[2] * v[1]
    cy = a[2] * v[0] - a[0] * v[2]
    cz = a[0] * v[1] - a[1] * v[0]
    s = w[0] * cx + w[1] * cy + w[2] * cz
    c = (w[0] * (v[0] - av * a[0]) + w[1] * (v[1] - av * a[1]) + w[2] * (v[2] - av * a[2]))
    if abs(s) < 1e-300 and abs(c) < 1e-300:
        return 0.0
    return math.atan2(s, c)


@njit
def best_angle_trace(K, a):
    """
    Return theta maximising tr(K Rot(a, theta)) for (3, 3) ``K`` and unit axis ``a``.

    With Rot(a, theta) = a a^T + cos(theta) (I - a a^T) + sin(theta) [a]_x, the trace is
    c + A cos(theta) + B sin(theta) with A = tr(K) - a^T K a and B = tr(K [a]_x), so
    theta = atan2(B, A). :func:`best_angle_about` is the case K = v w^T.
    """
    aKa = 0.0
    for i in range(3):
        for j in range(3):
            aKa += a[i] * K[i, j] * a[j]
    c = K[0, 0] + K[1, 1] + K[2, 2] - aKa
    s = (a[0] * (K[1, 2] - K[2, 1]) + a[1] * (K[2, 0] - K[0, 2])
         + a[2] * (K[0, 1] - K[1, 0]))
    if abs(s) < 1e-300 and abs(c) < 1e-300:
        return 0.0
    return math.atan2(s, c)


@njit
def nearest_on_ellipse(x0, y0, e0, e1):
    """
    Return the point of the ellipse (x/e0)^2 + (y/e1)^2 = 1 nearest to (x0, y0) >= 0.

    The point must lie outside the ellipse. With t the Lagrange multiplier, the nearest point
    is (e0^2 x0 / (t + e0^2), e1^2 y0 / (t + e1^2)) where F(t) = (e0 x0 / (t + e0^2))^2 +
    (e1 y0 / (t + e1^2))^2 - 1 = 0; F is convex and decreasing for t >= 0, so Newton's method
    from t = 0 climbs monotonically to the root. Degenerate axes (e = 0) are a segment.
    """
    if e0 <= 0.0 and e1 <= 0.0:
        return 0.0, 0.0
    if e0 <= 0.0:
        return 0.0, min(y0, e1)
    if e1 <= 0.0:
        return min(x0, e0), 0.0
    a0 = e0 * x0
    a1 = e1 * y0
    s0 = e0 * e0
    s1 = e1 * e1
    t = 0.0
    for _ in range(64):
        r0 = a0 / (t + s0)
        r1 = a1 / (t + s1)
        f = r0 * r0 + r1 * r1 - 1.0
        if f <= 1e-15:
            break
        df = -2.0 * (r0 * r0 / (t + s0) + r1 * r1 / (t + s1))
        step = -f / df
        t += step
        if step <= 1e-16 * (1.0 + t):
            break
    x = s0 * x0 / (t + s0)
    y = s1 * y0 / (t + s1)
    # land exactly on the ellipse (guards the last rounding)
    k = math.sqrt((x / e0) ** 2 + (y / e1) ** 2)
    if k > 0.0:
        x /= k
        y /= k
    return x, y


@njit
def cone_quadrant(u, lim):
    """Return the (tan) semi-axes (e_x, e_y) of the cone quadrant holding direction ``u``."""
    ex = lim[0] if u[0] >= 0.0 else lim[1]
    ey = lim[2] if u[1] >= 0.0 else lim[3]
    return ex, ey


@njit
def cone_excess(u, lim):
    """
    Return how far the unit rest-frame direction ``u`` is outside the cone (0 inside).

    The measure is the angle [rad] between u and its projection :func:`clamp_to_cone`.
    """
    c = clamp_to_cone(u, lim)
    d = u[0] * c[0] + u[1] * c[1] + u[2] * c[2]
    x = u[1] * c[2] - u[2] * c[1]
    y = u[2] * c[0] - u[0] * c[2]
    w = u[0] * c[1] - u[1] * c[0]
    return math.atan2(math.sqrt(x * x + y * y + w * w), d)


@njit
def clamp_to_cone(u, lim):
    """
    Return the unit direction in the elliptic cone closest to ``u`` (rest frame).

    In front of the apex (u_z > 0) the point (u_x, u_y) / u_z of the unit-distance cross
    section is moved to the nearest point of its quarter ellipse when outside; behind it the
    boundary point in the azimuth of u is used. ``lim`` holds tan of the half-angles.
    """
    ex, ey = cone_quadrant(u, lim)
    out = np.empty(3)
    if u[2] > 1e-12:
        X = u[0] / u[2]
        Y = u[1] / u[2]
        inside = True
        if ex <= 0.0 or ey <= 0.0:
            inside = (ex > 0.0 or X == 0.0) and (ey > 0.0 or Y == 0.0)
            if inside:
                inside = ((ex <= 0.0 or (X / ex) ** 2 <= 1.0)
                          and (ey <= 0.0 or (Y / ey) ** 2 <= 1.0))
        else:
            inside = (X / ex) ** 2 + (Y / ey) ** 2 <= 1.0
        if inside:
            out[0] = u[0]
            out[1] = u[1]
            out[2] = u[2]
            return out
        xc, yc = nearest_on_ellipse(abs(X), abs(Y), ex, ey)
        out[0] = math.copysign(xc, X)
        out[1] = math.copysign(yc, Y)
        out[2] = 1.0
        return unit(out)
    # behind the apex: the boundary in the azimuth of u
    r = math.sqrt(u[0] * u[0] + u[1] * u[1])
    if r < 1e-12:
        cx, cy = (1.0, 0.0) if max(lim[0], lim[1]) >= max(lim[2], lim[3]) else (0.0, 1.0)
        if cx > 0.0 and lim[1] > lim[0]:
            cx = -1.0
        if cy > 0.0 and lim[3] > lim[2]:
            cy = -1.0
    else:
        cx = u[0] / r
        cy = u[1] / r
    qx = lim[0] if cx >= 0.0 else lim[1]
    qy = lim[2] if cy >= 0.0 else lim[3]
    denom = 0.0
    if cx != 0.0:
        denom += (cx / qx) ** 2 if qx > 0.0 else 1e300
    if cy != 0.0:
        denom += (cy / qy) ** 2 if qy > 0.0 else 1e300
    rho = 1.0 / math.sqrt(denom) if denom > 0.0 else 0.0
    out[0] = cx * rho
    out[1] = cy * rho
    out[2] = 1.0
    return unit(out)


@njit
def place_bone(P, kind, rest, axis, limits, twist, d, F, weight):
    """
    Return the frame (3, 3) of a bone that obeys its joint and points as near ``d`` as it can.

    P (3, 3): parent frame; kind/rest/axis/limits/twist: this joint's packed row; d (3,): the
    wished bone direction (unit, world); F (3, 3): a reference frame (the frame the forward
    pass left). Ball and free joints keep F's twist about the bone when the joint allows it. A
    hinge has one angle for both, so it takes the angle maximising
    d . (R z) + weight * tr(F^T R) (clamped into its limits): with weight > 0 the hinge also
    follows the forward pass's frame, whose x and y axes fix the planes of the hinges beyond.
    """
    PB = matmul(P, rest)
    u = matTvec(PB, d)
    if kind == KIND_HINGE:
        # tr(K Rot) with K = z u^T + weight (F^T PB): the two terms above in the rest frame
        K = np.empty((3, 3))
        for i in range(3):
            for j in range(3):
                K[i, j] = weight * (F[0, i] * PB[0, j] + F[1, i] * PB[1, j]
                                    + F[2, i] * PB[2, j])
        for j in range(3):
            K[2, j] += u[j]
        theta = clamp_angle(best_angle_trace(K, axis), limits[0], limits[1])
        return matmul(PB, rotation_about_axis(axis, theta))
    if kind == KIND_BALL:
        u = clamp_to_cone(u, limits)
    base = matmul(PB, swing_from_z(u))
    # twist of the reference frame F relative to the zero-twist frame ``base``
    M = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            M[i, j] = base[0, i] * F[0, j] + base[1, i] * F[1, j] + base[2, i] * F[2, j]
    tau = twist_about_z(M)
    if tau < twist[0] or tau > twist[1]:
        tau = clamp_angle(tau, twist[0], twist[1])
    return matmul(base, rot_z(tau))


@njit
def reverse_constrain(Fp, kind, rest, axis, limits, Fc):
    """
    Turn the parent frame Fp so that the child frame Fc's bone obeys the joint between them.

    Used in the forward pass (tip to root), where the child bone is already placed: the child
    direction is read in the parent's rest frame, clamped to the joint, and the parent is
    turned by the shortest rotation that brings the clamped direction onto the child bone.
    Returns the new parent frame (3, 3).
    """
    if kind == KIND_FREE:
        return Fp
    PB = matmul(Fp, rest)
    dc = np.empty(3)
    dc[0] = Fc[0, 2]
    dc[1] = Fc[1, 2]
    dc[2] = Fc[2, 2]
    u = matTvec(PB, dc)
    if kind == KIND_HINGE:
        z = np.zeros(3)
        z[2] = 1.0
        theta = clamp_angle(best_angle_about(axis, z, u), limits[0], limits[1])
        c = matvec(rotation_about_axis(axis, theta), z)
    else:
        c = clamp_to_cone(u, limits)
    wc = matvec(PB, c)
    if wc[0] * dc[0] + wc[1] * dc[1] + wc[2] * dc[2] > 1.0 - 1e-15:
        return Fp
    return matmul(shortest_rotation(wc, dc), Fp)


@njit
def parent_through_hinge(Fc, rest, axis, limits, w, Fref, weight):
    """
    Return the parent frame that a hinge allows below child frame Fc, its bone nearest ``w``.

    A hinge ties the frames together: Fc = Fp B Rot(a, theta), so Fp = Fc Rot(a, -theta) B^T.
    The parent bone direction is then Fc Rot(a, -theta) B^T z; theta maximises
    w . (Fp z) + weight * tr(Fref^T Fp) (w the unit world direction wished for the parent
    bone, Fref (3, 3) the parent's previous frame) and is clamped into the hinge limits. This
    is the exact reverse of the hinge, used by the forward pass (tip to root).
    """
    b = np.empty(3)
    b[0] = rest[2, 0]
    b[1] = rest[2, 1]
    b[2] = rest[2, 2]
    wl = matTvec(Fc, w)
    # with phi = -theta: w . Fp z = tr(b wl^T Rot(a, phi)) and
    # tr(Fref^T Fp) = tr(B^T Fref^T Fc Rot(a, phi))
    G = matmul(rest.T.copy(), matmul(Fref.T.copy(), Fc))
    K = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            K[i, j] = b[i] * wl[j] + weight * G[i, j]
    theta = clamp_angle(-best_angle_trace(K, axis), limits[0], limits[1])
    return matmul(matmul(Fc, rotation_about_axis(axis, -theta)), rest.T.copy())


@njit
def reverse_twist(Fp, rest, twist, Fc):
    """
    Turn the parent frame Fp about the child's bone so that the child's twist is in range.

    With L = (Fp B)^T Fc = S(u) Rz(tau), turning the parent by Rot(d_c, beta) about the child's
    bone direction d_c keeps u and gives L Rz(-beta), that is twist tau - beta; beta is the
    excess of tau over its range. The forward pass uses it after :func:`reverse_constrain`, so
    that the twist limits, which matter to the hinges further out, are met in both passes.
    Returns the new parent frame (3, 3).
    """
    PB = matmul(Fp, rest)
    L = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            L[i, j] = PB[0, i] * Fc[0, j] + PB[1, i] * Fc[1, j] + PB[2, i] * Fc[2, j]
    u = np.empty(3)
    u[0] = L[0, 2]
    u[1] = L[1, 2]
    u[2] = L[2, 2]
    tau = twist_about_z(matmul(swing_from_z(u).T.copy(), L))
    if tau >= twist[0] and tau <= twist[1]:
        return Fp
    beta = tau - clamp_angle(tau, twist[0], twist[1])
    dc = np.empty(3)
    dc[0] = Fc[0, 2]
    dc[1] = Fc[1, 2]
    dc[2] = Fc[2, 2]
    return matmul(rotation_about_axis(dc, beta), Fp)


@njit
def joint_violation(P, kind, rest, axis, limits, twist, R):
    """Return how far bone frame R breaks its joint relative to parent frame P [rad] (0 = ok)."""
    PB = matmul(P, rest)
    L = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            L[i, j] = PB[0, i] * R[0, j] + PB[1, i] * R[1, j] + PB[2, i] * R[2, j]
    if kind == KIND_HINGE:
        # L must be Rot(axis, theta): it keeps the axis, and theta within limits
        La = matvec(L, axis)
        off = math.sqrt((La[0] - axis[0]) ** 2 + (La[1] - axis[1]) ** 2
                        + (La[2] - axis[2]) ** 2)
        # angle of L about the axis: take a vector perpendicular to the axis
        p = np.zeros(3)
        if abs(axis[0]) < 0.9:
            p[0] = 1.0
        else:
            p[1] = 1.0
        pa = p[0] * axis[0] + p[1] * axis[1] + p[2] * axis[2]
        for i in range(3):
            p[i] -= pa * axis[i]
        p = unit(p)
        theta = best_angle_about(axis, p, matvec(L, p))
        excess = 0.0
        if theta < limits[0]:
            excess = limits[0] - theta
        elif theta > limits[1]:
            excess = theta - limits[1]
        return max(off, excess)
    u = np.empty(3)
    u[0] = L[0, 2]
    u[1] = L[1, 2]
    u[2] = L[2, 2]
    excess = 0.0
    if kind == KIND_BALL:
        excess = cone_excess(u, limits)
    M = matmul(swing_from_z(u).T.copy(), L)
    tau = twist_about_z(M)
    if tau < twist[0]:
        excess = max(excess, twist[0] - tau)
    elif tau > twist[1]:
        excess = max(excess, tau - twist[1])
    return excess


def constraint_violation(frames: ArrayLike, constraints: Sequence[Constraint],
                         root_frame: Optional[ArrayLike] = None) -> np.ndarray:
    """
    Return (n,) how far each bone frame breaks its joint [rad]; 0 where it obeys it.

    frames (n, 3, 3): bone frames (bone along local +z); root_frame (3, 3): the frame joint 0
    is stated in (identity by default).
    """
    R = np.asarray(frames, dtype=float)
    n = R.shape[0]
    pc = pack_constraints(constraints, n)
    P = np.eye(3) if root_frame is None else np.asarray(root_frame, dtype=float)
    out = np.empty(n)
    for j in range(n):
        out[j] = joint_violation(np.ascontiguousarray(P), pc.kind[j], pc.rest[j], pc.axis[j],
                                 pc.limits[j], pc.twist[j], np.ascontiguousarray(R[j]))
        P = R[j]
    return out
