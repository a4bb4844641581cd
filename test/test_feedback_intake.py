# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The node's joint_states intake: when each reading was taken, and what it says about it."""

import pytest

pytest.importorskip('rclpy')

from ik_node.ros.feedback import JointStatesIntake  # noqa: E402, I100
from ik_node.ros.wire import JointStateReader, JointStateReading  # noqa: E402
from rclpy.serialization import serialize_message  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

NAMES = ['a', 'b']


def reading(t: float, q=(0.1, 0.2), names=NAMES) -> JointStateReading:
    """Return the node's reading of a JointState message stamped ``t`` [s], as on the wire."""
    msg = JointState(name=list(names), position=list(q))
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(round(t * 1e9), 1_000_000_000)
    return JointStateReader().read(serialize_message(msg))


@pytest.fixture
def intake():
    logged = {'warn': [], 'say': []}
    it = JointStatesIntake(0.5, lambda kind, text: logged['warn'].append((kind, text)),
                           logged['say'].append)
    it.logged = logged
    return it


def test_a_reading_on_time_is_taken_at_its_stamp_and_becomes_the_newest(intake):
    assert intake.take(reading(100.0), 100.002) == pytest.approx(100.0)
    assert intake.newest == (tuple(NAMES), (0.1, 0.2), pytest.approx(100.0))
    assert intake.logged == {'warn': [], 'say': []}


def test_a_late_reading_is_old_and_said_so(intake):
    assert intake.take(reading(100.0), 104.0) == pytest.approx(100.0)
    (kind, text), = intake.logged['warn']
    assert kind == 'joint_states late' and 'arrived 4 s after its stamp' in text


def test_an_unstamped_reading_counts_from_its_arrival(intake):
    assert intake.take(reading(0.0), 50.0) == 50.0
    assert intake.logged['warn'] == []


def test_another_clock_is_learned_per_publisher_and_said_once(intake):
    for i in range(100):      # the arm's driver, 30 s behind, at 100 Hz
        t = 100.0 + i * 0.01
        taken = intake.take(reading(t - 30.0), t + 0.001)
        intake.take(reading(t, q=(0.5,), names=['gripper']), t + 0.001)   # on this clock
    assert taken == pytest.approx(t + 0.001)
    assert intake.logged['say'] == ['joint_states stamps run 30 s behind this node clock: '
                                    'readings are judged with that offset (are the clocks '
                                    'synchronised?)']
    assert intake.newest[0] == ('gripper',)


def test_a_stamp_from_the_future_is_not_used(intake):
    assert intake.take(reading(110.0), 100.0) is None
    assert intake.newest is None
    (kind, text), = intake.logged['warn']
    assert kind == 'joint_states ahead' and '10 s ahead' in text
