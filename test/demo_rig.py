# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The demo arm under sim_arm, for the goal-motion and jog tests that run real processes.

:func:`start` brings sim_arm (instant follower) and ik_node up on the demo arm and waits until
both answer; :func:`assert_within_limits` judges the command stream by stamp against the
node's declared velocity, acceleration and jerk limits; :func:`assert_never_in_contact` checks
every measured state; the jog helpers publish twists, joint jogs and gamepad messages. The
``demo`` chain and the ``rig`` fixture are in conftest.
"""

from command_judge import judge_commands
from ik_node import HalfSpace, share_path
from ik_node.motion.limits import JointLimits
from ik_node.motion.watcher import CommandWatcher
from ik_node.ros.parameter_table import defaults, IK_NODE_PARAMETERS, limits_from_values
import numpy as np
import pytest
from ros_harness import stamp_ns, status_values

rclpy = pytest.importorskip('rclpy')

from diagnostic_msgs.msg import DiagnosticStatus  # noqa: E402, I100
from geometry_msgs.msg import TwistStamped  # noqa: E402
from sensor_msgs.msg import JointState, Joy  # noqa: E402

DEMO_URDF = share_path()
DEMO_START = np.array([0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0])
FLOOR = HalfSpace(name='floor')
PERIOD = 0.01               # [s] the node's default output_rate is 100 Hz
PUBLISH_PERIOD = 0.02       # [s] jog messages at 50 Hz, as a gamepad or SpaceMouse sends


def start(procs, probe, demo, *node_params: str) -> None:
    """Start sim_arm at DEMO_START and ik_node; wait until a target is served and read."""
    procs.start('sim_arm', f'urdf_file:={DEMO_URDF}',
                f'initial_positions:={DEMO_START.tolist()}', 'follow:=instant')
    procs.start('ik_node', f'urdf_file:={DEMO_URDF}', *node_params)
    status = probe.answer_to(lambda: probe.publish_pose(demo.fk(DEMO_START)))
    assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()
    assert probe.spin_until(lambda: len(probe.arm) > 0, 20.0), procs.logs()


def assert_within_limits(demo, probe, since: int, scale: float = 1.0, held: bool = False,
                         **params) -> CommandWatcher:
    """
    Check the commands since index ``since`` against the velocity, acceleration, jerk limits.

    params: the node's parameters other than their defaults (velocity_scale=0.25, ...);
    scale: the acceleration and jerk allowed over those limits (an emergency stop's); held:
    the arm rests after the last command (the stream's end is judged as the arm holding it:
    :meth:`CommandWatcher.finish`). An abrupt stop where the machine held the node is
    excused (:mod:`command_judge`). Returns the watcher (its max_*_ratio are over the limits
    times ``scale``).
    """
    limits = limits_from_values(demo, {**defaults(IK_NODE_PARAMETERS), **params})
    limits = JointLimits(limits.names, limits.velocity, limits.acceleration * scale,
                         limits.jerk * scale)
    return judge_commands(demo, probe, since, limits, PERIOD, held)


def assert_never_in_contact(demo, probe, world, since: int) -> None:
    """Check that no arm reading since index ``since`` touches ``world``."""
    touching = [q for _, q in probe.arm[since:] if demo.collisions(q, world)]
    assert not touching, demo.collisions(touching[0], world)


def twist_msg(probe, v6, frame: str = 'base_link') -> TwistStamped:
    """Return a TwistStamped of (vx, vy, vz, wx, wy, wz) stamped now, in ``frame``."""
    msg = TwistStamped()
    msg.header.frame_id = frame
    msg.header.stamp = probe.node.get_clock().now().to_msg()
    lin, ang = msg.twist.linear, msg.twist.angular
    lin.x, lin.y, lin.z, ang.x, ang.y, ang.z = (float(v) for v in v6)
    return msg


class Twists:
    """
    Publish the twist ``v6`` stamped now at each call; :attr:`stamp` [s]: the last one's.

    The stamp is on the probe's clock, as the arm's readings: ``probe.arm_before(stamp)`` is
    where the arm was when the last twist was sent (the node's jog_timeout counts from it).
    """

    def __init__(self, probe, publisher, v6, frame: str = 'base_link'):
        self.probe, self.publisher, self.v6, self.frame = probe, publisher, v6, frame
        self.stamp = 0.0

    def __call__(self) -> None:
        msg = twist_msg(self.probe, self.v6, self.frame)
        self.stamp = stamp_ns(msg.header.stamp) * 1e-9
        self.publisher.publish(msg)


def jog_publishers(probe):
    """Return the probe's (jog_twist, jog_joints, joy) publishers."""
    node = probe.node
    return (node.create_publisher(TwistStamped, 'jog_twist', 10),
            node.create_publisher(JointState, 'jog_joints', 10),
            node.create_publisher(Joy, 'joy', 10))


def tool(demo, q) -> np.ndarray:
    """Return the tool point [m] at joints ``q``."""
    return demo.fk(q)[:3, 3]


def controls(probe, since: int) -> list[str]:
    """Return the 'control' value of every status since index ``since``."""
    return [status_values(s).get('control', '') for s in probe.statuses[since:]]


def stream_until(probe, publish, done, timeout: float = 20.0) -> float:
    """
    Publish every PUBLISH_PERIOD until ``done()``; fail after ``timeout`` [s].

    Returns the time [s] (the probe's clock, as the arm's stamps) of the last publish: where
    the arm was then is ``probe.arm_before(t)``, not the newest reading, which a busy probe
    may have read late.
    """
    sent = [0.0]

    def send():
        sent[0] = probe.now_ns() * 1e-9
        publish()

    assert probe.spin_until(done, timeout, send, PUBLISH_PERIOD), 'not done in time'
    return sent[0]
