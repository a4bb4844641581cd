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

from ik_node._jit import njit, njit_inline
import numpy as np

__all__ = ['ChainModel', 'JOINT_REVOLUTE', 'JOINT_PRISMATIC', 'forward_kinematics',
           'tip_pose', 'jacobian', 'jacobian_from_frames', 'tip_and_jacobian']

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


# Joint axes FK treats apart (:func:`_axis_code`): a base axis, about which a rotation mixes two
# columns of a frame and keeps the third (12 products instead of Rodrigues' 27).
_AXIS_X = 0
_AXIS_Y = 1
_AXIS_Z = 2
_AXIS_OTHER = 3


@njit
def _axis_code(x, y, w):
    """Return (code, sign) of the unit axis (x, y, w): +-x, +-y, +-z or another one (sign 1)."""
    if x == 0.0 and y == 0.0 and (w == 1.0 or w == -1.0):
        return _AXIS_Z, w
    if y == 0.0 and w == 0.0 and (x == 1.0 or x == -1.0):
        return _AXIS_X, x
    if x == 0.0 and w == 0.0 and (y == 1.0 or y == -1.0):
        return _AXIS_Y, y
    return _AXIS_OTHER, 1.0


@njit
def _row_times(a0, a1, a2, M):
    """Return the row (a0, a1, a2) times the (3, 3) M."""
    return (a0 * M[0, 0] + a1 * M[1, 0] + a2 * M[2, 0],
            a0 * M[0, 1] + a1 * M[1, 1] + a2 * M[2, 1],
            a0 * M[0, 2] + a1 * M[1, 2] + a2 * M[2, 2])


@njit
def _row_about_base_axis(a0, a1, a2, code, c, s):
    """Return the row (a0, a1, a2) times Rot(axis code, v), c = cos v, s = sin v."""
    if code == _AXIS_Z:
        return a0 * c + a1 * s, a1 * c - a0 * s, a2
    if code == _AXIS_X:
        return a0, a1 * c + a2 * s, a2 * c - a1 * s
    return a0 * c - a2 * s, a1, a0 * s + a2 * c


@njit
def _row_rodrigues(a0, a1, a2, x, y, w, c, s):
    """Return the row (a0, a1, a2) times Rot((x, y, w), v) (Rodrigues), c = cos v, s = sin v."""
    t = 1.0 - c
    return (a0 * (t * x * x + c) + a1 * (t * x * y + s * w) + a2 * (t * x * w - s * y),
            a0 * (t * x * y - s * w) + a1 * (t * y * y + c) + a2 * (t * y * w + s * x),
            a0 * (t * x * w + s * y) + a1 * (t * y * w - s * x) + a2 * (t * w * w + c))


@njit
def forward_kinematics(model, q, R_out, p_out, z_out):
    """
    Fill every moving joint's frame and the tip frame, base frame coordinates.

    R_out (m + 1, 3, 3), p_out (m + 1, 3) receive the rotation and origin of joint k after its
    motion (index m: the tip); z_out (m, 3) receives each joint axis in the base frame.
    """
    _frames(model, q, R_out, p_out, z_out)


