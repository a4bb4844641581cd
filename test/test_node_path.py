# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The path of a target through ik_node: conversion, motion layer, conversion, publish.

A PoseStamped from the target callback to the published command returns into node.py at
most twice (issue 28): the node converts, calls, converts, publishes, and orchestrates
nothing it can hand over. Counted with a profiler on an in-process node.
"""

import os
from pathlib import Path
import sys

import pytest
from ros_harness import fresh_domain, solve_budget_parameters

rclpy = pytest.importorskip('rclpy')

from geometry_msgs.msg import PoseStamped  # noqa: E402, I100
from ik_node.ros import node as node_module  # noqa: E402
from rclpy.context import Context  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
URDF = ROOT / 'config' / 'urdf' / 'demo_arm.urdf'
NODE_FILE = os.path.abspath(node_module.__file__)
PACKAGE = os.path.dirname(os.path.dirname(NODE_FILE))


def crossings(call) -> tuple[list[str], bool]:
    """
    Run ``call()``; return the crossings into node.py before the command is published.

    A crossing: a function of ik_node outside node.py returning into a node.py frame, or a
    node.py function called from another ik_node module. Also returns whether a command
    was published (Outputs.command called).
    """
    seen: list[str] = []
    state = {'on': True, 'published': False}

    def in_package(path: str) -> bool:
        return os.path.abspath(path).startswith(PACKAGE)

    def profile(frame, event, arg):
        if not state['on']:
            return
        code, back = frame.f_code, frame.f_back
        here = os.path.abspath(code.co_filename)
        if event == 'call' and code.co_name == 'command' and here.endswith('outputs.py'):
            state['on'], state['published'] = False, True
            return
        if back is None:
            return
        caller = os.path.abspath(back.f_code.co_filename)
        if event == 'call' and here == NODE_FILE and caller != NODE_FILE \
                and in_package(caller):
            seen.append(f'into {code.co_name}')
        elif event == 'return' and caller == NODE_FILE and here != NODE_FILE \
                and in_package(here):
            seen.append(f'{os.path.relpath(here, PACKAGE)}:{code.co_name}')

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return seen, state['published']


def test_a_pose_target_returns_to_the_node_at_most_twice_before_its_command():
    ctx = Context()
    rclpy.init(context=ctx, domain_id=fresh_domain())
    node = None
    try:
        node = node_module.IKNode(context=ctx, parameter_overrides=[
            Parameter('robot_description', value=URDF.read_text()),
            Parameter('require_joint_states', value=False),
            Parameter('avoid_collisions', value=False), *solve_budget_parameters()])
        sub = node.create_subscription(JointState, 'joint_commands', lambda m: None, 10)
        msg = PoseStamped()
        msg.header.frame_id = 'base_link'
        msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = 0.3, 0.1, 0.4
        msg.pose.orientation.w = 1.0
        seen, published = crossings(lambda: node._on_pose(msg))
        assert published, 'no command published for the target'
        assert len(seen) <= 2, seen
        node.destroy_subscription(sub)
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.shutdown(context=ctx)
