# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The control cycle's CDR reader and writer against rclpy's own (de)serialization."""

import struct

import numpy as np
import pytest

pytest.importorskip('rclpy')

from geometry_msgs.msg import TwistStamped  # noqa: E402, I100
from hypothesis import given, settings, strategies as st  # noqa: E402
from ik_node.errors import IKInputError  # noqa: E402
from ik_node.ros.wire import (JointStateReader, JointStateWriter, read_twist_stamped,  # noqa: E402
                              WireFormatError)
from rclpy.serialization import deserialize_message, serialize_message  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

ros_text = st.text(st.characters(blacklist_characters='\x00', blacklist_categories=('Cs',)),
                   max_size=12)
names_st = st.lists(ros_text, max_size=8)
floats_st = st.floats(allow_nan=False, width=64)


def joint_state(names, position=(), velocity=(), effort=(), frame='', sec=0, nanosec=0):
    msg = JointState(name=list(names), position=list(position), velocity=list(velocity),
                     effort=list(effort))
    msg.header.frame_id = frame
    msg.header.stamp.sec, msg.header.stamp.nanosec = sec, nanosec
    return msg


def assert_reads_as(reading, msg: JointState) -> None:
    stamp = msg.header.stamp
    assert reading.stamp_ns == stamp.sec * 1_000_000_000 + stamp.nanosec
    assert reading.frame_id == msg.header.frame_id
    assert reading.name == tuple(msg.name)
    for field in ('position', 'velocity', 'effort'):
        np.testing.assert_array_equal(getattr(reading, field), np.array(getattr(msg, field)))


@settings(max_examples=150, deadline=None)
@given(names=names_st, data=st.data(), frame=ros_text,
       sec=st.integers(0, 2**31 - 1), nanosec=st.integers(0, 999_999_999))
def test_a_joint_state_reads_as_rclpy_wrote_it(names, data, frame, sec, nanosec):
    # Any lengths: positions for some joints, velocities for others, efforts empty or not.
    fields = [data.draw(st.lists(floats_st, max_size=9)) for _ in range(3)]
    msg = joint_state(names, *fields, frame=frame, sec=sec, nanosec=nanosec)
    reader = JointStateReader()
    assert_reads_as(reader.read(serialize_message(msg)), msg)
    assert_reads_as(reader.read(serialize_message(msg)), msg)      # the layout kept


def test_a_reader_follows_a_publisher_that_changes_its_names_or_order():
    reader = JointStateReader()
    arm = joint_state(['shoulder', 'elbow', 'wrist'], [0.1, 0.2, 0.3], sec=1)
    swapped = joint_state(['wrist', 'shoulder', 'elbow'], [0.3, 0.1, 0.2], sec=2)
    more = joint_state(['shoulder', 'elbow', 'wrist', 'gripper'], [0.1, 0.2, 0.3, 0.04], sec=3)
    fewer = joint_state(['gripper'], [0.04], [0.5], frame='hand', sec=4)
    renamed = joint_state(['shoulder', 'elbow', 'wrisT'], [0.1, 0.2, 0.3], sec=5)
    for msg in (arm, swapped, arm, more, fewer, arm, renamed, joint_state([]), arm):
        assert_reads_as(reader.read(serialize_message(msg)), msg)


def test_a_twist_reads_as_rclpy_wrote_it():
    msg = TwistStamped()
    msg.header.frame_id = 'tool0'
    msg.header.stamp.sec, msg.header.stamp.nanosec = 1_700_000_000, 123
    values = [0.1, -0.2, 0.3, -1e-300, 2.5e10, float('nan')]
    lin, ang = msg.twist.linear, msg.twist.angular
    lin.x, lin.y, lin.z, ang.x, ang.y, ang.z = values
    for frame in ('', 'a', 'base_link', 'tool0'):        # every padding before the doubles
        msg.header.frame_id = frame
        reading = read_twist_stamped(serialize_message(msg))
        assert reading.frame_id == frame
        assert reading.stamp_ns == 1_700_000_000_000_000_123
        np.testing.assert_array_equal(reading.twist, values)


def big_endian_twist(frame: str, values) -> bytes:
    body = struct.pack('>iIi', 5, 6, len(frame) + 1) + frame.encode() + b'\x00'
    body += b'\x00' * (-len(body) % 8) + struct.pack('>6d', *values)
    return b'\x00\x00\x00\x00' + body


def test_big_endian_cdr_is_refused_by_the_fast_reader_and_read_by_rclpy():
    data = big_endian_twist('base_link', [1, 2, 3, 4, 5, 6])
    with pytest.raises(WireFormatError, match='big-endian'):
        JointStateReader()._read_cdr(data)
    reading = read_twist_stamped(data)        # through deserialize_message
    assert reading.frame_id == 'base_link' and reading.stamp_ns == 5_000_000_006
    np.testing.assert_array_equal(reading.twist, [1, 2, 3, 4, 5, 6])


def test_truncated_or_foreign_bytes_are_a_clear_error():
    good = serialize_message(joint_state(['a', 'b'], [1.0, 2.0]))
    for data in (b'', good[:3], good[:20], good[:-12]):
        with pytest.raises(IKInputError, match='JointState bytes not readable'):
            JointStateReader().read(data)
    with pytest.raises(IKInputError, match='TwistStamped bytes not readable'):
        read_twist_stamped(serialize_message(TwistStamped())[:30])
    with pytest.raises(WireFormatError, match='0x0003 is not read here'):
        JointStateReader()._read_cdr(b'\x00\x03\x00\x00' + good[4:])      # a parameter list


@settings(max_examples=60, deadline=None)
@given(names=st.lists(ros_text, min_size=1, max_size=8), data=st.data(),
       stamp=st.integers(0, 2**31 * 1_000_000_000 - 1))
def test_a_command_written_from_the_template_reads_back_through_rclpy(names, data, stamp):
    writer = JointStateWriter(names)
    assert writer.usable
    q = np.array(data.draw(st.lists(floats_st, min_size=len(names), max_size=len(names))))
    back = deserialize_message(writer.serialize(stamp, q), JointState)
    assert tuple(back.name) == tuple(names) and back.header.frame_id == ''
    assert back.header.stamp.sec * 1_000_000_000 + back.header.stamp.nanosec == stamp
    np.testing.assert_array_equal(back.position, q)
    assert not back.velocity and not back.effort
