# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Each tip's state on the ROS page, from ik_status messages built as the node builds them.

The statuses come from the node's own code (:func:`ik_node.ros.tip_targets.tip_values` on a
real tree solve, :func:`ik_node.ros.conversions.status_array`), so the page reads what the
node writes; test_web_ros_tree.py runs the whole thing with real processes.
"""

from conftest import URDF_DIR
from ik_node.motion.tree_arm import TreeArm
from ik_node.tree import TreeChain
from ik_node.web.tip_status import TipStates
import numpy as np
import pytest

pytest.importorskip('rclpy')

from builtin_interfaces.msg import Time  # noqa: E402, I100
from diagnostic_msgs.msg import DiagnosticStatus  # noqa: E402
from ik_node.ros.conversions import status_array  # noqa: E402
from ik_node.ros.tip_targets import tip_values  # noqa: E402

TIPS = ['left_hand', 'right_hand']
Q = np.array([0.1, 0.0, 0.3, 0.5, -0.8, 0.2, -0.3, 0.5, -0.8, -0.2])


@pytest.fixture(scope='module')
def arm() -> TreeArm:
    return TreeArm(TreeChain.from_urdf(URDF_DIR / 'torso_two_arms.urdf', 'base_link', TIPS))


def answer(states: TipStates, level: str, message: str, values: dict):
    """Feed ``states`` one status as the page gets it (key/values as text)."""
    st = status_array('ik_node', level, message, values, Time()).status[0]
    return states.answer(st.level == DiagnosticStatus.ERROR, st.message,
                         {v.key: v.value for v in st.values})


def test_a_tip_goes_from_on_its_way_to_reached_stretched_or_refused(arm):
    states = TipStates(TIPS)
    assert 'left_hand`: **holding**' in states.text()
    # A reachable target for the left hand: on its way, then reached when the node says so.
    dq = np.array([0.0, 0.0, 0.1, -0.1, 0.1, 0.1, 0.0, 0.0, 0.0, 0.0])   # the left arm only
    target = arm.target_for(0, arm.fk(Q + dq)[0], Q)
    ok = arm.solve(target, Q)
    assert ok.success
    states.sent('10.000000001', 0)
    assert answer(states, 'OK', 'goal', {'target_stamp': '10.000000001', 'success': True,
                                         'motion': 'goal', **tip_values(ok, TIPS, 0)}) == \
        'left_hand'
    assert states.states['left_hand'].state == 'going'
    assert states.states['right_hand'].state == 'holding'
    assert answer(states, 'OK', 'target reached: the measured arm is there',
                  {'reached': True}) is None
    assert states.states['left_hand'].state == 'reached'
    # Out of reach in a stream: the arm goes to the nearest pose, the tip is stretched.
    far = arm.fk(Q)[1].copy()
    far[:3, 3] = [2.5, -2.0, 1.0]
    best = arm.solve(arm.target_for(1, far, Q), Q)
    assert not best.success
    states.sent('11.000000000', 1)
    answer(states, 'WARN', 'out of reach', {'target_stamp': '11.000000000', 'success': False,
                                            'motion': 'streaming',
                                            **tip_values(best, TIPS, 1)})
    st = states.states['right_hand']
    assert st.state == 'stretched' and st.position_error > 1.0
    assert states.states['left_hand'].state == 'reached'
    # Refused before solving (a NaN): the status has the target's stamp only.
    states.sent('12.000000000', 1)
    assert answer(states, 'ERROR', 'target refused: not finite',
                  {'target_stamp': '12.000000000', 'success': False}) == 'right_hand'
    assert states.states['right_hand'].state == 'refused'
    assert 'REFUSED** · 2' in states.text() and 'target refused: not finite' in states.text()
    # A status for a target this page did not send changes nothing.
    assert answer(states, 'ERROR', 'other', {'target_stamp': '99.0', 'success': False}) is None
