# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Pose helpers: building 4x4 poses from position + quaternion, and measuring pose error."""

import math

from ik_node.errors import IKInputError
from ik_node.spatial.rotations import (matrix_from_quat_wxyz, quat_wxyz_from_matrix,
                                       rotation_vector_from_matrix)
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['pose_from_xyz_quat', 'quat_xyzw_from_matrix', 'pose_error',
           'orientation_error', 'normalize_quat_xyzw', 'planar_goal', 'solver_target']

_QUAT_NORM_MIN = 1e-6


def normalize_quat_xyzw(quat_xyzw: ArrayLike) -> np.ndarray:
    """
    Return the unit quaternion (x, y, z, w) of ``quat_xyzw``.

    Raises IKInputError for a non-finite quaternion or one of norm below 1e-6 (no rotation can
    be read from it). A merely unnormalised quaternion is normalised, as ROS tools do.
    """
    q = np.asarray(quat_xyzw, dtype=float).reshape(-1)
    if q.shape != (4,):
        raise IKInputError(f'quaternion must have 4 elements (x, y, z, w), got {q.size}')
    if not np.all(np.isfinite(q)):
        raise IKInputError(f'quaternion is not finite: {q.tolist()}')
    # Scale by the largest component first: q @ q overflows for components above ~1e154.
    big = float(np.max(np.abs(q)))
    if big == 0.0:
        raise IKInputError('quaternion has norm 0: no orientation can be read from it')
    scaled = q / big
    n_scaled = math.sqrt(float(scaled @ scaled))
    if big * n_scaled < _QUAT_NORM_MIN:   # may be inf for huge q, which passes the check
        raise IKInputError(f'quaternion has norm {big * n_scaled:.3g}: no orientation can be '
                           'read from it')
    return scaled / n_scaled


def pose_from_xyz_quat(xyz: ArrayLike, quat_xyzw: ArrayLike = (0.0, 0.0, 0.0, 1.0)
                       ) -> np.ndarray:
    """Return the (4, 4) pose with translation ``xyz`` [m] and rotation ``quat_xyzw``."""
    p = np.asarray(xyz, dtype=float).reshape(-1)
    if p.shape != (3,) or not np.all(np.isfinite(p)):
        raise IKInputError(f'position must be 3 finite numbers, got {p.tolist()}')
    x, y, z, w = normalize_quat_xyzw(quat_xyzw)
    T = np.eye(4)
    T[:3, :3] = matrix_from_quat_wxyz(np.array([w, x, y, z]))
    T[:3, 3] = p
    return T


def quat_xyzw_from_matrix(R: ArrayLike) -> np.ndarray:
    """Return the unit quaternion (x, y, z, w), w >= 0, of a (3, 3) rotation or (4, 4) pose."""
    M = np.asarray(R, dtype=float)
    w, x, y, z = quat_wxyz_from_matrix(np.ascontiguousarray(M[:3, :3]))
    return np.array([x, y, z, w])


def orientation_error(R_target: ArrayLike, R: ArrayLike) -> float:
    """Return the angle [rad] of the rotation taking ``R`` to ``R_target``, in [0, pi]."""
    Rt = np.asarray(R_target, dtype=float)[:3, :3]
    Ra = np.asarray(R, dtype=float)[:3, :3]
    return float(np.linalg.norm(rotation_vector_from_matrix(np.ascontiguousarray(Rt @ Ra.T))))


def pose_error(T_target: ArrayLike, T: ArrayLike) -> tuple[float, float]:
    """Return (position error [m], orientation error [rad]) between two (4, 4) poses."""
    Tt = np.asarray(T_target, dtype=float)
    Ta = np.asarray(T, dtype=float)
    return float(np.linalg.norm(Tt[:3, 3] - Ta[:3, 3])), orientation_error(Tt, Ta)


def planar_goal(T_click: ArrayLike, T_tool: ArrayLike) -> np.ndarray:
    """
    Return the tool pose a planar click means: x, y and heading from it, the rest kept.

    RViz's 2D Goal Pose tool sends a point on the grid (z = 0) and a rotation about z only.
    Taken literally that is a tool pose at floor height. Read as a planar command it moves the
    tool (4, 4) ``T_tool`` to the clicked x, y at its own height, and turns its orientation
    about the vertical by the difference between the clicked yaw and the tool's heading (its
    x axis on the floor, or its z axis when x points straight up or down): the tilt is kept.
    """
    Tc = np.asarray(T_click, dtype=float)
    Tt = np.asarray(T_tool, dtype=float)
    yaw_click = math.atan2(Tc[1, 0], Tc[0, 0])
    x_tool = Tt[:3, 0]
    axis = x_tool if math.hypot(x_tool[0], x_tool[1]) > 1e-6 else Tt[:3, 2]
    turn = yaw_click - math.atan2(axis[1], axis[0])
    c, s = math.cos(turn), math.sin(turn)
    T = np.eye(4)
    T[:3, :3] = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ Tt[:3, :3]
    T[:3, 3] = (Tc[0, 3], Tc[1, 3], Tt[2, 3])
    return T


def solver_target(T_input: ArrayLike, T_tool: ArrayLike, *, point_only: bool = False,
                  planar: bool = False, position_only: bool = False) -> np.ndarray:
    """
    Return what to solve for when an input asks for the (4, 4) pose ``T_input`` (base frame).

    ``T_tool`` is the tool's present (4, 4) pose. ``planar``: an RViz 2D Goal Pose click
    (:func:`planar_goal`). ``point_only``: a clicked point, which has no orientation: the
    tool keeps its own. ``position_only`` (the solver option): the (3,) position alone, for
    every input. Otherwise the (4, 4) pose itself. Always a new array.
    """
    T = np.array(T_input, dtype=float)
    if planar:
        T = planar_goal(T, T_tool)
    if position_only:
        return T[:3, 3].copy()
    if point_only:
        T[:3, :3] = np.asarray(T_tool, dtype=float)[:3, :3]
    return T
