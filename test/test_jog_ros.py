# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Jogging the demo arm as real processes: sim_arm executes every command at once.

A twist stream moves the tool in the commanded direction and a command timeout brings it to
a smooth stop, the JointTrajectory output carrying the jog's positions, velocities and
accelerations within the limits; a joint is jogged by name; a gamepad (the xbox mapping)
moves the tool; a jog takes over from a goal motion and a goal waits for the jog to brake;
the floor, a joint limit, the wrist singularity and an obstacle slow it (it passes through
the singularity, it stops short of the obstacle); bad input gets a warning and no motion;
the keyboard console script publishes twists from a terminal. The command stream is judged
by stamp for velocity, acceleration and jerk against the node's limits, and every measured
state for contact with the floor (and the obstacle).
"""

import os
import pty
import subprocess
import sys
import time

from command_judge import stall_over, told_stalls
from demo_rig import (assert_never_in_contact, assert_within_limits, controls, DEMO_START,
                      FLOOR, jog_publishers, PERIOD, PUBLISH_PERIOD, start, stream_until, tool,
                      twist_msg, Twists)
from ik_node import Box, Chain
from ik_node.motion.keyboard import KeyboardTeleop
from ik_node.motion.watcher import CommandWatcher
from ik_node.ros.parameter_table import defaults, IK_NODE_PARAMETERS, limits_from_values
import numpy as np
import pytest
from ros_harness import (fresh_domain, Probe, Procs, stamp_ns, STARTUP_TIMEOUT,
                         status_values)

rclpy = pytest.importorskip('rclpy')

from geometry_msgs.msg import TwistStamped  # noqa: E402, I100
from rclpy.qos import QoSProfile  # noqa: E402
from sensor_msgs.msg import JointState, Joy  # noqa: E402
from trajectory_msgs.msg import JointTrajectory  # noqa: E402


def assert_trajectories_within_limits(demo: Chain, received: list, stalls: list) -> None:
    """
    Check JointTrajectory messages: full points within the limits, a smooth motion.

    A jog's message is a point ahead and, while it moves, the rest point it brakes to
    (docs/jogging.md): the points ahead, in time order, are the motion; each rest point is
    at rest after its point ahead. stalls: the machine's stalls the node told
    (:func:`command_judge.told_stalls`): across one, a point's velocity is not compared
    with its neighbours' positions (the tick after the gap restarts from the held command).
    """
    limits = limits_from_values(demo, defaults(IK_NODE_PARAMETERS))
    names = list(demo.joint_names)
    timed = []
    for msg in received:
        assert list(msg.joint_names) == names and 0 < len(msg.points) <= 2
        tfs = [p.time_from_start.sec + 1e-9 * p.time_from_start.nanosec for p in msg.points]
        assert 0.0 < tfs[0] and tfs == sorted(tfs)
        for p in msg.points:
            q, v, a = (np.array(x) for x in (p.positions, p.velocities, p.accelerations))
            assert q.shape == v.shape == a.shape == (demo.n,)
            assert np.all(np.abs(v) <= limits.velocity * (1 + 1e-6)), v
            assert np.all(np.abs(a) <= limits.acceleration * (1 + 1e-6)), a
        if len(msg.points) == 2:
            assert not any(msg.points[1].velocities) and not any(msg.points[1].accelerations)
        p = msg.points[0]
        timed.append((stamp_ns(msg.header.stamp) * 1e-9 + tfs[0], np.array(p.positions),
                      np.array(p.velocities)))
    # The points in time order are a motion within the velocity, acceleration and jerk
    # limits, and their velocities are those of their positions.
    timed.sort(key=lambda e: e[0])
    t = np.array([e[0] for e in timed])
    q = np.array([e[1] for e in timed])
    assert np.sum(np.any(np.diff(q, axis=0) != 0.0, axis=1)) > 20
    w = CommandWatcher.for_limits(demo, limits, PERIOD, require_all=False)
    for ti, qi in zip(t, q):
        w.check(names, list(qi), t=ti, stamp_ns=int(round(ti * 1e9)))
    w.finish()
    assert w.total_violations == 0, [str(x) for x in w.violations[:5]]
    v_mid = np.array([e[2] for e in timed])[1:-1]
    v_diff = (q[2:] - q[:-2]) / (t[2:] - t[:-2])[:, None]
    held = np.array([stall_over(stalls, int(t0 * 1e9), int(t1 * 1e9), PERIOD) is not None
                     for t0, t1 in zip(t[:-2], t[2:])], dtype=bool)
    assert np.count_nonzero(~held) > 20
    assert np.max(np.abs(v_mid - v_diff)[~held]) < 0.05


def test_a_twist_stream_moves_the_tool_and_a_timeout_stops_it_smoothly(rig, demo):
    procs, probe = rig
    trajectories: list[JointTrajectory] = []
    probe.node.create_subscription(JointTrajectory, 'joint_trajectory', trajectories.append,
                                   QoSProfile(depth=10_000))
    start(procs, probe, demo, 'trajectory_topic:=joint_trajectory')
    twist, _, _ = jog_publishers(probe)
    n_cmd, n_arm, n_status = len(probe.commands), len(probe.arm), len(probe.statuses)
    n_traj = len(trajectories)
    p0 = tool(demo, probe.arm[-1][1])
    v = np.array([0.0, 0.05, -0.03, 0.0, 0.0, 0.0])
    send = Twists(probe, twist, v)
    stream_until(probe, send, lambda: np.linalg.norm(tool(demo, probe.arm[-1][1]) - p0) > 0.04)
    moved = tool(demo, probe.arm[-1][1]) - p0
    # In the commanded direction (the blend and the null space bend it only a little).
    assert moved @ v[:3] / (np.linalg.norm(moved) * np.linalg.norm(v[:3])) > 0.98, moved
    p_last = tool(demo, probe.arm_before(send.stamp))     # where it was at the last message
    # No more messages: the jog times out and brakes to rest within the limits.
    rest = probe.settled(timeout=10.0)
    assert np.linalg.norm(tool(demo, rest) - p_last) < 0.02
    assert 'jog twist' in controls(probe, n_status), procs.logs()
    assert probe.spin_until(lambda: controls(probe, n_status)[-1] == 'goal', 5.0)
    assert_never_in_contact(demo, probe, [FLOOR], n_arm)
    assert_within_limits(demo, probe, n_cmd, held=True)
    assert len(trajectories) - n_traj > 20
    assert_trajectories_within_limits(demo, trajectories[n_traj:], told_stalls(probe))


def test_a_tool_frame_twist_and_a_joint_jog_by_name(rig, demo):
    procs, probe = rig
    start(procs, probe, demo)
    twist, joints, _ = jog_publishers(probe)
    n_cmd, n_status = len(probe.commands), len(probe.statuses)
    # Along the tool's own z axis.
    q0 = probe.arm[-1][1]
    z_tool = demo.fk(q0)[:3, 2]
    p0 = tool(demo, q0)
    stream_until(probe, lambda: twist.publish(twist_msg(probe, [0, 0, 0.04, 0, 0, 0], 'tool0')),
                 lambda: np.linalg.norm(tool(demo, probe.arm[-1][1]) - p0) > 0.03)
    moved = tool(demo, probe.arm[-1][1]) - p0
    assert moved @ z_tool / np.linalg.norm(moved) > 0.98
    q1 = probe.settled(timeout=10.0)
    # One joint by name; the others stand.
    msg = JointState(name=['elbow_joint'], velocity=[-0.3])
    stream_until(probe, lambda: joints.publish(msg),
                 lambda: probe.arm[-1][1][2] < q1[2] - 0.2)
    q2 = probe.settled(timeout=10.0)
    others = [0, 1, 3, 4, 5]
    np.testing.assert_allclose(q2[others], q1[others], atol=1e-9)
    assert 'jog joint' in controls(probe, n_status)
    assert_within_limits(demo, probe, n_cmd, held=True)


def test_a_gamepad_with_the_xbox_mapping_moves_the_tool(rig, demo):
    procs, probe = rig
    start(procs, probe, demo, 'joy_mapping:=xbox')
    _, _, joy = jog_publishers(probe)
    n_cmd = len(probe.commands)
    p0 = tool(demo, probe.arm[-1][1])
    # Left stick pushed up: +x at 0.1 m/s (config/joy_xbox.yaml); triggers untouched (0).
    axes = [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]

    def joy_msg(buttons: list[int]) -> Joy:
        # Stamped now, as the joy driver stamps them: the node's lateness rule then brakes
        # the arm on time when a message reaches it late (docs/jogging.md).
        msg = Joy(axes=axes, buttons=buttons)
        msg.header.stamp = probe.node.get_clock().now().to_msg()
        return msg

    stream_until(probe, lambda: joy.publish(joy_msg([0] * 11)),
                 lambda: tool(demo, probe.arm[-1][1])[0] - p0[0] > 0.04)
    moved = tool(demo, probe.arm[-1][1]) - p0
    assert moved[0] / np.linalg.norm(moved) > 0.98, moved
    # B held: stop, even with the stick still up. Measured from where the arm was (by the
    # stamps of its readings) when B was first sent: the probe may read the arm late.
    t_b = []

    def press_b():
        msg = joy_msg([0, 1] + [0] * 9)
        t_b.append(stamp_ns(msg.header.stamp) * 1e-9)
        joy.publish(msg)

    press_b()
    rest = probe.settled(timeout=10.0, every=press_b)
    q_stop = probe.arm_before(t_b[0])
    assert np.linalg.norm(tool(demo, rest) - tool(demo, q_stop)) < 0.02
    assert_within_limits(demo, probe, n_cmd, held=True)


def test_a_jog_takes_over_a_goal_and_a_goal_waits_for_the_jog(rig, demo):
    procs, probe = rig
    start(procs, probe, demo)
    twist, joints, _ = jog_publishers(probe)
    n_cmd, n_arm, n_status = len(probe.commands), len(probe.arm), len(probe.statuses)
    goal = DEMO_START + np.array([0.9, -0.3, 0.4, 0.0, 0.6, 0.0])
    status = probe.answer_to(lambda: probe.publish_pose(demo.fk(goal)))
    assert status_values(status)['motion'] == 'direct', status_values(status)
    assert probe.spin_until(
        lambda: np.max(np.abs(probe.arm[-1][1] - DEMO_START)) > 0.2, 20.0, period=0.005)
    # Mid-motion, a joint jog takes over from the goal motion's state: no jump.
    msg = JointState(name=['wrist_3_joint'], velocity=[0.5])
    q_take = probe.arm[-1][1]
    stream_until(probe, lambda: joints.publish(msg),
                 lambda: probe.arm[-1][1][5] > q_take[5] + 0.3)
    assert 'jog joint' in controls(probe, n_status)
    assert any(status_values(s).get('goal_dropped') == 'True'
               for s in probe.statuses[n_status:])
    q_rest = probe.settled(timeout=10.0)
    # The goal was dropped: the arm rests short of it.
    assert np.max(np.abs(q_rest - goal)) > 0.05
    # A goal while jogging: the jog brakes to rest, then the goal motion starts there. A
    # jog_timeout of 1 s from here: the goal must come while the twist still has control, and
    # a busy machine can hold this process off longer than the default 0.1 s (a CI run: the
    # goal came after the jog had timed out, and nothing was held).
    (r,) = probe.set_parameters('ik_node', jog_timeout=1.0)
    assert r.successful
    back = DEMO_START + np.array([0.3, 0.0, 0.2, 0.0, 0.2, 0.0])
    T = demo.fk(back)
    p0 = tool(demo, q_rest)
    stream_until(probe, lambda: twist.publish(twist_msg(probe, [0.0, 0.05, 0, 0, 0, 0])),
                 lambda: np.linalg.norm(tool(demo, probe.arm[-1][1]) - p0) > 0.02)
    # The goal comes while the jog still moves (no twist after it: the latest input wins).
    n_goal = len(probe.statuses)
    status = probe.answer_to(lambda: probe.publish_pose(T))
    assert status is not None and status_values(status)['motion'] == 'direct', procs.logs()
    assert any(status_values(s).get('goal_held') == 'True' for s in probe.statuses[n_goal:])
    assert probe.spin_until(lambda: probe.arm_reached(T), 30.0), procs.logs()
    assert_never_in_contact(demo, probe, [FLOOR], n_arm)
    assert_within_limits(demo, probe, n_cmd)


def test_the_floor_and_a_joint_limit_slow_the_jog_and_ik_status_says_why(rig, demo):
    procs, probe = rig
    start(procs, probe, demo)
    twist, joints, _ = jog_publishers(probe)
    n_cmd, n_arm, n_status = len(probe.commands), len(probe.arm), len(probe.statuses)

    def slowed_by(reason: str) -> bool:
        return any(status_values(s).get('jog_slowed_by') == reason
                   for s in probe.statuses[n_status:])

    # Straight down toward the floor: slowed with the clearance, never in contact.
    stream_until(probe, lambda: twist.publish(twist_msg(probe, [0, 0, -0.1, 0, 0, 0])),
                 lambda: slowed_by('collision'), 30.0)

    # The slow-down ends in a creep of less than 1 mm in half a second (by stamps).
    def creeping() -> bool:
        readings = sorted(probe.arm_stamped[n_arm:], key=lambda e: e[0])
        if not readings or readings[-1][0] - readings[0][0] < 1e9:
            return False
        t_last = readings[-1][0]
        before = next(q for t, q in reversed(readings) if t <= t_last - 5e8)
        return abs(tool(demo, readings[-1][1])[2] - tool(demo, before)[2]) < 1e-3

    stream_until(probe, lambda: twist.publish(twist_msg(probe, [0, 0, -0.1, 0, 0, 0])),
                 creeping, 30.0)
    q = probe.arm[-1][1]
    assert tool(demo, q)[2] < 0.1 and not demo.collisions(q, [FLOOR])
    probe.settled(timeout=10.0)
    # wrist_3 at 2 rad/s toward its upper limit: stops short of it by the margin (0.1 rad).
    msg = JointState(name=['wrist_3_joint'], velocity=[2.0])
    stop = demo.upper[5] - 0.1
    stream_until(probe, lambda: joints.publish(msg),
                 lambda: slowed_by('joint_limit') and probe.arm[-1][1][5] > stop - 0.02, 30.0)
    n_near = len(probe.arm)
    stream_until(probe, lambda: joints.publish(msg), lambda: len(probe.arm) > n_near + 30)
    # The margin is where the slow-down aims (a blend may end a hair past it), the limit is
    # never reached.
    assert max(q[5] for _, q in probe.arm[n_arm:]) <= min(stop + 0.01, demo.upper[5])
    assert_never_in_contact(demo, probe, [FLOOR], n_arm)
    assert_within_limits(demo, probe, n_cmd)


def test_the_wrist_singularity_slows_the_jog_through_and_an_obstacle_stops_it(rig, demo):
    procs, probe = rig
    # A wall beside the arm (obstacle_boxes), which the arm turning about its base meets;
    # the creep at the singularity is raised (from 0.1) so the pass takes a second or two.
    wall = Box(pose=np.array([[1, 0, 0, -0.3], [0, 1, 0, -0.55], [0, 0, 1, 0.4], [0, 0, 0, 1]],
                             dtype=float), size=(0.6, 0.1, 0.8))
    start(procs, probe, demo, 'obstacle_boxes:=[-0.3, -0.55, 0.4, 0.6, 0.1, 0.8]',
          'singularity_min_speed:=0.5')
    twist, joints, _ = jog_publishers(probe)
    n_cmd, n_arm, n_status = len(probe.commands), len(probe.arm), len(probe.statuses)

    def slowed_by(reason: str) -> bool:
        """Wait (5 s at most) for a status that says the jog was slowed by ``reason``."""
        # A busy probe may take the arm's readings before the status published earlier.
        return probe.spin_until(lambda: any(status_values(s).get('jog_slowed_by') == reason
                                            for s in probe.statuses[n_status:]), 5.0)

    # wrist_2 near its singularity at 0 (wrist_1 and wrist_3 aligned), by joint jogging.
    # At 0.6 rad/s: a probe that sees the arm 0.5 s late still stops it short of the
    # singularity (at 1.5 rad/s it could start the pass beyond it, where nothing slows).
    msg = JointState(name=['wrist_2_joint'], velocity=[0.6])
    stream_until(probe, lambda: joints.publish(msg), lambda: probe.arm[-1][1][4] > -0.6)
    q = probe.settled(timeout=10.0)
    assert q[4] < -0.2, q
    # A jog_timeout of 0.5 s from here: gaps in this process's twists (a busy machine)
    # stop the jog, and a pass made while braking is not slowed by the singularity guard.
    # (Not for the joint jog above: it would coast toward the singularity for 0.5 s.)
    (r,) = probe.set_parameters('ik_node', jog_timeout=0.5)
    assert r.successful
    # The tool twist of turning wrist_2 alone, held: slowed toward the singularity, through
    # it, and on at full speed (never stuck).
    e = np.zeros(6)
    e[4] = 0.5
    v = demo.jacobian(q) @ e
    stream_until(probe, lambda: twist.publish(twist_msg(probe, v)),
                 lambda: probe.arm[-1][1][4] > 0.25, 30.0)
    assert slowed_by('singularity'), procs.logs()
    probe.settled(timeout=10.0)
    # The arm turned about its base toward the wall: slowed, stopped short, never touching.
    msg = JointState(name=['shoulder_pan_joint'], velocity=[1.0])
    n_turn = len(probe.arm_stamped)

    def resting() -> bool:
        """Return True once the base joint moved under 1 mrad in 0.3 s (by stamp)."""
        readings = sorted(probe.arm_stamped[n_turn:], key=lambda e: e[0])
        if not readings or readings[-1][0] - readings[0][0] < 1e9:
            return False
        before = next(q for t, q in reversed(readings) if t <= readings[-1][0] - 3e8)
        return abs(readings[-1][1][0] - before[0]) < 1e-3

    stream_until(probe, lambda: joints.publish(msg), resting, 30.0)
    assert slowed_by('collision')
    q = probe.arm[-1][1]
    assert q[0] > 0.3 and 0.0 <= demo.min_distance(q, [wall]).distance < 0.02
    assert_never_in_contact(demo, probe, [FLOOR, wall], n_arm)
    assert_within_limits(demo, probe, n_cmd)


def test_bad_jog_input_is_warned_about_and_moves_nothing(rig, demo):
    procs, probe = rig
    start(procs, probe, demo)
    twist, joints, joy = jog_publishers(probe)
    n_arm = len(probe.arm)
    log = procs.procs[-1].log_path
    # Topics take turns: the warnings are throttled per topic (one line per 2 s).
    bad = [
        (lambda: twist.publish(twist_msg(probe, [float('nan'), 0, 0, 0, 0, 0])), 'NaN'),
        (lambda: joints.publish(JointState(name=['no_such_joint'], velocity=[0.1])),
         "unknown joint 'no_such_joint'"),
        (lambda: joy.publish(Joy(axes=[0.0, 1.0], buttons=[])), 'the message has'),
        (lambda: twist.publish(twist_msg(probe, [100.0, 0, 0, 0, 0, 0])), 'above the limit'),
        (lambda: joints.publish(JointState(name=['elbow_joint', 'wrist_1_joint'],
                                           velocity=[0.1])), '2 joint names but 1 velocities'),
        (lambda: joy.publish(Joy(axes=[0.0, float('nan')] + [0.0] * 6, buttons=[0] * 11)),
         'axis 1 is nan'),
        (lambda: twist.publish(twist_msg(probe, [0.05, 0, 0, 0, 0, 0], 'map')),
         "frame 'map' is unknown"),
        (lambda: joints.publish(JointState(name=['elbow_joint'], velocity=[1e9])),
         'above its limit'),
        (lambda: twist.publish(twist_msg(probe, [0, 0, 0, 0, 0, float('inf')])), '0.0, inf]'),
        (lambda: joints.publish(JointState(name=['elbow_joint'], velocity=[float('nan')])),
         "velocity of joint 'elbow_joint' is nan"),
    ]
    for publish, text in bad:
        sent = []
        assert probe.spin_until(lambda: text in log.read_text(), 10.0,
                                lambda: sent.append(publish()), PUBLISH_PERIOD), \
            (text, procs.logs())
        # Throttled: one line per kind, however many messages came.
        # (a burst at 200 Hz: the throttle is per kind and time, not per message rate)
        probe.spin_until(lambda: len(sent) > 25, 2.0, lambda: sent.append(publish()), 0.005)
        assert log.read_text().count(text) < len(sent) / 5, (text, len(sent))
    moved = [np.max(np.abs(q - DEMO_START)) for _, q in probe.arm[n_arm:]]
    assert moved and max(moved) < 1e-9, max(moved)
    assert procs.procs[-1].poll() is None, 'the node stopped'


def test_the_keyboard_script_publishes_twists_from_a_terminal(tmp_path):
    domain = fresh_domain()
    procs, probe = Procs(domain, tmp_path), Probe(domain)
    received: list[TwistStamped] = []
    arrived: list[float] = []
    probe.node.create_subscription(
        TwistStamped, 'jog_twist', lambda m: (received.append(m),
                                              arrived.append(time.monotonic())), 100)
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, '-m', 'ik_node.ros.jog_keyboard', '--ros-args',
                             '-p', 'linear_speed:=0.04'], stdin=slave, stdout=slave,
                            stderr=slave, env=procs.env, close_fds=True)
    os.close(slave)
    output = bytearray()

    def read_output():
        import select
        while select.select([master], [], [], 0)[0]:
            try:
                output.extend(os.read(master, 4096))
            except OSError:
                break

    try:
        def press(key: bytes):
            return lambda: (os.write(master, key), read_output())

        assert probe.spin_until(lambda: any(m.twist.linear.x > 0 for m in received),
                                STARTUP_TIMEOUT, press(b'w'), 0.1), output.decode()
        m = next(m for m in received if m.twist.linear.x > 0)
        assert m.twist.linear.x == pytest.approx(0.04) and m.header.frame_id == 'base_link'
        assert m.header.stamp.sec > 0
        # t: the tool frame; j: yaw at the default angular speed.
        os.write(master, b't')
        assert probe.spin_until(
            lambda: any(m.header.frame_id == 'tool0' and m.twist.angular.z > 0
                        for m in received), 20.0, press(b'j'), 0.1)
        yaw = next(m for m in received if m.twist.angular.z > 0)
        assert yaw.twist.angular.z == pytest.approx(KeyboardTeleop().angular_speed)
        # Released: nothing more is sent once the hold is over (KeyboardTeleop.hold).
        t_key = time.monotonic()
        assert probe.spin_until(lambda: time.monotonic() - arrived[-1] > 0.5, 10.0)
        assert arrived[-1] - t_key < KeyboardTeleop().hold + 0.3
        os.write(master, b'q')
        assert proc.wait(timeout=10.0) == 0
        read_output()
        assert b'jog_twist' in output
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
        probe.close()
