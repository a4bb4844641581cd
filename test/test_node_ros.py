# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The ik_node and sim_arm nodes as real processes, driven by a real rclpy node in the test.

Each test starts its nodes with ``python -m`` in a ROS domain of its own (from this run's
block, see conftest), with loopback-only discovery, and stops them at the end. Skipped when
rclpy is not installed.
"""

from contextlib import ExitStack
import math

from command_judge import judge_commands
from ik_node.ros.parameter_table import defaults, IK_NODE_PARAMETERS, limits_from_values
from ik_node.spatial.pose import orientation_error, pose_error
import numpy as np
from numpy.testing import assert_allclose
import pytest
from ros_harness import (assert_bad_starts_fail, fresh_domain, pose_msg, Probe, Q0, ros_rig,
                         stamp_text, STARTUP_TIMEOUT, status_values, URDF, V_MAX)

rclpy = pytest.importorskip('rclpy')

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus  # noqa: E402, I100
from geometry_msgs.msg import PointStamped  # noqa: E402
from ik_node.ros.qos import STATUS_QOS  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402


@pytest.fixture(scope='module')
def chain():
    from ik_node import Chain
    return Chain.from_urdf(URDF, 'base_link', 'tool0')


@pytest.fixture
def ros(tmp_path):
    """Yield a factory of (Procs, Probe) pairs, each in a fresh domain (ros_harness.ros_rig)."""
    with ExitStack() as stack:
        yield lambda: stack.enter_context(ros_rig(tmp_path))


def ik_params(*extra: str) -> tuple[str, ...]:
    return (f'urdf_file:={URDF}',) + extra


def reached(probe: Probe, chain, T: np.ndarray) -> bool:
    """Return True once the newest command puts the tip within 1 mm and 0.01 rad of T."""
    if not probe.commands:
        return False
    pe, oe = pose_error(T, chain.fk(probe.last_command(chain)))
    return pe < 1e-3 and oe < 1e-2


def test_target_in_joint_state_out_reaches_it_with_the_simulated_arm(ros, chain):
    procs, probe = ros()
    # Both nodes started by ``python -m``, as users start them (the other tests fork most of
    # theirs from a process that imported the package once: forked_nodes).
    procs.forks = False
    # The model comes from the robot_description topic (TRANSIENT_LOCAL), as from
    # robot_state_publisher; the simulated arm reads the file.
    probe.description.publish(String(data=URDF.read_text()))
    procs.start('sim_arm', f'urdf_file:={URDF}', f'initial_positions:={Q0.tolist()}')
    node = procs.start('ik_node', 'interactive_marker:=false')
    T = chain.fk(Q0 + np.array([0.2, -0.15, 0.2, 0.1, -0.1, 0.3]))
    status = probe.answer_to(lambda: probe.publish_pose(T))
    assert status is not None, procs.logs()
    assert status.level == DiagnosticStatus.OK, status
    values = status_values(status)
    assert values['success'] == 'True' and values['seed'] == 'joint_states'
    # The model topic switched away and back while the arm moves: the latched model comes
    # again on the new subscription. It is the model in use: kept, and the goal goes on.
    assert probe.spin_until(lambda: len(probe.commands) > 3, 10.0), procs.logs()
    assert not reached(probe, chain, T)
    for topic in ('other_description', 'robot_description'):
        results = probe.set_parameters('ik_node', robot_description_topic=topic)
        assert all(r.successful for r in results), [r.reason for r in results]
    assert probe.spin_until(lambda: 'the model in use, received again' in
                            node.log_path.read_text(), 10.0), procs.logs()
    # The commands approach the solution; the newest one reaches the target.
    assert probe.spin_until(lambda: reached(probe, chain, T), 10.0), procs.logs()
    assert node.poll() is None
    assert node.log_path.read_text().count('ready: robot') == 1


def test_feedback_seeds_the_solver_and_commands_start_from_the_arm(ros, chain):
    procs, probe = ros()
    node = procs.start('ik_node', *ik_params())
    # The arm stands at q_arm; a target near it must be solved from there (seed
    # 'joint_states'), so the solution stays on the arm's IK branch.
    q_arm = np.array([0.4, -1.0, 1.6, -2.0, -1.2, 0.5])
    q_target = q_arm + 0.03
    T = chain.fk(q_target)

    def feed():
        probe.publish_joint_states(chain.joint_names, q_arm)

    def feed_and_target():
        feed()
        return probe.publish_pose(T)

    # An arm driver publishes at 20 Hz or more: the node hears the arm before the target
    # comes.
    assert probe.spin_until(lambda: 'arm position known' in node.log_path.read_text(),
                            STARTUP_TIMEOUT, feed, 0.05), procs.logs()
    status = probe.answer_to(feed_and_target, period=0.05)
    assert status is not None, procs.logs()
    assert status_values(status)['seed'] == 'joint_states'
    stamps, qs = probe.commands_by_stamp(chain)
    assert np.max(np.abs(qs[0] - q_arm)) <= V_MAX * 0.01 + 1e-9
    assert probe.spin_until(lambda: np.allclose(probe.last_command(chain), q_target,
                                                atol=0.05), 5.0,
                            feed, 0.05)


def test_sigusr1_prints_every_threads_stack_and_the_node_goes_on(ros, chain):
    import os
    import signal
    procs, probe = ros()
    node = procs.start('ik_node', *ik_params())

    def follow():
        probe.publish_joint_states(chain.joint_names, probe.last_command(chain)
                                   if probe.commands else Q0)

    assert probe.spin_until(lambda: 'arm position known' in node.log_path.read_text(),
                            STARTUP_TIMEOUT, follow, 0.02), procs.logs()
    os.kill(node.pid, signal.SIGUSR1)
    assert probe.spin_until(lambda: 'most recent call first' in node.log_path.read_text(),
                            10.0, follow, 0.02), procs.logs()
    log = node.log_path.read_text()
    assert 'ik-control' in log or 'control_loop.py' in log, log     # the control thread's
    status = probe.answer_to(lambda: (follow(), probe.publish_pose(chain.fk(Q0)))[1],
                             period=0.02)
    assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()
    assert node.poll() is None


def test_a_driver_restarted_between_two_readings_is_held_where_it_reads(ros, chain):
    procs, probe = ros()
    node = procs.start('ik_node', *ik_params())

    def follow():
        """Read like a driver where it was last commanded (Q0 before any command)."""
        q = probe.last_command(chain) if probe.commands else Q0
        probe.publish_joint_states(chain.joint_names, q)

    assert probe.spin_until(lambda: 'arm position known' in node.log_path.read_text(),
                            STARTUP_TIMEOUT, follow, 0.02), procs.logs()
    T = chain.fk(Q0 + np.array([1.0, -0.5, 0.6, 0.4, -0.7, 1.0]))
    status = probe.answer_to(lambda: (follow(), probe.publish_pose(T))[1], period=0.02)
    assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()
    n = len(probe.commands)
    assert probe.spin_until(lambda: len(probe.commands) > n + 10, 10.0, follow, 0.02)
    # Mid-motion the driver restarts at another position, 20 ms after its last reading
    # (joint_states never went stale): the commands stop there, nothing goes on toward the
    # old goal.
    restarted = Q0 - 0.5

    def read_restarted():
        probe.publish_joint_states(chain.joint_names, restarted)

    assert probe.spin_until(lambda: 'joint_states jumped' in node.log_path.read_text(), 10.0,
                            read_restarted, 0.02), procs.logs()
    assert probe.spin_until(lambda: np.allclose(probe.last_command(chain), restarted,
                                                atol=1e-9), 5.0, read_restarted, 0.02)
    stamps, qs = probe.commands_by_stamp(chain)
    first = int(np.flatnonzero(np.all(np.abs(qs - restarted) <= 1e-9, axis=1))[0])
    n = len(probe.commands)
    assert probe.spin_until(lambda: len(probe.commands) > n + 10, 5.0, read_restarted, 0.02)
    stamps, qs = probe.commands_by_stamp(chain)
    assert_allclose(qs[first:], np.broadcast_to(restarted, qs[first:].shape), atol=1e-9)


def test_readings_are_judged_by_their_stamps_and_late_ones_drive_nothing(ros, chain):
    procs, probe = ros()
    node = procs.start('ik_node', *ik_params())
    behind = 30_000_000_000        # [ns] the driver's clock runs 30 s behind the node's

    def follow(taken_ns=None):
        """Read like a driver where it was last commanded, stamped on the driver's clock."""
        q = probe.last_command(chain) if probe.commands else Q0
        taken_ns = probe.now_ns() if taken_ns is None else taken_ns
        probe.publish_joint_states(chain.joint_names, q, stamp_ns=taken_ns - behind)

    def logged(text):
        return text in node.log_path.read_text()

    # A steady offset is the other clock's: after a second of readings the arm is known.
    assert probe.spin_until(lambda: logged('arm position known'), STARTUP_TIMEOUT, follow,
                            0.02), procs.logs()
    assert logged('joint_states stamps run 30 s behind this node clock'), procs.logs()
    goal = Q0 + np.array([0.5, -0.4, 0.4, 0.5, -0.5, 0.6])
    status = probe.answer_to(lambda: (follow(), probe.publish_pose(chain.fk(goal)))[1],
                             period=0.02)
    assert status is not None and status_values(status)['seed'] == 'joint_states', procs.logs()
    n = len(probe.commands)
    assert probe.spin_until(lambda: len(probe.commands) > n + 5, 10.0, follow, 0.02)
    # The driver goes silent mid-motion; the node says so and stops stepping.
    lost = 'no command is sent until the arm is heard again'
    n_lost = node.log_path.read_text().count(lost)
    assert probe.spin_until(lambda: node.log_path.read_text().count(lost) > n_lost, 10.0), \
        procs.logs()
    # Readings taken before the silence began arrive now (a backlog): they are old, however
    # fresh their arrival, and move nothing. Each is taken 0.7-0.79 s before it is sent,
    # well past the 0.5 s joint_states_timeout. (Stamped 10-100 ms before the silence began,
    # as this test did, they came only 0-20 ms past the timeout, and once a reading 10 ms
    # before it came under the timeout: a fresh reading, rightly used.)
    t_backlog = probe.now_ns()
    for i in range(10):
        follow(probe.now_ns() - 790_000_000 + i * 10_000_000)
    assert probe.spin_until(lambda: logged('after its stamp: too old'), 10.0), procs.logs()
    assert not probe.spin_until(
        lambda: len(probe.commands_by_stamp(chain, after_ns=t_backlog)[0]) > 0, 1.0), \
        procs.logs()
    # Fresh readings again: the commands go on to the goal (to the solver's answer for its
    # pose, which is within the node's tolerances of it, not equal to ``goal`` joint by joint:
    # comparing joints at 1e-6 failed once in 17 CI runs).
    T_goal = chain.fk(goal)

    def at_goal() -> bool:
        pe, oe = pose_error(T_goal, chain.fk(probe.last_command(chain)))
        return pe <= 2e-5 and oe <= 2e-4

    assert probe.spin_until(at_goal, 15.0, follow, 0.02), procs.logs()


