# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The command path as a real arm sees it: a fake arm that executes every command at once.

One ik_node and one sim_arm with ``follow: instant`` (no velocity limit of its own: it jumps
to each command, so whatever the node sends is what the arm does) run for the whole module,
with the JointTrajectory and Float64MultiArray outputs on. Every command is judged by the
watcher in stamp order. Covered: controller outputs, RViz 2D Goal Pose semantics, a repeated
relative target, a gripper sharing joint_states, the hold service, a stalled arm, and two
namespaced arms with one RViz click.
"""

import math

from ik_node import Chain
import numpy as np
from numpy.testing import assert_allclose
import pytest
from ros_harness import (fresh_domain, pose_msg, Probe, Procs, Q0, ros_rig, stamp_ns,
                         stamp_text, status_values, URDF, V_MAX, WatchedProbe)

rclpy = pytest.importorskip('rclpy')

from diagnostic_msgs.msg import DiagnosticStatus  # noqa: E402, I100
from geometry_msgs.msg import PoseStamped  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402
from std_srvs.srv import SetBool  # noqa: E402
from trajectory_msgs.msg import JointTrajectory  # noqa: E402

FORWARD_ORDER = ['wrist_3_joint', 'wrist_2_joint', 'wrist_1_joint', 'elbow_joint',
                 'shoulder_lift_joint', 'shoulder_pan_joint']


@pytest.fixture(scope='module')
def chain():
    return Chain.from_urdf(URDF, 'base_link', 'tool0')


@pytest.fixture(scope='module')
def rig(chain, tmp_path_factory):
    """Yield (procs, probe, outputs) with the instant arm and the node serving."""
    with ros_rig(tmp_path_factory.mktemp('real_arm'), chain) as (procs, probe):
        outputs = {'trajectory': [], 'forward': []}
        probe.node.create_subscription(JointTrajectory, 'arm_controller/joint_trajectory',
                                       outputs['trajectory'].append, 1000)
        probe.node.create_subscription(Float64MultiArray,
                                       'forward_position_controller/commands',
                                       outputs['forward'].append, 1000)
        procs.start('sim_arm', f'urdf_file:={URDF}', f'initial_positions:={Q0.tolist()}',
                    'follow:=instant')
        procs.start('ik_node', f'urdf_file:={URDF}',
                    'trajectory_topic:=arm_controller/joint_trajectory',
                    'forward_command_topic:=forward_position_controller/commands',
                    f'forward_command_joints:={FORWARD_ORDER}')
        assert probe.answer_to(lambda: probe.publish_pose(chain.fk(Q0))) is not None, \
            procs.logs()
        yield procs, probe, outputs
        probe.assert_safe()


@pytest.fixture(autouse=True)
def arm_moves_again(rig):
    """After each test, the arm is not stalled (also when the test failed)."""
    yield
    procs, probe, outputs = rig
    probe.set_parameters('sim_arm', stalled=False)


def arm_now(probe: WatchedProbe) -> np.ndarray:
    """Return the newest arm reading by stamp (the newest received may be an older one)."""
    return max(probe.arm_stamped, key=lambda e: e[0])[1]


def arrived(probe: WatchedProbe, status) -> bool:
    """Return True once the node said the measured arm reached the target of ``status``."""
    stamp = status_values(status)['target_stamp']
    return any('target reached' in s.message and status_values(s).get('target_stamp') == stamp
               for s in probe.statuses)


def test_trajectory_and_forward_outputs_keep_limits_and_joint_order(rig, chain):
    procs, probe, outputs = rig
    n_traj, n_fwd, n_cmd = len(outputs['trajectory']), len(outputs['forward']), \
        len(probe.commands)
    T = chain.fk(Q0 + np.array([0.6, -0.3, 0.4, 0.3, -0.4, 0.5]))
    assert probe.answer_to(lambda: probe.publish_pose(T)).level == DiagnosticStatus.OK
    assert probe.spin_until(lambda: probe.arm_reached(T), 10.0)
    trajectories = outputs['trajectory'][n_traj:]
    assert trajectories
    v_max = np.where(np.isfinite(chain.velocity), chain.velocity, 1.0)
    for traj in trajectories:
        # What joint_trajectory_controller needs for a smooth blend: stamped, the first
        # point two control periods ahead, positions, velocities and accelerations within
        # the limits, the last point at rest.
        assert list(traj.joint_names) == list(chain.joint_names)
        assert traj.header.stamp.sec > 0
        times = [p.time_from_start.sec + 1e-9 * p.time_from_start.nanosec for p in traj.points]
        assert times[0] >= 0.02 - 1e-9 and all(b > a for a, b in zip(times, times[1:]))
        q = np.array([p.positions for p in traj.points])
        v = np.array([p.velocities for p in traj.points])
        assert np.array([p.accelerations for p in traj.points]).shape == q.shape
        assert chain.within_limits(q.T) if q.ndim == 1 else all(chain.within_limits(r)
                                                                for r in q)
        assert np.all(np.abs(v) <= v_max * (1 + 1e-9))
        assert np.all(v[-1] == 0.0)
    assert max(len(traj.points) for traj in trajectories) > 10
    # The forward command is the JointState command in the configured joint order.
    order = [chain.joint_names.index(name) for name in FORWARD_ORDER]
    q_last = probe.last_command(chain)
    # The two topics arrive independently: wait for the forward copy of the newest command.
    assert probe.spin_until(lambda: any(np.allclose(np.array(m.data), q_last[order])
                                        for m in outputs['forward'][n_fwd:]), 10.0)
    assert len(outputs['forward'][n_fwd:]) > 10 and len(probe.commands) > n_cmd + 10


def test_a_trajectory_point_gives_a_lagging_arm_time_at_the_velocity_limit(rig, chain):
    procs, probe, outputs = rig
    # Stall the arm, send a far target: the points must not ask for more than v_max from
    # where the arm is measured, however far the commands have got.
    (r,) = probe.set_parameters('sim_arm', stalled=True)
    assert r.successful
    q_arm = probe.settled(since_ns=probe.now_ns())    # readings taken once it stalled
    n_traj = len(outputs['trajectory'])
    T = chain.fk(q_arm + np.array([-0.2, 0.1, -0.1, 0.1, 0.1, -0.2]))
    probe.answer_to(lambda: probe.publish_pose(T))
    assert probe.spin_until(lambda: len(outputs['trajectory']) > n_traj, 5.0)
    for traj in outputs['trajectory'][n_traj:]:
        point = traj.points[0]
        t = point.time_from_start.sec + 1e-9 * point.time_from_start.nanosec
        speed = np.max(np.abs(np.array(point.positions) - q_arm)) / t
        assert speed <= V_MAX * (1 + 1e-6), speed
        assert np.all(np.abs([p.velocities for p in traj.points]) <= V_MAX * (1 + 1e-9))
    (r,) = probe.set_parameters('sim_arm', stalled=False)
    assert r.successful
    # The next test starts from an arm that follows and rests at the last command (beside a
    # busy process the arm may not step between this and the next test's stall).
    q_rest = probe.settled(since_ns=probe.now_ns())
    assert_allclose(q_rest, probe.last_command(chain), atol=1e-9)


def test_a_stalled_arm_is_held_within_the_following_error_and_reported(rig, chain):
    procs, probe, outputs = rig
    (r,) = probe.set_parameters('sim_arm', stalled=True)
    assert r.successful
    q_stalled = probe.settled(since_ns=probe.now_ns())    # readings taken once it stalled
    n_status, n_cmd = len(probe.statuses), len(probe.commands)
    T = chain.fk(q_stalled + np.array([1.0, -0.5, 0.6, 0.4, -0.7, 1.0]))
    t_target = probe.now_ns()
    status = probe.answer_to(lambda: probe.publish_pose(T))
    assert status.level == DiagnosticStatus.OK

    def stalls() -> list:
        """Return the stall reports on this target's motion (stamped after it was sent)."""
        return [s.message for s, t in zip(probe.statuses[n_status:],
                                          probe.status_stamps[n_status:])
                if s.level == DiagnosticStatus.ERROR and 'not following' in s.message
                and t > t_target]

    assert probe.spin_until(stalls, 10.0), procs.logs()
    # The last command holds the arm where it stands. Waited for before the commands are
    # judged: a busy probe may take the stall's status before the commands sent ahead of it
    # (the hold comes after all of them on its topic).
    assert probe.spin_until(lambda: np.allclose(probe.last_command(chain), q_stalled,
                                                atol=1e-9), 5.0)
    stamps, qs = probe.commands_by_stamp(chain, n_cmd)
    lead = np.max(np.abs(qs - q_stalled), axis=1)
    # Past the limit (0.25 rad) ahead of the measured arm the commands stop on their path
    # within the acceleration and jerk limits (under 0.75 rad more at this UR5's speed).
    assert 0.25 < lead.max() <= 1.0, (lead.max(), stalls(), procs.logs())
    # 'reached' is never said for a target the arm did not reach.
    assert not arrived(probe, status)
    (r,) = probe.set_parameters('sim_arm', stalled=False)
    assert r.successful
    probe.serve_good_target(np.array([0.05, 0.0, 0.0, 0.0, 0.0, 0.0]))


