# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The ik_node ROS 2 node: pose targets in, safe joint commands out.

Inputs: ``target_pose`` (geometry_msgs/PoseStamped), RViz ``/goal_pose`` (PoseStamped) and
``/clicked_point`` (PointStamped, position only, the current tip orientation is kept), a 6-DOF
interactive marker when the ``interactive_markers`` package is installed, and the arm's
``joint_states`` as feedback (it seeds the solver). Outputs: sensor_msgs/JointState commands
with the URDF joint names, optionally trajectory_msgs/JointTrajectory, a
diagnostic_msgs/DiagnosticArray status per solve and a visualization_msgs/MarkerArray.

Every callback converts messages to arrays, calls :class:`ik_node.tracking.IKTracker`, and
converts back. The parameters, their documentation and their validation live in
:mod:`ik_node.params`; ``ros2 param set`` changes take effect at once, also the solver, the
topics and the robot model, and an invalid value is refused with the reason.
"""

import functools
import math
import sys
import time
from typing import Any

from builtin_interfaces.msg import Duration
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Point, PointStamped, Pose, PoseStamped, Quaternion
from ik_node.chain import Chain
from ik_node.errors import IKError, URDFError
from ik_node.params import (check_values, IK_NODE_PARAMETERS, MODEL_PARAMETERS,
                            solver_options, TOPIC_PARAMETERS)
from ik_node.pose import pose_from_xyz_quat, quat_xyzw_from_matrix
from ik_node.robot_tree import RobotTree
from ik_node.ros_common import (declare_parameters, parameter_value, RobotDescriptionSource,
                                spin_until_shutdown)
from ik_node.safety import StepReport
import ik_node.solvers  # noqa: F401  (registers the solver methods)
from ik_node.tracking import IKTracker, SolveOutcome
import numpy as np
from rcl_interfaces.msg import SetParametersResult
import rclpy
from rclpy.logging import get_logger
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.time import Time
from sensor_msgs.msg import JointState
from std_msgs.msg import Header
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
from visualization_msgs.msg import Marker, MarkerArray

__all__ = ['IKNode', 'main', 'velocity_limits']

# Depth 1: a burst of targets is served latest-first, older ones are dropped, never queued.
_TARGET_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
# Best effort matches both reliable and best-effort joint_states publishers.
_FEEDBACK_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
_MARKER_PERIOD = 0.05       # [s] markers are throttled to 20 Hz
_WARN_PERIOD = 2.0          # [s] repeated warnings of one kind are throttled
_TOPIC_PARAMETERS_BY_ROLE = ('target_topic', 'goal_pose_topic', 'clicked_point_topic',
                             'joint_states_topic', 'command_topic', 'trajectory_topic',
                             'status_topic', 'marker_topic', 'robot_description_topic')


def velocity_limits(chain: Chain, values: dict[str, Any]) -> np.ndarray:
    """Return (n,) command velocity limits: URDF limits (default where none) x velocity_scale."""
    v = np.array(chain.velocity, dtype=float)
    v[~np.isfinite(v)] = float(values['default_velocity_limit'])
    return v * float(values['velocity_scale'])


def _pose_to_matrix(pose: Pose) -> np.ndarray:
    p, o = pose.position, pose.orientation
    return pose_from_xyz_quat((p.x, p.y, p.z), (o.x, o.y, o.z, o.w))


def _matrix_to_pose(T: np.ndarray) -> Pose:
    x, y, z, w = (float(v) for v in quat_xyzw_from_matrix(T))
    return Pose(position=Point(x=float(T[0, 3]), y=float(T[1, 3]), z=float(T[2, 3])),
                orientation=Quaternion(x=x, y=y, z=z, w=w))


def _guarded(what: str):
    """Wrap a callback so that an unexpected exception is logged, never fatal to the node."""
    def wrap(method):
        @functools.wraps(method)
        def guarded(self, *args):
            try:
                return method(self, *args)
            except Exception as exc:  # noqa: B902  (one bad message must not stop the node)
                self._warn(f'internal {what}', f'{what} failed and was skipped: '
                           f'{type(exc).__name__}: {exc}', error=True)
            return None
        return guarded
    return wrap


def _kv(key: str, value: Any) -> KeyValue:
    if isinstance(value, float):
        value = f'{value:.6g}'
    return KeyValue(key=key, value=str(value))


class IKNode(Node):
    """Inverse kinematics node for one URDF arm (see the module docstring)."""

    def __init__(self, node_name: str = 'ik_node', **kwargs):
        super().__init__(node_name, **kwargs)
        self._warned: dict[str, tuple[float, int]] = {}
        self._values = declare_parameters(self, IK_NODE_PARAMETERS)
        reason = (check_values(IK_NODE_PARAMETERS, self._values)
                  or self._topic_conflict(self._values))
        if reason is not None:
            raise ValueError(f'invalid parameter: {reason}')
        self._tree: RobotTree | None = None
        self._tracker: IKTracker | None = None
        self._pubs: dict[str, Any] = {}
        self._subs: dict[str, Any] = {}
        self._timer = None
        # The last joint_states message: (names, positions, monotonic receive time [s]).
        self._feedback: tuple[tuple[str, ...], tuple[float, ...], float] | None = None
        # Last published command per joint name, across model changes.
        self._last_command: dict[str, float] = {}
        self._last_marker = -math.inf
        self._tf_buffer = None
        self._tf_listener = None
        self._im_server = None
        self._im_offered = False
        self._source = RobotDescriptionSource(self, self._on_robot_description)
        self._setup_tf()
        self._make_io(self._values)
        self._make_timer()
        self._source.update(self._values)
        text = self._source.text_from(self._values)
        if text:
            self._install(self._build(text, self._values))
        self.add_on_set_parameters_callback(self._on_set_parameters)

    # Model and configuration ------------------------------------------------------------

    def _build(self, text: str, values: dict[str, Any]) -> tuple[RobotTree, IKTracker]:
        """Return (tree, tracker) for URDF ``text``; URDFError or ValueError if unusable."""
        tree = RobotTree.from_urdf(text)
        auto_base, auto_tip = tree.default_chain()
        base = values['base_link'] or auto_base
        tip = values['tip_link'] or auto_tip
        chain = Chain.from_urdf(text, base, tip)
        for q in (chain.mid, chain.clip(np.where(chain.continuous, 0.0, chain.lower)),
                  chain.clip(np.where(chain.continuous, 0.0, chain.upper))):
            if not np.all(np.isfinite(chain.fk(q))):
                raise URDFError(f'robot {chain.robot_name!r}: the chain {base} -> {tip} gives '
                                'a non-finite pose (check the origins and mimic factors)')
        tracker = IKTracker(chain, values['solver'], solver_options(values, chain),
                            velocity_limits(chain, values), 1.0 / values['output_rate'],
                            values['joint_states_timeout'])
        initial = values['initial_positions']
        if initial and len(initial) != chain.n:
            raise ValueError(f'initial_positions must have {chain.n} values (one per joint of '
                             f'{", ".join(chain.joint_names)}), got {len(initial)}')
        return tree, tracker

    def _check_carry_over(self, tracker: IKTracker) -> None:
        """Raise ValueError if a new model's limits exclude the command being published."""
        old = self._tracker
        if old is not None and old.names == tracker.names and old.command is not None:
            # Exactly: the next command continues from this one, a clip would add to its step.
            outside = tracker.outside_limits(old.command, tolerance=1e-9)
            if outside:
                raise ValueError(f"the current command is outside the new model's joint "
                                 f'limits ({outside}); moving into them would be a jump')

    def _install(self, built: tuple[RobotTree, IKTracker]) -> None:
        tree, tracker = built
        self._check_carry_over(tracker)
        old = self._tracker
        now = time.monotonic()
        if old is not None and old.names == tracker.names and old.command is not None:
            # Same joints: continue from the last command so the published stream stays
            # velocity limited across the model change.
            tracker.start_at(old.command, now)
        elif all(name in self._last_command for name in tracker.names):
            # These joints were commanded under an earlier model (say A -> B -> A): continue
            # from what was last published for them, not from a lagging arm reading.
            last = np.array([self._last_command[name] for name in tracker.names])
            if not tracker.outside_limits(last):
                tracker.start_at(last, now)
        self.get_logger().info('preparing the solver kernels (the first start after an '
                               'install compiles them, 10-30 s; later starts load them from '
                               "numba's cache)")
        tracker.warm_up()
        self._tree, self._tracker = tree, tracker
        if self._feedback is not None and now - self._feedback[2] <= tracker.joint_states_timeout:
            tracker.update_feedback(*self._feedback)
        self._start_without_feedback(tracker, now)
        chain = tracker.chain
        self.get_logger().info(
            f'robot {chain.robot_name!r}: chain {chain.base_link} -> {chain.tip_link}, '
            f'{chain.n} joints ({", ".join(chain.joint_names)}), solver {tracker.method}')
        self._offer_interactive_marker()

    def _start_without_feedback(self, tracker: IKTracker, now: float) -> None:
        if tracker.ready or self._values['require_joint_states']:
            return
        initial = self._values['initial_positions']
        q = np.array(initial, dtype=float) if initial else tracker.chain.mid.copy()
        tracker.start_at(q, now)
        self.get_logger().info('require_joint_states is false: assuming the arm at '
                               f'{np.round(tracker.command, 4).tolist()} until joint_states '
                               'arrive')

    @_guarded('robot_description callback')
    def _on_robot_description(self, text: str) -> None:
        try:
            self._install(self._build(text, self._values))
        except (IKError, ValueError) as exc:
            self._warn('robot_description', 'robot_description from topic not usable, the '
                       f'previous model stays: {exc}', error=True)

    def _topic_conflict(self, values: dict[str, Any]) -> str | None:
        """Return why two topic parameters name the same topic, or None."""
        seen: dict[str, str] = {}
        for name in _TOPIC_PARAMETERS_BY_ROLE:
            topic = values[name]
            if not topic:
                continue
            try:
                resolved = self.resolve_topic_name(topic)
            except Exception:  # noqa: B902  (rclpy raises its own error types for bad names)
                resolved = topic
            if resolved in seen:
                return (f'{seen[resolved]} and {name} must name different topics, both are '
                        f'{resolved!r}')
            seen[resolved] = name
        return None

    def _on_set_parameters(self, params: list) -> SetParametersResult:
        try:
            return self._set_parameters(params)
        except Exception as exc:  # noqa: B902  (a refusal, never a crash of the node)
            self.get_logger().error(f'parameter change failed: {type(exc).__name__}: {exc}')
            return SetParametersResult(successful=False,
                                       reason=f'internal error: {type(exc).__name__}: {exc}')

    def _set_parameters(self, params: list) -> SetParametersResult:
        new = dict(self._values)
        for p in params:
            if p.name not in new:
                continue
            new[p.name] = parameter_value(p)
        reason = check_values(IK_NODE_PARAMETERS, new) or self._topic_conflict(new)
        if reason is not None:
            return SetParametersResult(successful=False, reason=reason)
        changed = {name for name in new if new[name] != self._values[name]}
        if not changed:
            return SetParametersResult(successful=True)
        built = None
        try:
            text = self._source.text_from(new)
            if text and (changed & set(MODEL_PARAMETERS) or self._tracker is None):
                built = self._build(text, new)
                self._check_carry_over(built[1])
            elif self._tracker is not None:
                chain = self._tracker.chain
                self._tracker.configure(new['solver'], solver_options(new, chain),
                                        velocity_limits(chain, new), 1.0 / new['output_rate'],
                                        new['joint_states_timeout'])
                if 'solver' in changed:
                    self._tracker.warm_up()
        except (IKError, ValueError) as exc:
            return SetParametersResult(successful=False, reason=str(exc))
        old = self._values
        self._values = new
        if changed & set(TOPIC_PARAMETERS):
            self._make_io(new)
        if 'output_rate' in changed:
            self._make_timer()
        if 'interactive_marker' in changed:
            self._offer_interactive_marker()
        self._source.update(new)
        if built is not None:
            self._install(built)
        elif self._tracker is not None and 'require_joint_states' in changed:
            self._start_without_feedback(self._tracker, time.monotonic())
        self.get_logger().info('parameters changed: ' + ', '.join(
            f'{name}={new[name]!r}' if name != 'robot_description' else name
            for name in sorted(changed)) + ('' if old['solver'] == new['solver']
                                            else ' (solver switched)'))
        return SetParametersResult(successful=True)

    # Publishers, subscriptions, timer -------------------------------------------------------

    def _make_io(self, values: dict[str, Any]) -> None:
        """(Re)create publishers and subscriptions whose topic changed."""
        wanted_pubs = {
            'command': (JointState, values['command_topic'], 10),
            'trajectory': (JointTrajectory, values['trajectory_topic'], 10),
            'status': (DiagnosticArray, values['status_topic'], 10),
            'markers': (MarkerArray, values['marker_topic'], 1),
        }
        for key, (msg_type, topic, depth) in wanted_pubs.items():
            old = self._pubs.get(key)
            if old is not None and old[1] == topic:
                continue
            if old is not None:
                self.destroy_publisher(old[0])
                del self._pubs[key]
            if topic:
                self._pubs[key] = (self.create_publisher(msg_type, topic, depth), topic)
        wanted_subs = {
            'target': (PoseStamped, values['target_topic'], self._on_pose, _TARGET_QOS),
            'goal_pose': (PoseStamped, values['goal_pose_topic'], self._on_pose, _TARGET_QOS),
            'clicked_point': (PointStamped, values['clicked_point_topic'], self._on_point,
                              _TARGET_QOS),
            'joint_states': (JointState, values['joint_states_topic'], self._on_joint_states,
                             _FEEDBACK_QOS),
        }
        for key, (msg_type, topic, callback, qos) in wanted_subs.items():
            old = self._subs.get(key)
            if old is not None and old[1] == topic:
                continue
            if old is not None:
                self.destroy_subscription(old[0])
                del self._subs[key]
            if topic:
                self._subs[key] = (self.create_subscription(msg_type, topic, callback, qos),
                                   topic)

    def _make_timer(self) -> None:
        if self._timer is not None:
            self.destroy_timer(self._timer)
        self._timer = self.create_timer(1.0 / self._values['output_rate'], self._on_timer)

    def _setup_tf(self) -> None:
        try:
            from tf2_ros import Buffer, TransformListener
        except ImportError:
            self.get_logger().info(
                'tf2_ros is not installed: targets are accepted in the base frame and the '
                'frames of the robot model links only')
            return
        self._tf_buffer = Buffer()
        self._tf_listener = TransformListener(self._tf_buffer, self)

    def _offer_interactive_marker(self) -> None:
        if not self._values['interactive_marker']:
            if self._im_server is not None:
                self._im_server.clear()
                self._im_server.applyChanges()
            return
        if self._tracker is None:
            return
        if self._im_server is None:
            try:
                from interactive_markers import InteractiveMarkerServer
            except ImportError:
                if not self._im_offered:
                    self.get_logger().info('interactive_markers is not installed: no 6-DOF '
                                           'marker (use target_pose, /goal_pose or '
                                           '/clicked_point)')
                self._im_offered = True
                return
            self._im_server = InteractiveMarkerServer(self, self.get_name() + '_target')
        self._im_offered = True
        marker = _interactive_marker(self._tracker, time.monotonic())
        self._im_server.insert(marker, feedback_callback=self._on_marker_feedback)
        self._im_server.applyChanges()

    # Callbacks ------------------------------------------------------------------------------

    @_guarded('joint_states callback')
    def _on_joint_states(self, msg: JointState) -> None:
        now = time.monotonic()
        self._feedback = (tuple(msg.name), tuple(msg.position), now)
        tracker = self._tracker
        if tracker is None:
            return
        was_ready = tracker.ready
        fresh = tracker.measured(now) is not None
        if tracker.update_feedback(msg.name, msg.position, now):
            if not was_ready:
                self.get_logger().info('arm position known from joint_states')
                self._offer_interactive_marker()
            elif tracker.resync_distance is not None:
                self._warn('resync', f'joint_states came back {tracker.resync_distance:.3g} '
                           'rad or m away from the last command (arm restarted or moved?): '
                           'the commands restart where the arm is, the goal is dropped')
            return
        problem = tracker.feedback_problem
        # Several publishers may share joint_states, each with some joints (a gripper, say):
        # a message without the chain joints matters only while no complete one is fresh.
        if problem is not None and not (problem.kind == 'missing' and fresh):
            self._warn(f'joint_states {problem.kind}',
                       f'joint_states message on {self._values["joint_states_topic"]} '
                       f'ignored: {problem.message}')

    @_guarded('target_pose callback')
    def _on_pose(self, msg: PoseStamped) -> None:
        self._handle_target(msg.header, msg.pose, point_only=False)

    @_guarded('clicked_point callback')
    def _on_point(self, msg: PointStamped) -> None:
        pose = Pose(position=msg.point, orientation=Quaternion(w=1.0))
        self._handle_target(msg.header, pose, point_only=True)

    @_guarded('interactive marker callback')
    def _on_marker_feedback(self, feedback) -> None:
        if feedback.event_type == feedback.POSE_UPDATE:
            self._handle_target(feedback.header, feedback.pose, point_only=False)

    @_guarded('command timer')
    def _on_timer(self) -> None:
        tracker = self._tracker
        if tracker is None or not tracker.ready:
            return
        if self._values['output_mode'] == 'timer' or tracker.moving:
            report = tracker.step(time.monotonic())
            self._publish_command(report, None)

    def _handle_target(self, header: Header, pose: Pose, point_only: bool) -> None:
        now = time.monotonic()
        tracker = self._tracker
        if tracker is None:
            self._refuse('no model', 'no robot model yet', header.frame_id)
            return
        if not tracker.ready:
            problem = tracker.feedback_problem
            self._refuse('not ready', 'arm position unknown: waiting for joint_states on '
                         f'{self._values["joint_states_topic"]}'
                         + (f' (last one ignored: {problem.message})' if problem else ''),
                         header.frame_id)
            return
        T_base_frame = self._frame_to_base(header.frame_id, now)
        if T_base_frame is None:
            return
        try:
            T = T_base_frame @ _pose_to_matrix(pose)
            if point_only or self._values['position_only']:
                if point_only and not self._values['position_only']:
                    T[:3, :3] = tracker.tip_pose(now)[:3, :3]
                    target = T
                else:
                    target = T[:3, 3].copy()
            else:
                target = T
            outcome = tracker.solve(target, now)
        except IKError as exc:
            self._refuse('target', f'target refused: {exc}', header.frame_id)
            return
        report = None
        if self._values['output_mode'] == 'immediate':
            report = tracker.step(time.monotonic())
            stamp = header.stamp if (header.stamp.sec or header.stamp.nanosec) else None
            self._publish_command(report, stamp)
        self._publish_status(outcome, report, header)
        self._publish_markers(outcome, now)

    def _frame_to_base(self, frame: str, now: float) -> np.ndarray | None:
        """Return the (4, 4) pose of ``frame`` in the base frame, or None (refused, logged)."""
        tracker = self._tracker
        frame = frame.lstrip('/')
        base = tracker.chain.base_link
        if frame in ('', base):
            return np.eye(4)
        if frame in self._tree.links:
            positions = {name: float(v) for name, v in zip(*self._feedback[:2])
                         if math.isfinite(v)} if self._feedback else {}
            q = tracker.current_q(now)
            positions.update(zip(tracker.names, q.tolist()))
            return self._tree.link_pose(base, frame, positions)
        if self._tf_buffer is None:
            self._refuse('frame', f'frame {frame!r} is neither the base frame {base!r} nor a '
                         'link of the robot, and tf2_ros is not installed to look it up', frame)
            return None
        try:
            tf = self._tf_buffer.lookup_transform(base, frame, Time())
        except Exception as exc:  # tf2 raises several unrelated exception types
            self._refuse('frame', f'no transform from {frame!r} to {base!r}: {exc}', frame)
            return None
        t, r = tf.transform.translation, tf.transform.rotation
        return pose_from_xyz_quat((t.x, t.y, t.z), (r.x, r.y, r.z, r.w))

    # Output -------------------------------------------------------------------------------

    def _publish_command(self, report: StepReport, stamp) -> None:
        names = list(self._tracker.names)
        positions = [float(v) for v in report.q]
        self._last_command.update(zip(names, positions))
        if 'command' in self._pubs:
            msg = JointState()
            msg.header.stamp = stamp if stamp is not None else self.get_clock().now().to_msg()
            msg.name = names
            msg.position = positions
            self._pubs['command'][0].publish(msg)
        if 'trajectory' in self._pubs:
            # A zero stamp tells joint_trajectory_controller to start at once.
            period = max(report.dt, 1.0 / self._values['output_rate'])
            secs = int(period)
            point = JointTrajectoryPoint(
                positions=positions,
                time_from_start=Duration(sec=secs, nanosec=int((period - secs) * 1e9)))
            self._pubs['trajectory'][0].publish(JointTrajectory(joint_names=names,
                                                                points=[point]))

    def _warn(self, kind: str, text: str, error: bool = False) -> None:
        """
        Log ``text`` unless a message of the same ``kind`` was logged in the last 2 s.

        The next one logged says how many were suppressed, so a flood of bad messages gives
        a bounded number of log lines per kind and still tells how many there were.
        """
        now = time.monotonic()
        last, suppressed = self._warned.get(kind, (-math.inf, 0))
        if now - last < _WARN_PERIOD:
            self._warned[kind] = (last, suppressed + 1)
            return
        self._warned[kind] = (now, 0)
        if suppressed:
            text += f' ({suppressed} more like this in the last {now - last:.1f} s)'
        # rclpy ties a severity to the calling line: one line per severity.
        if error:
            self.get_logger().error(text)
        else:
            self.get_logger().warning(text)

    def _refuse(self, kind: str, reason: str, frame: str) -> None:
        self._warn(kind, reason)
        if 'status' not in self._pubs:
            return
        status = DiagnosticStatus(level=DiagnosticStatus.ERROR, name=f'{self.get_name()}: ik',
                                  message=reason,
                                  values=[_kv('success', False), _kv('target_frame', frame)])
        self._send_status(status)

    def _publish_status(self, outcome: SolveOutcome, report: StepReport | None,
                        header: Header) -> None:
        r = outcome.result
        if r.success:
            level, message = DiagnosticStatus.OK, 'target reached'
        else:
            level = DiagnosticStatus.WARN
            message = (f'target unreachable: moving to the best reachable pose '
                       f'(position error {r.position_error:.4f} m)')
            self._warn('unreachable', message)
        if 'status' not in self._pubs:
            return
        values = [
            _kv('success', bool(r.success)),
            _kv('reachable', bool(r.success)),
            _kv('position_error', float(r.position_error)),
            _kv('orientation_error', float(r.orientation_error)),
            _kv('iterations', int(r.iterations)),
            _kv('attempts', int(r.attempts)),
            _kv('solve_time_ms', 1e3 * outcome.solve_time),
            _kv('solver', r.method),
            _kv('seed', outcome.seed_source),
            _kv('target_frame', header.frame_id),
            _kv('target_stamp', f'{header.stamp.sec}.{header.stamp.nanosec:09d}'),
        ]
        if report is not None:
            values.append(_kv('clamped', report.describe(self._tracker.names) or 'none'))
        status = DiagnosticStatus(level=level, name=f'{self.get_name()}: ik', message=message,
                                  hardware_id=self._tracker.chain.robot_name, values=values)
        self._send_status(status)

    def _send_status(self, status: DiagnosticStatus) -> None:
        msg = DiagnosticArray(status=[status])
        msg.header.stamp = self.get_clock().now().to_msg()
        self._pubs['status'][0].publish(msg)

    def _publish_markers(self, outcome: SolveOutcome, now: float) -> None:
        if 'markers' not in self._pubs or now - self._last_marker < _MARKER_PERIOD:
            return
        self._last_marker = now
        chain = self._tracker.chain
        target = outcome.target
        if target.shape == (3,):
            T_target = np.eye(4)
            T_target[:3, 3] = target
        else:
            T_target = target
        T_reached = chain.fk(outcome.result.q)
        stamp = self.get_clock().now().to_msg()
        reached_color = (0.1, 0.4, 1.0) if outcome.result.success else (1.0, 0.5, 0.0)
        markers = []
        for ns, T, color in (('target', T_target, (0.1, 0.9, 0.2)),
                             ('reached', T_reached, reached_color)):
            pose = _matrix_to_pose(T)
            for mid, mtype, scale in ((0, Marker.SPHERE, (0.03, 0.03, 0.03)),
                                      (1, Marker.ARROW, (0.1, 0.01, 0.01))):
                m = Marker(ns=ns, id=mid, type=mtype, action=Marker.ADD, pose=pose)
                m.header.frame_id = chain.base_link
                m.header.stamp = stamp
                m.scale.x, m.scale.y, m.scale.z = scale
                m.color.r, m.color.g, m.color.b = color
                m.color.a = 0.8
                markers.append(m)
        self._pubs['markers'][0].publish(MarkerArray(markers=markers))


