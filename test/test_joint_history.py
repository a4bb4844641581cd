# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.motion.joint_history: joint positions at a stamp, inside a sliding window only."""

from ik_node.motion.joint_history import JointHistory
import pytest


def test_positions_between_readings_are_interpolated_and_outside_refused():
    h = JointHistory(window=1.0, slack=0.05)
    for k in range(30):
        h.add(10.0 + 0.1 * k, {'a': float(k), 'b': -float(k)})
    # The window keeps the last second of readings.
    oldest, newest = h.span()
    assert newest == pytest.approx(12.9) and oldest == pytest.approx(11.9)
    assert h.at(12.45) == pytest.approx({'a': 24.5, 'b': -24.5})
    assert h.at(12.0) == pytest.approx({'a': 20.0, 'b': -20.0})
    assert h.at(12.93) == {'a': 29.0, 'b': -29.0}       # just after the newest: the newest
    assert h.at(11.8) is None                            # older than the window
    assert h.at(13.0) is None                            # beyond the slack


def test_readings_out_of_order_are_ignored_and_equal_stamps_merged():
    h = JointHistory()
    h.add(1.0, {'a': 1.0})
    h.add(2.0, {'a': 2.0})
    h.add(1.5, {'a': 100.0})
    h.add(2.0, {'gripper': 0.02})
    assert len(h) == 2
    assert h.at(1.5) == {'a': 1.5}
    assert h.at(2.0) == {'a': 2.0, 'gripper': 0.02}
    assert JointHistory().at(0.0) is None


def test_a_stamp_once_answered_keeps_its_answer():
    # A relative target stamped at 1.005 s, the arm at rest until then. The driver applies
    # the first command the target caused before its next reading (1.01 s), which already
    # shows the arm moved: interpolating with it would move the target's frame.
    h = JointHistory(window=2.0, slack=0.05)
    h.add(1.0, {'a': 0.0})
    assert h.at(1.005) == {'a': 0.0}        # after the newest reading: the newest
    h.add(1.01, {'a': 0.03})
    h.add(1.02, {'a': 0.06})
    assert h.at(1.005) == {'a': 0.0}        # the same message means the same place
    assert h.at(1.015) == pytest.approx({'a': 0.045})   # a stamp not yet answered
    # Answers leave with the window.
    h.add(3.5, {'a': 1.0})
    assert h.at(1.005) is None
