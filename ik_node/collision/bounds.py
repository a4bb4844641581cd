# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Capsules that bound link geometry: the conservative approximation the solver loop uses.

A capsule (segment a-b, radius r) is convex, so a capsule that contains every vertex of a
mesh contains the mesh's convex hull and with it every triangle; a box is the hull of its
eight corners; a sphere is a capsule of zero length; a cylinder of radius R and length L is
inside the capsule on its axis with segment ±L/2 and radius R (or the ball around it, when
that is smaller). Every check on capsules therefore finds every contact of the real geometry
(it never misses one) and may report contacts the real geometry does not have (its false
positives are measured in bench/bench_collision.py).

A mesh gets one capsule per face cluster (``max_capsules``, the faces split along the mesh's
longest axis) when that is tighter than one capsule: each cluster's capsule contains the
vertices of all its faces, so the union still contains every triangle.
"""

import math

import numpy as np

__all__ = ['capsule_of_points', 'capsule_of_box', 'capsule_of_cylinder', 'capsule_volume',
           'capsules_of_mesh', 'hull_points', 'box_corners', 'cylinder_points']

# A cylinder's rim is replaced by a circumscribed polygon of this many sides for its hull.
_RIM_SIDES = 12


def capsule_volume(a: np.ndarray, b: np.ndarray, r: float) -> float:
    """Return the volume [m³] of the capsule with segment a-b and radius r."""
    return math.pi * r * r * float(np.linalg.norm(b - a)) + 4.0 / 3.0 * math.pi * r ** 3


def _fit_axis(points: np.ndarray, center: np.ndarray, axis: np.ndarray):
    """Return the smallest capsule on the line center + t axis containing ``points``."""
    d = points - center
    t = d @ axis
    rho2 = np.maximum(np.sum(d * d, axis=1) - t * t, 0.0)
    r = math.sqrt(float(np.max(rho2)))
    # Shorten the segment as far as the end caps allow: a point at (t, rho) is inside when
    # it lies within r of the segment [s0, s1].
    slack = np.sqrt(np.maximum(r * r - rho2, 0.0))
    s0 = float(np.min(t + slack))
    s1 = float(np.max(t - slack))
    if s0 > s1:
        s0 = s1 = 0.5 * (s0 + s1)
    a = center + s0 * axis
    b = center + s1 * axis
    # Rounding may leave a point a hair outside: grow r to the exact farthest distance.
    r = max(r, float(np.max(_point_segment_distance(points, a, b))))
    return a, b, r


def _point_segment_distance(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ab = b - a
    L2 = float(ab @ ab)
    if L2 <= 0.0:
        return np.linalg.norm(points - a, axis=1)
    t = np.clip((points - a) @ ab / L2, 0.0, 1.0)
    return np.linalg.norm(points - (a + t[:, None] * ab), axis=1)


def capsule_of_points(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """
    Return (a (3,), b (3,), r [m]): a capsule containing every one of ``points`` (k, 3).

    The axis is the best of the three principal axes and the axis of the two farthest
    extreme points, by capsule volume; the radius is grown to the farthest point, so the
    result always contains the points whatever the rounding.
    """
    p = np.asarray(points, dtype=float).reshape(-1, 3)
    center = 0.5 * (p.min(axis=0) + p.max(axis=0))
    if p.shape[0] == 1:
        return p[0].copy(), p[0].copy(), 0.0
    cov = np.cov((p - p.mean(axis=0)).T) if p.shape[0] > 1 else np.eye(3)
    _, vecs = np.linalg.eigh(cov)
    axes = [vecs[:, k] for k in range(3)]
    best = None
    for axis in axes:
        n = float(np.linalg.norm(axis))
        if n < 1e-12:
            continue
        a, b, r = _fit_axis(p, center, axis / n)
        vol = capsule_volume(a, b, r)
        if best is None or vol < best[0]:
            best = (vol, a, b, r)
    assert best is not None   # eigh's eigenvectors are unit vectors: one axis at least
    return best[1], best[2], best[3]


def hull_points(points: np.ndarray) -> np.ndarray:
    """Return the vertices of the convex hull of ``points`` (k, 3) (all of them if flat)."""
    from scipy.spatial import ConvexHull, QhullError
    p = np.asarray(points, dtype=float).reshape(-1, 3)
    if p.shape[0] <= 8:
        return p.copy()
    try:
        return p[ConvexHull(p).vertices]
    except (QhullError, ValueError):   # flat or degenerate: every point is kept
        return p.copy()


def box_corners(size) -> np.ndarray:
    """Return the 8 corners (8, 3) of the box of full ``size`` centred at the origin."""
    h = 0.5 * np.asarray(size, dtype=float)
    return np.array([[sx * h[0], sy * h[1], sz * h[2]]
                     for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])


def cylinder_points(radius: float, length: float) -> np.ndarray:
    """Return the corners of a prism that contains the cylinder (radius, length along z)."""
    angles = np.arange(_RIM_SIDES) * (2.0 * math.pi / _RIM_SIDES)
    rim = radius / math.cos(math.pi / _RIM_SIDES)     # circumscribed polygon
    ring = np.stack([rim * np.cos(angles), rim * np.sin(angles), np.zeros(_RIM_SIDES)], axis=1)
    top = ring + (0.0, 0.0, 0.5 * length)
    bottom = ring - (0.0, 0.0, 0.5 * length)
    return np.vstack([bottom, top])


def capsule_of_box(size) -> tuple[np.ndarray, np.ndarray, float]:
    """Return a capsule containing the box of full ``size`` (x, y, z) centred at the origin."""
    return capsule_of_points(box_corners(size))


def capsule_of_cylinder(radius: float, length: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Return a capsule containing the cylinder (radius, length along z) at the origin."""
    half = 0.5 * length
    a = np.array([0.0, 0.0, -half])
    b = np.array([0.0, 0.0, half])
    ball = math.hypot(radius, half)
    if capsule_volume(a, b, radius) <= capsule_volume(np.zeros(3), np.zeros(3), ball):
        return a, b, float(radius)
    return np.zeros(3), np.zeros(3), ball