def test_no_command_is_stepped_while_nobody_subscribes_to_the_commands(ros, chain):
    procs, probe = ros()
    node = procs.start('ik_node', *ik_params('command_topic:=unheard_commands'))
    q_arm = np.array([0.4, -1.0, 1.6, -2.0, -1.2, 0.5])
    heard: list[JointState] = []

    def newest() -> np.ndarray:
        return np.array(max(heard, key=lambda m: stamp_text(m.header.stamp)).position)

    def feed():
        """Read like an arm that follows the commands it hears (at q_arm before any)."""
        probe.publish_joint_states(chain.joint_names, newest() if heard else q_arm)

    T = chain.fk(q_arm + 0.3)
    status = probe.answer_to(lambda: (feed(), probe.publish_pose(T))[1], period=0.05)
    assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()
    assert probe.spin_until(lambda: 'nobody subscribes to unheard_commands'
                            in node.log_path.read_text(), 10.0, feed, 0.05), procs.logs()
    # An arm driver that subscribes late gets commands that start at the arm (nothing ran
    # ahead meanwhile: the commands were not stepped, so the goal still stands) and lead
    # it to the target.
    probe.node.create_subscription(JointState, 'unheard_commands', heard.append, 1000)
    assert probe.spin_until(lambda: heard, 10.0, feed, 0.02), procs.logs()
    first = min(heard, key=lambda m: stamp_text(m.header.stamp))
    assert np.max(np.abs(np.array(first.position) - q_arm)) <= 5 * V_MAX * 0.01
    assert probe.spin_until(lambda: pose_error(T, chain.fk(newest()))[0] < 1e-3, 10.0, feed,
                            0.02), procs.logs()
    assert 'not following' not in node.log_path.read_text()


