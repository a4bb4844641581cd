# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
FABRIK for several end effectors: a tree of point chains with one target per end effector.

The tree is given by its points (N, dim) and ``parents`` (N,): parents[0] = -1 for the root
and parents[i] < i otherwise, so that every parent comes before its children. Node i is
joined to its parent by a link of fixed length d_i = |p_i - p_parent(i)|. Targets sit on
leaves (the end effectors). A node is *active* when a targeted leaf lies below it.

One iteration (Aristidou & Lasenby 2011, section 4.2):

- forward pass, from the leaves towards the root (decreasing index): a targeted leaf goes to
  its target; an active node proposes to its parent the point at d_i from its own new place
  on the line towards the parent's current place. A node with several active children (a
  sub-base) takes the centroid of their proposals; then it proposes to its own parent in
  turn, so nested sub-bases work the same way.
- backward pass, from the root outwards (increasing index): the root goes back to its anchor,
  then every node is placed at d_i from its parent on the line towards its forward-pass
  place (inactive nodes: towards where they were), into every branch.

Stopping rules and the best-pose rule are those of the single chain, with the largest
end-effector distance as the measure.
"""

from dataclasses import dataclass
import math
from typing import Mapping, Optional

from ik_node._jit import njit
from ik_node.errors import IKInputError
from ik_node.pointchain.point_fabrik import (STATUS_MAX_ITERATIONS, STATUS_NAMES,
                                             STATUS_REACHED, STATUS_STALLED)
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['TreeSolution', 'fabrik_tree', 'children_of']


@dataclass(frozen=True)
class TreeSolution:
    """
    What :func:`fabrik_tree` returns.

    points (N, dim): best pose found [m]; distances: {end effector node: distance [m]} for that
    pose; iterations; success: every end effector within tolerance; status: 'reached',
    'stalled' or 'max_iterations'.
    """

    points: np.ndarray
    distances: dict
    iterations: int
    success: bool
    status: str


def children_of(parents: ArrayLike) -> list:
    """Return the list of children of each node of a ``parents`` array."""
    par = np.asarray(parents)
    out: list[list[int]] = [[] for _ in range(par.size)]
    for i, p in enumerate(par):
        if p >= 0:
            out[int(p)].append(i)
    return out


@njit
def _max_dist(p, nodes, targets):
    worst = 0.0
    for k in range(nodes.shape[0]):
        i = nodes[k]
        d = math.sqrt((p[i, 0] - targets[k, 0]) ** 2 + (p[i, 1] - targets[k, 1]) ** 2
                      + (p[i, 2] - targets[k, 2]) ** 2)
        if d > worst:
            worst = d
    return worst


@njit
def fabrik_tree_kernel(points, parents, nodes, targets, active, root, tol, min_change,
                       max_iter):
    """
    Multi-end-effector FABRIK. Returns (best points, iterations, status).

    points (N, 3); parents (N,); nodes (K,) targeted leaves and targets (K, 3); active (N,)
    bool; root (3,).
    """
    N = points.shape[0]
    lengths = np.zeros(N)
    for i in range(1, N):
        j = parents[i]
        lengths[i] = math.sqrt((points[i, 0] - points[j, 0]) ** 2
                               + (points[i, 1] - points[j, 1]) ** 2
                               + (points[i, 2] - points[j, 2]) ** 2)
    p = points.copy()
    f = points.copy()
    acc = np.zeros((N, 3))
    cnt = np.zeros(N)
    best = p.copy()
    best_d = _max_dist(p, nodes, targets)
    moved_root = (p[0, 0] != root[0]) or (p[0, 1] != root[1]) or (p[0, 2] != root[2])
    if best_d <= tol and not moved_root:
        return best, 0, STATUS_REACHED
    if moved_root:
        best_d = math.inf
    prev = np.empty((nodes.shape[0], 3))
    for k in range(nodes.shape[0]):
        prev[k] = p[nodes[k]]
    is_target = np.zeros(N, dtype=np.bool_)
    for k in range(nodes.shape[0]):
        is_target[nodes[k]] = True
        f[nodes[k]] = targets[k]
    v = np.empty(3)
    status = STATUS_MAX_ITERATIONS
    it = 0
    while it < max_iter:
        it += 1
        # forward pass: leaves to root, sub-bases at the centroid of their branches
        acc[:, :] = 0.0
        cnt[:] = 0.0
        for i in range(N - 1, -1, -1):
            if not active[i]:
                continue
            if not is_target[i]:
                for c in range(3):
                    f[i, c] = acc[i, c] / cnt[i]
            if i == 0:
                break
            j = parents[i]
            for c in range(3):
                v[c] = p[j, c] - f[i, c]
            nv = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
            for c in range(3):
                acc[j, c] += f[i, c] + (lengths[i] * v[c] / nv if nv > 0.0 else 0.0)
            cnt[j] += 1.0
        # backward pass: root to leaves, into every branch
        for c in range(3):
            p[0, c] = root[c]
        for i in range(1, N):
            j = parents[i]
            for c in range(3):
                v[c] = (f[i, c] if active[i] else p[i, c]) - p[j, c]
            nv = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
            if nv > 0.0:
                for c in range(3):
                    p[i, c] = p[j, c] + lengths[i] * v[c] / nv
            else:
                # keep the link's length along the old direction
                for c in range(3):
                    p[i, c] = p[j, c] + (points[i, c] - points[j, c])
        dist = _max_dist(p, nodes, targets)
        if dist < best_d:
            best_d = dist
            best[:, :] = p
        if dist <= tol:
            status = STATUS_REACHED
            break
        change = 0.0
        for k in range(nodes.shape[0]):
            i = nodes[k]
            d = math.sqrt((p[i, 0] - prev[k, 0]) ** 2 + (p[i, 1] - prev[k, 1]) ** 2
                          + (p[i, 2] - prev[k, 2]) ** 2)
            change = max(change, d)
            prev[k] = p[i]
        if change < min_change:
            status = STATUS_STALLED
            break
    return best, it, status


def fabrik_tree(points: ArrayLike, parents: ArrayLike, targets: Mapping[int, ArrayLike], *,
                root: Optional[ArrayLike] = None, tolerance: float = 1e-3,
                min_change: Optional[float] = None, max_iterations: int = 100) -> TreeSolution:
    """
    Solve a tree of point chains for one target per end effector with FABRIK.

    points (N, 2 or 3) [m]; parents (N,) ints, parents[0] = -1, parents[i] < i; targets
    {leaf index: (dim,) point [m]}, at least one; root (dim,): where the root goes (default:
    it stays). tolerance, min_change [m], max_iterations as for the single chain. Link
    lengths are kept.
    """
    p = np.array(points, dtype=float)
    if p.ndim != 2 or p.shape[0] < 2 or p.shape[1] not in (2, 3):
        raise IKInputError(f'points must be (N, 2) or (N, 3) with N >= 2, got {p.shape}')
    N, dim = p.shape
    par = np.array(parents).reshape(-1)
    if par.shape != (N,) or not np.issubdtype(par.dtype, np.integer):
        raise IKInputError(f'parents must be {N} integers')
    par = par.astype(np.int64)
    if par[0] != -1 or np.any(par[1:] < 0) or np.any(par[1:] >= np.arange(1, N)):
        raise IKInputError('parents must have parents[0] = -1 and 0 <= parents[i] < i')
    if not targets:
        raise IKInputError('give at least one target')
    kids = children_of(par)
    nodes = np.array(sorted(int(k) for k in targets), dtype=np.int64)
    for k in nodes:
        if not 0 < k < N or kids[k]:
            raise IKInputError(f'target node {k} is not a leaf of the tree')
    tg = np.array([np.asarray(targets[int(k)], dtype=float).reshape(-1) for k in nodes])
    if tg.shape != (nodes.size, dim) or not np.all(np.isfinite(tg)):
        raise IKInputError(f'each target must be {dim} finite numbers')
    r = p[0].copy() if root is None else np.array(root, dtype=float).reshape(-1)
    if r.shape != (dim,) or not np.all(np.isfinite(r)) or not np.all(np.isfinite(p)):
        raise IKInputError("points and root must be finite, root with the points' dimension")
    if not tolerance >= 0.0 or max_iterations < 0:
        raise IKInputError('tolerance must be >= 0 and max_iterations >= 0')
    if dim == 2:
        p = np.hstack([p, np.zeros((N, 1))])
        tg = np.hstack([tg, np.zeros((tg.shape[0], 1))])
        r = np.append(r, 0.0)
    active = np.zeros(N, dtype=np.bool_)
    for k in nodes:
        i = int(k)
        while i >= 0 and not active[i]:
            active[i] = True
            i = int(par[i])
    eps = tolerance * 1e-3 if min_change is None else float(min_change)
    best, it, status = fabrik_tree_kernel(np.ascontiguousarray(p), par, nodes,
                                          np.ascontiguousarray(tg), active, r,
                                          float(tolerance), eps, int(max_iterations))
    dists = {int(k): float(np.linalg.norm(best[k] - tg[i])) for i, k in enumerate(nodes)}
    success = max(dists.values()) <= tolerance
    return TreeSolution(best[:, :dim].copy(), dists, int(it), bool(success),
                        STATUS_NAMES[status])
