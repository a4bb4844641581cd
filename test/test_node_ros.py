# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The ik_node and sim_arm nodes as real processes, driven by a real rclpy node in the test.

Each test starts its nodes with ``python -m`` in a ROS domain of its own (42-49), with
loopback-only discovery, and stops them at the end. Skipped when rclpy is not installed.
"""

import math
import os
from pathlib import Path
import signal
import subprocess
import sys
import time

from conftest import URDF_DIR
from ik_node import Chain
from ik_node.pose import orientation_error, pose_error, quat_xyzw_from_matrix
import numpy as np
from numpy.testing import assert_allclose
import pytest

rclpy = pytest.importorskip('rclpy')

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus  # noqa: E402, I100
from geometry_msgs.msg import PointStamped, PoseStamped  # noqa: E402
from rcl_interfaces.srv import SetParameters  # noqa: E402
from rclpy.context import Context  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402

URDF = URDF_DIR / 'ur5.urdf'
Q0 = np.array([0.0, -1.2, 1.3, -1.6, -1.57, 0.0])
V_MAX = 3.15            # [rad/s] every UR5 joint
STARTUP_TIMEOUT = 30.0  # [s] generous: a cold numba cache compiles on first start


@pytest.fixture(scope='module')
def chain():
    """Return the UR5 chain, solving once so the node processes find a warm numba cache."""
    import ik_node.solvers  # noqa: F401
    from ik_node.solve import solve
    c = Chain.from_urdf(URDF, 'base_link', 'tool0')
    for method in ('dls', 'pinv'):
        solve(c, c.fk(Q0 + 0.1), q0=Q0, method=method)
    return c


def ros_env(domain: int, home: Path) -> dict:
    env = dict(os.environ)
    env.update(ROS_DOMAIN_ID=str(domain), ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               ROS_HOME=str(home), PYTHONUNBUFFERED='1')
    env.pop('ROS_LOCALHOST_ONLY', None)
    return env


class Procs:
    """Start node processes in one domain; stop them all on close."""

    def __init__(self, domain: int, tmp: Path):
        self.domain, self.tmp, self.procs = domain, tmp, []

    def start(self, module: str, *params: str, name: str = '') -> subprocess.Popen:
        log = open(self.tmp / f'{name or module}.log', 'w')
        args = [sys.executable, '-m', module, '--ros-args']
        for p in params:
            args += ['-p', p]
        proc = subprocess.Popen(args, env=ros_env(self.domain, self.tmp), stdout=log,
                                stderr=subprocess.STDOUT)
        proc.log_path = log.name
        self.procs.append((proc, log))
        return proc

    def close(self) -> None:
        for proc, _ in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for proc, log in self.procs:
            try:
                proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()


class Probe:
    """An rclpy node in the test process: publishes targets, records what the node sends."""

    def __init__(self, domain: int):
        self.ctx = Context()
        rclpy.init(context=self.ctx, domain_id=domain)
        self.node = rclpy.create_node('probe', context=self.ctx)
        self.executor = SingleThreadedExecutor(context=self.ctx)
        self.executor.add_node(self.node)
        self.commands: list[tuple[float, JointState]] = []
        self.statuses: list[DiagnosticStatus] = []
        self.node.create_subscription(JointState, 'joint_commands', self._on_command, 100)
        self.node.create_subscription(DiagnosticArray, 'ik_status',
                                      lambda m: self.statuses.extend(m.status), 100)
        self.targets = self.node.create_publisher(PoseStamped, 'target_pose', 10)
        self.joint_states = self.node.create_publisher(JointState, 'joint_states', 10)

    def _on_command(self, msg: JointState) -> None:
        self.commands.append((time.monotonic(), msg))

    def spin_for(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.01)

    def spin_until(self, predicate, timeout: float, every=None) -> bool:
        """Spin until predicate() holds; call every() every 0.2 s meanwhile."""
        end = time.monotonic() + timeout
        next_call = 0.0
        while time.monotonic() < end:
            if predicate():
                return True
            if every is not None and time.monotonic() >= next_call:
                every()
                next_call = time.monotonic() + 0.2
            self.executor.spin_once(timeout_sec=0.01)
        return predicate()

    def publish_pose(self, T: np.ndarray, frame: str = 'base_link') -> PoseStamped:
        msg = pose_msg(T, frame)
        msg.header.stamp = self.node.get_clock().now().to_msg()
        self.targets.publish(msg)
        return msg

    def publish_joint_states(self, names, q) -> None:
        msg = JointState(name=list(names), position=[float(v) for v in q])
        msg.header.stamp = self.node.get_clock().now().to_msg()
        self.joint_states.publish(msg)

    def set_parameters(self, node_name: str, **values) -> list:
        client = self.node.create_client(SetParameters, f'/{node_name}/set_parameters')
        assert client.wait_for_service(timeout_sec=10.0)
        request = SetParameters.Request(parameters=[
            Parameter(name, value=value).to_parameter_msg() for name, value in values.items()])
        future = client.call_async(request)
        self.executor.spin_until_future_complete(future, timeout_sec=10.0)
        self.node.destroy_client(client)
        return future.result().results

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.shutdown(context=self.ctx)


def pose_msg(T: np.ndarray, frame: str) -> PoseStamped:
    msg = PoseStamped()
    msg.header.frame_id = frame
    p = msg.pose.position
    p.x, p.y, p.z = (float(v) for v in T[:3, 3])
    o = msg.pose.orientation
    o.x, o.y, o.z, o.w = (float(v) for v in quat_xyzw_from_matrix(T))
    return msg


def status_values(status: DiagnosticStatus) -> dict:
    return {kv.key: kv.value for kv in status.values}


def q_of(msg: JointState, chain) -> np.ndarray:
    assert list(msg.name) == list(chain.joint_names)
    return np.array(msg.position)


def reached(probe: Probe, chain, T: np.ndarray) -> bool:
    """Return True once the last command puts the tip within 1 mm and 0.01 rad of T."""
    if not probe.commands:
        return False
    pe, oe = pose_error(T, chain.fk(q_of(probe.commands[-1][1], chain)))
    return pe < 1e-3 and oe < 1e-2


@pytest.fixture
def ros(request, tmp_path):
    """Yield a factory of (Procs, Probe) pairs per domain; all are closed afterwards."""
    made = []

    def make(domain: int):
        procs, probe = Procs(domain, tmp_path), Probe(domain)
        made.append((procs, probe))
        return procs, probe

    yield make
    for procs, probe in made:
        probe.close()
        procs.close()


def logs(procs: Procs) -> str:
    return '\n'.join(Path(p.log_path).read_text() for p, _ in procs.procs)


def ik_params(*extra: str) -> tuple[str, ...]:
    return (f'urdf_file:={URDF}', 'interactive_marker:=false') + extra


def wait_answered(probe: Probe, publish, n_before: int = 0, refusal: bool = False):
    """
    Publish (again every 0.2 s) until the node answers; return the answering status.

    Refusals while the node is starting (no model, no joint_states yet) do not count, unless
    ``refusal`` is True.
    """
    def answer():
        for s in probe.statuses[n_before:]:
            if refusal or s.level != DiagnosticStatus.ERROR:
                return s
        return None

    probe.spin_until(lambda: answer() is not None, STARTUP_TIMEOUT, publish)
    return answer()


def test_target_in_joint_state_out_reaches_it_with_the_simulated_arm(ros, chain):
    procs, probe = ros(42)
    # The model comes from the robot_description topic (TRANSIENT_LOCAL), as from
    # robot_state_publisher; the simulated arm reads the file.
    qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)
    description = probe.node.create_publisher(String, 'robot_description', qos)
    description.publish(String(data=URDF.read_text()))
    procs.start('ik_node.sim_arm', f'urdf_file:={URDF}',
                f'initial_positions:={Q0.tolist()}')
    node = procs.start('ik_node.node', 'interactive_marker:=false')
    T = chain.fk(Q0 + np.array([0.2, -0.15, 0.2, 0.1, -0.1, 0.3]))
    status = wait_answered(probe, lambda: probe.publish_pose(T))
    assert status is not None, logs(procs)
    assert status.level == DiagnosticStatus.OK, status
    values = status_values(status)
    assert values['success'] == 'True' and values['seed'] == 'joint_states'
    # The commands approach the solution; the last one reaches the target.
    assert probe.spin_until(lambda: reached(probe, chain, T), 5.0), logs(procs)
    q = q_of(probe.commands[-1][1], chain)
    pe, oe = pose_error(T, chain.fk(q))
    assert pe < 1e-3 and oe < 1e-2
    assert node.poll() is None


def test_feedback_seeds_the_solver_and_commands_start_from_the_arm(ros, chain):
    procs, probe = ros(43)
    procs.start('ik_node.node', *ik_params())
    # The arm stands at q_arm; a target near it must be solved from there (seed
    # 'joint_states'), so the solution stays on the arm's IK branch.
    q_arm = np.array([0.4, -1.0, 1.6, -2.0, -1.2, 0.5])
    q_target = q_arm + 0.03
    T = chain.fk(q_target)

    def feed_and_target():
        probe.publish_joint_states(chain.joint_names, q_arm)
        probe.publish_pose(T)

    status = wait_answered(probe, feed_and_target)
    assert status is not None, logs(procs)
    values = status_values(status)
    assert values['seed'] == 'joint_states', values
    assert probe.spin_until(lambda: len(probe.commands) > 0, 2.0)
    first = q_of(probe.commands[0][1], chain)
    assert np.max(np.abs(first - q_arm)) <= V_MAX * 0.01 + 1e-9
    probe.spin_until(lambda: np.allclose(q_of(probe.commands[-1][1], chain), q_target,
                                         atol=0.05), 3.0, lambda: probe.publish_joint_states(
                                             chain.joint_names, q_arm))
    assert_allclose(q_of(probe.commands[-1][1], chain), q_target, atol=0.05)


def test_commands_respect_the_velocity_limit_and_stay_finite(ros, chain):
    procs, probe = ros(44)
    procs.start('ik_node.node', *ik_params('velocity_scale:=0.5', 'output_rate:=100.0'))
    v = V_MAX * 0.5
    q_far = Q0 + np.array([1.2, -0.6, -0.9, 0.8, 1.0, -1.5])
    T = chain.fk(q_far)

    def feed_and_target():
        probe.publish_joint_states(chain.joint_names, Q0)
        probe.publish_pose(T)

    assert wait_answered(probe, feed_and_target) is not None, logs(procs)
    # 1.5 rad at 1.575 rad/s: about 1 s of approach at 100 Hz.
    probe.spin_until(lambda: len(probe.commands) > 1 and np.allclose(
        q_of(probe.commands[-1][1], chain), q_of(probe.commands[-2][1], chain)), 4.0)
    qs = np.array([q_of(m, chain) for _, m in probe.commands])
    stamps = np.array([m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec
                       for _, m in probe.commands])
    assert len(qs) > 50, 'a far goal must be approached in many steps'
    assert np.all(np.isfinite(qs))
    assert np.all(qs >= chain.lower) and np.all(qs <= chain.upper)
    # No published step exceeds one output period at the scaled limit ...
    steps = np.abs(np.diff(np.vstack([Q0, qs]), axis=0))
    assert np.all(steps <= v * 0.01 + 1e-9), steps.max()
    # ... and over the whole approach the speed stays within the limit.
    elapsed = stamps[-1] - stamps[0]
    assert np.all(np.abs(qs[-1] - qs[0]) <= v * (elapsed + 0.01) + 1e-9)
    pe, _ = pose_error(T, chain.fk(qs[-1]))
    assert pe < 2e-3


def test_unreachable_target_moves_to_the_best_pose_and_says_so(ros, chain):
    procs, probe = ros(45)
    procs.start('ik_node.node', *ik_params())
    T = np.eye(4)
    T[:3, 3] = [2.0, 1.0, 0.5]              # the UR5 reaches about 0.95 m

    def feed_and_target():
        probe.publish_joint_states(chain.joint_names, Q0)
        probe.publish_pose(T)

    status = wait_answered(probe, feed_and_target)
    assert status is not None, logs(procs)
    values = status_values(status)
    assert status.level == DiagnosticStatus.WARN and 'unreachable' in status.message
    assert values['reachable'] == 'False' and float(values['position_error']) > 1.0
    probe.spin_for(1.5)
    q = q_of(probe.commands[-1][1], chain)
    assert np.all(np.isfinite(q)) and chain.within_limits(q)
    start = np.linalg.norm(chain.fk(Q0)[:3, 3] - T[:3, 3])
    assert np.linalg.norm(chain.fk(q)[:3, 3] - T[:3, 3]) < start - 0.3
    assert 'unreachable' in logs(procs)


def test_parameter_changes_are_validated_and_applied_without_restart(ros, chain):
    procs, probe = ros(46)
    node = procs.start('ik_node.node', *ik_params())
    T = chain.fk(Q0 + 0.1)

    def feed_and_target():
        probe.publish_joint_states(chain.joint_names, Q0)
        probe.publish_pose(T)

    status = wait_answered(probe, feed_and_target)
    assert status is not None, logs(procs)
    assert status_values(status)['solver'] == 'dls'
    refused = probe.set_parameters('ik_node', solver='newton', output_rate=0.0)
    assert not refused[0].successful and 'solver must be one of' in refused[0].reason
    (r,) = probe.set_parameters('ik_node', tip_link='no_such_link')
    assert not r.successful and 'no_such_link' in r.reason
    (r,) = probe.set_parameters('ik_node', damping=-1.0)
    assert not r.successful and 'damping' in r.reason
    (r,) = probe.set_parameters('ik_node', solver='pinv')
    assert r.successful, r.reason
    n = len(probe.statuses)
    status = wait_answered(probe, feed_and_target, n)
    assert status is not None and status_values(status)['solver'] == 'pinv'
    # A new command topic takes effect at once, too.
    (r,) = probe.set_parameters('ik_node', command_topic='arm_commands')
    assert r.successful, r.reason
    moved = []
    probe.node.create_subscription(JointState, 'arm_commands', moved.append, 10)
    probe.spin_until(lambda: moved, 5.0, lambda: (
        probe.publish_joint_states(chain.joint_names, Q0), probe.publish_pose(chain.fk(Q0))))
    assert moved
    assert node.poll() is None


def test_burst_of_targets_is_served_latest_first_without_backlog(ros, chain):
    procs, probe = ros(47)
    procs.start('ik_node.node', *ik_params())

    def feed_and_target():
        probe.publish_joint_states(chain.joint_names, Q0)
        probe.publish_pose(chain.fk(Q0))

    assert wait_answered(probe, feed_and_target) is not None, logs(procs)
    probe.spin_for(0.3)
    n_before = len(probe.statuses)
    burst = 300
    for k in range(burst):
        last = probe.publish_pose(chain.fk(Q0 + 0.2 * k / burst))
    t_sent = time.monotonic()
    stamp = f'{last.header.stamp.sec}.{last.header.stamp.nanosec:09d}'
    assert probe.spin_until(lambda: any(status_values(s).get('target_stamp') == stamp
                                        for s in probe.statuses[n_before:]), 2.0)
    assert time.monotonic() - t_sent < 1.0
    answered = len(probe.statuses) - n_before
    assert answered < burst, 'every target of the burst was solved: a backlog'
    probe.spin_for(0.3)
    # The last answer is for the last target.
    assert status_values(probe.statuses[-1])['target_stamp'] == stamp


def test_targets_in_link_frames_clicked_points_and_unknown_frames(ros, chain):
    procs, probe = ros(48)
    procs.start('ik_node.sim_arm', f'urdf_file:={URDF}',
                f'initial_positions:={Q0.tolist()}')
    procs.start('ik_node.node', *ik_params())
    # 5 cm along the tool z axis, given in the tool0 frame.
    offset = np.eye(4)
    offset[2, 3] = 0.05
    T_expected = chain.fk(Q0) @ offset
    assert wait_answered(probe, lambda: probe.publish_pose(offset, 'tool0')) is not None, \
        logs(procs)
    assert probe.spin_until(lambda: reached(probe, chain, T_expected), 5.0)
    probe.spin_for(0.5)
    # Clicked point: position only, the current orientation is kept.
    R_before = chain.fk(q_of(probe.commands[-1][1], chain))[:3, :3]
    clicked = probe.node.create_publisher(PointStamped, '/clicked_point', 10)
    point = PointStamped()
    point.header.frame_id = 'base_link'
    point.point.x, point.point.y, point.point.z = 0.35, 0.25, 0.3
    n = len(probe.statuses)
    assert wait_answered(probe, lambda: clicked.publish(point), n) is not None
    assert probe.spin_until(lambda: np.linalg.norm(chain.fk(q_of(
        probe.commands[-1][1], chain))[:3, 3] - [0.35, 0.25, 0.3]) < 1e-3, 5.0)
    T_final = chain.fk(q_of(probe.commands[-1][1], chain))
    assert math.degrees(orientation_error(R_before, T_final)) < 1.0
    # A frame that is no link and cannot be looked up is refused with a reason.
    n = len(probe.statuses)
    refusal = wait_answered(probe, lambda: probe.publish_pose(np.eye(4), 'map'), n,
                            refusal=True)
    assert refusal.level == DiagnosticStatus.ERROR and "'map'" in refusal.message


def test_invalid_start_parameters_exit_with_the_reason(tmp_path):
    env = ros_env(49, tmp_path)
    for params, words in ((['solver:=newton'], 'solver must be one of'),
                          (['tip_link:=nowhere'], 'nowhere')):
        args = [sys.executable, '-m', 'ik_node.node', '--ros-args', '-p', f'urdf_file:={URDF}']
        for p in params:
            args += ['-p', p]
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 1
        assert words in done.stdout + done.stderr


def test_interactive_marker_message_is_a_6dof_marker_at_the_tip(chain):
    from ik_node.node import _interactive_marker
    from ik_node.params import defaults, IK_NODE_PARAMETERS, solver_options
    from ik_node.tracking import IKTracker
    from visualization_msgs.msg import InteractiveMarkerControl
    values = defaults(IK_NODE_PARAMETERS)
    tracker = IKTracker(chain, 'dls', solver_options(values, chain), np.ones(chain.n), 0.01,
                        0.5)
    tracker.start_at(Q0, now=0.0)
    im = _interactive_marker(tracker, 0.0)
    assert im.header.frame_id == 'base_link'
    modes = sorted((c.name, c.interaction_mode) for c in im.controls)
    assert len(modes) == 6
    assert {m for _, m in modes} == {InteractiveMarkerControl.ROTATE_AXIS,
                                     InteractiveMarkerControl.MOVE_AXIS}
    p = im.pose.position
    assert_allclose([p.x, p.y, p.z], chain.fk(Q0)[:3, 3], atol=1e-12)
