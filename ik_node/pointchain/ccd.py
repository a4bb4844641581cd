# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Cyclic coordinate descent (CCD) on a point chain.

The ``ik_node.solve`` method 'ccd' on a URDF arm is :mod:`ik_node.solvers.fabrik_method` in
``MODE_CCD``.

One CCD iteration visits the joints from the last to the first; joint j turns everything
beyond it by the smallest rotation about p_j that points the end at the target (point chain),
or by the angle about its axis that brings the tip (and, for a pose, two points on the tip
frame) closest to the target (URDF arm, :func:`ik_node.solvers.arm_fabrik.arm_attempt`).
Stopping rules and the best-pose rule are those of FABRIK.
"""

from typing import Optional

from ik_node._jit import njit
from ik_node.errors import IKInputError
from ik_node.pointchain.constraints import shortest_rotation
from ik_node.pointchain.point_fabrik import (check_points, end_of_iteration, PointSolution,
                                             STATUS_MAX_ITERATIONS, STATUS_NAMES,
                                             STATUS_REACHED)
from ik_node.spatial.vectors import dist3, unit
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['ccd']


@njit
def ccd_points_kernel(points, target, tol, min_change, max_iter):
    """CCD on a point chain. Returns (best points, distance, iterations, status)."""
    n = points.shape[0] - 1
    p = points.copy()
    best = p.copy()
    best_d = dist3(p[n], target)
    if best_d <= tol:
        return best, best_d, 0, STATUS_REACHED
    prev = p[n].copy()
    a = np.empty(3)
    b = np.empty(3)
    status = STATUS_MAX_ITERATIONS
    it = 0
    while it < max_iter:
        it += 1
        for j in range(n - 1, -1, -1):
            for i in range(3):
                a[i] = p[n, i] - p[j, i]
                b[i] = target[i] - p[j, i]
            if (a[0] * a[0] + a[1] * a[1] + a[2] * a[2] < 1e-300
                    or b[0] * b[0] + b[1] * b[1] + b[2] * b[2] < 1e-300):
                continue
            R = shortest_rotation(unit(a), unit(b))
            for k in range(j + 1, n + 1):
                x = p[k, 0] - p[j, 0]
                y = p[k, 1] - p[j, 1]
                w = p[k, 2] - p[j, 2]
                for i in range(3):
                    p[k, i] = p[j, i] + R[i, 0] * x + R[i, 1] * y + R[i, 2] * w
        best_d, stop = end_of_iteration(p, target, best, best_d, prev, tol, min_change)
        if stop >= 0:
            status = stop
            break
    return best, best_d, it, status


def ccd(points: ArrayLike, target: ArrayLike, *, tolerance: float = 1e-3,
        min_change: Optional[float] = None, max_iterations: int = 100) -> PointSolution:
    """
    Solve a point chain for an end target with CCD; return the best pose found.

    points (n + 1, 2 or 3): start pose, root first [m] (the root stays); target (dim,) [m].
    tolerance, min_change [m] and max_iterations as for
    :func:`ik_node.pointchain.point_fabrik.fabrik`. Link lengths are kept (rigid rotations).
    """
    p, t, _, dim = check_points(points, target)
    if not tolerance >= 0.0 or max_iterations < 0:
        raise IKInputError('tolerance must be >= 0 and max_iterations >= 0')
    eps = tolerance * 1e-3 if min_change is None else float(min_change)
    best, d, it, status = ccd_points_kernel(p, t, float(tolerance), eps, int(max_iterations))
    lengths = np.linalg.norm(np.diff(p, axis=0), axis=1)
    name = STATUS_NAMES[status]
    if status != STATUS_REACHED and np.linalg.norm(t - p[0]) > lengths.sum():
        name = 'unreachable'
    return PointSolution(best[:, :dim].copy(), None, float(d), int(it), bool(d <= tolerance),
                         name)
