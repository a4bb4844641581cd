# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Rotation kernels shared by FK, the solvers and the pose helpers (numba-compatible)."""

import math

from ik_node._jit import njit
import numpy as np

__all__ = ['rotation_about_axis', 'rotation_vector_from_matrix', 'quat_wxyz_from_matrix',
           'matrix_from_rpy', 'matrix_from_quat_wxyz']


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
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    q = np.empty(4)
    if tr >= R[0, 0] and tr >= R[1, 1] and tr >= R[2, 2]:
        s = math.sqrt(max(tr + 1.0, 0.0)) * 2.0
        q[0] = 0.25 * s
        q[1] = (R[2, 1] - R[1, 2]) / s
        q[2] = (R[0, 2] - R[2, 0]) / s
        q[3] = (R[1, 0] - R[0, 1]) / s
    elif R[0, 0] >= R[1, 1] and R[0, 0] >= R[2, 2]:
        s = math.sqrt(max(1.0 + R[0, 0] - R[1, 1] - R[2, 2], 0.0)) * 2.0
        q[0] = (R[2, 1] - R[1, 2]) / s
        q[1] = 0.25 * s
        q[2] = (R[0, 1] + R[1, 0]) / s
        q[3] = (R[0, 2] + R[2, 0]) / s
    elif R[1, 1] >= R[2, 2]:
        s = math.sqrt(max(1.0 + R[1, 1] - R[0, 0] - R[2, 2], 0.0)) * 2.0
        q[0] = (R[0, 2] - R[2, 0]) / s
        q[1] = (R[0, 1] + R[1, 0]) / s
        q[2] = 0.25 * s
        q[3] = (R[1, 2] + R[2, 1]) / s
    else:
        s = math.sqrt(max(1.0 + R[2, 2] - R[0, 0] - R[1, 1], 0.0)) * 2.0
        q[0] = (R[1, 0] - R[0, 1]) / s
        q[1] = (R[0, 2] + R[2, 0]) / s
        q[2] = (R[1, 2] + R[2, 1]) / s
        q[3] = 0.25 * s
    if q[0] < 0.0:
        q = -q
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    return q / n


@njit
def rotation_vector_from_matrix(R):
    """Return the rotation vector (axis * angle, angle in [0, pi]) of ``R``: the SO(3) log."""
    q = quat_wxyz_from_matrix(R)
    vn = math.sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    out = np.zeros(3)
    if vn < 1e-12:
        # Small angle: log(R) ~ 2 v, exact to first order.
        out[0] = 2.0 * q[1]
        out[1] = 2.0 * q[2]
        out[2] = 2.0 * q[3]
        return out
    angle = 2.0 * math.atan2(vn, q[0])
    f = angle / vn
    out[0] = f * q[1]
    out[1] = f * q[2]
    out[2] = f * q[3]
    return out


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


def matrix_from_rpy(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Return R = Rz(yaw) Ry(pitch) Rx(roll), the URDF convention for ``origin rpy``."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])
