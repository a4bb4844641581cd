# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Compiled distance kernels between link capsules and obstacles (numba, see ik_node._jit).

Capsules (:class:`ik_node.collision.model.Capsules`, passed flattened with the chain's
model, see :func:`unpack`) hold segment end points
``seg`` (c, 2, 3) in the frame of their anchor (the moving joint that carries them, -1 for the
base), ``radius`` (c,), ``anchor`` (c,), the capsule ``pairs`` (p, 2) checked against each
other and the ``moving`` capsules (k,) checked against obstacles. Obstacles are the rows of
:mod:`ik_node.collision.shapes`.

Distances are signed [m]: negative when two shapes overlap (by about the depth). For boxes
and cylinders the closest point on a capsule's segment is found by golden-section search on
the shape's signed distance function, which is convex along the segment; the result is
lowered by the search's last bracket width times the segment length, so it never exceeds
the true distance (signed distance is 1-Lipschitz). A pair (or a capsule and an obstacle)
that the capsules put within the distance asked about goes on to the convex hulls of the
geometry the capsules hold (GJK, :mod:`ik_node.collision.hulls`): round capsule ends
overshoot flat or short, wide geometry (a base plate, a joint housing) by centimetres, the
hulls do not.
"""

import math

from ik_node._jit import njit, njit_nogil
from ik_node.collision.hulls import hull_distance, hull_support as support, hull_witness
from ik_node.collision.joint_tree import tree_frames
from ik_node.collision.model import Capsules
from ik_node.collision.shapes import BOX, CYLINDER, HALF_SPACE, SPHERE
from ik_node.model import kinematics
import numpy as np

__all__ = ['unpack', 'world_segments', 'distances', 'contacts', 'closest', 'clearance_terms',
           'path_contact']

_GOLDEN = 0.6180339887498949
_SEARCH_STEPS = 40
_BRACKET = _GOLDEN ** _SEARCH_STEPS
# Rounding allowance [m]: a pair this close counts as touching.
SLACK = 1e-9


@njit
def unpack(F, K):
    """Return (ChainModel, Capsules) as read-only views of F and K (see ``pack_flat``)."""
    m = K[0]
    c = K[1]
    p = K[2]
    k = K[3]
    o = 4
    types = K[o:o + m]
    o += m
    index = K[o:o + m]
    o += m
    anchor = K[o:o + c]
    o += c
    pairs = K[o:o + 2 * p].reshape((p, 2))
    o += 2 * p
    moving = K[o:o + k]
    o += k
    start = K[o:o + c + 1]
    f = 0
    orig_R = F[f:f + 9 * m].reshape((m, 3, 3))
    f += 9 * m
    orig_t = F[f:f + 3 * m].reshape((m, 3))
    f += 3 * m
    axes = F[f:f + 3 * m].reshape((m, 3))
    f += 3 * m
    mult = F[f:f + m]
    f += m
    offset = F[f:f + m]
    f += m
    tip_R = F[f:f + 9].reshape((3, 3))
    f += 9
    tip_t = F[f:f + 3]
    f += 3
    seg = F[f:f + 6 * c].reshape((c, 2, 3))
    f += 6 * c
    radius = F[f:f + c]
    f += c
    points = F[f:].reshape((-1, 3))
    # The chain's own ChainModel type (F and K are read-only, as its arrays are): the
    # kinematics kernels then compile once for both.
    model = kinematics.ChainModel(orig_R, orig_t, axes, types, index, mult, offset, tip_R,
                                  tip_t)
    return model, Capsules(seg, radius, anchor, pairs, moving, points, start)


@njit
def unpack_tree(K):
    """
    Return (tree, parent (m,), end (m,)) packed after the capsules (see ``pack_flat``).

    tree: the joints form a tree (:mod:`ik_node.collision.joint_tree`), not a serial chain.
    """
    m = K[0]
    c = K[1]
    o = 4 + 2 * m + c + 2 * K[2] + K[3] + c + 1
    return K[o] != 0, K[o + 1:o + 1 + m], K[o + 1 + m:o + 1 + 2 * m]


@njit
def world_segments(model, q, seg, anchor, R_out, p_out, z_out, W):
    """Run FK into R_out, p_out, z_out and fill W (c, 2, 3) with base-frame end points."""
    kinematics.forward_kinematics(model, q, R_out, p_out, z_out)
    _segments(seg, anchor, R_out, p_out, W)


@njit
def _segments(seg, anchor, R_out, p_out, W):
    """Fill W (c, 2, 3) with the capsules' base-frame end points from the joint frames."""
    for c in range(seg.shape[0]):
        k = anchor[c]
        for e in range(2):
            if k < 0:
                for i in range(3):
                    W[c, e, i] = seg[c, e, i]
            else:
                for i in range(3):
                    W[c, e, i] = (p_out[k, i] + R_out[k, i, 0] * seg[c, e, 0]
                                  + R_out[k, i, 1] * seg[c, e, 1]
                                  + R_out[k, i, 2] * seg[c, e, 2])


@njit
def _clamp01(x):
    return 0.0 if x < 0.0 else (1.0 if x > 1.0 else x)


