# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.ros.conversions: messages <-> arrays round trips, status and marker contents."""

import math

from ik_node import IKInputError
from ik_node.spatial.pose import pose_error, pose_from_xyz_quat
import numpy as np
from numpy.testing import assert_allclose
import pytest

conv = pytest.importorskip('ik_node.ros.conversions')

from diagnostic_msgs.msg import DiagnosticStatus  # noqa: E402, I100
from geometry_msgs.msg import Pose, Transform  # noqa: E402
from visualization_msgs.msg import Marker  # noqa: E402


def random_pose(rng) -> np.ndarray:
    return pose_from_xyz_quat(rng.uniform(-2.0, 2.0, 3), rng.normal(size=4))


def test_pose_matrix_round_trip(rng):
    for _ in range(50):
        T = random_pose(rng)
        msg = conv.matrix_to_pose(T)
        assert isinstance(msg, Pose)
        assert msg.orientation.w >= 0.0
        pe, oe = pose_error(T, conv.pose_to_matrix(msg))
        assert pe < 1e-12 and oe < 1e-7


def test_an_unnormalised_quaternion_is_normalised_and_a_zero_one_refused():
    msg = Pose()
    msg.orientation.z, msg.orientation.w = 2.0, 2.0
    T = conv.pose_to_matrix(msg)
    assert_allclose(T[:3, :3] @ T[:3, :3].T, np.eye(3), atol=1e-12)
    assert_allclose(T[:2, :2], [[0.0, -1.0], [1.0, 0.0]], atol=1e-12)
    msg.orientation.z, msg.orientation.w = 0.0, 0.0
    with pytest.raises(IKInputError, match='norm 0'):
        conv.pose_to_matrix(msg)
    msg.orientation.w, msg.position.x = 1.0, math.nan
    with pytest.raises(IKInputError, match='position'):
        conv.pose_to_matrix(msg)


def test_transform_and_point_conversions(rng):
    T = random_pose(rng)
    pose = conv.matrix_to_pose(T)
    tf = Transform()
    tf.translation.x, tf.translation.y, tf.translation.z = (pose.position.x, pose.position.y,
                                                            pose.position.z)
    tf.rotation = pose.orientation
    assert_allclose(conv.transform_to_matrix(tf), T, atol=1e-12)
    assert_allclose(conv.point_to_array(pose.position), T[:3, 3])


@pytest.mark.parametrize('ns', [0, 1, 999_999_999, 1_000_000_000, 1_796_127_501_883_856_877])
def test_stamps_round_trip_through_messages_and_text(ns):
    stamp = conv.stamp_from_ns(ns)
    assert 0 <= stamp.nanosec < 1_000_000_000
    assert conv.stamp_ns(stamp) == ns
    sec, nsec = conv.stamp_text(stamp).split('.')
    assert len(nsec) == 9 and int(sec) * 1_000_000_000 + int(nsec) == ns


@pytest.mark.parametrize('seconds, sec, nanosec', [(0.0, 0, 0), (0.01, 0, 10_000_000),
                                                   (1.5, 1, 500_000_000), (-1.0, 0, 0)])
def test_durations(seconds, sec, nanosec):
    d = conv.duration(seconds)
    assert (d.sec, d.nanosec) == (sec, nanosec)


def test_joint_messages_hold_the_names_and_values_in_order():
    names, q = ('a', 'b', 'c'), np.array([0.1, -0.2, 3.0])
    stamp = conv.stamp_from_ns(123)
    js = conv.joint_state(names, q, stamp)
    assert list(js.name) == list(names) and list(js.position) == q.tolist()
    assert conv.stamp_ns(js.header.stamp) == 123
    v, a = 0.5 * q, -q
    traj = conv.joint_trajectory(names, [(0.02, q, v, a), (1.25, q, 0 * q, 0 * q)], stamp)
    assert list(traj.joint_names) == list(names) and len(traj.points) == 2
    point = traj.points[0]
    assert list(point.positions) == q.tolist() and list(point.velocities) == v.tolist()
    assert list(point.accelerations) == a.tolist()
    assert (point.time_from_start.sec, point.time_from_start.nanosec) == (0, 20_000_000)
    last = traj.points[1]
    assert (last.time_from_start.sec, last.time_from_start.nanosec) == (1, 250_000_000)
    assert list(last.velocities) == [0.0] * 3
    assert conv.stamp_ns(traj.header.stamp) == 123
    assert list(conv.float64_array(q).data) == q.tolist()


def test_status_array_formats_values_and_levels():
    msg = conv.status_array('ik_node: ik', 'WARN', 'target unreachable',
                            {'success': False, 'position_error': 0.0123456789, 'iterations': 7},
                            conv.stamp_from_ns(5), hardware_id='ur5')
    (status,) = msg.status
    assert status.level == DiagnosticStatus.WARN and status.hardware_id == 'ur5'
    values = {kv.key: kv.value for kv in status.values}
    assert values == {'success': 'False', 'position_error': '0.0123457', 'iterations': '7'}
    with pytest.raises(KeyError):
        conv.status_array('x', 'FINE', '', {}, conv.stamp_from_ns(0))


def test_a_held_command_is_told_with_every_digit(rng):
    q = rng.uniform(-3.0, 3.0, 3)
    names = ('a', 'b', 'c')
    msg = conv.status_array('ik_node: ik', 'WARN', 'feedback lost',
                            conv.held_values(dict(zip(names, q)), 1_700_000_000_000_000_123),
                            conv.stamp_from_ns(0))
    values = {kv.key: kv.value for kv in msg.status[0].values}
    assert values['feedback_lost'] == 'True'
    assert values['command_stamp'] == '1700000000.000000123'
    assert [float(values[f'command.{n}']) for n in names] == q.tolist()     # exactly
    # Before any command: no stamp and no joints.
    assert conv.held_values({}, 0) == {'feedback_lost': True, 'command_stamp': 'none'}


def test_target_markers_show_the_target_and_the_reached_pose(rng):
    T_target, T_reached = random_pose(rng), random_pose(rng)
    markers = conv.target_markers('base', T_target, T_reached, False,
                                  conv.stamp_from_ns(0)).markers
    assert [(m.ns, m.type) for m in markers] == [
        ('target', Marker.SPHERE), ('target', Marker.ARROW),
        ('reached', Marker.SPHERE), ('reached', Marker.ARROW)]
    assert all(m.header.frame_id == 'base' for m in markers)
    assert_allclose(conv.point_to_array(markers[0].pose.position), T_target[:3, 3])
    assert_allclose(conv.point_to_array(markers[2].pose.position), T_reached[:3, 3])
    assert markers[2].color.r == 1.0            # orange: not reached
    # A position target is drawn at that position.
    (m, *_) = conv.target_markers('base', T_target[:3, 3], T_reached, True,
                                  conv.stamp_from_ns(0)).markers
    assert_allclose(conv.point_to_array(m.pose.position), T_target[:3, 3])
