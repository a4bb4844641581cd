# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A command tick that fails mid-motion: the node brakes from its commands, then says so.

An in-process ik_node drives the demo arm toward a far goal, or jogs it; then its goal
motion's step, or the jog's, raises at every tick (a fault injected into the real node, as a
bug in the motion layer would). The commands must go on, one per tick, and brake to rest
within the declared acceleration and jerk limits (read by differences at the stamps, as a
driver reads them), the failure and the rest must be told on ik_status, and once the step
works again a new goal moves the arm.
"""

import time

from ik_node.motion.fail_brake import JERK_SHARE
import numpy as np
import pytest
from ros_harness import fresh_domain, pose_msg, solve_budget_parameters
from test_fail_brake import driver_view

rclpy = pytest.importorskip('rclpy')

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402, I100
from geometry_msgs.msg import PoseStamped  # noqa: E402
from ik_node import Chain, share_path  # noqa: E402
from ik_node.ros import node as node_module  # noqa: E402
from rclpy.context import Context  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

URDF = share_path()


@pytest.mark.parametrize('source', ['goal', 'jog'])
def test_a_failing_tick_brakes_the_arm_to_rest_within_the_limits_and_says_so(source):
    ctx = Context()
    rclpy.init(context=ctx, domain_id=fresh_domain())
    executor = SingleThreadedExecutor(context=ctx)
    node = probe = None
    try:
        node = node_module.IKNode(context=ctx, parameter_overrides=[
            Parameter('urdf_file', value=str(URDF)),
            Parameter('require_joint_states', value=False),
            Parameter('interactive_marker', value=False),
            Parameter('output_mode', value='timer'),     # a command every tick, also at rest
            Parameter('avoid_collisions', value=False), *solve_budget_parameters()])
        probe = rclpy.create_node('probe', context=ctx)
        commands: list = []
        texts: list = []
        probe.create_subscription(JointState, 'joint_commands', lambda m: commands.append(
            (m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec, np.array(m.position))), 100)
        probe.create_subscription(DiagnosticArray, 'ik_status', lambda m: texts.extend(
            s.message for s in m.status), 100)
        targets = probe.create_publisher(PoseStamped, 'target_pose', 10)
        jogs = probe.create_publisher(JointState, 'jog_joints', 10)
        jogging = [False]

        def jog() -> None:
            if jogging[0]:      # a stick held: a joint jog at every spin
                msg = JointState()
                msg.header.stamp = probe.get_clock().now().to_msg()
                msg.name = list(node._state.tracker.names)
                msg.velocity = [0.4] * len(msg.name)
                jogs.publish(msg)
        executor.add_node(node)
        executor.add_node(probe)

        def spin_until(condition, timeout: float) -> bool:
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                if condition():
                    return True
                jog()
                executor.spin_once(timeout_sec=0.01)
            return condition()

        assert spin_until(lambda: node._state.tracker is not None and len(commands) > 3, 30.0)
        tracker = node._state.tracker
        chain = Chain.from_urdf(URDF, tracker.chain.base_link, tracker.chain.tip_link)
        q0 = commands[-1][1]
        far = np.clip(q0 + np.array([1.2, -0.8, 0.9, -1.0, 0.8, 1.2])[:chain.n],
                      chain.lower + 0.1, chain.upper - 0.1)
        if source == 'goal':
            targets.publish(pose_msg(chain.fk(far), 'base_link'))
        else:
            jogging[0] = True

        def speed() -> float:
            (t1, a), (t2, b) = commands[-2], commands[-1]
            return float(np.max(np.abs(b - a)) / max(t2 - t1, 1e-9))

        limits = tracker.limits
        moving = 0.3 * (limits.velocity.min() if source == 'goal' else 0.4)
        assert spin_until(lambda: len(commands) > 3 and speed() > moving, 10.0), \
            'the arm never got going'
        first_failed = len(commands)

        def fail(now):
            raise RuntimeError('injected: no profile found')

        # The goal motion's step, or the jog's, raises from now on (the jog's source stops:
        # a held stick would start a new jog at once).
        broken = tracker if source == 'goal' else node._jog._control
        broken.step = fail
        jogging[0] = False
        assert spin_until(lambda: any('at rest after the failed' in t for t in texts), 10.0), \
            texts
        assert any('command timer failed: RuntimeError: injected' in t and 'braking' in t
                   for t in texts), texts

        # The stop ends where a command repeats (at rest; output_mode 'timer'). Judged up to
        # there: a jog message still in flight when the stick was let go may start a new
        # jog after it, which fails and stops again (as it should).
        def rests() -> np.ndarray:
            qs = np.vstack([q for _, q in commands[first_failed - 1:]])
            return np.flatnonzero(np.all(np.abs(qs[1:] - qs[:-1]) < 1e-12, axis=1))

        assert spin_until(lambda: rests().size > 0, 5.0), 'the stop never came to rest'
        still = rests()
        stream = commands[first_failed - 6:]
        stream = stream[:6 + int(still[0]) + 1]
        ts = np.array([t for t, _ in stream])
        qs = np.vstack([q for _, q in stream])
        # A command per tick all along, in stamp order.
        gaps = np.diff(ts)
        assert gaps.min() > 0.0
        v, a, j = driver_view(ts, qs)
        # Read as a driver reads them (divided differences: any tick spacing, late ones too).
        assert np.all(np.abs(v) <= limits.velocity * 1.05 + 1e-9)
        assert np.all(np.abs(a) <= limits.acceleration * 1.05 + 1e-9), np.abs(a).max(axis=0)
        assert np.all(np.abs(j) <= limits.jerk * 1.05 + 1e-9), \
            (np.abs(j).max(axis=0), limits.jerk * JERK_SHARE, gaps)
        assert np.abs(v[-1]).max() < 1e-3       # at rest
        if source == 'jog':       # the jog ended (a late one of its messages too, after)
            assert spin_until(lambda: not node._jog._control.in_control, 5.0)
        # Working again: a new goal moves the arm from where it stopped.
        del broken.step
        rest = commands[-1][1]
        back = max((q0, far), key=lambda q: float(np.abs(q - rest).max()))
        targets.publish(pose_msg(chain.fk(back), 'base_link'))
        n_rest = len(commands)
        assert spin_until(lambda: np.abs(commands[-1][1] - rest).max() > 0.05, 10.0), (
            len(commands) - n_rest, commands[-1][1] - rest, node._state.tracker.moving)
    finally:
        for n in (probe, node):
            if n is not None:
                n.destroy_node()
        executor.shutdown()
        rclpy.shutdown(context=ctx)