@njit
def segment_segment(W, a, b):
    """Return (distance, s, t) between segments W[a] and W[b] at parameters s and t."""
    return _segment_segment(W[a, 0, 0], W[a, 0, 1], W[a, 0, 2],
                            W[a, 1, 0] - W[a, 0, 0], W[a, 1, 1] - W[a, 0, 1],
                            W[a, 1, 2] - W[a, 0, 2], W[b, 0, 0], W[b, 0, 1], W[b, 0, 2],
                            W[b, 1, 0] - W[b, 0, 0], W[b, 1, 1] - W[b, 0, 1],
                            W[b, 1, 2] - W[b, 0, 2])


@njit
def _segment_segment(a0, a1, a2, d10, d11, d12, b0, b1, b2, d20, d21, d22):
    """Return (distance, s, t) between segments a + s d1 and b + t d2, s, t in [0, 1]."""
    r0 = a0 - b0
    r1 = a1 - b1
    r2 = a2 - b2
    A = d10 * d10 + d11 * d11 + d12 * d12
    E = d20 * d20 + d21 * d21 + d22 * d22
    F = d20 * r0 + d21 * r1 + d22 * r2
    eps = 1e-18
    if A <= eps and E <= eps:
        s = 0.0
        t = 0.0
    elif A <= eps:
        s = 0.0
        t = _clamp01(F / E)
    else:
        C = d10 * r0 + d11 * r1 + d12 * r2
        if E <= eps:
            t = 0.0
            s = _clamp01(-C / A)
        else:
            B = d10 * d20 + d11 * d21 + d12 * d22
            den = A * E - B * B
            s = _clamp01((B * F - C * E) / den) if den > 1e-18 * A * E else 0.0
            t = (B * s + F) / E
            if t < 0.0:
                t = 0.0
                s = _clamp01(-C / A)
            elif t > 1.0:
                t = 1.0
                s = _clamp01((B - C) / A)
    x0 = r0 + d10 * s - d20 * t
    x1 = r1 + d11 * s - d21 * t
    x2 = r2 + d12 * s - d22 * t
    return math.sqrt(x0 * x0 + x1 * x1 + x2 * x2), s, t


@njit
def _point_segment(W, c, x0, x1, x2):
    """Return (distance, t) from point x to segment W[c]."""
    d0 = W[c, 1, 0] - W[c, 0, 0]
    d1 = W[c, 1, 1] - W[c, 0, 1]
    d2 = W[c, 1, 2] - W[c, 0, 2]
    r0 = x0 - W[c, 0, 0]
    r1 = x1 - W[c, 0, 1]
    r2 = x2 - W[c, 0, 2]
    L2 = d0 * d0 + d1 * d1 + d2 * d2
    t = _clamp01((r0 * d0 + r1 * d1 + r2 * d2) / L2) if L2 > 1e-18 else 0.0
    e0 = r0 - t * d0
    e1 = r1 - t * d1
    e2 = r2 - t * d2
    return math.sqrt(e0 * e0 + e1 * e1 + e2 * e2), t


@njit
def _local(row, x0, x1, x2):
    """Return x in the obstacle's frame: Rᵀ (x - t), R row major in row[4:13]."""
    y0 = x0 - row[13]
    y1 = x1 - row[14]
    y2 = x2 - row[15]
    return (row[4] * y0 + row[7] * y1 + row[10] * y2,
            row[5] * y0 + row[8] * y1 + row[11] * y2,
            row[6] * y0 + row[9] * y1 + row[12] * y2)


@njit
def shape_sdf(row, x0, x1, x2):
    """Return the signed distance [m] from point x to the obstacle ``row`` (< 0 inside)."""
    kind = int(row[0])
    if kind == HALF_SPACE:
        return row[4] * x0 + row[7] * x1 + row[10] * x2 - row[1]
    if kind == SPHERE:
        return math.sqrt((x0 - row[13]) ** 2 + (x1 - row[14]) ** 2 + (x2 - row[15]) ** 2) \
            - row[1]
    l0, l1, l2 = _local(row, x0, x1, x2)
    if kind == BOX:
        q0 = abs(l0) - row[1]
        q1 = abs(l1) - row[2]
        q2 = abs(l2) - row[3]
        o0 = max(q0, 0.0)
        o1 = max(q1, 0.0)
        o2 = max(q2, 0.0)
        return math.sqrt(o0 * o0 + o1 * o1 + o2 * o2) + min(max(q0, max(q1, q2)), 0.0)
    qr = math.sqrt(l0 * l0 + l1 * l1) - row[1]
    qz = abs(l2) - row[2]
    o0 = max(qr, 0.0)
    o1 = max(qz, 0.0)
    return math.sqrt(o0 * o0 + o1 * o1) + min(max(qr, qz), 0.0)