def test_commands_respect_the_velocity_limit_and_stay_finite(ros, chain):
    procs, probe = ros()
    procs.start('sim_arm', f'urdf_file:={URDF}', f'initial_positions:={Q0.tolist()}')
    procs.start('ik_node', *ik_params('velocity_scale:=0.5', 'output_rate:=100.0'))
    q_far = Q0 + np.array([1.2, -0.6, -0.9, 0.8, 1.0, -1.5])
    T = chain.fk(q_far)
    assert probe.answer_to(lambda: probe.publish_pose(chain.fk(Q0))) is not None, \
        procs.logs()
    n = len(probe.commands)
    status = probe.answer_to(lambda: probe.publish_pose(T))
    assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()
    # 1.5 rad at 1.575 rad/s: about 1 s of approach at 100 Hz (the deadline only bounds it).
    assert probe.spin_until(lambda: reached(probe, chain, T), 30.0)
    stamps, qs = probe.commands_by_stamp(chain, n)
    assert len(qs) > 50, 'a far goal must be approached in many steps'
    assert np.all(np.isfinite(qs))
    assert np.all(qs >= chain.lower) and np.all(qs <= chain.upper)
    # Velocity (scaled), acceleration and jerk (the defaults: 5 rad/s^2, 1000 rad/s^3) stay
    # within the limits, by divided differences at the integer stamps (a command samples the
    # motion at its stamp: a late tick moves farther, in proportion).
    judge_commands(chain, probe, n, limits_from_values(chain, {
        **defaults(IK_NODE_PARAMETERS), 'velocity_scale': 0.5}), 0.01)


