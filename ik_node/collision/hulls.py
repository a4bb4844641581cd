# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Distances between the convex hulls that hold link geometry, by GJK (numba).

Each capsule of :class:`ik_node.collision.model.Capsules` carries the vertices of the faces
it bounds (``points[start[c]:start[c + 1]]``, in its anchor's frame); their convex hull
contains that geometry and is much tighter than the capsule where the geometry is flat or
short and wide (a base plate, a joint housing). The capsule decides first (cheap); a pair the
capsules cannot part goes to :func:`hull_distance`.

:func:`hull_distance` is the Gilbert-Johnson-Keerthi iteration on the Minkowski difference
D = A - B of two hulls (or of a hull and an obstacle shape). It only ever returns a **lower
bound** on the distance: for any unit direction u, min over D of u·w bounds the distance of
the two sets from below (a separating gap), and the iteration keeps the largest such gap it
meets. The simplex step (the point of the current simplex nearest the origin, found by trying
every face of it, at most 15) only chooses the next direction, so its rounding can slow the
iteration down but never make a contact disappear.
"""

import math

from ik_node._jit import njit
from ik_node.collision.shapes import CYLINDER, SPHERE
import numpy as np

__all__ = ['hull_support', 'shape_farthest', 'nearest_on_simplex', 'hull_distance',
           'hull_witness']

# GJK iterations at most, and the gap [m] between the upper and lower bound that ends it.
GJK_STEPS = 32
GJK_TOLERANCE = 1e-7


@njit
def hull_support(caps, W, c, R_out, p_out, u0, u1, u2):
    """
    Return (h, x0, x1, x2): the smallest u·x over capsule c's hull points x, and the point.

    A capsule without hull points (a sphere) uses its own support, min over its end points
    of u·x minus its radius. The hull contains the link geometry, so for a unit u,
    h_a(u) - max_b u·y bounds the distance between a and b from below (a separating gap).
    """
    points = caps.points
    start = caps.start
    k = caps.anchor[c]
    best = math.inf
    b0 = b1 = b2 = 0.0
    if start[c + 1] == start[c]:
        r = caps.radius[c]
        for e in range(2):
            d = u0 * W[c, e, 0] + u1 * W[c, e, 1] + u2 * W[c, e, 2] - r
            if d < best:
                best = d
                b0 = W[c, e, 0] - r * u0
                b1 = W[c, e, 1] - r * u1
                b2 = W[c, e, 2] - r * u2
        return best, b0, b1, b2
    if k >= 0:
        # The direction in the anchor's frame: one rotation instead of one per point.
        v0 = R_out[k, 0, 0] * u0 + R_out[k, 1, 0] * u1 + R_out[k, 2, 0] * u2
        v1 = R_out[k, 0, 1] * u0 + R_out[k, 1, 1] * u1 + R_out[k, 2, 1] * u2
        v2 = R_out[k, 0, 2] * u0 + R_out[k, 1, 2] * u1 + R_out[k, 2, 2] * u2
    else:
        v0, v1, v2 = u0, u1, u2
    arg = start[c]
    for h in range(start[c], start[c + 1]):
        d = v0 * points[h, 0] + v1 * points[h, 1] + v2 * points[h, 2]
        if d < best:
            best = d
            arg = h
    x0, x1, x2 = points[arg, 0], points[arg, 1], points[arg, 2]
    if k < 0:
        return best, x0, x1, x2
    y0 = p_out[k, 0] + R_out[k, 0, 0] * x0 + R_out[k, 0, 1] * x1 + R_out[k, 0, 2] * x2
    y1 = p_out[k, 1] + R_out[k, 1, 0] * x0 + R_out[k, 1, 1] * x1 + R_out[k, 1, 2] * x2
    y2 = p_out[k, 2] + R_out[k, 2, 0] * x0 + R_out[k, 2, 1] * x1 + R_out[k, 2, 2] * x2
    return u0 * y0 + u1 * y1 + u2 * y2, y0, y1, y2


@njit
def shape_farthest(row, u0, u1, u2):
    """
    Return (h, y0, y1, y2): the largest u·y over the obstacle ``row`` and a point that has it.

    For spheres, boxes and cylinders (a half-space has no largest value).
    """
    c0, c1, c2 = row[13], row[14], row[15]
    kind = int(row[0])
    if kind == SPHERE:
        r = row[1]
        return u0 * c0 + u1 * c1 + u2 * c2 + r, c0 + r * u0, c1 + r * u1, c2 + r * u2
    # The direction in the shape's frame: a_j = u·R e_j (R row major in row[4:13]).
    a0 = row[4] * u0 + row[7] * u1 + row[10] * u2
    a1 = row[5] * u0 + row[8] * u1 + row[11] * u2
    a2 = row[6] * u0 + row[9] * u1 + row[12] * u2
    if kind == CYLINDER:
        rho = math.sqrt(a0 * a0 + a1 * a1)
        l0 = row[1] * a0 / rho if rho > 1e-12 else 0.0
        l1 = row[1] * a1 / rho if rho > 1e-12 else 0.0
        l2 = math.copysign(row[2], a2)
    else:
        l0 = math.copysign(row[1], a0)
        l1 = math.copysign(row[2], a1)
        l2 = math.copysign(row[3], a2)
    y0 = c0 + row[4] * l0 + row[5] * l1 + row[6] * l2
    y1 = c1 + row[7] * l0 + row[8] * l1 + row[9] * l2
    y2 = c2 + row[10] * l0 + row[11] * l1 + row[12] * l2
    return u0 * y0 + u1 * y1 + u2 * y2, y0, y1, y2


@njit
def _solve_small(G, r, k):
    """Solve G[:k, :k] x = r[:k] (k <= 3) by elimination with pivoting; None if singular."""
    A = G[:k, :k].copy()
    x = r[:k].copy()
    scale = 0.0
    for i in range(k):
        scale = max(scale, abs(A[i, i]))
    for col in range(k):
        piv = col
        for i in range(col + 1, k):
            if abs(A[i, col]) > abs(A[piv, col]):
                piv = i
        if abs(A[piv, col]) <= 1e-14 * max(scale, 1e-300):
            return None
        if piv != col:
            for j in range(k):
                A[col, j], A[piv, j] = A[piv, j], A[col, j]
            x[col], x[piv] = x[piv], x[col]
        for i in range(col + 1, k):
            f = A[i, col] / A[col, col]
            for j in range(col, k):
                A[i, j] -= f * A[col, j]
            x[i] -= f * x[col]
    for i in range(k - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, k):
            s -= A[i, j] * x[j]
        x[i] = s / A[i, i]
    return x


@njit
def nearest_on_simplex(Y, m):
    """
    Return (v0, v1, v2, m'): the point of the hull of Y[:m] (m <= 4) nearest the origin.

    Every face of the simplex is tried: the nearest point of its affine hull, kept when its
    barycentric weights are all positive; the nearest of those is the answer (it lies inside
    the face that holds the true nearest point). Y[:m'] is left holding that face's points.
    m' = 4 means the origin is inside the tetrahedron.
    """
    G = np.empty((3, 3))
    r = np.empty(3)
    best = math.inf
    best_mask = 1
    v0 = Y[0, 0]
    v1 = Y[0, 1]
    v2 = Y[0, 2]
    idx = np.empty(4, dtype=np.int64)
    for mask in range(1, 1 << m):
        k = 0
        for i in range(m):
            if (mask >> i) & 1:
                idx[k] = i
                k += 1
        o = idx[0]
        if k == 1:
            x0, x1, x2 = Y[o, 0], Y[o, 1], Y[o, 2]
        else:
            # x = y_o + sum_j mu_j (y_j - y_o); normal equations G mu = -E^T y_o.
            for i in range(k - 1):
                for j in range(k - 1):
                    G[i, j] = ((Y[idx[i + 1], 0] - Y[o, 0]) * (Y[idx[j + 1], 0] - Y[o, 0])
                               + (Y[idx[i + 1], 1] - Y[o, 1]) * (Y[idx[j + 1], 1] - Y[o, 1])
                               + (Y[idx[i + 1], 2] - Y[o, 2]) * (Y[idx[j + 1], 2] - Y[o, 2]))
                r[i] = -((Y[idx[i + 1], 0] - Y[o, 0]) * Y[o, 0]
                         + (Y[idx[i + 1], 1] - Y[o, 1]) * Y[o, 1]
                         + (Y[idx[i + 1], 2] - Y[o, 2]) * Y[o, 2])
            mu = _solve_small(G, r, k - 1)
            if mu is None:
                continue
            first = 1.0
            positive = True
            for i in range(k - 1):
                first -= mu[i]
                if mu[i] <= 0.0:
                    positive = False
            if not positive or first <= 0.0:
                continue
            x0, x1, x2 = Y[o, 0], Y[o, 1], Y[o, 2]
            for i in range(k - 1):
                x0 += mu[i] * (Y[idx[i + 1], 0] - Y[o, 0])
                x1 += mu[i] * (Y[idx[i + 1], 1] - Y[o, 1])
                x2 += mu[i] * (Y[idx[i + 1], 2] - Y[o, 2])
        n2 = x0 * x0 + x1 * x1 + x2 * x2
        if n2 < best:
            best = n2
            best_mask = mask
            v0, v1, v2 = x0, x1, x2
    k = 0
    for i in range(m):
        if (best_mask >> i) & 1:
            for j in range(3):
                Y[k, j] = Y[i, j]
            k += 1
    return v0, v1, v2, k


@njit
def _support_gap(caps, frames, a, b, row, u0, u1, u2):
    """Return (u·w, w): w the point of D = hull a - (hull b, or row if b < 0) least along u."""
    W, R_out, p_out = frames
    ha, xa0, xa1, xa2 = hull_support(caps, W, a, R_out, p_out, u0, u1, u2)
    if b >= 0:
        hb, xb0, xb1, xb2 = hull_support(caps, W, b, R_out, p_out, -u0, -u1, -u2)
        hb = -hb
    elif int(row[0]) == SPHERE:
        # A sphere is its centre grown by the radius: GJK runs to the centre, which stays
        # outside the hull (and the distance exact) until the hull reaches the centre.
        xb0, xb1, xb2 = row[13], row[14], row[15]
        hb = u0 * xb0 + u1 * xb1 + u2 * xb2
    else:
        hb, xb0, xb1, xb2 = shape_farthest(row, u0, u1, u2)
    return ha - hb, xa0 - xb0, xa1 - xb1, xa2 - xb2


@njit
def _grown(b, row):
    """Return the radius [m] the second set is grown by: a sphere obstacle's, else 0."""
    return row[1] if b < 0 and int(row[0]) == SPHERE else 0.0


@njit
def _gjk(caps, frames, a, b, row, u, bounds):
    """Return (bound, u0, u1, u2): :func:`hull_distance` and the direction that gave it."""
    grow = _grown(b, row)
    lower = bounds[0] + grow
    cutoff = bounds[1] + grow
    best = lower
    b0, b1, b2 = u
    g, w0, w1, w2 = _support_gap(caps, frames, a, b, row, b0, b1, b2)
    if g > best:
        best = g
    if best > cutoff:
        return best, b0, b1, b2
    Y = np.empty((4, 3))
    Y[0, 0] = w0
    Y[0, 1] = w1
    Y[0, 2] = w2
    m = 1
    v0, v1, v2 = w0, w1, w2
    for _ in range(GJK_STEPS):
        vn = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
        if vn <= 1e-12:
            break                      # the hulls meet: no positive gap exists
        g, w0, w1, w2 = _support_gap(caps, frames, a, b, row, v0 / vn, v1 / vn, v2 / vn)
        if g > best:
            best = g
            b0, b1, b2 = v0 / vn, v1 / vn, v2 / vn
        if best > cutoff or vn - g <= GJK_TOLERANCE:
            break
        seen = False
        for i in range(m):
            if Y[i, 0] == w0 and Y[i, 1] == w1 and Y[i, 2] == w2:
                seen = True
        if seen:
            break                      # no new support point: as far as GJK gets
        Y[m, 0] = w0
        Y[m, 1] = w1
        Y[m, 2] = w2
        v0, v1, v2, m = nearest_on_simplex(Y, m + 1)
        if m == 4:
            break
    return best - grow, b0, b1, b2


@njit
def hull_distance(caps, frames, a, b, row, u, bounds):
    """
    Return a lower bound [m] on the distance of hull a to hull b (or to obstacle ``row``).

    frames: (W, R_out, p_out) as posed by :func:`ik_node.collision.kernels._frames`; b: a
    capsule index, or -1 for the obstacle ``row`` (sphere, box or cylinder). u: (u0, u1,
    u2), a unit first direction pointing from b toward a (the capsules' closest points).
    bounds: (lower, cutoff): a bound already known (the capsules' distance) and the value
    past which the exact figure is not needed (the iteration stops there). The result is the
    largest of ``lower`` and the gaps met; hulls that meet leave it at or below zero.

    The callers pass b as an int64 (``np.int64(-1)``, not the literal -1) and, for a pair,
    an unused writable float64 row as ``row``: with the obstacle's types, these kernels
    compile once for both uses (numba compiles them once per type of b and of row).
    """
    return _gjk(caps, frames, a, b, row, u, bounds)[0]


@njit
def hull_witness(caps, frames, a, b, row, u, bounds):
    """
    Return (bound, u (3,), x_a (3,), x_b (3,)): :func:`hull_distance`, its direction, points.

    When a gap beat ``lower``, u is its unit direction (from b toward a) and x_a, x_b the
    support points that set it: bound = u·(x_a - x_b), and with u held fixed its change with
    the configuration is u·(dx_a - dx_b) (the envelope theorem), the gradient the clearance
    objective needs. When none did, u is the one given.
    """
    W, R_out, p_out = frames
    best, u0, u1, u2 = _gjk(caps, frames, a, b, row, u, bounds)
    xa = np.empty(3)
    xb = np.empty(3)
    _, xa[0], xa[1], xa[2] = hull_support(caps, W, a, R_out, p_out, u0, u1, u2)
    if b >= 0:
        _, xb[0], xb[1], xb[2] = hull_support(caps, W, b, R_out, p_out, -u0, -u1, -u2)
    else:
        _, xb[0], xb[1], xb[2] = shape_farthest(row, u0, u1, u2)
    return best, np.array([u0, u1, u2]), xa, xb