@njit
def shape_normal(row, x0, x1, x2):
    """Return the unit gradient of :func:`shape_sdf` at x (base frame)."""
    kind = int(row[0])
    if kind == HALF_SPACE:
        return row[4], row[7], row[10]
    if kind == SPHERE:
        g0 = x0 - row[13]
        g1 = x1 - row[14]
        g2 = x2 - row[15]
    else:
        l0, l1, l2 = _local(row, x0, x1, x2)
        if kind == BOX:
            q0 = abs(l0) - row[1]
            q1 = abs(l1) - row[2]
            q2 = abs(l2) - row[3]
            if q0 > 0.0 or q1 > 0.0 or q2 > 0.0:
                h0 = math.copysign(max(q0, 0.0), l0)
                h1 = math.copysign(max(q1, 0.0), l1)
                h2 = math.copysign(max(q2, 0.0), l2)
            elif q0 >= q1 and q0 >= q2:
                h0, h1, h2 = math.copysign(1.0, l0), 0.0, 0.0
            elif q1 >= q2:
                h0, h1, h2 = 0.0, math.copysign(1.0, l1), 0.0
            else:
                h0, h1, h2 = 0.0, 0.0, math.copysign(1.0, l2)
        else:
            rho = math.sqrt(l0 * l0 + l1 * l1)
            u0, u1 = (l0 / rho, l1 / rho) if rho > 1e-12 else (1.0, 0.0)
            qr = rho - row[1]
            qz = abs(l2) - row[2]
            if qr > 0.0 or qz > 0.0:
                h0 = u0 * max(qr, 0.0)
                h1 = u1 * max(qr, 0.0)
                h2 = math.copysign(max(qz, 0.0), l2)
            elif qr >= qz:
                h0, h1, h2 = u0, u1, 0.0
            else:
                h0, h1, h2 = 0.0, 0.0, math.copysign(1.0, l2)
        g0 = row[4] * h0 + row[5] * h1 + row[6] * h2
        g1 = row[7] * h0 + row[8] * h1 + row[9] * h2
        g2 = row[10] * h0 + row[11] * h1 + row[12] * h2
    n = math.sqrt(g0 * g0 + g1 * g1 + g2 * g2)
    if n < 1e-15:
        return 0.0, 0.0, 1.0
    return g0 / n, g1 / n, g2 / n


@njit
def _shape_capsule_bound(W, c, row):
    """
    Return (bound, t): a lower bound [m] on the distance of segment W[c] to a box or cylinder.

    The shape lies inside a capsule: a cylinder inside the one on its axis with its radius,
    a box inside the one on its longest axis with the radius of its cross-section's corner.
    The segment's distance to that capsule bounds the distance to the shape from below
    (t: the segment's parameter at the closest point).
    """
    if int(row[0]) == CYLINDER:
        j = 2
        half = row[2]
        r = row[1]
    else:
        j = 0
        if row[2] > row[1 + j]:
            j = 1
        if row[3] > row[1 + j]:
            j = 2
        half = row[1 + j]
        r = math.sqrt(max(row[1] * row[1] + row[2] * row[2] + row[3] * row[3]
                          - half * half, 0.0))
    # The axis is column j of the rotation (row major in row[4:13]).
    e0 = row[4 + j] * half
    e1 = row[7 + j] * half
    e2 = row[10 + j] * half
    d, t, _ = _segment_segment(W[c, 0, 0], W[c, 0, 1], W[c, 0, 2],
                               W[c, 1, 0] - W[c, 0, 0], W[c, 1, 1] - W[c, 0, 1],
                               W[c, 1, 2] - W[c, 0, 2], row[13] - e0, row[14] - e1,
                               row[15] - e2, 2.0 * e0, 2.0 * e1, 2.0 * e2)
    return d - r, t


@njit
def segment_obstacle(W, c, row, cutoff):
    """
    Return (signed distance, t): segment W[c] to obstacle ``row``, a lower bound.

    Exact for half-spaces and spheres. For boxes and cylinders, a segment whose distance to
    a capsule around the shape (:func:`_shape_capsule_bound`) already exceeds ``cutoff`` [m]
    returns that bound, and the search stops once its lower bound exceeds ``cutoff`` (both
    still lower bounds).
    """
    kind = int(row[0])
    if kind == HALF_SPACE:
        d0 = row[4] * W[c, 0, 0] + row[7] * W[c, 0, 1] + row[10] * W[c, 0, 2] - row[1]
        d1 = row[4] * W[c, 1, 0] + row[7] * W[c, 1, 1] + row[10] * W[c, 1, 2] - row[1]
        return (d0, 0.0) if d0 <= d1 else (d1, 1.0)
    if kind == SPHERE:
        dc, tc = _point_segment(W, c, row[13], row[14], row[15])
        return dc - row[1], tc
    bound, tc = _shape_capsule_bound(W, c, row)
    if bound > cutoff:
        return bound, tc
    a0 = W[c, 0, 0]
    a1 = W[c, 0, 1]
    a2 = W[c, 0, 2]
    e0 = W[c, 1, 0] - a0
    e1 = W[c, 1, 1] - a1
    e2 = W[c, 1, 2] - a2
    length = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
    if length < 1e-12:
        return shape_sdf(row, a0, a1, a2), 0.0
    lo = 0.0
    hi = 1.0
    x = hi - _GOLDEN * (hi - lo)
    y = lo + _GOLDEN * (hi - lo)
    fx = shape_sdf(row, a0 + x * e0, a1 + x * e1, a2 + x * e2)
    fy = shape_sdf(row, a0 + y * e0, a1 + y * e1, a2 + y * e2)
    for _ in range(_SEARCH_STEPS):
        if min(fx, fy) - (hi - lo) * length > cutoff:
            break
        if fx <= fy:
            hi = y
            y = x
            fy = fx
            x = hi - _GOLDEN * (hi - lo)
            fx = shape_sdf(row, a0 + x * e0, a1 + x * e1, a2 + x * e2)
        else:
            lo = x
            x = y
            fx = fy
            y = lo + _GOLDEN * (hi - lo)
            fy = shape_sdf(row, a0 + y * e0, a1 + y * e1, a2 + y * e2)
    if fx <= fy:
        best, tb = fx, x
    else:
        best, tb = fy, y
    # The minimiser lies in [lo, hi]; f is 1-Lipschitz in the point, so the minimum is at
    # least best - (hi - lo) * length.
    return best - (hi - lo) * length, tb


