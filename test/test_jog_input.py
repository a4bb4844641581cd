# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The node's jog input keeps its jogger across live obstacle updates (ik_node.ros.jog_input).

Live obstacles (the obstacles topic, a perception node republishing at 10 Hz) replace the
tracker's world; the jog must judge the new world at once and go on. A rebuilt jogger would
brake the jog at every update (and warm up for milliseconds in the control cycle). New jog
settings still rebuild it.
"""

from pathlib import Path

import pytest

pytest.importorskip('rclpy')

from ik_node.collision import HalfSpace, Sphere  # noqa: E402, I100
from ik_node.motion.jog import MODE_TWIST, REASON_COLLISION  # noqa: E402
from ik_node.motion.jog_guards import guard_record, pair_clearances  # noqa: E402
from ik_node.ros.jog_input import JogInput  # noqa: E402
from ik_node.ros.node_state import NodeState  # noqa: E402
from ik_node.ros.parameter_table import defaults, IK_NODE_PARAMETERS  # noqa: E402
from ik_node.ros.robot_setup import build_tracker  # noqa: E402
import numpy as np  # noqa: E402

URDF = Path(__file__).resolve().parent.parent / 'config' / 'urdf' / 'demo_arm.urdf'
FLOOR = HalfSpace(normal=(0.0, 0.0, 1.0), offset=0.0, name='floor')
PERIOD = 0.01
TWIST = [0.05, 0.0, 0.0, 0.0, 0.0, 0.0]
START = [0.0, -1.2, 1.2, -1.57, -1.57, 0.0]     # the tool 0.4 m above the floor, clear


def ball_clearance(jogger, ball: Sphere) -> float:
    """Return the smallest clearance [m] between the arm at the jogger's state and ``ball``."""
    rec = guard_record(jogger.chain, jogger.limits, jogger.settings, [ball])
    d = pair_clearances(rec, np.array(jogger.state.q))  # as the jogger passes it
    return float(d[rec.K[2]:].min())        # (the self pairs first)


def ball_ahead(jogger, clearance: float, radius: float = 0.05) -> Sphere:
    """Return a ball on the tool's +x side ``clearance`` [m] (within 1 mm) from the arm."""
    tool = jogger.chain.fk(jogger.state.q)[:3, 3]
    lo, hi = 0.0, 1.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        ball = Sphere(center=tool + (mid, 0.0, 0.0), radius=radius, name='ball')
        lo, hi = (lo, mid) if ball_clearance(jogger, ball) > clearance else (mid, hi)
    ball = Sphere(center=tool + (hi, 0.0, 0.0), radius=radius, name='ball')
    assert abs(ball_clearance(jogger, ball) - clearance) < 1e-3
    return ball


@pytest.fixture
def jogging():
    """Return (jog input, tracker, time): a stream of tool twists in +x for 0.1 s."""
    values = {**defaults(IK_NODE_PARAMETERS), 'avoid_collisions': True}
    tree, tracker = build_tracker(URDF.read_text(), values, [FLOOR])
    jog = JogInput(NodeState(values, tree, tracker), None, None, None)  # _jog: the state only
    jogger = jog._jog().jogger
    jogger.reset(START, 0.0)
    t = 0.0
    for _ in range(10):
        jogger.twist(TWIST, t)      # a stream of twists, as from a SpaceMouse
        t += PERIOD
        assert jogger.step(t).mode == MODE_TWIST
    return jog, tracker, t


def test_a_live_obstacle_update_sets_the_jog_guard_and_the_jog_goes_on(jogging):
    jog, tracker, t = jogging
    control = jog._jog()
    jogger = control.jogger
    for clearance in (0.3, 0.25, 0.2):      # a perception node moving a far ball
        tracker.set_collision_guard([FLOOR, ball_ahead(jogger, clearance)])
        assert jog._jog() is control and control.jogger is jogger
        jogger.twist(TWIST, t)
        t += PERIOD
        step = jogger.step(t)
        assert step.mode == MODE_TWIST and step.scale == 1.0, step
    # A ball 5 mm ahead: the same jogger slows the twist for it at once.
    tracker.set_collision_guard([FLOOR, ball_ahead(jogger, 0.005)])
    assert jog._jog() is control
    jogger.twist(TWIST, t)
    t += PERIOD
    step = jogger.step(t)
    assert step.mode == MODE_TWIST and step.reason == REASON_COLLISION and step.scale < 1.0


def test_new_jog_settings_rebuild_the_jogger(jogging):
    # (That the rebuilt jogger brakes a jog in progress: test_jog_ros_smooth.)
    jog, tracker, _ = jogging
    control = jog._jog()
    jog._state.values = {**jog._state.values, 'singularity_stop': 40.0}
    rebuilt = jog._jog()
    assert rebuilt is not control and rebuilt.jogger is not control.jogger
    assert rebuilt.jogger.settings.singularity_stop == 40.0
