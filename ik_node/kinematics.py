# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Forward kinematics and the geometric Jacobian of a serial chain (numba kernels).

A chain is packed into a :class:`ChainModel` record of arrays, m moving joints and n actuated
ones: ``origin_R (m, 3, 3), origin_t (m, 3), axes (m, 3), types (m,), index (m,), mult (m,),
offset (m,), tip_R (3, 3), tip_t (3,)``. Joint k sits at (origin_R[k], origin_t[k]) in the
frame of joint k-1 (fixed joints already folded in); its value is
``mult[k] * q[index[k]] + offset[k]`` (mimic joints share an index); a ``JOINT_REVOLUTE``
joint rotates about ``axes[k]``, a ``JOINT_PRISMATIC`` one slides along it. (tip_R, tip_t)
is the fixed transform from the last moving joint to the tip link.

Recursion (base frame quantities): Q_k = Q_{k-1} R_origin_k Rot(a_k, theta_k),
p_k = p_{k-1} + Q_{k-1} t_origin_k (+ z_k d_k for prismatic), z_k = Q_{k-1} R_origin_k a_k.
Jacobian column of joint k: [z_k x (p_tip - p_k); z_k] for revolute, [z_k; 0] for prismatic,
scaled by the mimic multiplier and summed into column index[k].
"""

import math
from typing import NamedTuple

from ik_node._jit import njit
import numpy as np

__all__ = ['ChainModel', 'JOINT_REVOLUTE', 'JOINT_PRISMATIC', 'forward_kinematics',
           'tip_pose', 'jacobian', 'tip_and_jacobian']

# Joint type codes of ChainModel.types (continuous joints are revolute here; their wrapping
# is the solvers' business).
JOINT_REVOLUTE = 0
JOINT_PRISMATIC = 1


class ChainModel(NamedTuple):
    """The arrays of a serial chain the kernels take (see the module doc); read-only."""

    origin_R: np.ndarray
    origin_t: np.ndarray
    axes: np.ndarray
    types: np.ndarray
    # NamedTuple fields may not shadow tuple.index per typeshed; the kernels read model.index.
    index: np.ndarray  # type: ignore[assignment]
    mult: np.ndarray
    offset: np.ndarray
    tip_R: np.ndarray
    tip_t: np.ndarray


@njit
def forward_kinematics(model, q, R_out, p_out, z_out):
    """
    Fill every moving joint's frame and the tip frame, base frame coordinates.

    R_out (m + 1, 3, 3), p_out (m + 1, 3) receive the rotation and origin of joint k after its
    motion (index m: the tip); z_out (m, 3) receives each joint axis in the base frame.
    """
    orig_R, orig_t, axes, types, index, mult, offset, tip_R, tip_t = model
    m = orig_R.shape[0]
    R = np.eye(3)
    p = np.zeros(3)
    A = np.empty((3, 3))
    for k in range(m):
        # p += R t_k ; A = R R_k
        t = orig_t[k]
        Ok = orig_R[k]
        for i in range(3):
            p[i] += R[i, 0] * t[0] + R[i, 1] * t[1] + R[i, 2] * t[2]
        for i in range(3):
            for j in range(3):
                A[i, j] = R[i, 0] * Ok[0, j] + R[i, 1] * Ok[1, j] + R[i, 2] * Ok[2, j]
        a = axes[k]
        z0 = A[0, 0] * a[0] + A[0, 1] * a[1] + A[0, 2] * a[2]
        z1 = A[1, 0] * a[0] + A[1, 1] * a[1] + A[1, 2] * a[2]
        z2 = A[2, 0] * a[0] + A[2, 1] * a[1] + A[2, 2] * a[2]
        v = mult[k] * q[index[k]] + offset[k]
        if types[k] == JOINT_REVOLUTE:
            # R = A Rot(a, v), Rot by Rodrigues as rotation_about_axis builds it (in
            # scalars: no array is made per joint).
            c = math.cos(v)
            s = math.sin(v)
            t = 1.0 - c
            x, y, w = a[0], a[1], a[2]
            r00, r01, r02 = t * x * x + c, t * x * y - s * w, t * x * w + s * y
            r10, r11, r12 = t * x * y + s * w, t * y * y + c, t * y * w - s * x
            r20, r21, r22 = t * x * w - s * y, t * y * w + s * x, t * w * w + c
            for i in range(3):
                a0, a1, a2 = A[i, 0], A[i, 1], A[i, 2]
                R[i, 0] = a0 * r00 + a1 * r10 + a2 * r20
                R[i, 1] = a0 * r01 + a1 * r11 + a2 * r21
                R[i, 2] = a0 * r02 + a1 * r12 + a2 * r22
        else:
            R[:, :] = A
            p[0] += z0 * v
            p[1] += z1 * v
            p[2] += z2 * v
        R_out[k] = R
        p_out[k] = p
        z_out[k, 0] = z0
        z_out[k, 1] = z1
        z_out[k, 2] = z2
    for i in range(3):
        p_out[m, i] = p[i] + R[i, 0] * tip_t[0] + R[i, 1] * tip_t[1] + R[i, 2] * tip_t[2]
        for j in range(3):
            R_out[m, i, j] = (R[i, 0] * tip_R[0, j] + R[i, 1] * tip_R[1, j]
                              + R[i, 2] * tip_R[2, j])


@njit
def _jacobian_from_frames(model, n, p_out, z_out, J):
    orig_R, orig_t, axes, types, index, mult, offset, tip_R, tip_t = model
    m = orig_R.shape[0]
    pe = p_out[m]
    for j in range(n):
        for r in range(6):
            J[r, j] = 0.0
    for k in range(m):
        z = z_out[k]
        c = index[k]
        s = mult[k]
        if types[k] == JOINT_REVOLUTE:
            d0 = pe[0] - p_out[k, 0]
            d1 = pe[1] - p_out[k, 1]
            d2 = pe[2] - p_out[k, 2]
            J[0, c] += s * (z[1] * d2 - z[2] * d1)
            J[1, c] += s * (z[2] * d0 - z[0] * d2)
            J[2, c] += s * (z[0] * d1 - z[1] * d0)
            J[3, c] += s * z[0]
            J[4, c] += s * z[1]
            J[5, c] += s * z[2]
        else:
            J[0, c] += s * z[0]
            J[1, c] += s * z[1]
            J[2, c] += s * z[2]


@njit
def tip_and_jacobian(model, n, q, R_out, p_out, z_out, J):
    """Run FK into the work arrays and fill the (6, n) Jacobian ``J`` of the tip."""
    forward_kinematics(model, q, R_out, p_out, z_out)
    _jacobian_from_frames(model, n, p_out, z_out, J)


@njit
def tip_pose(model, q):
    """Return the (4, 4) pose of the tip in the base frame."""
    m = model.origin_R.shape[0]
    R_out = np.empty((m + 1, 3, 3))
    p_out = np.empty((m + 1, 3))
    z_out = np.empty((m, 3))
    forward_kinematics(model, q, R_out, p_out, z_out)
    T = np.eye(4)
    T[:3, :3] = R_out[m]
    T[:3, 3] = p_out[m]
    return T


@njit
def jacobian(model, n, q):
    """Return the (6, n) geometric Jacobian of the tip in the base frame, rows [v; w]."""
    m = model.origin_R.shape[0]
    R_out = np.empty((m + 1, 3, 3))
    p_out = np.empty((m + 1, 3))
    z_out = np.empty((m, 3))
    J = np.zeros((6, n))
    tip_and_jacobian(model, n, q, R_out, p_out, z_out, J)
    return J