@njit
def shape_support(row, u0, u1, u2):
    """Return the largest u·y over the obstacle ``row`` (not used for half-spaces)."""
    kind = int(row[0])
    c = u0 * row[13] + u1 * row[14] + u2 * row[15]
    if kind == SPHERE:
        return c + row[1]
    # Directions in the shape frame: u·R e_i.
    a0 = row[4] * u0 + row[7] * u1 + row[10] * u2
    a1 = row[5] * u0 + row[8] * u1 + row[11] * u2
    a2 = row[6] * u0 + row[9] * u1 + row[12] * u2
    if kind == BOX:
        return c + row[1] * abs(a0) + row[2] * abs(a1) + row[3] * abs(a2)
    return c + row[2] * abs(a2) + row[1] * math.sqrt(max(a0 * a0 + a1 * a1, 0.0))


@njit
def refine_pair(caps, W, a, b, R_out, p_out, s, t, d, dc, cutoff):
    """
    Return the capsule pair distance ``dc`` tightened by their hulls (a lower bound [m]).

    Round capsule ends overshoot flat geometry: the distance of the hulls the capsules hold
    (:func:`ik_node.collision.hulls.hull_distance`, GJK from the capsules' closest
    direction) is a tighter bound that is still never above the distance. It stops once the
    bound exceeds ``cutoff``.
    """
    if d <= 1e-9:
        return dc
    # (p_out[0]: an unused row of the obstacle's type, see hull_distance)
    return hull_distance(caps, (W, R_out, p_out), a, b, p_out[0],
                         closest_direction(W, a, b, s, t, d), (dc, cutoff))


@njit
def closest_direction(W, a, b, s, t, d):
    """
    Return the unit vector (3-tuple) from segment b's closest point to segment a's.

    ``s``, ``t`` [0, 1]: the closest points' parameters on segments a and b of ``W``
    (``segment_segment``); ``d`` [m]: their distance, > 0.
    """
    u0 = W[a, 0, 0] + s * (W[a, 1, 0] - W[a, 0, 0]) - W[b, 0, 0] - t * (W[b, 1, 0] - W[b, 0, 0])
    u1 = W[a, 0, 1] + s * (W[a, 1, 1] - W[a, 0, 1]) - W[b, 0, 1] - t * (W[b, 1, 1] - W[b, 0, 1])
    u2 = W[a, 0, 2] + s * (W[a, 1, 2] - W[a, 0, 2]) - W[b, 0, 2] - t * (W[b, 1, 2] - W[b, 0, 2])
    return (u0 / d, u1 / d, u2 / d)


@njit
def obstacle_gap(caps, W, c, R_out, p_out, row, t):
    """
    Return (gap, x0, x1, x2): capsule c's hull against obstacle ``row``, a lower bound.

    The direction is the obstacle's normal at the capsule segment's closest point (parameter
    t); (x0, x1, x2) is the hull point that sets the gap.
    """
    y0 = W[c, 0, 0] + t * (W[c, 1, 0] - W[c, 0, 0])
    y1 = W[c, 0, 1] + t * (W[c, 1, 1] - W[c, 0, 1])
    y2 = W[c, 0, 2] + t * (W[c, 1, 2] - W[c, 0, 2])
    u0, u1, u2 = shape_normal(row, y0, y1, y2)
    h, x0, x1, x2 = support(caps, W, c, R_out, p_out, u0, u1, u2)
    if int(row[0]) == HALF_SPACE:
        return h - row[1], x0, x1, x2
    return h - shape_support(row, u0, u1, u2), x0, x1, x2


@njit
def _obstacle_bound(W, c, row, radius):
    """
    Return a cheap lower bound [m] on the distance of capsule c (``radius``) to ``row``.

    Exact for half-spaces and spheres (the capsule's own distance); for boxes and cylinders
    the distance to a capsule around the shape: the broad phase that spares far pairs the
    search of :func:`segment_obstacle`.
    """
    kind = int(row[0])
    if kind == HALF_SPACE:
        d0 = row[4] * W[c, 0, 0] + row[7] * W[c, 0, 1] + row[10] * W[c, 0, 2] - row[1]
        d1 = row[4] * W[c, 1, 0] + row[7] * W[c, 1, 1] + row[10] * W[c, 1, 2] - row[1]
        return min(d0, d1) - radius
    if kind == SPHERE:
        return _point_segment(W, c, row[13], row[14], row[15])[0] - row[1] - radius
    return _shape_capsule_bound(W, c, row)[0] - radius