def test_an_unreachable_goal_is_refused_before_any_motion_and_says_why(ros, chain):
    procs, probe = ros()
    procs.start('sim_arm', f'urdf_file:={URDF}', f'initial_positions:={Q0.tolist()}')
    node = procs.start('ik_node', *ik_params())
    assert probe.answer_to(lambda: probe.publish_pose(chain.fk(Q0))) is not None, \
        procs.logs()
    n = len(probe.commands)
    T = np.eye(4)
    T[:3, 3] = [2.0, 1.0, 0.5]              # the UR5 reaches about 0.95 m
    status = probe.answer_to(lambda: probe.publish_pose(T), refusal=True)
    assert status is not None, procs.logs()
    values = status_values(status)
    assert status.level == DiagnosticStatus.ERROR and 'refused before moving' in status.message
    assert 'out of reach' in status.message and values['motion'] == 'refused'
    assert values['path'] == 'goal' and values['status'] == 'out_of_reach'
    assert float(values['position_error']) > 1.0
    assert probe.spin_until(lambda: 'target out of reach' in node.log_path.read_text(), 5.0)
    # No command moved the arm for it (in immediate mode an arm at rest gets none).
    _, qs = probe.commands_by_stamp(chain, n)
    assert_allclose(qs, np.broadcast_to(Q0, qs.shape), atol=1e-6)
    # The periodic state tells it afterwards, and a subscriber that comes late gets the
    # answer itself (ik_status is TRANSIENT_LOCAL).

    def told():
        return any(status_values(st).get('last_target_stamp') == values['target_stamp']
                   for st in probe.states)
    assert probe.spin_until(told, 5.0), procs.logs()
    state = status_values(probe.states[-1])
    assert probe.states[-1].level == DiagnosticStatus.OK and state['arm'] == 'at rest'
    assert state['control'] == 'goal' and state['solver'] == 'dls'
    assert 'base_link -> tool0, 6 joints' in state['model']
    assert state['last_problem'].startswith('ERROR: target refused before moving')
    seen = len(probe.states)
    assert probe.spin_until(lambda: len(probe.states) >= seen + 2, 4.0)   # about 1 Hz
    late: list = []
    probe.node.create_subscription(DiagnosticArray, 'ik_status', late.append, STATUS_QOS)
    assert probe.spin_until(lambda: any(
        st.message.startswith('target refused before moving') for m in late for st in m.status),
        2.0)


