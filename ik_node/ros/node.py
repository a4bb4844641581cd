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

Every callback converts messages to arrays (:mod:`ik_node.ros.conversions`), calls
:class:`ik_node.motion.tracker.IKTracker`, and hands what to send to the publishers
(:mod:`ik_node.ros.outputs`). The arm's readings count from their stamps
(:mod:`ik_node.ros.feedback`). The parameters, their documentation
and their validation live in :mod:`ik_node.ros.params`; ``ros2 param set`` changes take effect
at once, also the solver, the topics and the robot model, and an invalid value is refused with
the reason. Every time the node reasons about comes from its clock, so ``use_sim_time`` works.

Command stamps are the node-clock time each command was computed for, strictly increasing:
a subscriber can put commands in publish order by their stamps. The status of a target gives
its ``target_stamp`` and, when a command answered it at once, that ``command_stamp``.
"""

import functools
import math
import sys
from typing import Any

from geometry_msgs.msg import PointStamped, Pose, PoseStamped, Quaternion
from ik_node.errors import IKError
from ik_node.motion.outcome import SolveOutcome, StepReport
from ik_node.motion.tracker import IKTracker
from ik_node.pose import solver_target
from ik_node.robot_tree import RobotTree
from ik_node.ros import conversions as conv
from ik_node.ros.description import RobotDescriptionSource
from ik_node.ros.feedback import JointStatesIntake
from ik_node.ros.frames import current_positions, FrameRefused, TargetFrames
from ik_node.ros.interactive import MarkerTarget
from ik_node.ros.obstacles import LiveObstacles, obstacles_in_force
from ik_node.ros.outputs import answer_level, Outputs, trajectory_points
from ik_node.ros.parameters import changed_values, declare_parameters
from ik_node.ros.params import (check_values, IK_NODE_PARAMETERS, limits_from_values,
                                MODEL_PARAMETERS, solver_options, topic_conflict,
                                TOPIC_PARAMETERS)
from ik_node.ros.qos import FEEDBACK_QOS, TARGET_QOS
from ik_node.ros.robot_setup import (build_tracker, check_carry_over, configure_guards,
                                     forward_order)
from ik_node.ros.runtime import run_node
from ik_node.ros.start import KernelWatch
import numpy as np
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState
from std_msgs.msg import Header
from std_srvs.srv import SetBool
from visualization_msgs.msg import MarkerArray

__all__ = ['IKNode', 'main']

_LOG_PERIOD = 2.0           # [s] a repeated warning of one kind is logged once per period


def _guarded(what: str):
    """Wrap a callback so that an unexpected exception is logged, never fatal to the node."""
    def wrap(method):
        @functools.wraps(method)
        def guarded(self, *args):
            try:
                return method(self, *args)
            except Exception as exc:  # noqa: B902  (one bad message must not stop the node)
                self._error(f'internal {what}', f'{what} failed and was skipped: '
                            f'{type(exc).__name__}: {exc}')
            return None
        return guarded
    return wrap


class IKNode(Node):
    """Inverse kinematics node for one URDF arm (see the module docstring)."""

    def __init__(self, node_name: str = 'ik_node', background_compile: Any = None, **kwargs):
        super().__init__(node_name, **kwargs)
        # Times are seconds since the node started, computed from integer nanoseconds: a
        # command samples its trajectory at exactly its stamp (seconds since 1970 as a float
        # carry only 0.24 us, which shows as jerk at a kHz).
        self._epoch_ns = self.get_clock().now().nanoseconds
        self._loggers: dict[str, Any] = {}
        self._kernels = KernelWatch(self, background_compile)
        self._values = declare_parameters(self, IK_NODE_PARAMETERS)
        reason = (check_values(IK_NODE_PARAMETERS, self._values)
                  or topic_conflict(self._values, self.resolve_topic_name))
        if reason is not None:
            raise ValueError(f'invalid parameter: {reason}')
        self._tree: RobotTree | None = None
        self._tracker: IKTracker | None = None
        self._outputs = Outputs(self)
        self._subs: dict[str, tuple[Any, str]] = {}
        self._timer: Any = None
        # The arm's readings: when each was taken, the newest, recent positions by stamp.
        self._intake = JointStatesIntake(self._values['joint_states_timeout'], self._warn,
                                         self.get_logger().warning, self._epoch_ns)
        # Last published command per joint name, across model changes.
        self._last_command: dict[str, float] = {}
        self._last_stamp_ns = 0
        self._paused = False
        self._goal_stamp = ''       # target_stamp of the goal being approached
        self._forward_index: np.ndarray | None = None
        self._live = LiveObstacles()      # shapes from the obstacles topic
        # After a hold at a returning arm, the hold is repeated this long [s, node clock]:
        # an arm driver that has just come up may not be listening yet.
        self._hold_until = -math.inf
        self._lost_told = -math.inf    # when the last 'feedback lost' status went out [s]
        self._tf_buffer = None
        self._tf_listener = None
        self._marker: MarkerTarget | None = None
        self._marker_pose: np.ndarray | None = None
        self._marker_state = 'ok'
        self._model_text: str | None = None     # the URDF of the model in use
        self._trajectory_revision = -1          # the motion last sent as a JointTrajectory
        self._source = RobotDescriptionSource(self, self._on_robot_description)
        self._setup_tf()
        self._make_io(self._values)
        self._make_timer()
        self.create_service(SetBool, '~/hold', self._on_hold)
        self._source.update(self._values)
        text = self._source.text_from(self._values)
        if text:
            self._install(self._build(text, self._values), text)
        self.add_on_set_parameters_callback(self._on_set_parameters)

    # Time and logging -----------------------------------------------------------------------

    def _now(self) -> float:
        """Return the node clock's time [s] (ROS time: simulated with use_sim_time)."""
        return self._seconds(self.get_clock().now().nanoseconds)

    def _seconds(self, ns: int) -> float:
        """Return the node-clock time [s] of ``ns`` (see ``_epoch_ns``)."""
        return (ns - self._epoch_ns) * 1e-9

    def _log_for(self, kind: str):
        # One child logger per kind: rclpy throttles per logger and call site, so each kind of
        # problem gets its own 2 s budget.
        logger = self._loggers.get(kind)
        if logger is None:
            name = ''.join(c if c.isalnum() else '_' for c in kind)
            logger = self._loggers[kind] = self.get_logger().get_child(name)
        return logger

    def _warn(self, kind: str, text: str) -> None:
        """Log a warning, at most once per 2 s for each ``kind``."""
        self._log_for(kind).warning(text, throttle_duration_sec=_LOG_PERIOD)

    def _error(self, kind: str, text: str) -> None:
        """Log an error, at most once per 2 s for each ``kind``."""
        self._log_for(kind).error(text, throttle_duration_sec=_LOG_PERIOD)

    # Model and configuration ------------------------------------------------------------

    def _build(self, text: str, values: dict[str, Any]) -> tuple[RobotTree, IKTracker]:
        """Return (tree, tracker) for URDF ``text``; URDFError or ValueError if unusable."""
        return build_tracker(text, values, obstacles_in_force(values, self._live))

    @_guarded('obstacles callback')
    def _on_obstacles(self, msg: MarkerArray) -> None:
        if self._live.update(msg, self._base_frame(), lambda text: self._warn('obstacle', text)):
            self.get_logger().info(f'{len(self._live.shapes)} live obstacle(s) from '
                                   f'{self._values["obstacles_topic"]}')
        tracker = self._tracker
        if tracker is not None and self._values['avoid_collisions']:
            # The motion left is checked against the new world: the arm brakes on its path
            # and plans again when it would touch it.
            tracker.set_collision_guard(obstacles_in_force(self._values, self._live),
                                        self._now())

    def _base_frame(self) -> str:
        return self._tracker.chain.base_link if self._tracker is not None else ''

    def _install(self, built: tuple[RobotTree, IKTracker], text: str) -> None:
        tree, tracker = built
        self._model_text = text
        check_carry_over(self._tracker, tracker)
        old = self._tracker
        now = self._now()
        if old is not None and old.names == tracker.names and old.command is not None:
            # Same joints: continue from the last command so the published stream stays
            # velocity limited across the model change, with the feedback as it was.
            tracker.start_at(old.command, now)
            tracker.inherit_feedback(old)
        elif all(name in self._last_command for name in tracker.names):
            # These joints were commanded under an earlier model (say A -> B -> A): continue
            # from what was last published for them, not from a lagging arm reading.
            last = np.array([self._last_command[name] for name in tracker.names])
            if not tracker.outside_limits(last):
                tracker.start_at(last, now)
        self.get_logger().info(self._kernels.preparing_message(tracker.method))
        tracker.warm_up()
        self._tree, self._tracker = tree, tracker
        self._forward_index = forward_order(tracker.chain, self._values)
        newest = self._intake.newest
        if (not tracker.ready and newest is not None
                and now - newest[2] <= tracker.joint_states_timeout):
            tracker.update_feedback(*newest[:2], now, newest[2])
        self._start_without_feedback(tracker, now)
        chain = tracker.chain
        self.get_logger().info(
            f'ready: robot {chain.robot_name!r}, chain {chain.base_link} -> {chain.tip_link}, '
            f'{chain.n} joints ({", ".join(chain.joint_names)}), solver {tracker.method}; '
            f'targets on {self._topic_list()}')
        self._offer_interactive_marker()

    def _topic_list(self) -> str:
        names = [self._subs[key][0].topic_name for key in ('target', 'goal_pose',
                                                           'clicked_point') if key in self._subs]
        return ', '.join(names)

    def _start_without_feedback(self, tracker: IKTracker, now: float) -> None:
        if tracker.ready or self._values['require_joint_states']:
            return
        initial = self._values['initial_positions']
        q = np.array(initial, dtype=float) if initial else tracker.chain.mid.copy()
        tracker.start_at(q, now)
        self.get_logger().info('require_joint_states is false: assuming the arm at '
                               f'{np.round(tracker.chain.clip(q), 4).tolist()} until '
                               'joint_states arrive')

    @_guarded('robot_description callback')
    def _on_robot_description(self, text: str) -> None:
        if self._tracker is not None and text == self._model_text:
            # The model in use, delivered again (a re-subscription to the latched topic, a
            # publisher restarted): nothing changes, and the goal and the command go on.
            self.get_logger().info('robot_description: the model in use, received again: '
                                   'kept as it is')
            return
        try:
            self._install(self._build(text, self._values), text)
        except (IKError, ValueError) as exc:
            self._error('robot_description', 'robot_description from topic not usable, the '
                        f'previous model stays: {exc}')

    def _on_set_parameters(self, params: list) -> SetParametersResult:
        try:
            return self._set_parameters(params)
        except Exception as exc:  # noqa: B902  (a refusal, never a crash of the node)
            self.get_logger().error(f'parameter change failed: {type(exc).__name__}: {exc}')
            return SetParametersResult(successful=False,
                                       reason=f'internal error: {type(exc).__name__}: {exc}')

    def _set_parameters(self, params: list) -> SetParametersResult:
        new = changed_values(self._values, params)
        reason = (check_values(IK_NODE_PARAMETERS, new)
                  or topic_conflict(new, self.resolve_topic_name))
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
                check_carry_over(self._tracker, built[1])
            elif self._tracker is not None:
                chain = self._tracker.chain
                forward_index = forward_order(chain, new)     # refused before any change
                limits = limits_from_values(chain, new, self._tree)
                self._tracker.configure(new['solver'], solver_options(new, chain),
                                        limits.velocity, 1.0 / new['output_rate'],
                                        new['joint_states_timeout'], limits.acceleration,
                                        limits.jerk, self._now())
                configure_guards(self._tracker, new)
                self._tracker.goal_budget = new['goal_search_timeout']
                self._tracker.plan_budget = new['planning_timeout']
                self._forward_index = forward_index
                self._tracker.set_collision_guard(obstacles_in_force(new, self._live)
                                                  if new['avoid_collisions'] else None)
                if 'solver' in changed:
                    self._tracker.warm_up()
        except (IKError, ValueError) as exc:
            return SetParametersResult(successful=False, reason=str(exc))
        old = self._values
        self._values = new
        self._intake.timeout = new['joint_states_timeout']
        if changed & set(TOPIC_PARAMETERS):
            self._make_io(new)
        if 'output_rate' in changed:
            self._make_timer()
        if 'interactive_marker' in changed:
            self._offer_interactive_marker()
        self._source.update(new)
        if built is not None:
            self._install(built, text)
        elif self._tracker is not None and 'require_joint_states' in changed:
            self._start_without_feedback(self._tracker, self._now())
        self.get_logger().info('parameters changed: ' + ', '.join(
            f'{name}={new[name]!r}' if name != 'robot_description' else name
            for name in sorted(changed)) + ('' if old['solver'] == new['solver']
                                            else ' (solver switched)'))
        return SetParametersResult(successful=True)

    # Publishers, subscriptions, timer -------------------------------------------------------

    def _make_io(self, values: dict[str, Any]) -> None:
        """(Re)create the publishers and subscriptions whose topic changed."""
        self._outputs.update(values)
        # joint_states first: the executor serves ready subscriptions in the order they were
        # made, so in each round the arm's newest reading is taken before a target is judged.
        wanted_subs: dict[str, tuple[Any, str, Any, QoSProfile | int]] = {
            'joint_states': (JointState, values['joint_states_topic'], self._on_joint_states,
                             FEEDBACK_QOS),
            'target': (PoseStamped, values['target_topic'], self._on_pose, TARGET_QOS),
            'goal_pose': (PoseStamped, values['goal_pose_topic'], self._on_goal_pose,
                          TARGET_QOS),
            'clicked_point': (PointStamped, values['clicked_point_topic'], self._on_point,
                              TARGET_QOS),
            'obstacles': (MarkerArray, values['obstacles_topic'], self._on_obstacles, 10),
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
            if self._marker is not None:
                self._marker.clear()
            return
        if self._tracker is None:
            return
        if self._marker is None:
            self._marker = MarkerTarget(self, self._on_marker_pose)
            if self._marker.available:
                self.get_logger().info('interactive marker offered: add an InteractiveMarkers '
                                       'display in RViz on '
                                       f'{self.get_name()}_target/update')
            else:
                self.get_logger().info('interactive_markers is not installed: no 6-DOF '
                                       f'marker (targets on {self._topic_list()})')
        tracker = self._tracker
        T = tracker.tip_pose(self._now())
        self._marker.offer(tracker.chain.base_link,
                           T if T is not None else tracker.chain.fk(tracker.chain.mid))

    # Callbacks ------------------------------------------------------------------------------

    @_guarded('joint_states callback')
    def _on_joint_states(self, msg: JointState) -> None:
        now = self._now()
        stamp = self._intake.take(msg, now)
        if stamp is None:
            return
        tracker = self._tracker
        if tracker is None:
            return
        was_ready = tracker.ready
        fresh = tracker.measured(now) is not None
        if tracker.update_feedback(msg.name, msg.position, now, stamp):
            if not was_ready and tracker.ready:
                self.get_logger().info('arm position known from joint_states')
                self._offer_interactive_marker()
            elif tracker.resync_distance is not None:
                # The arm is not where the commands were: hold it where it is, at once, in
                # every output mode (a position-controlled arm would otherwise keep going
                # to the last command it got).
                self._step_and_publish()
                self._hold_until = now + 0.5
                self._warn('resync', f'joint_states {tracker.resync_reason} '
                           f'{tracker.resync_distance:.3g} rad or m away from the last command '
                           '(arm restarted or moved?): holding the arm where it is, the goal '
                           'is dropped')
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

    @_guarded('goal_pose callback')
    def _on_goal_pose(self, msg: PoseStamped) -> None:
        self._handle_target(msg.header, msg.pose, point_only=False,
                            planar=self._values['goal_pose_mode'] == 'planar')

    @_guarded('clicked_point callback')
    def _on_point(self, msg: PointStamped) -> None:
        pose = Pose(position=msg.point, orientation=Quaternion(w=1.0))
        self._handle_target(msg.header, pose, point_only=True)

    @_guarded('interactive marker callback')
    def _on_marker_pose(self, header: Header, pose: Pose) -> None:
        self._handle_target(header, pose, point_only=False, from_marker=True)

    def _on_hold(self, request: SetBool.Request, response: SetBool.Response
                 ) -> SetBool.Response:
        """Hold (data=true: the arm stays where it is, targets are refused) or resume."""
        self._paused = bool(request.data)
        tracker = self._tracker
        if self._paused and tracker is not None and tracker.command is not None:
            # Where the arm was last told to be: no command jumps, the goal is dropped.
            tracker.start_at(tracker.command, self._now())
            self._step_and_publish()
        response.success = True
        response.message = ('holding: targets are refused until resumed' if self._paused
                            else 'resumed: targets are served')
        if self._paused:
            self.get_logger().warning(response.message)
        else:
            self.get_logger().info(response.message)
        return response

    @_guarded('command timer')
    def _on_timer(self) -> None:
        tracker = self._tracker
        if tracker is None or not tracker.ready:
            return
        if (self._values['output_mode'] == 'timer' or tracker.moving
                or self._now() < self._hold_until):
            self._step_and_publish()
        now = self._now()
        if self._feedback_lost(now):
            self._tell_lost(now)
        else:
            self._lost_told = -math.inf
        if tracker.arrived(now, self._values['reached_position_tolerance'],
                           self._values['reached_orientation_tolerance']):
            self._send_status('OK', 'target reached: the measured arm is there',
                              {'reached': True, 'target_stamp': self._goal_stamp})

    def _handle_target(self, header: Header, pose: Pose, point_only: bool,
                       planar: bool = False, from_marker: bool = False) -> None:
        now = self._now()
        tracker = self._tracker
        if tracker is None:
            self._refuse('no model', 'no robot model yet', header)
            return
        if self._paused:
            self._refuse('paused', 'holding (the hold service was called): target refused '
                         'until resumed', header)
            return
        if not tracker.ready:
            problem = tracker.feedback_problem
            self._refuse('not ready', 'arm position unknown: waiting for joint_states on '
                         f'{self._values["joint_states_topic"]}'
                         + (f' (last one ignored: {problem.message})' if problem else ''),
                         header)
            return
        T_base_frame = self._frame_to_base(header, now)
        if T_base_frame is None:
            return
        try:
            T_tool = tracker.tip_pose(now)
            assert T_tool is not None    # the tracker is ready
            target = solver_target(T_base_frame @ conv.pose_to_matrix(pose), T_tool,
                                   point_only=point_only, planar=planar,
                                   position_only=self._values['position_only'])
            outcome = tracker.solve(target, now, stream=from_marker)
            self._goal_stamp = conv.stamp_text(header.stamp)
        except IKError as exc:
            self._refuse('target', f'target refused: {exc}', header)
            if from_marker:
                self._show_marker(None, 'refused')
            return
        report, command_stamp = None, None
        if self._values['output_mode'] == 'immediate':
            report, command_stamp = self._step_and_publish()
        self._answer(outcome, report, header, command_stamp, now)
        # The marker shows where the arm is going, whichever input sent it there. While it
        # is being dragged it is left alone unless its state changes (RViz owns its pose).
        state = ('refused' if outcome.refused else 'ok' if outcome.result.success
                 else 'unreachable')
        if not from_marker or state != self._marker_state:
            self._show_marker(outcome.target, state)

    def _show_marker(self, target: np.ndarray | None, state: str) -> None:
        """Move the interactive marker to ``target`` ((4, 4) or (3,); None: stay) in a state."""
        self._marker_state = state
        if self._marker is None or not self._marker.available or self._tracker is None:
            return
        chain = self._tracker.chain
        if target is None:
            T = self._marker_pose
        elif target.shape == (3,):
            T = chain.fk(self._tracker.goal if self._tracker.goal is not None else chain.mid)
            T[:3, 3] = target
        else:
            T = target
        if T is None:
            return
        self._marker_pose = T
        self._marker.offer(chain.base_link, T, state)

    def _frame_to_base(self, header: Header, now: float) -> np.ndarray | None:
        """Return the (4, 4) pose of the header's frame in the base frame, or None (refused)."""
        tracker, tree = self._tracker, self._tree
        assert tracker is not None and tree is not None
        frames = TargetFrames(tree, tracker.chain.base_link, self._values['frame_prefix'],
                              self._intake.history, self._tf_buffer)
        try:
            return frames.to_base(header, current_positions(self._intake.newest, tracker.names,
                                                            tracker.current_q(now)))
        except FrameRefused as exc:
            self._refuse('frame', str(exc), header)
            return None

    # Output -------------------------------------------------------------------------------

    def _step_and_publish(self) -> tuple[StepReport | None, Any]:
        """
        Step the command toward the goal for the time since the last step and publish it.

        The command's stamp is the clock time the step was sized for (made strictly
        increasing, even if a simulated clock stands still). Returns (report, stamp), both
        None while the arm position is unknown, the feedback is lost or nobody subscribes to
        the command topics.
        """
        tracker = self._tracker
        assert tracker is not None
        now_ns = max(self.get_clock().now().nanoseconds, self._last_stamp_ns + 1)
        now = self._seconds(now_ns)
        if self._feedback_lost(now):
            return None, None
        unheard = self._outputs.unheard()
        if unheard:
            # No arm driver listens (not started, or not yet discovered): a command stepped
            # now would run ahead of an arm that cannot follow it. It holds instead.
            self._warn('no command subscriber', f'nobody subscribes to {unheard}: the command '
                       'holds until the arm driver does')
            return None, None
        report = tracker.step(now)
        if report is None:
            return None, None
        self._last_stamp_ns = now_ns
        stamp = conv.stamp_from_ns(now_ns)
        names = tracker.names
        self._last_command.update(zip(names, (float(v) for v in report.q)))
        # A trajectory goes out when the motion changes (a new goal, a slow-down, a stop):
        # the rest of the motion from two periods ahead, stamped now.
        points = None
        revision = tracker.commander.revision
        if self._outputs.sends_trajectories and revision != self._trajectory_revision:
            self._trajectory_revision = revision
            points = trajectory_points(tracker.commander, now,
                                       2.0 / self._values['output_rate'])
            # A lagging arm gets the time its velocity limit needs to reach the first point
            # (the controller blends from where the arm is): the whole trajectory is delayed.
            late = tracker.time_to_reach(points[0][1], now) - points[0][0]
            if late > 0.0:
                points = [(t + late, q, v, a) for t, q, v, a in points]
        self._outputs.command(names, report.q, stamp, self._forward_index, points)
        for outcome in tracker.take_events():
            self._answer(outcome, None, Header(stamp=stamp, frame_id=tracker.chain.base_link),
                         None, now)
        if tracker.stall:
            self._error('stall', tracker.stall)
            self._send_status('ERROR', tracker.stall, {'reached': False, 'stalled': True})
        return report, stamp

    def _tell_lost(self, now: float) -> None:
        """
        Say that the feedback is lost: in the log, and as a WARN status with the command held.

        The status goes out when the feedback turns lost and every _LOG_PERIOD while it stays
        lost, so that a monitor, an operator or a driver that restarts can hold the arm where
        it was last commanded (``command.<joint>``), whichever of the commands reached them.
        """
        tracker = self._tracker
        assert tracker is not None
        text = (f'no joint_states on {self._values["joint_states_topic"]} for over '
                f'{tracker.joint_states_timeout:g} s: no command is sent until the arm is '
                'heard again')
        self._warn('feedback lost', text)
        if now - self._lost_told < _LOG_PERIOD:
            return
        self._lost_told = now
        held = {name: self._last_command[name] for name in tracker.names
                if name in self._last_command}
        self._send_status('WARN', f'feedback lost: {text}',
                          conv.held_values(held, self._last_stamp_ns))

    def _feedback_lost(self, now: float) -> bool:
        """
        Return True while the arm, heard before, is unheard (when feedback is required).

        No command is stepped or sent then: the arm may not follow, and a driver that comes
        back would act on a command no reading has judged. Stream controllers and trajectory
        controllers both hold their last command meanwhile.
        """
        tracker = self._tracker
        return (tracker is not None and self._values['require_joint_states']
                and tracker.feedback_lost(now))

    def _send_status(self, level: str, message: str, values: dict[str, Any]) -> None:
        """Publish a status that answers no particular target (arrival, stall)."""
        if self._tracker is not None:
            self._outputs.status(level, message, values, self._tracker.chain.robot_name)

    def _refuse(self, kind: str, reason: str, header: Header) -> None:
        self._warn(kind, reason)
        self._outputs.refusal(reason, header)

    def _answer(self, outcome: SolveOutcome, report: StepReport | None, header: Header,
                command_stamp: Any, t_target: float) -> None:
        """Tell how a target was answered: status, log, markers."""
        tracker = self._tracker
        assert tracker is not None
        r = outcome.result
        # Lost when the target came: a solve longer than joint_states_timeout holds up this
        # callback, and the readings that came meanwhile wait in the queue, not lost.
        level, message, kind = answer_level(outcome, self._feedback_lost(t_target))
        if kind:
            self._warn(kind, message)
        values = conv.answer_values(r, outcome.seed_source, outcome.solve_time, header,
                                    report.describe(tracker.names) if report else None,
                                    command_stamp)
        values.update(conv.motion_values(outcome))
        self._outputs.status(level, message, values, tracker.chain.robot_name)
        self._outputs.markers(tracker.chain, outcome.target, r.q, bool(r.success), t_target)


def main(args: list[str] | None = None, background_compile: Any = None) -> int:
    """
    Run the ik_node node until shutdown; return the process exit code.

    background_compile: the ik-compile process started for a fresh install (see
    :mod:`ik_node.ros.start`, the executable), or None.
    """
    return run_node('ik_node', lambda: IKNode(background_compile=background_compile), args)


if __name__ == '__main__':
    sys.exit(main())
