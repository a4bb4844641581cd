# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The web view's ROS mode against real ik_node and sim_arm processes (loopback DDS)."""

import math
import time

from ik_node.model.chain import Chain
import numpy as np
import pytest
from web_helpers import wait_until

rclpy = pytest.importorskip('rclpy')

from web_ros_helpers import Q0, ros_view, ros_world as start_world, URDF  # noqa: E402, I100


@pytest.fixture
def ros_world(tmp_path):
    """Start sim_arm and ik_node in a fresh domain of this run; yield the domain."""
    with start_world(tmp_path) as (domain, _):
        yield domain


def test_ros_view_drives_the_node_and_shows_refusals(ros_world):
    import viser
    with ros_view(ros_world) as (view, robot, topics):
        assert robot.chain.tip_link == 'tool0'
        assert topics['urdf_file'] == str(URDF)     # the node's relative path, made absolute
        chain = Chain.from_urdf(URDF, 'base_link', 'tool0')
        # the arm is drawn from joint_states
        assert wait_until(lambda: view.arm_updates > 0 and np.allclose(view.q, Q0, atol=1e-6))
        # a gizmo target goes to the node; the arm gets there; the status is matched
        T = chain.fk(np.array(Q0) + 0.15)
        wxyz = viser.transforms.SO3.from_matrix(T[:3, :3]).wxyz
        # (sent again until answered: the node may still be loading its collision model)
        next_send = [0.0]

        def answered():
            if time.monotonic() >= next_send[0]:
                view.publish_target(T[:3, 3], wxyz)
                next_send[0] = time.monotonic() + 0.5
            return any(math.isfinite(v) for v in view.latencies)

        assert wait_until(answered, 60.0)
        assert wait_until(lambda: np.linalg.norm(chain.fk(view.q)[:3, 3] - T[:3, 3]) < 2e-3)
        # the node says so once the measured arm is there
        assert wait_until(lambda: 'target reached' in view.readout.content)
        # a parameter set through the page's path changes the solver the node uses
        assert view.set_parameter('solver', 'string', 'pinv') is None
        n = len(view.statuses)
        view.publish_target(T[:3, 3] + [0.02, 0.0, 0.0], wxyz)
        assert wait_until(lambda: len(view.statuses) > n)
        assert view.statuses[-1]['solver'] == 'pinv'
        # a value the node refuses: its reason on the page
        reason = view.set_parameter('position_tolerance', 'double', -1.0)
        assert reason and view.error.visible and 'position_tolerance' in view.error.content
