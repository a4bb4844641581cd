# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Forward kinematics of a tree of moving joints, for the collision model of a URDF tree.

A serial chain's :class:`ik_node.model.kinematics.ChainModel` puts joint k in the frame of joint
k - 1. A tree (the torso and both arms of a humanoid) puts it in the frame of its parent
joint instead: ``parent`` (m,) holds that joint's index (-1: base_link), ``end`` (m,) the end
of joint k's subtree. The joints are in depth-first order, parents first, so joint j moves
joint k (and what k carries) exactly when ``j <= k < end[j]``. A chain is the tree with
``parent[k] = k - 1`` and ``end[k] = m``.

The collision kernels (:mod:`ik_node.collision.kernels`) take the two arrays packed after the
capsules (:func:`ik_node.collision.model.pack_flat`) and run :func:`tree_frames` in place of
the chain's forward kinematics when the model is a tree.
"""

from ik_node._jit import njit
from ik_node.model import kinematics
from ik_node.spatial.rotations import rotation_about_axis
import numpy as np

__all__ = ['tree_frames', 'chain_parent', 'chain_end']


def chain_parent(m: int) -> np.ndarray:
    """Return the ``parent`` array of a serial chain of m moving joints: k - 1."""
    return np.arange(m, dtype=np.int64) - 1


def chain_end(m: int) -> np.ndarray:
    """Return the ``end`` array of a serial chain of m moving joints: every joint moves all."""
    return np.full(m, m, dtype=np.int64)


@njit
def tree_frames(model, parent, q, R_out, p_out, z_out):
    """
    Fill every moving joint's frame after its motion, base frame, as the chain's FK does.

    R_out (m + 1, 3, 3), p_out (m + 1, 3): frame k of joint k, then the model's tip frame
    after the last joint (unused by a tree's collision model); z_out (m, 3): each joint's
    axis in the base frame. Joint k starts from frame ``parent[k]`` (identity for -1).
    """
    orig_R, orig_t, axes, types, index, mult, offset, tip_R, tip_t = model
    m = orig_R.shape[0]
    for k in range(m):
        j = parent[k]
        if j < 0:
            R = np.eye(3)
            p = np.zeros(3)
        else:
            R = R_out[j]
            p = p_out[j]
        A = R @ orig_R[k]
        pk = p + R @ orig_t[k]
        z = A @ axes[k]
        v = mult[k] * q[index[k]] + offset[k]
        if types[k] == kinematics.JOINT_REVOLUTE:
            R_out[k] = A @ rotation_about_axis(axes[k], v)
        else:
            R_out[k] = A
            pk = pk + z * v
        p_out[k] = pk
        z_out[k] = z
    last_R = R_out[m - 1] if m > 0 else np.eye(3)
    last_p = p_out[m - 1] if m > 0 else np.zeros(3)
    R_out[m] = last_R @ tip_R
    p_out[m] = last_p + last_R @ tip_t
