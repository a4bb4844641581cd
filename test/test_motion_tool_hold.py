# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ToolHold: the anchor moves with the tool along the command only; the error is what is held."""

import math

from ik_node.motion.tool_hold import HOLD_CAP_ANGULAR, HOLD_CAP_LINEAR, ToolHold
from ik_node.spatial.rotations import rotation_about_axis
import numpy as np


def pose(p=(0.0, 0.0, 0.0), axis=(0.0, 0.0, 1.0), angle=0.0) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = rotation_about_axis(np.array(axis, dtype=float), angle)
    T[:3, 3] = p
    return T


ALONG_X = np.array([0.1, 0.0, 0.0, 0.0, 0.0, 0.0])
TURN_Z = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.5])


def test_the_first_call_anchors_where_the_tool_is():
    hold = ToolHold()
    assert not hold.holding
    np.testing.assert_array_equal(hold.error(pose((0.3, 0.1, 0.2)), ALONG_X), np.zeros(6))
    assert hold.holding


def test_motion_along_the_command_is_not_an_error_motion_across_it_is():
    hold = ToolHold()
    hold.error(pose(), ALONG_X)
    # 2 mm along x (commanded), 1 mm along y (not): the error brings y back, not x.
    e = hold.error(pose((0.002, 0.001, 0.0)), ALONG_X)
    np.testing.assert_allclose(e, [0.0, -0.001, 0.0, 0.0, 0.0, 0.0], atol=1e-15)


def test_a_turn_about_the_commanded_axis_is_followed_a_tilt_is_held():
    hold = ToolHold()
    hold.error(pose(), TURN_Z)
    e = hold.error(pose(axis=(0.0, 0.0, 1.0), angle=0.05), TURN_Z)
    np.testing.assert_allclose(e, np.zeros(6), atol=1e-15)
    # The same turn with a tilt of 1 mrad about x: the tilt comes back, the turn stays.
    T = pose(axis=(0.0, 0.0, 1.0), angle=0.1)
    T[:3, :3] = rotation_about_axis(np.array([1.0, 0.0, 0.0]), 1e-3) @ T[:3, :3]
    e = hold.error(T, TURN_Z)
    np.testing.assert_allclose(e[:3], 0.0, atol=1e-15)
    np.testing.assert_allclose(e[3:], [-1e-3, 0.0, 0.0], atol=1e-9)


def test_a_zero_command_holds_the_whole_pose():
    hold = ToolHold()
    hold.error(pose(), np.zeros(6))
    e = hold.error(pose((0.001, -0.002, 0.003), (0.0, 1.0, 0.0), 2e-3), np.zeros(6))
    np.testing.assert_allclose(e[:3], [-0.001, 0.002, -0.003], atol=1e-15)
    np.testing.assert_allclose(e[3:], [0.0, -2e-3, 0.0], atol=1e-12)


def test_the_error_is_capped_and_the_anchor_comes_along():
    hold = ToolHold()
    hold.error(pose(), np.zeros(6))
    e = hold.error(pose((0.0, 0.05, 0.0), (1.0, 0.0, 0.0), 0.2), np.zeros(6))
    assert math.isclose(np.linalg.norm(e[:3]), HOLD_CAP_LINEAR)
    assert math.isclose(np.linalg.norm(e[3:]), HOLD_CAP_ANGULAR)
    # The anchor was moved to the cap: from the same pose the error is the same, not more.
    np.testing.assert_allclose(hold.error(pose((0.0, 0.05, 0.0), (1.0, 0.0, 0.0), 0.2),
                                          np.zeros(6)), e, atol=1e-12)


def test_what_the_arm_does_not_correct_is_forgotten():
    hold = ToolHold()
    hold.error(pose(), np.zeros(6))
    T = pose((0.0, 0.001, 0.0), (1.0, 0.0, 0.0), 1e-3)
    e = hold.error(T, np.zeros(6))
    # The correction achieves the linear part only (an arm that cannot turn about x).
    hold.achieved(np.concatenate([e[:3], np.zeros(3)]))
    np.testing.assert_allclose(hold.error(T, np.zeros(6)), np.concatenate([e[:3], np.zeros(3)]),
                               atol=1e-15)


def test_braking_without_a_command_moves_the_anchor_along_the_last_one_and_clear_drops_it():
    hold = ToolHold()
    hold.error(pose(), ALONG_X)
    hold.follow(pose((0.004, 0.0005, 0.0)))       # braking: along x, and 0.5 mm off
    e = hold.error(pose((0.004, 0.0005, 0.0)), ALONG_X)
    np.testing.assert_allclose(e, [0.0, -0.0005, 0.0, 0.0, 0.0, 0.0], atol=1e-15)
    hold.clear()
    assert not hold.holding
    np.testing.assert_array_equal(hold.error(pose((0.004, 0.0005, 0.0)), ALONG_X), np.zeros(6))
