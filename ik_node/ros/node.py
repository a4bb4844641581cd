# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The ik_node ROS 2 node: pose targets in, safe joint commands out.

Inputs: ``target_pose`` (geometry_msgs/PoseStamped), RViz ``/goal_pose`` and ``/clicked_point``
(PointStamped, position only, the tip orientation is kept), a 6-DOF interactive marker (with
``interactive_markers``), the jog topics (:mod:`ik_node.ros.jog_input`: the latest input wins)
and the arm's ``joint_states`` as feedback (it seeds the solver). Outputs: JointState commands
with the URDF joint names, optionally JointTrajectory and Float64MultiArray, the ``ik_status``
DiagnosticArray (per target, and the node's state every second) and a MarkerArray.

With ``tip_links`` the arm is a URDF tree of several tips: a PoseStamped topic per tip
(:mod:`ik_node.ros.tip_targets`, :mod:`ik_node.ros.tree_setup`), one command stream for the
whole tree, and no jogging.

A target goes conversion -> motion layer -> conversion -> publish:
:class:`ik_node.ros.target_intake.TargetIntake` turns the message into a base-frame target
(or refuses it), :class:`ik_node.ros.command_output.CommandOutput` hands it to
:class:`ik_node.motion.tracker.IKTracker` and publishes the command and the answer
(:mod:`ik_node.ros.outputs`). The arm's readings count from their stamps
(:mod:`ik_node.ros.feedback`); what the parts share is
:class:`ik_node.ros.node_state.NodeState`. The parameters, their documentation
and their validation live in :mod:`ik_node.ros.parameter_table`; ``ros2 param set`` changes
take effect at once, also the solver, the topics and the robot model, and an invalid value
is refused with the reason. Every time the node reasons about comes from its clock, so
``use_sim_time`` works.

Command stamps are the node-clock time each command was computed for, strictly increasing:
a subscriber can put commands in publish order by their stamps. The status of a target gives
its ``target_stamp`` and, when a command answered it at once, that ``command_stamp``.
"""

import functools
import sys
from typing import Any

from geometry_msgs.msg import PointStamped, Pose, PoseStamped, Quaternion
from ik_node.errors import IKError
from ik_node.model.link_tree import RobotTree
from ik_node.motion.tracker import IKTracker
from ik_node.ros import status_text
from ik_node.ros.command_output import CommandOutput
from ik_node.ros.control_loop import CycleGroup
from ik_node.ros.cycle_watch import CycleWatch
from ik_node.ros.description import RobotDescriptionSource
from ik_node.ros.fail_stop import FailStop
from ik_node.ros.feedback import JointStatesIntake
from ik_node.ros.jog_input import JogInput
from ik_node.ros.kind_log import KindLog
from ik_node.ros.marker_view import MarkerView
from ik_node.ros.node_state import NodeClock, NodeState
from ik_node.ros.obstacles import LiveObstacles, obstacles_in_force
from ik_node.ros.outputs import Outputs
from ik_node.ros.parameter_io import changed_values, declare_parameters
from ik_node.ros.parameter_table import (check_values, IK_NODE_PARAMETERS, MODEL_PARAMETERS,
                                         topic_conflict, TOPIC_PARAMETERS)
from ik_node.ros.robot_setup import (ArmMoving, build_tracker, check_carry_over,
                                     continue_command, forward_order, reconfigure,
                                     start_without_feedback)
from ik_node.ros.runtime import freeze_heap, run_node
from ik_node.ros.start import KernelWatch
from ik_node.ros.state_report import StateReport
from ik_node.ros.subscriptions import Subscriptions
from ik_node.ros.target_intake import TargetIntake
from ik_node.ros.tip_targets import TipTargets, without_tree_jog
from ik_node.ros.tree_setup import is_tree
from ik_node.ros.wire import JointStateReader
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from std_msgs.msg import Header
from std_srvs.srv import SetBool
from visualization_msgs.msg import MarkerArray

__all__ = ['IKNode', 'main']


def _guarded(what: str):
    """Wrap a callback so that an unexpected exception is logged, never fatal to the node."""
    def wrap(method):
        @functools.wraps(method)
        def guarded(self, *args):
            try:
                return method(self, *args)
            except Exception as exc:  # noqa: B902  (one bad message must not stop the node)
                self._log.error(f'internal {what}', f'{what} failed and was skipped: '
                                f'{type(exc).__name__}: {exc}')
            return None
        return guarded
    return wrap


class IKNode(Node):
    """Inverse kinematics node for one URDF arm (see the module docstring)."""

    def __init__(self, node_name: str = 'ik_node', background_compile: Any = None, **kwargs):
        super().__init__(node_name, **kwargs)
        self._start(background_compile)

    def _start(self, background_compile: Any) -> None:
        """Declare and check the parameters, make the node's parts, load the model if given."""
        self._times = NodeClock(self)
        self._log = KindLog(self.get_logger())
        self._kernels = KernelWatch(self, background_compile)
        values = declare_parameters(self, IK_NODE_PARAMETERS)
        reason = (check_values(IK_NODE_PARAMETERS, values)
                  or topic_conflict(values, self.resolve_topic_name))
        if reason is not None:
            raise ValueError(f'invalid parameter: {reason}')
        self._state = state = NodeState(values)
        # The command timer, joint_states and jog_twist: waited on by the control loop when
        # run_node runs one (ik_node.ros.control_loop), else by the executor.
        self.cycle_group = CycleGroup()
        self.cycle_group.priority = values['realtime_priority']
        self._joint_state_reader = JointStateReader()
        self._outputs = Outputs(self)
        self._cycles = CycleWatch()     # command ticks held off while the arm moved
        self._jog = JogInput(state, self._times, self._outputs, self._log)
        self._subs = Subscriptions(self, {
            'joint_states': self._on_joint_states, 'target': self._on_pose,
            'goal_pose': self._on_goal_pose, 'clicked_point': self._on_point,
            'obstacles': self._on_obstacles,
            **without_tree_jog(self._jog.callbacks, state, self._log.warn)}, self.cycle_group)
        self._tips = TipTargets(self, self._on_tip_pose)     # tip_links: a topic per tip
        self._timer: Any = None
        # The arm's readings: when each was taken, the newest, recent positions by stamp.
        self._readings = JointStatesIntake(values['joint_states_timeout'], self._log.warn,
                                           self.get_logger().warning, self._times.epoch_ns)
        self._live = LiveObstacles()      # shapes from the obstacles topic
        self._model_text: str | None = None     # the URDF of the model in use
        # A robot_description of other joints that came while the arm moved: installed at rest.
        self._model_waiting: str | None = None
        self._building = False      # a model is built (beside the cycle, which goes on)
        self._marker = MarkerView(self, state, self._on_marker_pose)
        self._targets = TargetIntake(state, self._readings, self._outputs, self._log,
                                     self._marker, self._tf_buffer())
        self._commands = CommandOutput(state, self._times, self._outputs, self._log,
                                       self._marker, self._targets.refuse)
        self._fail_stop = FailStop(state, self._times, self._outputs, self._log,
                                   self._commands.status, self._jog.end)
        self._source = RobotDescriptionSource(self, self._on_robot_description)
        self._make_io(values)
        self._make_timer()
        self._report = StateReport(self, state, self._times, self._outputs, self._jog,
                                   self._cycles)
        self.create_service(SetBool, '~/hold', self._on_hold)
        self._source.update(values)
        text = self._source.text_from(values)
        if text:
            self._install(self._build(text, values), text)
        self.add_on_set_parameters_callback(self._on_set_parameters)

    def destroy_node(self) -> None:
        """Stop watching garbage collections, then destroy the node."""
        cycles = getattr(self, '_cycles', None)    # None: the node failed to start before
        if cycles is not None:
            cycles.close()
        super().destroy_node()

    # Model and configuration ------------------------------------------------------------

    def _build(self, text: str, values: dict[str, Any]) -> tuple[RobotTree, IKTracker]:
        """
        Return (tree, tracker) for URDF ``text``, kernels loaded; URDFError or ValueError if not.

        A model whose collision meshes are loaded is built beside the control cycle
        (:meth:`CycleGroup.beside_cycles`): it takes up to seconds, which the commands of a
        moving arm must not wait for (they stopped for that long, then jumped to where the
        motion was by then).
        """
        obstacles = obstacles_in_force(values, self._live)
        self.get_logger().info(self._kernels.preparing_message(values['solver']))

        def build() -> tuple[RobotTree, IKTracker]:
            tree, tracker = build_tracker(text, values, obstacles)
            tracker.warm_up()
            return tree, tracker

        if not (values['avoid_collisions'] and '<mesh' in text):
            # A few milliseconds without meshes: done faster here, at the control thread's
            # priority, than by a thread the machine may preempt while it holds the GIL (a
            # 77 ms late tick beside a busy process, docs/reliability.md).
            return build()
        self._building = True
        try:
            return self.cycle_group.beside_cycles(build)
        finally:
            self._building = False

    @_guarded('obstacles callback')
    def _on_obstacles(self, msg: MarkerArray) -> None:
        tracker, values = self._state.tracker, self._state.values
        base = tracker.chain.base_link if tracker is not None else ''
        if not self._live.update(msg, base, lambda text: self._log.warn('obstacle', text)):
            return      # the same markers again (a publisher repeating them)
        self.get_logger().info(f'{len(self._live.shapes)} live obstacle(s) from '
                               f'{values["obstacles_topic"]}')
        if tracker is not None and values['avoid_collisions']:
            # The motion left is checked against the new world: the arm brakes on its path
            # and plans again when it would touch it.
            tracker.set_collision_guard(obstacles_in_force(values, self._live),
                                        self._times.now())

    def _install(self, built: tuple[RobotTree, IKTracker], text: str) -> None:
        tree, tracker = built
        state = self._state
        now = self._times.now()
        check_carry_over(state.tracker, tracker, self._commands_moving(), now)
        self._model_text = text
        if continue_command(state.tracker, tracker, state.last_command, now):
            self._log.warn('model change', 'the model changed while the arm moved: it brakes '
                           'to rest on its path within the limits, its goal dropped (send it '
                           'again)')
        state.tree, state.tracker = tree, tracker
        state.forward_index = forward_order(tracker.chain, state.values)
        newest = self._readings.newest
        if (not tracker.ready and newest is not None
                and now - newest[2] <= tracker.joint_states_timeout):
            tracker.update_feedback(*newest[:2], now, newest[2])
        self._start_without_feedback(now)
        if not is_tree(tracker.chain):      # (a tree is not jogged)
            # The jogger's kernels loaded now, not in a control cycle; a goal held by the
            # jog of the old model is answered by the new one, which knows the arm by now.
            self._jog.prepare()
        self._tips.update(tracker.chain, state.values)
        self.get_logger().info(status_text.ready(tracker.chain, tracker.method,
                                                 self._tips.topics()
                                                 or self._subs.target_topics()))
        self._marker.offer(self._times.now(), self._subs.target_topics())
        freeze_heap(collect=False)

    def _commands_moving(self) -> bool:
        """Whether the commands move the arm: the last tick's did, a goal motion or a stop."""
        tracker = self._state.tracker
        return (self._outputs.moving or self._fail_stop.braking
                or (tracker is not None and tracker.moving))

    def _start_without_feedback(self, now: float) -> None:
        assert self._state.tracker is not None
        q = start_without_feedback(self._state.tracker, self._state.values, now)
        if q is not None:
            self.get_logger().info(status_text.assumed_start(q))

    @_guarded('robot_description callback')
    def _on_robot_description(self, text: str) -> None:
        self._model_waiting = None          # the newest model counts
        if self._state.tracker is not None and text == self._model_text:
            # The model in use, delivered again (a re-subscription to the latched topic, a
            # publisher restarted): nothing changes, and the goal and the command go on.
            self.get_logger().info('robot_description: the model in use, received again: '
                                   'kept as it is')
            return
        try:
            self._install(self._build(text, self._state.values), text)
        except ArmMoving as exc:
            self._model_waiting = text
            self._log.warn('robot_description', f'robot_description waits: {exc}; the '
                           'previous model serves until the arm is at rest')
        except (IKError, ValueError) as exc:
            self._log.error('robot_description', 'robot_description from topic not usable, '
                            f'the previous model stays: {exc}')

    def _install_waiting_model(self) -> None:
        """Install the robot_description that waited for the arm to rest, once it rests."""
        if self._model_waiting is None or self._building or self._commands_moving():
            return
        text, self._model_waiting = self._model_waiting, None
        self.get_logger().info('the arm is at rest: the robot_description that waited takes '
                               'over')
        # Built after this tick, beside the cycles that follow (the arm may move again).
        self.cycle_group.after_cycle(lambda: self._on_robot_description(text))

    def _on_set_parameters(self, params: list) -> SetParametersResult:
        try:
            return self._set_parameters(params)
        except Exception as exc:  # noqa: B902  (a refusal, never a crash of the node)
            self.get_logger().error(f'parameter change failed: {type(exc).__name__}: {exc}')
            return SetParametersResult(successful=False,
                                       reason=f'internal error: {type(exc).__name__}: {exc}')

    def _set_parameters(self, params: list) -> SetParametersResult:
        state = self._state
        new = changed_values(state.values, params)
        reason = (check_values(IK_NODE_PARAMETERS, new)
                  or topic_conflict(new, self.resolve_topic_name))
        if reason is not None:
            return SetParametersResult(successful=False, reason=reason)
        changed = {name for name in new if new[name] != state.values[name]}
        if not changed:
            return SetParametersResult(successful=True)
        built = None
        try:
            text = self._source.text_from(new)
            if text and (changed & set(MODEL_PARAMETERS) or state.tracker is None):
                built = self._build(text, new)
                check_carry_over(state.tracker, built[1], self._commands_moving(),
                                 self._times.now())
            elif state.tracker is not None:
                state.forward_index = reconfigure(
                    state.tracker, state.tree, new,
                    obstacles_in_force(new, self._live) if new['avoid_collisions'] else None,
                    self._times.now(), 'solver' in changed)
        except (IKError, ValueError) as exc:
            return SetParametersResult(successful=False, reason=str(exc))
        old = state.values
        state.values = new
        self._readings.timeout = new['joint_states_timeout']
        if changed & set(TOPIC_PARAMETERS):
            self._make_io(new)
        self.cycle_group.priority = new['realtime_priority']
        if 'output_rate' in changed:
            self._make_timer()
        if 'interactive_marker' in changed:
            self._marker.offer(self._times.now(), self._subs.target_topics())
        self._source.update(new)
        if built is not None:
            self._model_waiting = None      # (a topic's model that waited: this one counts)
            self._install(built, text)
        elif state.tracker is not None and 'require_joint_states' in changed:
            self._start_without_feedback(self._times.now())
        self.get_logger().info(status_text.parameters_changed(changed, new, old['solver']))
        return SetParametersResult(successful=True)

    # Publishers, subscriptions, timer -------------------------------------------------------

    def _make_io(self, values: dict[str, Any]) -> None:
        """(Re)create the publishers and subscriptions whose topic changed."""
        # All changed ones released before any is made: topics that change places between a
        # publisher and a subscription (or the model's) of different types are not two
        # types on one topic at once, which rcl refuses.
        self._outputs.release(values)
        self._subs.release(values)
        self._source.release(values)
        self._outputs.update(values)
        self._subs.update(values)

    def _make_timer(self) -> None:
        if self._timer is not None:
            self.destroy_timer(self._timer)
        self._timer = self.create_timer(1.0 / self._state.values['output_rate'],
                                        self._on_timer, self.cycle_group)

    def _tf_buffer(self) -> Any:
        """Return a tf2 buffer with its listener, or None without tf2_ros."""
        try:
            from tf2_ros import Buffer, TransformListener
        except ImportError:
            self.get_logger().info('tf2_ros is not installed: targets are accepted in the '
                                   'base frame and the frames of the robot model links only')
            return None
        buffer = Buffer()
        self._tf_listener = TransformListener(buffer, self)
        return buffer

    # Callbacks ------------------------------------------------------------------------------

    @_guarded('joint_states callback')
    def _on_joint_states(self, data: bytes) -> None:
        now = self._times.now()
        try:
            msg = self._joint_state_reader.read(data)
        except IKError as exc:
            self._log.warn('joint_states unreadable', 'joint_states message on '
                           f'{self._state.values["joint_states_topic"]} ignored: {exc}')
            return
        stamp = self._readings.take(msg, now)
        tracker = self._state.tracker
        if stamp is None or tracker is None:
            return
        was_ready = tracker.ready
        fresh = tracker.measured(now) is not None
        if tracker.update_feedback(msg.name, msg.position, now, stamp):
            if not was_ready and tracker.ready:
                self.get_logger().info('arm position known from joint_states')
                self._marker.offer(self._times.now(), self._subs.target_topics())
            elif tracker.resync_distance is not None:
                # The arm is not where the commands were: hold it where it is, at once, in
                # every output mode (a position-controlled arm would otherwise keep going
                # to the last command it got).
                self._commands.step_and_publish()
                self._state.hold_until = now + 0.5
                self._log.warn('resync', status_text.resync(tracker.resync_reason,
                                                            tracker.resync_distance))
            return
        problem = tracker.feedback_problem
        # Several publishers may share joint_states, each with some joints (a gripper, say):
        # a message without the chain joints matters only while no complete one is fresh.
        if problem is not None and not (problem.kind == 'missing' and fresh):
            self._log.warn(f'joint_states {problem.kind}', 'joint_states message on '
                           f'{self._state.values["joint_states_topic"]} ignored: '
                           f'{problem.message}')

    @_guarded('target_pose callback')
    def _on_pose(self, msg: PoseStamped) -> None:
        self._handle_target(msg.header, msg.pose, point_only=False)

    @_guarded('goal_pose callback')
    def _on_goal_pose(self, msg: PoseStamped) -> None:
        self._handle_target(msg.header, msg.pose, point_only=False,
                            planar=self._state.values['goal_pose_mode'] == 'planar')

    @_guarded('clicked_point callback')
    def _on_point(self, msg: PointStamped) -> None:
        pose = Pose(position=msg.point, orientation=Quaternion(w=1.0))
        self._handle_target(msg.header, pose, point_only=True)

    @_guarded('tip target callback')
    def _on_tip_pose(self, tip: int, msg: PoseStamped) -> None:
        self._handle_target(msg.header, msg.pose, point_only=False, tip=tip)

    @_guarded('interactive marker callback')
    def _on_marker_pose(self, header: Header, pose: Pose, tip: int | None = None) -> None:
        self._handle_target(header, pose, point_only=False, from_marker=True, tip=tip)

    def _handle_target(self, header: Header, pose: Pose, point_only: bool,
                       planar: bool = False, from_marker: bool = False,
                       tip: int | None = None) -> None:
        """Target message -> base-frame target (or refused) -> motion layer -> commands."""
        now = self._times.now()
        target = self._targets.to_base(header, pose, now, point_only, planar, from_marker, tip)
        answer = (self._commands.answer if tip is None
                  else functools.partial(self._commands.answer, tip=tip))
        if target is not None:      # now, or once a jog in progress has braked to rest
            self._jog.answer_goal(answer, target, header, now, from_marker)

    def _on_hold(self, request: SetBool.Request, response: SetBool.Response
                 ) -> SetBool.Response:
        """Hold (data=true: the arm stays where it is, targets are refused) or resume."""
        state = self._state
        state.paused = bool(request.data)
        tracker = state.tracker
        if state.paused and tracker is not None:
            # Brakes on its path within its limits (the timer steps it); the goal is dropped.
            tracker.halt(self._times.now())
        response.success = True
        response.message = status_text.hold_reply(state.paused)
        if state.paused:
            self.get_logger().warning(response.message)
        else:
            self.get_logger().info(response.message)
        return response

    @_guarded('command timer')
    def _on_timer(self) -> None:
        outputs = self._outputs
        group = self.cycle_group
        late = self._cycles.tick(1.0 / self._state.values['output_rate'], outputs.moving,
                                 self._times.now(), group.take_calls() if group.owned else None)
        if late:
            self._log.warn('late cycle', late)
        outputs.moving = False      # until a command of this tick moves the arm
        fail_stop = self._fail_stop
        try:
            fail_stop.begin_tick()
            tracker = self._state.tracker
            if fail_stop.braking:
                fail_stop.tick()            # after a failed tick (ik_node.ros.fail_stop)
            elif tracker is not None and is_tree(tracker.chain):
                self._commands.tick()       # a tree is not jogged (ik_node.ros.tip_targets)
            else:
                self._jog.tick(self._commands)  # the jog while it is in control, else the goal
            self._install_waiting_model()
        except Exception as exc:  # noqa: B902  (the arm is braked from the commands sent)
            fail_stop.failed(exc)
        finally:
            self._cycles.done()


def main(args: list[str] | None = None, background_compile: Any = None) -> int:
    """
    Run the ik_node node until shutdown; return the process exit code.

    background_compile: the ik-compile process started for a fresh install (see
    :mod:`ik_node.ros.start`, the executable), or None.
    """
    return run_node('ik_node', lambda: IKNode(background_compile=background_compile), args)


if __name__ == '__main__':
    sys.exit(main())
