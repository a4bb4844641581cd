# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A marker per tip of a tree (``tip_links``), dragged as rviz2 drags it: ik_node, sim_arm real.

The node offers ``ik_target/<tip>`` for each hand of test/urdf/torso_two_arms.urdf through
the stand-in ``interactive_markers`` server (``test/standin_markers``, as
test_interactive_marker.py). ``IK_NODE_MARKER_SERVER=DIR`` runs these tests against the
upstream server instead: DIR holds its ``interactive_markers`` package (the Python source of
github.com/ros-visualization/interactive_markers, branch ``rolling``, kept outside this
repository). A drag of one hand's marker takes that hand to the released pose while
the other holds; feedback naming an unknown tip, or a NaN pose, gets a throttled warning and
nothing moves.
"""

import os
from pathlib import Path
import re

from ik_node.motion.tree_arm import TreeArm
from ik_node.spatial.pose import pose_error
from ik_node.tree import TreeChain
import numpy as np
import pytest
from ros_harness import ros_rig, STARTUP_TIMEOUT

rclpy = pytest.importorskip('rclpy')

from ik_node.ros.conversions import matrix_to_pose  # noqa: E402, I100
from ik_node.ros.interactive import STATES, tip_marker_name  # noqa: E402
from ik_node.ros.rviz_feedback import Feedback, RvizMarkerClient  # noqa: E402
from test_interactive_marker import STANDIN  # noqa: E402
from test_tree_node_ros import Q_START, TIPS, TOPICS, TreeProbe, URDF  # noqa: E402

SERVER = '/ik_node_target'
SERVER_PATH = Path(os.environ.get('IK_NODE_MARKER_SERVER') or STANDIN)
# Each moves one arm's own joints: the other hand can hold while it goes.
DQ = {0: np.array([0.0, 0.0, 0.15, -0.1, 0.15, 0.1, 0.0, 0.0, 0.0, 0.0]),
      1: np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.15, 0.1, 0.15, -0.15])}


def reachable_path(arm: TreeArm, q: np.ndarray, dq: np.ndarray, tip: int,
                   frames: int = 20) -> list:
    """
    Return drag poses of ``tip`` from its pose at q to its pose at q + dq, each reachable.

    A 4-joint arm cannot take every pose on a straight line with a fixed orientation while
    the other hand holds: the poses come from joint values between q and q + dq (a user
    dragging within reach).
    """
    return [matrix_to_pose(arm.fk(q + s * dq)[tip]) for s in np.linspace(0.0, 1.0, frames)]


@pytest.fixture(scope='module')
def arm() -> TreeArm:
    return TreeArm(TreeChain.from_urdf(URDF, 'base_link', TIPS))


@pytest.fixture(scope='module')
def tree_marker_node(tmp_path_factory, arm):
    """Yield (procs, probe, client, readings): ik_node with a marker per hand, sim_arm."""
    with ros_rig(tmp_path_factory.mktemp('tree_marker')) as (procs, probe):
        procs.env['PYTHONPATH'] = f'{SERVER_PATH}:{procs.env.get("PYTHONPATH", "")}'
        client = RvizMarkerClient(probe.node, SERVER)
        readings = TreeProbe(probe, arm)   # the arm's readings, a publisher per tip topic
        procs.start('sim_arm', f'urdf_file:={URDF}',
                    f'initial_joint_names:={list(arm.joint_names)}',
                    f'initial_positions:={Q_START.tolist()}', 'follow:=instant')
        # (max_following_error: see test_interactive_marker.py; stalls are tested elsewhere)
        procs.start('ik_node', f'urdf_file:={URDF}', f'tip_links:={TIPS}',
                    f'tip_target_topics:={TOPICS}', 'avoid_collisions:=false',
                    'interactive_marker:=true', 'max_following_error:=3.0',
                    'goal_search_timeout:=0.5')
        assert probe.spin_until(client.connected, STARTUP_TIMEOUT), procs.logs()

        def hold_left():
            return readings.send(0, arm.fk(Q_START)[0])

        # Served targets from here on (the node refuses them until joint_states come); each
        # answered target offers the markers again, for a client that subscribed late.
        assert probe.answer_to(hold_left) is not None, procs.logs()
        assert probe.spin_until(lambda: all(client.markers(tip_marker_name(t)) for t in TIPS),
                                STARTUP_TIMEOUT, hold_left), procs.logs()
        assert probe.spin_until(lambda: readings.reached(arm.fk(Q_START)), 20.0), procs.logs()
        # The upstream server takes no feedback from a new client within 1 s of a marker's
        # creation (two users on one marker); rviz2's first drag comes later than that.
        probe.spin_for(1.5)
        # The server is the one asked for: only upstream's serves the markers to late clients.
        service = f'{SERVER}/get_interactive_markers'
        upstream = probe.spin_until(lambda: service in dict(
            probe.node.get_service_names_and_types()), 1.0)
        assert upstream == (SERVER_PATH != STANDIN), (SERVER_PATH, upstream)
        yield procs, probe, client, readings


def test_dragging_each_hands_marker_takes_that_hand_there_and_the_other_holds(
        tree_marker_node, arm):
    procs, probe, client, readings = tree_marker_node
    q = readings.readings[-1]
    for tip in (0, 1):
        name = tip_marker_name(TIPS[tip])
        goal = arm.fk(q + DQ[tip])
        n_arm = len(readings.readings)
        client.drag(name, 'base_link', reachable_path(arm, q, DQ[tip], tip), probe.spin_for)
        assert probe.spin_until(lambda: readings.reached(goal), 20.0), (
            tip, arm.tip_errors(goal, readings.readings[-1]), procs.logs()[-3000:])
        # The other hand held its pose all the way (a stream of its marker's poses).
        other = 1 - tip
        drift = max(pose_error(goal[other], arm.fk(r)[other])[0]
                    for r in readings.readings[n_arm:])
        assert drift < 1e-3, drift
        q = readings.readings[-1]


def _still(readings, n: int) -> bool:
    return max(np.max(np.abs(r - readings.readings[n - 1]))
               for r in readings.readings[n:]) < 1e-6


def test_feedback_for_an_unknown_tip_is_warned_throttled_and_nothing_moves(
        tree_marker_node, arm):
    procs, probe, client, readings = tree_marker_node
    probe.spin_for(0.5)
    n = len(readings.readings)
    T = arm.fk(readings.readings[-1])[0]
    T[:3, 3] += [0.05, 0.0, 0.0]
    # 3 s of rviz2-like drag updates naming a marker the node does not offer.
    for _ in range(60):
        client.send(Feedback.POSE_UPDATE, 'ik_target/nowhere', 'base_link', matrix_to_pose(T))
        probe.spin_for(0.05)
    client.release('ik_target/nowhere', 'base_link', matrix_to_pose(T))
    pattern = "interactive marker feedback for 'ik_target/nowhere' ignored: no such marker"
    assert probe.spin_until(lambda: pattern in procs.logs(), 10.0), procs.logs()[-3000:]
    probe.spin_for(0.5)
    assert _still(readings, n)
    warned = len(re.findall(re.escape(pattern), procs.logs()))
    assert 1 <= warned <= 3, warned     # throttled: once per 2 s, not once per message
    assert 'ik_target/left_hand, ik_target/right_hand' in procs.logs()


def test_a_nan_marker_pose_is_refused_with_a_warning_the_marker_turns_red(
        tree_marker_node, arm):
    procs, probe, client, readings = tree_marker_node
    probe.spin_for(0.5)
    n = len(readings.readings)
    name = tip_marker_name('right_hand')
    n_markers = len(client.markers(name))
    bad = matrix_to_pose(arm.fk(readings.readings[-1])[1])
    bad.position.y = float('nan')
    client.press(name, 'base_link', bad)
    client.release(name, 'base_link', bad)
    assert probe.spin_until(lambda: any(
        m.description == STATES['refused'][0].replace('IK target', 'IK target right_hand')
        for m in client.markers(name)[n_markers:]), 10.0), procs.logs()[-3000:]
    assert 'target refused' in procs.logs()
    probe.spin_for(0.5)
    assert _still(readings, n)
    # The node goes on: the left hand's marker is served after it.
    q = readings.readings[-1]
    goal = arm.fk(q + DQ[0])
    client.drag(tip_marker_name('left_hand'), 'base_link', reachable_path(arm, q, DQ[0], 0),
                probe.spin_for)
    assert probe.spin_until(lambda: readings.reached(goal), 20.0), procs.logs()[-3000:]
