# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A jog through real processes ends smoothly, whatever ends it.

An arm that cannot keep up with the jog (sim_arm at a tenth of the speed) pauses it: the
commands brake within the limits, ik_status says why, and the command never runs far ahead
of the arm; an arm that stops altogether (an e-stop) pauses it the same way. New parameter
values mid-jog (the solver, the acceleration scale) brake the jog from where it is instead
of stopping the command at once. An arm whose joint_states stop mid-jog (its driver gone)
gets a command stream that brakes to rest within the limits, not one that stops at speed,
and ik_status says why.
"""

import time

from demo_rig import (assert_within_limits, controls, DEMO_START, DEMO_URDF, jog_publishers,
                      PUBLISH_PERIOD, start, stream_until, tool, twist_msg, Twists)
import numpy as np
import pytest
from ros_harness import status_values

rclpy = pytest.importorskip('rclpy')

from diagnostic_msgs.msg import DiagnosticStatus  # noqa: E402, I100
from ik_node.ros.conversions import stamp_from_ns  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402


def test_an_arm_that_lags_pauses_the_jog_smoothly_and_ik_status_says_so(rig, demo):
    procs, probe = rig
    # The arm moves at a tenth of the speed the node commands: it cannot follow a fast jog.
    procs.start('sim_arm', f'urdf_file:={DEMO_URDF}',
                f'initial_positions:={DEMO_START.tolist()}', 'velocity_scale:=0.1')
    limit = 0.05
    procs.start('ik_node', f'urdf_file:={DEMO_URDF}', f'max_following_error:={limit}')
    status = probe.answer_to(lambda: probe.publish_pose(demo.fk(DEMO_START)))
    assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()
    assert probe.spin_until(lambda: len(probe.arm) > 0, 20.0), procs.logs()
    _, joints, _ = jog_publishers(probe)
    n_cmd, n_status = len(probe.commands), len(probe.statuses)
    msg = JointState(name=['wrist_3_joint'], velocity=[1.0])     # the arm follows at 0.315

    def paused() -> list:
        return [s for s in probe.statuses[n_status:]
                if status_values(s).get('jog_paused') == 'arm lags']

    stream_until(probe, lambda: joints.publish(msg), lambda: len(paused()) > 0)
    # Streamed on for a while: the jog waits for the arm, it does not run away from it.
    q5 = probe.arm[-1][1][5]
    stream_until(probe, lambda: joints.publish(msg),
                 lambda: probe.arm[-1][1][5] > q5 + 0.15)
    pause = paused()[0]
    assert pause.level == DiagnosticStatus.WARN and 'jog paused' in pause.message, pause
    assert 'wrist_3_joint' in pause.message
    q_rest = probe.settled(timeout=10.0)
    assert q_rest[5] > DEMO_START[5] + 0.15
    # The command's lead over the arm, reading by reading (by stamp): the following-error
    # limit and the braking from 1 rad/s (v^2 / 2a = 0.1 rad at the node's default 5 rad/s^2),
    # never the 0.7 rad/s the command would run ahead of the arm without the pause.
    t_cmd, q_cmd = probe.commands_by_stamp(demo, n_cmd)
    lead = [q_cmd[i, 5] - q[5] for t, q in probe.arm_stamped
            if (i := int(np.searchsorted(t_cmd, t * 1e-9, side='right')) - 1) >= 0]
    assert max(lead) < limit + 0.15, max(lead)
    assert not any(status_values(s).get('stalled') == 'True' for s in probe.statuses[n_status:])
    # An arm that stops altogether (an e-stop): the jog pauses the same way, the command
    # holds within reach of the arm; released, the arm catches up and the jog goes on.
    (r,) = probe.set_parameters('sim_arm', stalled=True)
    assert r.successful
    q_stalled = probe.settled(since_ns=probe.now_ns())
    n_stall = len(probe.statuses)
    stream_until(probe, lambda: joints.publish(msg), lambda: any(
        status_values(s).get('jog_paused') == 'arm lags' for s in probe.statuses[n_stall:]))
    n_read = len(probe.arm)
    stream_until(probe, lambda: joints.publish(msg), lambda: len(probe.arm) > n_read + 50)
    held = probe.last_command(demo)
    assert 0.0 < held[5] - q_stalled[5] < limit + 0.15, held[5] - q_stalled[5]
    (r,) = probe.set_parameters('sim_arm', stalled=False)
    assert r.successful
    stream_until(probe, lambda: joints.publish(msg), lambda: probe.arm[-1][1][5] > held[5] + 0.1)
    probe.settled(timeout=10.0)
    assert_within_limits(demo, probe, n_cmd, held=True)


def test_a_parameter_change_mid_jog_brakes_from_where_the_jog_is(rig, demo):
    procs, probe = rig
    # A jog_timeout of 0.3 s while the values change: a gap in this process's twists over
    # the default 0.1 s (a CI run beside a busy process) stopped the jog and it started
    # again, which is the timeout's job, not a parameter change's. The stop at the end is
    # measured with 0.1 s again.
    start(procs, probe, demo, 'jog_timeout:=0.3')
    twist, _, _ = jog_publishers(probe)
    n_cmd, n_status = len(probe.commands), len(probe.statuses)
    v = np.array([0.0, 0.08, -0.04, 0.0, 0.0, 0.0])
    send = Twists(probe, twist, v)

    def moved_from(p0, d: float):
        return lambda: np.linalg.norm(tool(demo, probe.arm[-1][1]) - p0) > d

    stream_until(probe, send, moved_from(tool(demo, probe.arm[-1][1]), 0.03))
    # The solver changes while the tool moves at 9 cm/s; the stream goes on, also while the
    # node takes the new value (a call that can outlast the 0.1 s jog_timeout under load).
    t_change = probe.now_ns()
    assert probe.set_parameter_list('ik_node', [Parameter('solver', value='pinv')],
                                    every=send, period=PUBLISH_PERIOD)[0].successful
    stream_until(probe, send, moved_from(tool(demo, probe.arm[-1][1]), 0.02))
    # A new model of the same joints (avoid_collisions rebuilds it) while the tool moves: its
    # jog takes over the old one's state (the jog ended at once before: a velocity step).
    assert probe.set_parameter_list('ik_node', [Parameter('avoid_collisions', value=False)],
                                    every=send, period=PUBLISH_PERIOD)[0].successful
    stream_until(probe, send, moved_from(tool(demo, probe.arm[-1][1]), 0.02))
    # Half the acceleration and the default jog_timeout, the stream going on meanwhile; then
    # the stream stops: the jog brakes to rest.
    assert all(r.successful for r in probe.set_parameter_list('ik_node', [
        Parameter('acceleration_scale', value=0.5), Parameter('jog_timeout', value=0.1)],
        every=send, period=PUBLISH_PERIOD))
    stream_until(probe, send, moved_from(tool(demo, probe.arm[-1][1]), 0.02))
    q_last = probe.arm_before(send.stamp)       # where the arm was at the last message
    q_rest = probe.settled(timeout=10.0)
    assert 0.0 < np.linalg.norm(tool(demo, q_rest) - tool(demo, q_last)) < 0.02
    # The commands after the first change kept moving (no stop-and-restart at the change).
    t_cmd, q_cmd = probe.commands_by_stamp(demo, n_cmd, after_ns=t_change)
    speed = np.linalg.norm(np.diff(q_cmd, axis=0), axis=1) / np.diff(t_cmd)
    first = speed[:int(np.searchsorted(t_cmd, t_cmd[0] + 0.2))]
    assert first.size and first.min() > 0.05, first
    assert 'jog twist' in controls(probe, n_status)
    assert not any(s.level == DiagnosticStatus.ERROR for s in probe.statuses[n_status:])
    # Within the limits throughout (those before the change: the new ones are lower), up to
    # the rest the arm holds.
    assert_within_limits(demo, probe, n_cmd, held=True)


def test_jog_messages_that_come_late_are_not_taken_and_the_jog_brakes_on_time(rig, demo):
    procs, probe = rig
    start(procs, probe, demo)
    twist, _, _ = jog_publishers(probe)
    n_cmd = len(probe.commands)
    log = procs.procs[-1].log_path
    v = np.array([0.0, 0.05, -0.03, 0.0, 0.0, 0.0])
    send = Twists(probe, twist, v)
    p0 = tool(demo, probe.arm[-1][1])
    stream_until(probe, send, lambda: np.linalg.norm(tool(demo, probe.arm[-1][1]) - p0) > 0.02)
    p_last = tool(demo, probe.arm_before(send.stamp))

    def send_late():
        # The same twist, held back 0.3 s on its way (stamped 0.3 s before it is sent).
        msg = twist_msg(probe, v)
        msg.header.stamp = stamp_from_ns(probe.now_ns() - 300_000_000)
        twist.publish(msg)

    # One second of them: none is taken, the jog times out from the last one on time.
    t_end = time.monotonic() + 1.0
    probe.spin_until(lambda: time.monotonic() > t_end, 2.0, send_late, PUBLISH_PERIOD)
    rest = probe.settled(timeout=10.0)
    assert np.linalg.norm(tool(demo, rest) - p_last) < 0.02
    assert 'later than its topic usually does' in log.read_text(), procs.logs()
    assert_within_limits(demo, probe, n_cmd, held=True)


def test_joint_states_lost_mid_jog_brake_the_commands_to_rest_and_ik_status_says_so(rig, demo):
    procs, probe = rig
    # A jog_timeout past joint_states_timeout (0.5 s): the loss is what ends this jog. With the
    # default 0.1 s, a gap in this process's twists (a busy machine; it runs 10 nice levels
    # below the nodes) ended the jog before the loss was noticed, and a new twist was then
    # refused for the lost feedback with no jog to pause (a CI run beside a busy process).
    start(procs, probe, demo, 'jog_timeout:=1.0')
    twist, _, _ = jog_publishers(probe)
    n_cmd, n_status = len(probe.commands), len(probe.statuses)
    v = np.array([0.0, 0.1, -0.05, 0.0, 0.0, 0.0])

    def send():
        twist.publish(twist_msg(probe, v))

    p0 = tool(demo, probe.arm[-1][1])

    def moving() -> bool:
        # The jog under way and its last commands at speed: a test process held off past
        # jog_timeout (a busy machine) leaves a gap in the twists, and the jog brakes.
        t, q = probe.commands_by_stamp(demo, max(len(probe.commands) - 3, n_cmd))
        return (np.linalg.norm(tool(demo, probe.arm[-1][1]) - p0) > 0.03 and len(t) >= 2
                and float(np.max(np.abs(q[-1] - q[-2]))) > 0.05 * (t[-1] - t[-2]))
    stream_until(probe, send, moving)
    # The arm's driver dies while the tool moves at 11 cm/s; the twists keep coming.
    sim = procs.procs[0]
    sim.kill()
    sim.wait(10.0)
    t_lost = probe.now_ns()

    def lost() -> list:
        return [s for s in probe.statuses[n_status:]
                if status_values(s).get('jog_paused') == 'feedback lost']

    stream_until(probe, send, lambda: len(lost()) > 0)
    told = lost()[0]
    assert told.level == DiagnosticStatus.WARN and 'joint_states lost' in told.message, told
    # The stream goes on until the jog is at rest, then ends (nothing moves the arm unheard).
    counts = []
    stream_until(probe, send, lambda: counts.append(len(probe.commands)) or (
        len(counts) > 25 and counts[-1] == counts[-26]))
    t_cmd, q_cmd = probe.commands_by_stamp(demo, n_cmd)
    after = t_cmd > t_lost * 1e-9
    assert after.sum() > 10, after.sum()        # braking, not a stop at speed
    speed = np.abs(np.diff(q_cmd, axis=0)) / np.diff(t_cmd)[:, None]
    assert speed[-1].max() < 1e-3, speed[-1]    # the last command is at rest
    assert speed[int(np.argmax(after)) - 1].max() > 0.02     # it was moving when lost
    assert_within_limits(demo, probe, n_cmd)
    assert 'lost' in procs.logs()