def test_parameter_changes_are_validated_and_applied_without_restart(ros, chain):
    procs, probe = ros()
    node = procs.start('ik_node', *ik_params())
    T = chain.fk(Q0 + 0.1)

    def feed_and_target():
        probe.publish_joint_states(chain.joint_names, Q0)
        return probe.publish_pose(T)

    status = probe.answer_to(feed_and_target)
    assert status is not None, procs.logs()
    assert status_values(status)['solver'] == 'dls'
    refused = probe.set_parameters('ik_node', solver='newton', output_rate=0.0)
    assert not refused[0].successful and 'solver must be one of' in refused[0].reason
    (r,) = probe.set_parameters('ik_node', tip_link='no_such_link')
    assert not r.successful and 'no_such_link' in r.reason
    (r,) = probe.set_parameters('ik_node', damping=-1.0)
    assert not r.successful and 'damping' in r.reason
    (r,) = probe.set_parameters('ik_node', solver='pinv')
    assert r.successful, r.reason
    status = probe.answer_to(feed_and_target)
    assert status is not None and status_values(status)['solver'] == 'pinv'
    # A new command topic takes effect at once, too.
    (r,) = probe.set_parameters('ik_node', command_topic='arm_commands')
    assert r.successful, r.reason
    moved = []
    probe.node.create_subscription(JointState, 'arm_commands', moved.append, 10)
    assert probe.spin_until(lambda: moved, 10.0, feed_and_target)
    assert node.poll() is None


def test_burst_of_targets_is_served_latest_first_without_backlog(ros, chain):
    procs, probe = ros()
    procs.start('ik_node', *ik_params())

    def feed_and_target():
        probe.publish_joint_states(chain.joint_names, Q0)
        return probe.publish_pose(chain.fk(Q0))

    assert probe.answer_to(feed_and_target) is not None, procs.logs()
    n_before = len(probe.statuses)
    burst = 300
    for k in range(burst):
        last = probe.publish_pose(chain.fk(Q0 + 0.2 * k / burst))
    stamp = stamp_text(last.header.stamp)
    # The last target is answered, and it is the last answer: nothing older comes after it.
    assert probe.spin_until(lambda: any(status_values(s).get('target_stamp') == stamp
                                        for s in probe.statuses[n_before:]), 10.0)
    # 'target reached' statuses name their target again; the answers tell the solve's seed.
    answered = [status_values(s)['target_stamp'] for s in probe.statuses[n_before:]
                if 'seed' in status_values(s)]
    assert answered[-1] == stamp
    assert len(answered) < burst, 'every target of the burst was solved: a backlog'
    # Answers come in the order the targets were sent (newest last, none repeated).
    assert answered == sorted(set(answered))


def test_targets_in_link_frames_clicked_points_and_unknown_frames(ros, chain):
    procs, probe = ros()
    procs.start('sim_arm', f'urdf_file:={URDF}', f'initial_positions:={Q0.tolist()}')
    procs.start('ik_node', *ik_params())
    # 5 cm along the tool z axis, given in the tool0 frame (sent once: a repeated relative
    # target would walk).
    offset = np.eye(4)
    offset[2, 3] = 0.05
    T_expected = chain.fk(Q0) @ offset
    # Wait until the node knows the arm: it then answers a base-frame target at the arm.
    assert probe.answer_to(lambda: probe.publish_pose(chain.fk(Q0))) is not None, \
        procs.logs()
    msg = pose_msg(offset, 'tool0')
    msg.header.stamp = probe.node.get_clock().now().to_msg()
    n = len(probe.statuses)
    probe.targets.publish(msg)
    assert probe.answer(lambda: None, n) is not None
    assert probe.spin_until(lambda: reached(probe, chain, T_expected), 10.0)
    # Clicked point: position only, the current orientation is kept. The node takes it from
    # the measured arm, which lags the commands: wait until it says the arm is there (within
    # 0.01 rad), or the orientation kept is one the arm passes through on its way.
    sent = f'{msg.header.stamp.sec}.{msg.header.stamp.nanosec:09d}'
    assert probe.spin_until(lambda: any(
        s.message.startswith('target reached: the measured arm')
        and status_values(s).get('target_stamp') == sent for s in probe.statuses[n:]),
        10.0), procs.logs()
    R_before = T_expected[:3, :3]
    point = PointStamped()
    point.header.frame_id = 'base_link'
    point.point.x, point.point.y, point.point.z = 0.35, 0.25, 0.3

    def click():
        point.header.stamp = probe.node.get_clock().now().to_msg()
        probe.clicked_point.publish(point)
        return point

    status = probe.answer_to(click)
    assert status is not None and status.level == DiagnosticStatus.OK, (status, procs.logs())
    assert probe.spin_until(lambda: np.linalg.norm(chain.fk(probe.last_command(chain))[:3, 3]
                                                   - [0.35, 0.25, 0.3]) < 1e-3, 10.0), \
        (status, probe.statuses[-3:], procs.logs())
    T_final = chain.fk(probe.last_command(chain))
    assert math.degrees(orientation_error(R_before, T_final)) < 1.0
    # A frame that is no link and cannot be looked up is refused with a reason.
    refusal = probe.answer_to(lambda: probe.publish_pose(np.eye(4), 'map'), refusal=True)
    assert refusal.level == DiagnosticStatus.ERROR and "'map'" in refusal.message