# FK and the Jacobian run at least once per solver iteration; what makes them cheap:
# - the running frame is kept in scalars (no array is made, nothing is read back from
#   memory), and a rotation about a base axis (most URDF axes) takes its short form;
# - the kernels the loop calls are leaves: their helpers are inlined into them
#   (njit_inline). numba counts references to the arrays a function holds while it calls a
#   function that is not inlined, two atomic updates per array per call, and the chain
#   model alone holds nine arrays.
@njit_inline
def _frames(model, q, R_out, p_out, z_out):
    """:func:`forward_kinematics`, inlined into its callers."""
    orig_R, orig_t, axes, types, index, mult, offset, tip_R, tip_t = model
    m = orig_R.shape[0]
    r00, r01, r02 = 1.0, 0.0, 0.0
    r10, r11, r12 = 0.0, 1.0, 0.0
    r20, r21, r22 = 0.0, 0.0, 1.0
    p0, p1, p2 = 0.0, 0.0, 0.0
    for k in range(m):
        # p += R t_k ; A = R O_k ; z = A a_k
        t0, t1, t2 = orig_t[k, 0], orig_t[k, 1], orig_t[k, 2]
        p0 += r00 * t0 + r01 * t1 + r02 * t2
        p1 += r10 * t0 + r11 * t1 + r12 * t2
        p2 += r20 * t0 + r21 * t1 + r22 * t2
        Ok = orig_R[k]
        a00, a01, a02 = _row_times(r00, r01, r02, Ok)
        a10, a11, a12 = _row_times(r10, r11, r12, Ok)
        a20, a21, a22 = _row_times(r20, r21, r22, Ok)
        x, y, w = axes[k, 0], axes[k, 1], axes[k, 2]
        z0 = a00 * x + a01 * y + a02 * w
        z1 = a10 * x + a11 * y + a12 * w
        z2 = a20 * x + a21 * y + a22 * w
        v = mult[k] * q[index[k]] + offset[k]
        if types[k] == JOINT_REVOLUTE:
            c = math.cos(v)
            s = math.sin(v)
            code, sign = _axis_code(x, y, w)
            if code == _AXIS_OTHER:
                r00, r01, r02 = _row_rodrigues(a00, a01, a02, x, y, w, c, s)
                r10, r11, r12 = _row_rodrigues(a10, a11, a12, x, y, w, c, s)
                r20, r21, r22 = _row_rodrigues(a20, a21, a22, x, y, w, c, s)
            else:
                s *= sign
                r00, r01, r02 = _row_about_base_axis(a00, a01, a02, code, c, s)
                r10, r11, r12 = _row_about_base_axis(a10, a11, a12, code, c, s)
                r20, r21, r22 = _row_about_base_axis(a20, a21, a22, code, c, s)
        else:
            r00, r01, r02 = a00, a01, a02
            r10, r11, r12 = a10, a11, a12
            r20, r21, r22 = a20, a21, a22
            p0 += z0 * v
            p1 += z1 * v
            p2 += z2 * v
        _store(R_out, p_out, k, r00, r01, r02, r10, r11, r12, r20, r21, r22, p0, p1, p2)
        z_out[k, 0] = z0
        z_out[k, 1] = z1
        z_out[k, 2] = z2
    e00, e01, e02 = _row_times(r00, r01, r02, tip_R)
    e10, e11, e12 = _row_times(r10, r11, r12, tip_R)
    e20, e21, e22 = _row_times(r20, r21, r22, tip_R)
    t0, t1, t2 = tip_t[0], tip_t[1], tip_t[2]
    _store(R_out, p_out, m, e00, e01, e02, e10, e11, e12, e20, e21, e22,
           p0 + r00 * t0 + r01 * t1 + r02 * t2, p1 + r10 * t0 + r11 * t1 + r12 * t2,
           p2 + r20 * t0 + r21 * t1 + r22 * t2)


@njit
def _store(R_out, p_out, k, r00, r01, r02, r10, r11, r12, r20, r21, r22, p0, p1, p2):
    """Write frame k: R_out[k] = [[r00, r01, r02], ...], p_out[k] = (p0, p1, p2)."""
    R_out[k, 0, 0], R_out[k, 0, 1], R_out[k, 0, 2] = r00, r01, r02
    R_out[k, 1, 0], R_out[k, 1, 1], R_out[k, 1, 2] = r10, r11, r12
    R_out[k, 2, 0], R_out[k, 2, 1], R_out[k, 2, 2] = r20, r21, r22
    p_out[k, 0], p_out[k, 1], p_out[k, 2] = p0, p1, p2


@njit_inline
def _jacobian_from_frames(model, n, p_out, z_out, J):
    """Fill the (6, n) Jacobian ``J`` from the frames of :func:`_frames` (inlined)."""
    types, index, mult = model.types, model.index, model.mult
    m = types.shape[0]
    # Scalars: J's stores could alias p_out and z_out, so array reads would be repeated.
    pe0, pe1, pe2 = p_out[m, 0], p_out[m, 1], p_out[m, 2]
    for j in range(n):
        for r in range(6):
            J[r, j] = 0.0
    for k in range(m):
        z0, z1, z2 = z_out[k, 0], z_out[k, 1], z_out[k, 2]
        c = index[k]
        s = mult[k]
        if types[k] == JOINT_REVOLUTE:
            d0 = pe0 - p_out[k, 0]
            d1 = pe1 - p_out[k, 1]
            d2 = pe2 - p_out[k, 2]
            J[0, c] += s * (z1 * d2 - z2 * d1)
            J[1, c] += s * (z2 * d0 - z0 * d2)
            J[2, c] += s * (z0 * d1 - z1 * d0)
            J[3, c] += s * z0
            J[4, c] += s * z1
            J[5, c] += s * z2
        else:
            J[0, c] += s * z0
            J[1, c] += s * z1
            J[2, c] += s * z2


@njit
def jacobian_from_frames(model, n, p_out, z_out, J):
    """Fill the (6, n) Jacobian ``J`` of the tip from the frames of :func:`forward_kinematics`."""
    _jacobian_from_frames(model, n, p_out, z_out, J)


@njit
def tip_and_jacobian(model, n, q, R_out, p_out, z_out, J):
    """Run FK into the work arrays and fill the (6, n) Jacobian ``J`` of the tip."""
    _frames(model, q, R_out, p_out, z_out)
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
