# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Rotation kernels and pose helpers, including the half-turn corner cases."""

import math

from ik_node import IKInputError, pose_error, pose_from_xyz_quat, quat_xyzw_from_matrix
from ik_node.spatial.rotations import rotation_about_axis, rotation_vector_from_matrix
from ik_node.spatial.rpy import matrix_from_rpy
import numpy as np
import pytest


def random_rotation(rng):
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    return rotation_about_axis(axis, rng.uniform(-math.pi, math.pi)), axis


def test_quaternion_round_trip(rng):
    for _ in range(200):
        R, _ = random_rotation(rng)
        T = pose_from_xyz_quat([0, 0, 0], quat_xyzw_from_matrix(R))
        np.testing.assert_allclose(T[:3, :3], R, atol=1e-12)


def test_log_map_recovers_axis_angle_up_to_a_half_turn(rng):
    for angle in (0.0, 1e-9, 0.3, math.pi - 1e-6, math.pi):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        w = rotation_vector_from_matrix(rotation_about_axis(axis, angle))
        np.testing.assert_allclose(np.linalg.norm(w), angle, atol=1e-9)
        if angle > 1e-6:
            np.testing.assert_allclose(abs(w @ axis), angle, atol=1e-9)


def test_rpy_is_the_urdf_convention():
    R = matrix_from_rpy(0.1, 0.2, 0.3)
    Rx = rotation_about_axis(np.array([1.0, 0, 0]), 0.1)
    Ry = rotation_about_axis(np.array([0, 1.0, 0]), 0.2)
    Rz = rotation_about_axis(np.array([0, 0, 1.0]), 0.3)
    np.testing.assert_allclose(R, Rz @ Ry @ Rx, atol=1e-12)


def test_pose_error_is_translation_distance_and_rotation_angle():
    A = pose_from_xyz_quat([1, 2, 3], [0, 0, 0, 1])
    B = pose_from_xyz_quat([1, 2, 3.5], [0, 0, math.sin(0.2), math.cos(0.2)])
    pe, oe = pose_error(A, B)
    assert pe == pytest.approx(0.5)
    assert oe == pytest.approx(0.4)


def test_unnormalised_quaternion_is_normalised():
    T = pose_from_xyz_quat([0, 0, 0], [0, 0, 2.0, 0])
    np.testing.assert_allclose(T[:3, :3], np.diag([-1.0, -1.0, 1.0]), atol=1e-12)


@pytest.mark.parametrize('quat', [[0, 0, 0, 0], [np.nan, 0, 0, 1], [1e-9, 0, 0, 0],
                                  [0, 0, 1]])
def test_degenerate_quaternions_are_refused(quat):
    with pytest.raises(IKInputError, match='quaternion'):
        pose_from_xyz_quat([0, 0, 0], quat)


def test_non_finite_position_is_refused():
    with pytest.raises(IKInputError, match='position'):
        pose_from_xyz_quat([0, np.inf, 0])


def test_a_planar_goal_moves_x_y_and_heading_and_keeps_height_and_tilt(rng):
    from ik_node.spatial.pose import planar_goal
    for _ in range(20):
        T_tool = pose_from_xyz_quat(rng.uniform(-0.5, 0.5, 3), rng.normal(size=4))
        yaw = rng.uniform(-3.0, 3.0)
        T_click = pose_from_xyz_quat([*rng.uniform(-0.5, 0.5, 2), 0.0],
                                     [0.0, 0.0, np.sin(yaw / 2), np.cos(yaw / 2)])
        T = planar_goal(T_click, T_tool)
        np.testing.assert_allclose(T[:3, 3], [T_click[0, 3], T_click[1, 3], T_tool[2, 3]])
        # The tilt (angle of each tool axis to the vertical) is kept ...
        np.testing.assert_allclose(T[2, :3], T_tool[2, :3], atol=1e-12)
        # ... and the heading is the clicked yaw.
        heading = T[:3, 0] if np.hypot(*T[:2, 0]) > 1e-6 else T[:3, 2]
        assert np.isclose(np.arctan2(heading[1], heading[0]), yaw, atol=1e-9) or \
            np.isclose(abs(np.arctan2(heading[1], heading[0]) - yaw), 2 * np.pi, atol=1e-9)


def test_each_input_kind_gives_its_solver_target(rng):
    from ik_node.spatial.pose import planar_goal, solver_target
    T_tool = pose_from_xyz_quat([0.3, 0.1, 0.5], rng.normal(size=4))
    T_in = pose_from_xyz_quat([0.2, -0.4, 0.0], rng.normal(size=4))
    before = T_in.copy()
    # A pose target is the pose; the solver option position_only keeps its position alone.
    assert np.array_equal(solver_target(T_in, T_tool), T_in)
    assert np.array_equal(solver_target(T_in, T_tool, position_only=True), T_in[:3, 3])
    # A clicked point has no orientation: the tool keeps its own.
    point = solver_target(T_in, T_tool, point_only=True)
    assert np.array_equal(point[:3, 3], T_in[:3, 3])
    assert np.array_equal(point[:3, :3], T_tool[:3, :3])
    # A 2D Goal Pose click is read as a planar command (tool height and tilt kept).
    assert np.allclose(solver_target(T_in, T_tool, planar=True), planar_goal(T_in, T_tool))
    planar_point = solver_target(T_in, T_tool, planar=True, position_only=True)
    assert planar_point.shape == (3,) and planar_point[2] == T_tool[2, 3]
    assert np.array_equal(T_in, before)     # the input is never changed
