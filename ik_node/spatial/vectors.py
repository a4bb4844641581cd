# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Small 3-vector and 3x3 kernels, written out so that numba compiles them without temporaries.

The one place for these helpers: the point-chain toolkit and the solvers import them from here.
"""

import math

from ik_node._jit import njit
import numpy as np

__all__ = ['unit', 'dist3', 'matvec', 'matTvec', 'matmul']


@njit
def dist3(a, b):
    """Return the distance between the 3-vectors ``a`` and ``b``."""
    return math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2)


@njit
def unit(v):
    """Return v / |v|, or +z for a (near) zero vector."""
    n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    out = np.empty(3)
    if n < 1e-300:
        out[0] = 0.0
        out[1] = 0.0
        out[2] = 1.0
        return out
    out[0] = v[0] / n
    out[1] = v[1] / n
    out[2] = v[2] / n
    return out


@njit
def matvec(M, v):
    """Return M v for (3, 3) M."""
    out = np.empty(3)
    for i in range(3):
        out[i] = M[i, 0] * v[0] + M[i, 1] * v[1] + M[i, 2] * v[2]
    return out


@njit
def matTvec(M, v):
    """Return M^T v for (3, 3) M."""
    out = np.empty(3)
    for i in range(3):
        out[i] = M[0, i] * v[0] + M[1, i] * v[1] + M[2, i] * v[2]
    return out


@njit
def matmul(A, B):
    """Return A B for (3, 3) matrices."""
    C = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            C[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]
    return C
