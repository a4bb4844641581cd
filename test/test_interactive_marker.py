# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The interactive marker end to end: a client sends what rviz2 sends, the node's arm follows.

CI has no ``interactive_markers`` package: the node runs with the stand-in server of
``test/standin_markers`` on its PYTHONPATH (same topics, QoS arguments and defaults as the
upstream Python server; see its docstring). ``bench/check_interactive_marker.py`` runs the
same drags against the upstream server when its source is present.
"""

from pathlib import Path

from ik_node.spatial.pose import pose_error
import numpy as np
import pytest
from ros_harness import Probe, Q0, ros_rig, STARTUP_TIMEOUT, URDF

rclpy = pytest.importorskip('rclpy')

from ik_node.ros.conversions import matrix_to_pose, pose_to_matrix  # noqa: E402, I100
from ik_node.ros.interactive import MARKER_NAME, STATES  # noqa: E402
from ik_node.ros.rviz_feedback import RvizMarkerClient  # noqa: E402

STANDIN = Path(__file__).resolve().parent / 'standin_markers'
SERVER = '/ik_node_target'


@pytest.fixture(scope='module')
def chain():
    from ik_node import Chain
    return Chain.from_urdf(URDF, 'base_link', 'tool0')


@pytest.fixture(scope='module')
def marker_node(tmp_path_factory, chain):
    """Yield (procs, probe, client): ik_node with the stand-in marker server, sim arm."""
    with ros_rig(tmp_path_factory.mktemp('marker')) as (procs, probe):
        procs.env['PYTHONPATH'] = f'{STANDIN}:{procs.env.get("PYTHONPATH", "")}'
        client = RvizMarkerClient(probe.node, SERVER)
        procs.start('sim_arm', f'urdf_file:={URDF}', f'initial_positions:={Q0.tolist()}',
                    'follow:=instant')
        # The arm here is a process on a shared machine: a pause of it (or of the commands'
        # delivery) longer than a quarter second while the commands lead by the default
        # following error (0.25 rad) is a stall by the node's rules, and the hold drops the
        # drag's goal (seen once in 10 CI runs). Stalls are tested in test_real_arm.py; here a
        # wide following error keeps them out of what this test judges: the drags.
        procs.start('ik_node', f'urdf_file:={URDF}', 'interactive_marker:=true',
                    'max_following_error:=3.0')
        assert probe.spin_until(client.connected, STARTUP_TIMEOUT), procs.logs()
        # Served targets from here on: the node answers one (it refuses them while it waits
        # for joint_states).
        assert probe.answer_to(lambda: probe.publish_pose(chain.fk(Q0))) is not None
        # The marker as the client sees it. The first offer may have gone out before the
        # client's subscription matched (rviz2 asks the upstream server for the current
        # markers; the stand-in has no such service): every answered target offers it again.
        assert probe.spin_until(lambda: client.markers(MARKER_NAME), STARTUP_TIMEOUT,
                                lambda: probe.publish_pose(chain.fk(Q0))), procs.logs()
        yield procs, probe, client


def commanded_at(probe: Probe, chain, T: np.ndarray, tol: float = 1e-3) -> bool:
    """Return True once the newest command puts the tip within ``tol`` m, 10 tol rad of T."""
    if not probe.commands:
        return False
    pe, oe = pose_error(T, chain.fk(probe.last_command(chain)))
    return pe < tol and oe < 10 * tol


def drag_path(T_from: np.ndarray, T_to: np.ndarray, frames: int, short: float = 0.01) -> list:
    """
    Return drag poses from T_from to T_to, with the orientation of T_to.

    The frames before the last run on a line to ``short`` [m] before T_to; the last pose (sent
    only with the release) is T_to: a node that misses the release leaves the arm short.
    """
    direction = T_to[:3, 3] - T_from[:3, 3]
    end = T_to[:3, 3] - short * direction / np.linalg.norm(direction)
    poses = []
    for s in np.linspace(0.0, 1.0, frames - 1):
        T = T_to.copy()
        T[:3, 3] = (1.0 - s) * T_from[:3, 3] + s * end
        poses.append(matrix_to_pose(T))
    return poses + [matrix_to_pose(T_to)]


def test_the_released_pose_is_never_lost_and_the_offer_is_logged(marker_node, chain):
    procs, probe, client = marker_node
    # The line comes before the first offer; the log file may show it a little later (seen
    # once: both logs still empty when the client already had the marker).
    assert probe.spin_until(lambda: 'interactive marker offered' in procs.logs(), 10.0), \
        procs.logs()
    rng = np.random.default_rng(14)
    T_home = chain.fk(Q0)
    T_prev = pose_to_matrix(client.markers(MARKER_NAME)[-1].pose)
    lost = []
    for trial in range(10):
        T_goal = T_home.copy()
        T_goal[:3, 3] += rng.uniform(-0.06, 0.06, 3)
        T_goal[:3, 3] += 0.03 * (T_goal[:3, 3] - T_prev[:3, 3]) / np.linalg.norm(
            T_goal[:3, 3] - T_prev[:3, 3])   # every drag at least 3 cm long
        client.drag(MARKER_NAME, 'base_link', drag_path(T_prev, T_goal, 12), probe.spin_for)
        if not probe.spin_until(lambda: commanded_at(probe, chain, T_goal), 10.0):
            lost.append(trial)
        T_prev = T_goal
    assert not lost, (lost, procs.logs()[-3000:])


def test_the_marker_follows_other_inputs_and_says_unreachable(marker_node, chain):
    procs, probe, client = marker_node
    # Another input (target_pose) moves the arm: the marker goes there, green.
    T = chain.fk(Q0)
    T[:3, 3] += [0.05, -0.04, 0.03]
    n = len(client.markers(MARKER_NAME))
    probe.publish_pose(T)

    def moved_to(T_want, state):
        for m in client.markers(MARKER_NAME)[n:]:
            if (np.linalg.norm(pose_to_matrix(m.pose)[:3, 3] - T_want[:3, 3]) < 1e-6
                    and m.description == STATES[state][0]):
                return True
        return False

    assert probe.spin_until(lambda: moved_to(T, 'ok'), 10.0), procs.logs()[-3000:]
    # A drag released out of reach: the marker turns to the unreachable state.
    T_far = T.copy()
    T_far[:3, 3] = [2.5, 0.0, 0.5]
    n = len(client.markers(MARKER_NAME))
    # In steps under STREAM_DISTANCE: a stream the arm follows to the nearest pose (a jump
    # that far at once would be a goal, refused before moving).
    client.drag(MARKER_NAME, 'base_link', drag_path(T, T_far, 60), probe.spin_for)
    assert probe.spin_until(lambda: any(m.description == STATES['unreachable'][0]
                                        for m in client.markers(MARKER_NAME)[n:]), 10.0)