def test_rviz_2d_goal_pose_keeps_the_tool_height_and_tilt(rig, chain):
    procs, probe, outputs = rig
    q_before = probe.settled(since_ns=probe.now_ns())
    T_before = chain.fk(q_before)
    # What RViz's 2D Goal Pose sends: the click on the grid (z = 0) and a yaw.
    yaw = math.atan2(T_before[1, 3], T_before[0, 3]) + 0.3
    T_click = np.eye(4)
    T_click[:3, :3] = [[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0],
                       [0, 0, 1]]
    T_click[:2, 3] = T_before[:2, 3] + np.array([0.05, -0.04])
    status = probe.answer_to(lambda: probe.publish_pose(T_click, topic=probe.goal_pose))
    assert status.level == DiagnosticStatus.OK, status.message
    assert probe.spin_until(lambda: arrived(probe, status), 10.0), (
        [s.message for s in probe.statuses[-10:]], procs.logs())
    # Within the solver's tolerance (1 mm) of the clicked x, y and the height it had, where
    # the arm rests (by stamp: the newest reading received may not be the newest taken).
    T_after = chain.fk(probe.settled(since_ns=probe.now_ns()))
    assert_allclose(T_after[:3, 3], [*T_click[:2, 3], T_before[2, 3]], atol=1e-3)
    tilt_before = math.acos(np.clip(T_before[:3, 2] @ [0, 0, 1], -1, 1))
    tilt_after = math.acos(np.clip(T_after[:3, 2] @ [0, 0, 1], -1, 1))
    assert tilt_after == pytest.approx(tilt_before, abs=0.01)