def capsules_of_mesh(vertices: np.ndarray, faces: np.ndarray | None,
                     max_capsules: int = 1) -> list:
    """
    Return [((a, b, r), points), ...] whose capsules' union contains every triangle.

    ``points`` are the vertices of the faces each capsule bounds (their hull contains those
    faces too; the half-space check uses it, see :mod:`ik_node.collision.kernels`).

    Without ``faces`` (or with ``max_capsules`` 1) one capsule bounds all vertices. With
    faces, the faces are split into up to ``max_capsules`` runs along the longest axis of the
    single capsule (by the face centroid), each run bounded by one capsule over all vertices
    of its faces; the split is kept only when its capsules' total volume is smaller.
    """
    v = np.asarray(vertices, dtype=float)
    one = capsule_of_points(v)
    if faces is None or max_capsules <= 1 or len(faces) < 2 * max_capsules:
        return [(one, v)]
    f = np.asarray(faces, dtype=np.int64)
    axis = one[1] - one[0]
    if float(np.linalg.norm(axis)) < 1e-9:
        return [(one, v)]
    axis = axis / np.linalg.norm(axis)
    centroids = v[f].mean(axis=1)
    order = np.argsort(centroids @ axis)
    best = [(one, v)]
    best_vol = capsule_volume(*one) + _hull_volume(v)
    for k in range(2, max_capsules + 1):
        # Two ways to cut the faces into k runs: slices along the long axis, and k-means on
        # the face centroids (which also separates the prongs of a fork).
        for groups in (np.array_split(order, k), _kmeans_groups(centroids, k)):
            if any(len(g) == 0 for g in groups):
                continue
            parts = [v[np.unique(f[idx])] for idx in groups]
            caps = [(capsule_of_points(p), p) for p in parts]
            # Capsules and hulls both count: a concave part (a fork) gains little capsule
            # volume from a split but much hull volume, which is what the gap check uses.
            vol = sum(capsule_volume(*c) + _hull_volume(p) for c, p in caps)
            if vol < best_vol:
                best, best_vol = caps, vol
    return best


def _hull_volume(points: np.ndarray) -> float:
    from scipy.spatial import ConvexHull, QhullError
    try:
        return float(ConvexHull(points).volume)
    except (QhullError, ValueError):
        return 0.0


def _kmeans_groups(x: np.ndarray, k: int, iterations: int = 20) -> list:
    """Return k index groups of the points ``x`` (m, 3) by Lloyd's k-means (seeded)."""
    rng = np.random.default_rng(0)
    centers = x[rng.choice(len(x), k, replace=False)]
    label = np.zeros(len(x), dtype=np.int64)
    for _ in range(iterations):
        label = np.argmin(((x[:, None, :] - centers[None]) ** 2).sum(axis=2), axis=1)
        for j in range(k):
            if np.any(label == j):
                centers[j] = x[label == j].mean(axis=0)
    return [np.flatnonzero(label == j) for j in range(k)]