def _interactive_marker(tracker: IKTracker, now: float):
    """Return a 6-DOF InteractiveMarker at the current tip pose."""
    from visualization_msgs.msg import InteractiveMarker, InteractiveMarkerControl
    T = tracker.tip_pose(now) if tracker.ready else tracker.chain.fk(tracker.chain.mid)
    im = InteractiveMarker(name='ik_target', description='IK target', scale=0.2,
                           pose=_matrix_to_pose(T))
    im.header.frame_id = tracker.chain.base_link
    for axis, (x, y, z) in (('x', (1.0, 0.0, 0.0)), ('y', (0.0, 0.0, 1.0)),
                            ('z', (0.0, 1.0, 0.0))):
        s = 1.0 / math.sqrt(2.0)
        orientation = Quaternion(w=s, x=x * s, y=y * s, z=z * s)
        for mode, prefix in ((InteractiveMarkerControl.ROTATE_AXIS, 'rotate_'),
                             (InteractiveMarkerControl.MOVE_AXIS, 'move_')):
            im.controls.append(InteractiveMarkerControl(
                name=prefix + axis, orientation=orientation, interaction_mode=mode))
    return im


def main(args: list[str] | None = None) -> int:
    """Run the ik_node node until shutdown; return the process exit code."""
    rclpy.init(args=args)
    try:
        node = IKNode()
    except (URDFError, ValueError, IKError) as exc:
        get_logger('ik_node').fatal(str(exc))
        rclpy.try_shutdown()
        return 1
    spin_until_shutdown(node)
    return 0


if __name__ == '__main__':
    sys.exit(main())