def test_interactive_marker_message_is_a_6dof_marker_with_a_free_drag_handle(chain):
    from ik_node.ros.interactive import target_marker
    from visualization_msgs.msg import InteractiveMarkerControl as Control
    im = target_marker('base_link', chain.fk(Q0))
    assert im.header.frame_id == 'base_link'
    modes = [c.interaction_mode for c in im.controls]
    assert modes.count(Control.ROTATE_AXIS) == 3 and modes.count(Control.MOVE_AXIS) == 3
    assert modes.count(Control.MOVE_3D) == 1
    p = im.pose.position
    assert_allclose([p.x, p.y, p.z], chain.fk(Q0)[:3, 3], atol=1e-12)


INVALID_START = [
    (['command_topic:=joint_states'], 'must name different topics'),
    (['status_topic:=/target_pose'], 'must name different topics'),
    (['solver:=newton'], 'solver must be one of'),
    (['tip_link:=nowhere'], 'nowhere'),
    (['max_iterations:=1000000'], 'max_iterations must be >= 1 and <= 10000'),
    (['timeout:=5.0'], 'timeout must be a finite number > 0 and <= 1'),
    (['output_rate:=.nan'], 'output_rate must be in [1, 2000]'),
    (['urdf_file:=/nonexistent.urdf'], 'cannot read URDF file'),
    (['robot_description:=/etc/hostname'], 'is not URDF XML'),
    (['require_joint_states:=false', 'initial_positions:=[0.1]'], 'initial_positions must'),
    (['tip_link:=base_link'], 'no actuated joint'),
    # An integer where a double is declared: rclpy refuses it; the node says how to write it.
    (['timeout:=1'], 'timeout must be a double (write 1.0, not 1)'),
]


def test_invalid_start_parameters_exit_cleanly_with_the_reason(tmp_path):
    # All at once (each process only starts and exits): the reasons must not mix.
    assert_bad_starts_fail(tmp_path, URDF, INVALID_START)


def test_the_marker_says_when_a_target_is_unreachable_or_refused(chain):
    from ik_node.ros.interactive import STATES, target_marker
    from visualization_msgs.msg import InteractiveMarkerControl as Control
    colours = set()
    for state, (description, rgba) in STATES.items():
        im = target_marker('base_link', chain.fk(Q0), state=state)
        assert im.description == description
        (free,) = [c for c in im.controls if c.interaction_mode == Control.MOVE_3D]
        c = free.markers[0].color
        assert (c.r, c.g, c.b, c.a) == pytest.approx(rgba)
        colours.add((c.r, c.g, c.b))
    assert len(colours) == 3 and 'unreachable' in STATES['unreachable'][0]


def test_nodes_under_test_run_at_the_harness_priority(tmp_path):
    # ros_harness raises the nodes' priority where it may (NODE_PRIORITY), so a busy test
    # worker beside them does not starve their control loop.
    import os
    from ros_harness import NODE_PRIORITY, Procs
    procs = Procs(fresh_domain(), tmp_path)
    try:
        proc = procs.start('sim_arm', f'urdf_file:={URDF}')
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, proc.pid) == mine - NODE_PRIORITY
    finally:
        procs.close()