@njit
def refine_obstacle(caps, W, c, R_out, p_out, row, cutoff):
    """
    Return the signed distance [m] of capsule c to obstacle ``row``, a lower bound.

    The capsule's distance (:func:`segment_obstacle`), tightened, when it is within
    ``cutoff``, by the gap of the capsule's hull along the obstacle's normal: the round ends
    overshoot flat geometry (a link's flat base above the floor), the hull does not, and it
    is exact against a plane. Past ``cutoff`` the value may be a looser lower bound.
    """
    radius = caps.radius[c]
    d, t = segment_obstacle(W, c, row, cutoff + radius)
    d = d - radius
    if d <= cutoff and caps.start[c + 1] > caps.start[c]:
        d = max(d, obstacle_gap(caps, W, c, R_out, p_out, row, t)[0])
        if d <= cutoff and int(row[0]) != HALF_SPACE:
            # Against a plane the gap along its normal is exact; against a round or boxy
            # shape GJK finds the hull's distance.
            y0 = W[c, 0, 0] + t * (W[c, 1, 0] - W[c, 0, 0])
            y1 = W[c, 0, 1] + t * (W[c, 1, 1] - W[c, 0, 1])
            y2 = W[c, 0, 2] + t * (W[c, 1, 2] - W[c, 0, 2])
            n0, n1, n2 = shape_normal(row, y0, y1, y2)
            d = hull_distance(caps, (W, R_out, p_out), c, np.int64(-1), row, (n0, n1, n2),
                              (d, cutoff))
    return d


@njit
def _frames(F, K, q):
    """Return (model, caps, R_out, p_out, z_out, W): FK and the capsules' base-frame ends."""
    model, caps = unpack(F, K)
    m = model[0].shape[0]
    R_out = np.empty((m + 1, 3, 3))
    p_out = np.empty((m + 1, 3))
    z_out = np.empty((m, 3))
    W = np.empty((caps.seg.shape[0], 2, 3))
    tree, parent, _ = unpack_tree(K)
    if tree:
        tree_frames(model, parent, q, R_out, p_out, z_out)
        _segments(caps.seg, caps.anchor, R_out, p_out, W)
    else:
        world_segments(model, q, caps.seg, caps.anchor, R_out, p_out, z_out, W)
    return model, caps, R_out, p_out, z_out, W


@njit
def distances(F, K, q, obstacles, cutoff):
    """
    Return (d_self (p,), d_obs (k, o), hits): signed capsule distances [m] at ``q``.

    ``F``, ``K``: the flattened chain and capsules (:func:`ik_node.collision.model.pack_flat`).
    ``hits`` counts entries <= SLACK. Entries farther than ``cutoff`` may hold a looser
    lower bound instead of the distance (the capsules' own distance, or for boxes and
    cylinders the distance to a capsule around them).
    """
    model, caps, R_out, p_out, z_out, W = _frames(F, K, q)
    radius = caps.radius
    pairs = caps.pairs
    d_self = np.empty(pairs.shape[0])
    hits = 0
    for i in range(pairs.shape[0]):
        a = pairs[i, 0]
        b = pairs[i, 1]
        d, s, t = segment_segment(W, a, b)
        dc = d - radius[a] - radius[b]
        if dc <= cutoff:
            dc = refine_pair(caps, W, a, b, R_out, p_out, s, t, d, dc, cutoff)
        d_self[i] = dc
        if dc <= SLACK:
            hits += 1
    moving = caps.moving
    d_obs = np.empty((moving.shape[0], obstacles.shape[0]))
    for i in range(moving.shape[0]):
        c = moving[i]
        for o in range(obstacles.shape[0]):
            row = obstacles[o]
            d = _obstacle_bound(W, c, row, radius[c])
            if d <= cutoff:
                d = refine_obstacle(caps, W, c, R_out, p_out, row, cutoff)
            d_obs[i, o] = d
            if d <= SLACK:
                hits += 1
    return d_self, d_obs, hits