def test_a_repeated_relative_target_does_not_walk(rig, chain):
    procs, probe, outputs = rig
    T_start = chain.fk(probe.settled(since_ns=probe.now_ns()))
    offset = np.eye(4)
    offset[2, 3] = 0.05
    msg = pose_msg(offset, 'tool0')
    msg.header.stamp = probe.node.get_clock().now().to_msg()
    sent = stamp_text(msg.header.stamp)
    # The same message ("5 cm along the tool z axis, as the tool stood at this stamp") sent
    # again and again while the arm moves: it means one place. Up to 10 times in its first
    # second: the node keeps 2 s of joint_states, and a copy sent later is refused (tested
    # below); a busy test process's pace may stretch the 10 sends past that.
    n = len(probe.statuses)
    for k in range(10):
        if k >= 3 and probe.now_ns() - stamp_ns(msg.header.stamp) > 1_000_000_000:
            break
        probe.targets.publish(msg)
        probe.spin_for(0.1)
    answers = [s for s in probe.statuses[n:] if status_values(s).get('target_stamp') == sent]
    assert answers and all(s.level == DiagnosticStatus.OK for s in answers)
    expected = (T_start @ offset)[:3, 3]

    def off(q: np.ndarray) -> float:
        return float(np.linalg.norm(chain.fk(q)[:3, 3] - expected))

    if not probe.spin_until(lambda: off(arm_now(probe)) < 1e-3, 5.0):
        t_newest, q_newest = max(probe.arm_stamped, key=lambda e: e[0])
        pytest.fail(f'the arm rests {off(q_newest):.5f} m from the target (newest reading '
                    f'{(probe.now_ns() - t_newest) * 1e-9:.3f} s old; newest command '
                    f'{off(probe.last_command(chain)):.5f} m from it); statuses since the '
                    f'target: {[(s.level, s.message[:90]) for s in probe.statuses[n:]]}\n'
                    f'{procs.logs()}')
    # A stamp older than the joint_states history is refused, not resolved at another time.
    msg.header.stamp.sec -= 10
    refusal = probe.answer_to(lambda: (probe.targets.publish(msg), msg)[1], refusal=True)
    assert refusal.level == DiagnosticStatus.ERROR and 'history' in refusal.message


