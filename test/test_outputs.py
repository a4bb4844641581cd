# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""How the node tells a solve's answer to a target (ik_node.ros.outputs.answer_level)."""

from ik_node.motion.outcome import SolveOutcome
from ik_node.result import (IKResult, STATUS_BLOCKED, STATUS_NOT_CONVERGED,
                            STATUS_OUT_OF_REACH, STATUS_POSITION_ONLY, STATUS_REACHED,
                            STATUS_TOO_FAR)
import numpy as np
import pytest

pytest.importorskip('rclpy')

from ik_node.ros.outputs import answer_level  # noqa: E402, I100


def result(success: bool, status: str, message: str = '', **motion) -> SolveOutcome:
    r = IKResult(q=np.zeros(6), success=success, position_error=0.0123,
                 orientation_error=0.0, iterations=10, method='dls', status=status,
                 message=message)
    return SolveOutcome(r, np.zeros(3), 'joint_states', 1e-4, **motion)


def test_each_kind_of_answer_has_its_level_and_says_why():
    assert answer_level(result(True, STATUS_REACHED), False) == (
        'OK', 'target solved: commanding the arm there', '')
    level, message, kind = answer_level(result(True, STATUS_REACHED), True)
    assert level == 'WARN' and 'joint_states are lost' in message and kind == ''
    level, message, kind = answer_level(
        result(False, STATUS_BLOCKED, 'forearm_link touches the floor'), False)
    assert (level, kind) == ('ERROR', 'blocked') and 'forearm_link touches the floor' in message
    level, message, kind = answer_level(result(False, STATUS_OUT_OF_REACH), False)
    assert (level, kind) == ('WARN', 'unreachable')
    assert message.startswith('target out of reach') and '0.0123 m' in message
    level, message, kind = answer_level(result(False, STATUS_NOT_CONVERGED), False)
    assert (level, kind) == ('WARN', 'unreachable')
    assert 'it may be reachable' in message and 'out of reach' not in message
    level, message, kind = answer_level(result(False, STATUS_TOO_FAR), False)
    assert (level, kind) == ('WARN', 'unreachable')
    assert 'max_joint_change' in message and 'out of reach' not in message
    level, message, kind = answer_level(result(False, STATUS_POSITION_ONLY), False)
    assert level == 'WARN' and 'position reached' in message and 'orientation' in message
    assert 'out of reach' not in message and 'may be reachable' not in message


def test_a_goal_refused_before_moving_or_planned_around_says_so():
    level, message, kind = answer_level(result(False, STATUS_BLOCKED, path='goal',
                                               motion='refused', reason='no path in 500 ms'),
                                        False)
    assert (level, kind) == ('ERROR', 'refused') and 'before moving: no path in 500 ms' \
        in message
    level, message, kind = answer_level(result(True, STATUS_REACHED, path='goal',
                                               motion='planned', waypoints=4,
                                               plan_time=0.05), False)
    assert level == 'OK' and 'around obstacles (4 waypoints, planned in 50 ms)' in message