@njit_nogil
def contacts(F, K, q, obstacles):
    """
    Return the codes (h,) of the pairs in contact at ``q``.

    Code i is capsule pair i, p + i·o + j moving capsule i against obstacle j (p pairs,
    o obstacles); [-1] when q is not finite. One pass over the pairs after FK, each through
    the cheapest test that can rule contact out: the capsules' bounding balls, then the
    capsules (or for an obstacle its cheap bound), and only then the hulls. The result is
    that of :func:`distances` with cutoff SLACK: entries <= SLACK.
    """
    for j in range(q.shape[0]):
        if not math.isfinite(q[j]):
            return np.full(1, -1, dtype=np.int64)
    model, caps, R_out, p_out, z_out, W = _frames(F, K, q)
    radius = caps.radius
    pairs = caps.pairs
    moving = caps.moving
    p = pairs.shape[0]
    o = obstacles.shape[0]
    out = np.empty(p + moving.shape[0] * o, dtype=np.int64)
    # Bounding ball of each capsule: centre (the segment's middle) and radius.
    ball = np.empty((W.shape[0], 4))
    for c in range(W.shape[0]):
        e0 = W[c, 1, 0] - W[c, 0, 0]
        e1 = W[c, 1, 1] - W[c, 0, 1]
        e2 = W[c, 1, 2] - W[c, 0, 2]
        ball[c, 0] = W[c, 0, 0] + 0.5 * e0
        ball[c, 1] = W[c, 0, 1] + 0.5 * e1
        ball[c, 2] = W[c, 0, 2] + 0.5 * e2
        ball[c, 3] = 0.5 * math.sqrt(e0 * e0 + e1 * e1 + e2 * e2) + radius[c]
    h = 0
    for i in range(p):
        a = pairs[i, 0]
        b = pairs[i, 1]
        g0 = ball[a, 0] - ball[b, 0]
        g1 = ball[a, 1] - ball[b, 1]
        g2 = ball[a, 2] - ball[b, 2]
        reach = ball[a, 3] + ball[b, 3] + SLACK
        if g0 * g0 + g1 * g1 + g2 * g2 > reach * reach:
            continue
        d, s, t = segment_segment(W, a, b)
        dc = d - radius[a] - radius[b]
        if dc <= SLACK:
            dc = refine_pair(caps, W, a, b, R_out, p_out, s, t, d, dc, SLACK)
        if dc <= SLACK:
            out[h] = i
            h += 1
    for i in range(moving.shape[0]):
        c = moving[i]
        for j in range(o):
            d = _obstacle_bound(W, c, obstacles[j], radius[c])
            if d <= SLACK:
                d = refine_obstacle(caps, W, c, R_out, p_out, obstacles[j], SLACK)
            if d <= SLACK:
                out[h] = p + i * o + j
                h += 1
    return out[:h]