def test_a_gripper_on_joint_states_does_not_starve_the_arm_feedback(rig, chain):
    procs, probe, outputs = rig
    # A gripper driver publishes its own joint on the same topic, ten times as often as the
    # arm; targets come all the while.
    gripper = JointState(name=['gripper_finger_joint'], position=[0.01])

    def publish_gripper():
        gripper.header.stamp = probe.node.get_clock().now().to_msg()
        probe.joint_states.publish(gripper)

    n = len(probe.statuses)
    # For 2 s and ten targets at least (a test process held off on a busy machine sends fewer
    # in 2 s: a CI run sent 9).
    t_end, t_limit = probe.now_ns() + 2e9, probe.now_ns() + 20e9
    next_target, k = 0, 0
    while (probe.now_ns() < t_end or k < 10) and probe.now_ns() < t_limit:
        publish_gripper()
        probe.spin_for(0.001)
        if probe.now_ns() >= next_target:
            probe.publish_pose(chain.fk(Q0 + 0.01 * (k % 5)))
            next_target, k = probe.now_ns() + 1e8, k + 1
    assert k >= 10, f'the probe sent only {k} targets in 20 s'

    def answered() -> list:
        return [s for s in probe.statuses[n:] if 'seed' in status_values(s)]

    # Waited for by the answers themselves: other statuses (the arm reaching a target) come
    # between them.
    assert probe.spin_until(lambda: len(answered()) >= 10, 5.0), \
        (k, [s.message[:60] for s in probe.statuses[n:]])
    assert {status_values(s)['seed'] for s in answered()} == {'joint_states'}


def test_the_hold_service_refuses_targets_until_resumed(rig, chain):
    procs, probe, outputs = rig
    client = probe.node.create_client(SetBool, '/ik_node/hold')
    assert client.wait_for_service(timeout_sec=30.0)

    def call(data: bool):
        future = client.call_async(SetBool.Request(data=data))
        probe.executor.spin_until_future_complete(future, timeout_sec=10.0)
        return future.result()

    assert call(True).success
    refusal = probe.answer_to(lambda: probe.publish_pose(chain.fk(Q0 + 0.1)), refusal=True)
    assert refusal.level == DiagnosticStatus.ERROR and 'holding' in refusal.message
    assert call(False).success
    probe.serve_good_target(np.full(6, 0.02))


def test_two_namespaced_arms_move_only_on_their_own_click(chain, tmp_path):
    domain = fresh_domain()
    procs, probe = Procs(domain, tmp_path), Probe(domain)
    try:
        heard = {'arm1': [], 'arm2': []}
        for ns in heard:
            procs.start('sim_arm', f'urdf_file:={URDF}', f'initial_positions:={Q0.tolist()}',
                        name=f'sim_{ns}', ros_args=['-r', f'__ns:=/{ns}'])
            procs.start('ik_node', f'urdf_file:={URDF}', f'frame_prefix:={ns}/',
                        name=f'ik_{ns}', ros_args=['-r', f'__ns:=/{ns}'])
            probe.node.create_subscription(JointState, f'/{ns}/joint_commands',
                                           heard[ns].append, 100)
        goal_arm1 = probe.node.create_publisher(PoseStamped, '/arm1/goal_pose', 10)
        T = chain.fk(Q0 + 0.05)
        # A full-pose click in arm1's prefixed base frame, sent until arm1 commands.
        (r,) = probe.set_parameters('arm1/ik_node', goal_pose_mode='full')
        assert r.successful, r.reason
        assert probe.spin_until(lambda: heard['arm1'], 30.0,
                                lambda: probe.publish_pose(T, 'arm1/base_link', goal_arm1)), \
            procs.logs()
        probe.spin_until(lambda: np.allclose(heard['arm1'][-1].position, Q0 + 0.05,
                                             atol=1e-3), 5.0)
        assert not heard['arm2'], 'one click moved two arms'
        # Nobody listens on the absolute /goal_pose any more.
        assert probe.node.count_subscribers('/goal_pose') == 0
    finally:
        probe.close()
        procs.close()


