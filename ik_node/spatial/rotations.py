# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Rotation kernels shared by FK, the solvers and the pose helpers (numba-compatible)."""

import math

from ik_node._jit import njit
import numpy as np

__all__ = ['rotation_about_axis', 'rotation_vector_from_matrix', 'rotation_vector_of_entries',
           'quat_wxyz_from_matrix', 'quat_of_entries', 'matrix_from_quat_wxyz']


@njit
def rotation_about_axis(axis, angle):
    """Return the (3, 3) rotation by ``angle`` [rad] about the unit ``axis`` (Rodrigues)."""
    x, y, z = axis[0], axis[1], axis[2]
    c = math.cos(angle)
    s = math.sin(angle)
    t = 1.0 - c
    R = np.empty((3, 3))
    R[0, 0] = t * x * x + c
    R[0, 1] = t * x * y - s * z
    R[0, 2] = t * x * z + s * y
    R[1, 0] = t * x * y + s * z
    R[1, 1] = t * y * y + c
    R[1, 2] = t * y * z - s * x
    R[2, 0] = t * x * z - s * y
    R[2, 1] = t * y * z + s * x
    R[2, 2] = t * z * z + c
    return R


@njit
def quat_wxyz_from_matrix(R):
    """
    Return the unit quaternion (w, x, y, z), w >= 0, of the rotation matrix ``R``.

    Shepperd's method: pick the largest of w², x², y², z² to divide by, so the result is
    accurate for every rotation, including half turns.
    """
    w, x, y, z = quat_of_entries(R[0, 0], R[0, 1], R[0, 2], R[1, 0], R[1, 1], R[1, 2],
                                 R[2, 0], R[2, 1], R[2, 2])
    q = np.empty(4)
    q[0], q[1], q[2], q[3] = w, x, y, z
    return q


@njit
def quat_of_entries(m00, m01, m02, m10, m11, m12, m20, m21, m22):
    """
    :func:`quat_wxyz_from_matrix` of the matrix [[m00, m01, m02], ...] given by its entries.

    Numbers in, numbers out: the solver loop calls it once per iteration, and an array
    argument costs a reference count update on every call.
    """
    tr = m00 + m11 + m22
    if tr >= m00 and tr >= m11 and tr >= m22:
        s = math.sqrt(max(tr + 1.0, 0.0)) * 2.0
        w, x, y, z = 0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s
    elif m00 >= m11 and m00 >= m22:
        s = math.sqrt(max(1.0 + m00 - m11 - m22, 0.0)) * 2.0
        w, x, y, z = (m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s
    elif m11 >= m22:
        s = math.sqrt(max(1.0 + m11 - m00 - m22, 0.0)) * 2.0
        w, x, y, z = (m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s
    else:
        s = math.sqrt(max(1.0 + m22 - m00 - m11, 0.0)) * 2.0
        w, x, y, z = (m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    n = math.sqrt(w * w + x * x + y * y + z * z)
    return w / n, x / n, y / n, z / n


@njit
def rotation_vector_from_matrix(R):
    """Return the rotation vector (axis * angle, angle in [0, pi]) of ``R``: the SO(3) log."""
    out = np.empty(3)
    out[0], out[1], out[2] = rotation_vector_of_entries(
        R[0, 0], R[0, 1], R[0, 2], R[1, 0], R[1, 1], R[1, 2], R[2, 0], R[2, 1], R[2, 2])
    return out


@njit
def rotation_vector_of_entries(m00, m01, m02, m10, m11, m12, m20, m21, m22):
    """:func:`rotation_vector_from_matrix` of a matrix given by its entries (numbers out)."""
    w, x, y, z = quat_of_entries(m00, m01, m02, m10, m11, m12, m20, m21, m22)
    vn = math.sqrt(x * x + y * y + z * z)
    if vn < 1e-12:
        # Small angle: log(R) ~ 2 v, exact to first order.
        return 2.0 * x, 2.0 * y, 2.0 * z
    f = 2.0 * math.atan2(vn, w) / vn
    return f * x, f * y, f * z


@njit
def matrix_from_quat_wxyz(q):
    """Return the (3, 3) rotation of the unit quaternion (w, x, y, z)."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    R = np.empty((3, 3))
    R[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    R[0, 1] = 2.0 * (x * y - z * w)
    R[0, 2] = 2.0 * (x * z + y * w)
    R[1, 0] = 2.0 * (x * y + z * w)
    R[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    R[1, 2] = 2.0 * (y * z - x * w)
    R[2, 0] = 2.0 * (x * z - y * w)
    R[2, 1] = 2.0 * (y * z + x * w)
    R[2, 2] = 1.0 - 2.0 * (x * x + y * y)
    return R