@njit
def closest(F, K, q, obstacles):
    """
    Return (d_self, i_self, d_obs, i_obs): the smallest signed distances [m] at ``q``.

    d_self over the capsule pairs (pair i_self), d_obs over the moving capsules against the
    obstacles (entry i_obs = i·o + j, as in :func:`contacts`); inf and -1 when there is
    none; i_self is -2 when q is not finite. The values equal the minima of
    :func:`distances` with an infinite cutoff, found by branch and bound: every pair's cheap
    bound first, then refinement in increasing order of bound, stopping at the first bound
    that the smallest refined distance already beats (refining only lifts a bound).
    """
    for j in range(q.shape[0]):
        if not math.isfinite(q[j]):
            return math.inf, -2, math.inf, -1
    model, caps, R_out, p_out, z_out, W = _frames(F, K, q)
    radius = caps.radius
    pairs = caps.pairs
    p = pairs.shape[0]
    bound = np.empty(p)
    par = np.empty((p, 3))
    for i in range(p):
        a = pairs[i, 0]
        b = pairs[i, 1]
        d, s, t = segment_segment(W, a, b)
        bound[i] = d - radius[a] - radius[b]
        par[i, 0] = s
        par[i, 1] = t
        par[i, 2] = d
    best_s = math.inf
    arg_s = -1
    for i in np.argsort(bound):
        if bound[i] >= best_s:
            break
        dc = refine_pair(caps, W, pairs[i, 0], pairs[i, 1], R_out, p_out, par[i, 0],
                         par[i, 1], par[i, 2], bound[i], best_s)
        if dc < best_s:
            best_s = dc
            arg_s = i
    moving = caps.moving
    o = obstacles.shape[0]
    bound_o = np.empty(moving.shape[0] * o)
    for i in range(moving.shape[0]):
        c = moving[i]
        for j in range(o):
            bound_o[i * o + j] = _obstacle_bound(W, c, obstacles[j], radius[c])
    best_o = math.inf
    arg_o = -1
    for e in np.argsort(bound_o):
        if bound_o[e] >= best_o:
            break
        d = refine_obstacle(caps, W, moving[e // o], R_out, p_out, obstacles[e % o], best_o)
        if d < best_o:
            best_o = d
            arg_o = e
    return best_s, arg_s, best_o, arg_o


@njit
def _add_point_gradient(model, end, p_out, z_out, k, x0, x1, x2, u0, u1, u2, scale, grad):
    """
    Add scale · uᵀ ∂x/∂q into ``grad`` for a point x carried by moving joint k.

    end (m,): the joints' subtree ends (:mod:`ik_node.collision.joint_tree`): joint j moves x
    when j <= k < end[j] (every j <= k on a chain).
    """
    types = model[3]
    index = model[4]
    mult = model[5]
    for j in range(k + 1):
        if end[j] <= k:
            continue    # another branch of a tree
        z = z_out[j]
        if types[j] == 0:
            r0 = x0 - p_out[j, 0]
            r1 = x1 - p_out[j, 1]
            r2 = x2 - p_out[j, 2]
            v0 = z[1] * r2 - z[2] * r1
            v1 = z[2] * r0 - z[0] * r2
            v2 = z[0] * r1 - z[1] * r0
        else:
            v0, v1, v2 = z[0], z[1], z[2]
        grad[index[j]] += scale * mult[j] * (u0 * v0 + u1 * v1 + u2 * v2)


@njit
def clearance_terms(F, K, q, obstacles, margin, grad):
    """
    Return h = ½ Σ max(0, margin - d)² over capsule pairs and capsule-obstacle pairs.

    Unless ``grad`` is empty, add ∇h (n,) into it (one argument, not a flag: numba would
    compile the function once per constant flag value). For a pair at distance d with closest
    points x_a, x_b and unit normal u = (x_a - x_b)/|x_a - x_b|, ∂d/∂q = uᵀ(∂x_a/∂q - ∂x_b/∂q)
    (the closest points may be held fixed: envelope theorem), and ∂h/∂q = -(margin - d) ∂d/∂q.
    """
    model, caps, R_out, p_out, z_out, W = _frames(F, K, q)
    _, _, end = unpack_tree(K)
    frames = (W, R_out, p_out)
    radius = caps.radius
    anchor = caps.anchor
    pairs = caps.pairs
    want_grad = grad.shape[0] > 0
    h = 0.0
    for i in range(pairs.shape[0]):
        a = pairs[i, 0]
        b = pairs[i, 1]
        d, s, t = segment_segment(W, a, b)
        dc = d - radius[a] - radius[b]
        if dc < margin and d > 1e-9:
            direction = closest_direction(W, a, b, s, t, d)
            gap, u, ya, yb = hull_witness(caps, frames, a, b, p_out[0], direction,
                                          (dc, margin))
            if gap <= 0.0:
                # The hulls meet: GJK's last direction is no measure of depth; the gap along
                # the capsules' direction is (its first step alone).
                gap, u, ya, yb = hull_witness(caps, frames, a, b, p_out[0], direction,
                                              (dc, -math.inf))
            if gap > dc:
                pen = margin - gap
                if pen <= 0.0:
                    continue
                h += 0.5 * pen * pen
                if want_grad:
                    if anchor[a] >= 0:
                        _add_point_gradient(model, end, p_out, z_out, anchor[a], ya[0],
                                            ya[1], ya[2], u[0], u[1], u[2], -pen, grad)
                    if anchor[b] >= 0:
                        _add_point_gradient(model, end, p_out, z_out, anchor[b], yb[0],
                                            yb[1], yb[2], u[0], u[1], u[2], pen, grad)
                continue
        pen = margin - dc
        if pen <= 0.0:
            continue
        h += 0.5 * pen * pen
        if not want_grad or d < 1e-12:
            continue
        xa0 = W[a, 0, 0] + s * (W[a, 1, 0] - W[a, 0, 0])
        xa1 = W[a, 0, 1] + s * (W[a, 1, 1] - W[a, 0, 1])
        xa2 = W[a, 0, 2] + s * (W[a, 1, 2] - W[a, 0, 2])
        xb0 = W[b, 0, 0] + t * (W[b, 1, 0] - W[b, 0, 0])
        xb1 = W[b, 0, 1] + t * (W[b, 1, 1] - W[b, 0, 1])
        xb2 = W[b, 0, 2] + t * (W[b, 1, 2] - W[b, 0, 2])
        u0 = (xa0 - xb0) / d
        u1 = (xa1 - xb1) / d
        u2 = (xa2 - xb2) / d
        if anchor[a] >= 0:
            _add_point_gradient(model, end, p_out, z_out, anchor[a], xa0, xa1, xa2, u0, u1,
                                u2, -pen, grad)
        if anchor[b] >= 0:
            _add_point_gradient(model, end, p_out, z_out, anchor[b], xb0, xb1, xb2, u0, u1,
                                u2, pen, grad)
    moving = caps.moving
    for i in range(moving.shape[0]):
        c = moving[i]
        has_hull = caps.start[c + 1] > caps.start[c]
        for o in range(obstacles.shape[0]):
            d, t = segment_obstacle(W, c, obstacles[o], margin + radius[c])
            d = d - radius[c]
            x0 = W[c, 0, 0] + t * (W[c, 1, 0] - W[c, 0, 0])
            x1 = W[c, 0, 1] + t * (W[c, 1, 1] - W[c, 0, 1])
            x2 = W[c, 0, 2] + t * (W[c, 1, 2] - W[c, 0, 2])
            u0, u1, u2 = shape_normal(obstacles[o], x0, x1, x2)
            if d < margin and has_hull:
                dh, y0, y1, y2 = obstacle_gap(caps, W, c, R_out, p_out, obstacles[o], t)
                if dh > d:
                    d, x0, x1, x2 = dh, y0, y1, y2
                    u0, u1, u2 = shape_normal(obstacles[o], x0, x1, x2)
                if d < margin and int(obstacles[o][0]) != HALF_SPACE:
                    gap, u, y, _ = hull_witness(caps, frames, c, np.int64(-1), obstacles[o],
                                                (u0, u1, u2), (d, margin))
                    # Apart, or a sphere (GJK to its centre): GJK's direction is the normal.
                    if gap > d and (gap > 0.0 or int(obstacles[o][0]) == SPHERE):
                        d, x0, x1, x2 = gap, y[0], y[1], y[2]
                        u0, u1, u2 = u[0], u[1], u[2]
            pen = margin - d
            if pen <= 0.0:
                continue
            h += 0.5 * pen * pen
            if not want_grad:
                continue
            _add_point_gradient(model, end, p_out, z_out, anchor[c], x0, x1, x2, u0, u1,
                                u2, -pen, grad)
    return h


@njit_nogil
def samples_contact(F, K, qa, qb, obstacles, step):
    """
    Return the first fraction s of qa -> qb whose sample is in contact, or -1.

    Samples at most ``step`` [rad or m] apart in every joint, both ends included: a cheap
    test for a planner's tree (between samples a contact may be missed; see
    :func:`path_contact` for the certified one).
    """
    n = qa.shape[0]
    span = 0.0
    for j in range(n):
        span = max(span, abs(qb[j] - qa[j]))
    pieces = max(1, int(math.ceil(span / step)))
    q = np.empty(n)
    for k in range(pieces + 1):
        s = k / pieces
        for j in range(n):
            q[j] = qa[j] + s * (qb[j] - qa[j])
        if contacts(F, K, q, obstacles).shape[0] > 0:
            return s
    return -1.0


@njit
def _clearances(F, K, q, obstacles, cutoff, out):
    """Fill ``out`` (p + k·o,) with the pair then obstacle distances at ``q``; return hits."""
    d_self, d_obs, hits = distances(F, K, q, obstacles, cutoff)
    p = d_self.shape[0]
    out[:p] = d_self
    out[p:] = d_obs.ravel()
    return hits


@njit_nogil
def path_contact(F, K, qa, qb, obstacles, sweep, step, resolution):
    """
    Return the first fraction s in [0, 1] of qa -> qb where contact cannot be ruled out, or -1.

    Between two configurations whose joint values differ by Δq, the distance of entry e (a
    capsule pair, or a moving capsule and an obstacle) changes by at most
    W_e = Σ_j |Δq_j| sweep[e, j] [m] (``sweep`` (p + k, n), see
    :func:`ik_node.collision.model._sweep`: a pair counts only the joints between its two
    capsules). So an interval on which every entry's end distances d0, d1 satisfy
    d0 + d1 > W_e holds no contact. Other intervals are halved until they are shorter than
    ``resolution`` [rad or m] in every joint; then contact is reported (conservative).
    ``step`` sets the first sampling (the longest first interval in any joint).
    """
    n = qa.shape[0]
    dq = qb - qa
    span = 0.0
    for j in range(n):
        span = max(span, abs(dq[j]))
    pieces = max(1, int(math.ceil(span / step)))
    p = K[2]
    o = obstacles.shape[0]
    e_n = p + (sweep.shape[0] - p) * o
    # Each entry's change over the whole edge, and the row of each distance entry.
    whole = np.zeros(e_n)
    for e in range(e_n):
        r = e if e < p else p + (e - p) // o
        for j in range(n):
            whole[e] += abs(dq[j]) * sweep[r, j]
    # Entries farther than the first pieces' largest change clear every interval anyway:
    # their distances need not be exact.
    cutoff = 0.0
    for e in range(e_n):
        cutoff = max(cutoff, whole[e] / pieces)
    # Each stack entry: an interval [s0, s1] and the distances at both ends, so that every
    # configuration is checked once (a split checks only its middle).
    stack_s = np.empty((64 + pieces, 2))
    stack_d = np.empty((64 + pieces, 2, e_n))
    q = np.empty(n)
    ends = np.empty((pieces + 1, e_n))
    if _clearances(F, K, qa, obstacles, cutoff, ends[0]) > 0:
        return 0.0
    for k in range(1, pieces + 1):
        s = k / pieces
        for j in range(n):
            q[j] = qa[j] + s * dq[j]
        if _clearances(F, K, q, obstacles, cutoff, ends[k]) > 0:
            # Contact at a sample; an earlier one is still possible in the pieces before it.
            pieces = k
            break
    top = 0
    for k in range(pieces - 1, -1, -1):
        stack_s[top, 0] = k / pieces
        stack_s[top, 1] = (k + 1) / pieces
        stack_d[top, 0] = ends[k]
        stack_d[top, 1] = ends[k + 1]
        top += 1
    mid_d = np.empty(e_n)
    while top > 0:
        top -= 1
        s0 = stack_s[top, 0]
        s1 = stack_s[top, 1]
        d0 = stack_d[top, 0]
        d1 = stack_d[top, 1]
        clear = True
        for e in range(e_n):
            if d1[e] <= SLACK:
                return s1
            if d0[e] + d1[e] <= (s1 - s0) * whole[e]:
                clear = False
        if clear:
            continue
        if (s1 - s0) * span <= resolution:
            return s0
        if top + 2 > stack_s.shape[0]:
            return s0
        mid = 0.5 * (s0 + s1)
        for j in range(n):
            q[j] = qa[j] + mid * dq[j]
        _clearances(F, K, q, obstacles, cutoff, mid_d)
        # [mid, s1] first in the stack, so that [s0, mid] is examined first.
        stack_s[top + 1, 0] = s0
        stack_s[top + 1, 1] = mid
        stack_d[top + 1, 0] = d0
        stack_d[top + 1, 1] = mid_d
        stack_s[top, 0] = mid
        stack_s[top, 1] = s1
        stack_d[top, 0] = mid_d
        stack_d[top, 1] = d1
        top += 2
    return -1.0