DEMO_URDF = URDF.parents[2] / 'config' / 'urdf' / 'demo_arm.urdf'
DEMO_START = np.array([0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0])


def test_the_floor_and_live_obstacles_are_never_entered(tmp_path):
    """The demo arm (collision cylinders), its floor, and a sphere marker on its path."""
    from ik_node import Chain, HalfSpace, Sphere
    from visualization_msgs.msg import Marker, MarkerArray
    demo = Chain.from_urdf(DEMO_URDF, 'base_link', 'tool0')
    domain = fresh_domain()
    procs, probe = Procs(domain, tmp_path), WatchedProbe(domain, demo)
    try:
        procs.start('sim_arm', f'urdf_file:={DEMO_URDF}',
                    f'initial_positions:={DEMO_START.tolist()}', 'follow:=instant')
        procs.start('ik_node', f'urdf_file:={DEMO_URDF}')
        T0 = demo.fk(DEMO_START)
        assert probe.answer_to(lambda: probe.publish_pose(T0)) is not None, procs.logs()
        # Below the floor: refused with the pair, the arm stays put.
        T_low = T0.copy()
        T_low[2, 3] = -0.15
        n_cmd = len(probe.commands)
        status = probe.answer_to(lambda: probe.publish_pose(T_low), refusal=True)
        assert status.level == DiagnosticStatus.ERROR, status.message
        # An answer that reaches under the floor with the upper arm pointing down also drives
        # it into the pedestal, and self pairs are named before obstacles.
        assert 'collides' in status.message
        assert 'floor' in status.message \
            or 'base_link collides with upper_arm_link' in status.message, status.message
        assert status_values(status)['status'] == 'blocked'
        moved = [np.max(np.abs(np.array(m.position) - DEMO_START))
                 for _, m in probe.commands[n_cmd:]]
        assert not moved or max(moved) < 1e-9
        # A live sphere where the tool would go: refused with the pair, the arm stays put.
        T_goal = T0.copy()
        T_goal[:3, 3] += [0.0, 0.1, 0.0]
        centre = T_goal[:3, 3]
        marker = Marker(ns='test', id=1, type=Marker.SPHERE, action=Marker.ADD)
        marker.header.frame_id = 'base_link'
        marker.pose.position.x, marker.pose.position.y, marker.pose.position.z = centre
        marker.pose.orientation.w = 1.0
        marker.scale.x = marker.scale.y = marker.scale.z = 0.08
        obstacles = probe.node.create_publisher(MarkerArray, 'ik_obstacles', 10)
        # The node knows the ball before the target is sent.
        node_log = procs.procs[-1].log_path
        assert probe.spin_until(lambda: '1 live obstacle(s)' in node_log.read_text(), 20.0,
                                lambda: obstacles.publish(MarkerArray(markers=[marker])))
        n_status, n_arm = len(probe.statuses), len(probe.arm)

        def refused():
            return any('collides with test/1' in s.message for s in probe.statuses[n_status:])

        assert probe.spin_until(refused, 20.0, lambda: probe.publish_pose(T_goal)), \
            [s.message for s in probe.statuses[n_status:]]
        assert probe.spin_until(lambda: len(probe.arm) > n_arm + 20, 5.0)
        world = [HalfSpace(name='floor'), Sphere(center=centre, radius=0.04, name='ball')]
        touching = [q for _, q in probe.arm[n_arm:] if demo.collisions(q, world)]
        assert not touching, demo.collisions(touching[0], world)
        probe.assert_safe()
    finally:
        probe.close()
        procs.close()
