# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The jog inputs of ik_node: messages -> arrays -> :class:`ik_node.motion.jog.Jogger`.

Three topics (relative to the node's namespace, names as parameters, empty: off):

- ``jog_twist_topic`` (geometry_msgs/TwistStamped): the tool origin's velocity, linear
  [m/s] and angular [rad/s], its components in the base frame or the tool frame as the
  header's frame_id says (the chain's base_link or tip_link, with or without frame_prefix;
  empty: the ``jog_frame`` parameter);
- ``jog_joint_topic`` (sensor_msgs/JointState): joint jogging, the ``velocity`` field gives
  each named joint's velocity [rad/s or m/s]; joints not named stand still;
- ``joy_topic`` (sensor_msgs/Joy): a gamepad or a SpaceMouse, mapped to a twist by the
  ``joy_mapping`` YAML file (:mod:`ik_node.motion.joy`); the joy node must repeat its
  message faster than ``jog_timeout`` (its ``autorepeat_rate``, 20 Hz by default) while a
  stick is held.

A jog message's jog_timeout counts from when it was sent: its arrival less how much later
than its stream's usual it came, by its stamp (docs/jogging.md); one already older is not
taken.

Who is in control, and the hand-over without jumps, is :mod:`ik_node.motion.jog_control`:
the latest input wins; a goal while jogging waits until the jog has braked to rest. The jog's
commands go out like the goal motion's (:class:`ik_node.ros.outputs.Outputs`: JointState,
Float64MultiArray, JointTrajectory as configured), stamped by the node clock (strictly
increasing with the goal motion's), not while the feedback is lost or nobody listens, and
through the tracker's feedback and following-error guards; the jogger itself keeps out of
contact, slows near singularities and joint limits. An arm that lags behind the jog pauses it
(it brakes, a WARN status says so, ``jog_paused``: arm lags), and new parameter values
mid-jog (limits, solver) brake it from where it is (:mod:`ik_node.motion.jog_control`).
``ik_status`` says which input is in
control (``control``: goal, jog twist, jog joint) and why a jog step was slowed
(``jog_slowed_by``: velocity, joint_limit, singularity, collision, contact: the strongest of
the status period, in that order). Bad input (NaN,
Inf, huge values, unknown frames or joints, arrays of the wrong length) gets a throttled
warning and no motion: a jog in progress brakes to rest.
"""

import math
from typing import Any, Callable

from ik_node.errors import IKInputError
from ik_node.motion.jog import (Jogger, JogSettings, JogStep, MODE_JOINT, MODE_TWIST,
                                strongest_reason)
from ik_node.motion.jog_control import CONTROL_GOAL, JogControl, JogTick
from ik_node.motion.joy import FRAME_TOOL, JoyMapping, JoyTeleop
from ik_node.motion.reading_clock import LateArrival
from ik_node.resources import share_path
from ik_node.ros.conversions import stamp_ns
from ik_node.ros.kind_log import KindLog
from ik_node.ros.node_state import NodeClock, NodeState
from ik_node.ros.outputs import Outputs
from ik_node.ros.parameter_table import JOY_MAPPINGS, solver_options
from ik_node.ros.wire import read_twist_stamped
import numpy as np
from sensor_msgs.msg import JointState, Joy

__all__ = ['JogInput', 'STATUS_PERIOD', 'TRAJECTORY_MIN_LEAD']

STATUS_PERIOD = 0.5     # [s] while jogging, ik_status repeats the jog's state this often
STATUS_MIN_PERIOD = 0.1     # [s] and tells a new slow-down reason at most this often
# [s] the smallest lead of a jog's JointTrajectory point over its stamp: message latency and a
# controller's update period (100 Hz: 10 ms) must not put it in the past on arrival.
TRAJECTORY_MIN_LEAD = 0.02
# The values a Jogger is built from: a change rebuilds it (the jog in progress brakes). A new
# world (obstacles) only sets the jogger's collision guard.
_JOG_VALUES = ('jog_timeout', 'singularity_slowdown', 'singularity_stop',
               'singularity_min_speed', 'solver', 'nullspace_limit_avoidance',
               'nullspace_rest_posture', 'rest_positions', 'nullspace_manipulability',
               'null_space_gain', 'output_rate')


def joy_mapping_path(value: str) -> str:
    """Return the YAML file of the ``joy_mapping`` parameter value (a shipped name or a path)."""
    return str(share_path(f'config/joy_{value}.yaml')) if value in JOY_MAPPINGS else value


class JogInput:
    """The jog topics' callbacks and the jog's share of the command timer (module docstring)."""

    def __init__(self, state: NodeState, clock: NodeClock, outputs: Outputs, log: KindLog):
        self._state, self._clock, self._outputs, self._log = state, clock, outputs, log
        self.callbacks: dict[str, Callable] = {
            'jog_twist': self._guarded(self._on_twist), 'jog_joints': self._guarded(
                self._on_joints), 'joy': self._guarded(self._on_joy)}
        self._control: JogControl | None = None
        self._key: tuple = ()
        self._values_seen: dict | None = None       # the parameter values the key was made of
        self._joy: tuple[str, JoyTeleop | None] = ('', None)
        self._pending: tuple | None = None      # (answer, target, header, from_marker)
        self._told: tuple = ()
        self._told_at = -math.inf
        self._last_step: JogStep | None = None
        # The strongest slow-down since ik_status last told one (strongest_reason): one shorter
        # than STATUS_MIN_PERIOD is told too, not lost between two statuses or behind a
        # weaker one that followed it.
        self._slowed_by = ''
        # Per jog topic: how late its messages come beyond the stream's usual delay.
        self._late = {topic: LateArrival() for topic in
                      ('jog_twist_topic', 'jog_joint_topic', 'joy_topic')}

    @property
    def jogging(self) -> bool:
        """Whether a jog is in control of the arm (else a goal, or nothing)."""
        return self._control is not None and self._control.in_control

    def _guarded(self, callback: Callable) -> Callable:
        def guarded(msg: Any) -> None:
            try:
                callback(msg)
            except Exception as exc:  # noqa: B902  (one bad message must not stop the node)
                self._log.error('internal jog', f'jog callback failed and was skipped: '
                                f'{type(exc).__name__}: {exc}')
        return guarded

    # The jogger of the model in use --------------------------------------------------------

    def _jog(self) -> JogControl | None:
        """Return the JogControl of the tracker in use (rebuilt when it or its values change)."""
        tracker = self._state.tracker
        if tracker is None:
            return None
        values = self._state.values
        key = self._key
        if (values is self._values_seen and key and tracker is key[0]
                and tracker.limits is key[1] and tracker.options.get('obstacles') is key[2]):
            return self._control        # nothing changed (the values dict is replaced)
        self._values_seen = values
        # Objects by identity (limits hold arrays), values by their text.
        key = (tracker, tracker.limits, tracker.options.get('obstacles'),
               tuple(repr(values[name]) for name in _JOG_VALUES))
        if (self._control is not None and key[0] is self._key[0] and key[1] is self._key[1]
                and key[3] == self._key[3] and key[2] is not self._key[2]):
            # Only the world changed (live obstacles): the guard judges the new one and the
            # jog goes on, where a rebuild would brake it at every update of the topic.
            self._control.jogger.set_obstacles(key[2])
            self._key = key
        elif self._control is None or any(
                a is not b for a, b in zip(key[:3], self._key[:3])) or key[3] != self._key[3]:
            chain = tracker.chain
            settings = JogSettings(timeout=values['jog_timeout'],
                                   singularity_slowdown=values['singularity_slowdown'],
                                   singularity_stop=values['singularity_stop'],
                                   singularity_min_scale=values['singularity_min_speed'])
            objectives = solver_options(values, chain).get('objectives', ())
            jogger = Jogger(chain, tracker.limits, settings, tracker.options.get('obstacles'),
                            objectives)
            jogger.warm_up()
            control = JogControl(tracker, jogger, 1.0 / values['output_rate'])
            if self._control is not None:
                # New settings mid-jog: the new jogger brakes from the old one's state.
                control.carry_on(self._control)
            if not control.goal_held:
                self._pending = None
            self._control, self._key = control, key
        return self._control

    # Callbacks: message -> arrays -> jogger --------------------------------------------------

    def _on_twist(self, data: bytes) -> None:
        """Take a TwistStamped, as its CDR bytes (a raw subscription: ik_node.ros.wire)."""
        try:
            reading = read_twist_stamped(data)
        except IKInputError as exc:
            self._bad('jog_twist_topic', str(exc))
            return
        x, frame = reading.twist, reading.frame_id
        self._command(MODE_TWIST, lambda jog, now: jog.twist(x, now, self._frame(frame, jog)),
                      not np.any(x), 'jog_twist_topic', reading.stamp_ns)

    def _on_joints(self, msg: JointState) -> None:
        names, v = list(msg.name), list(msg.velocity)
        self._command(MODE_JOINT, lambda jog, now: jog.joint_velocities(names, v, now),
                      len(names) == len(v) and not any(v), 'jog_joint_topic',
                      stamp_ns(msg.header.stamp))

    def _on_joy(self, msg: Joy) -> None:
        teleop = self._joy_teleop()
        if teleop is None:
            return
        try:
            cmd = teleop.update(msg.axes, msg.buttons)
        except IKInputError as exc:
            self._bad('joy_topic', str(exc))
            return
        frame = 'tool' if cmd.frame == FRAME_TOOL else 'base'
        self._command(MODE_TWIST, lambda jog, now: jog.twist(
            cmd.twist, now, self._frame('', jog, frame)), cmd.stop or not np.any(cmd.twist),
            'joy_topic', stamp_ns(msg.header.stamp))

    def _joy_teleop(self) -> JoyTeleop | None:
        value = self._state.values['joy_mapping']
        if self._joy[0] != value:
            try:
                self._joy = (value, JoyTeleop(JoyMapping.from_yaml(joy_mapping_path(value))))
            except (IKInputError, OSError) as exc:
                self._joy = (value, None)
                self._log.error('joy mapping', f'joy_mapping {value!r} not usable, Joy '
                                f'messages are ignored: {exc}')
        return self._joy[1]

    def _frame(self, frame: str, jog: Jogger, empty: str | None = None) -> str:
        """Return the chain link a twist's header ``frame`` names; IKInputError if neither."""
        chain = jog.chain
        if frame == '':
            which = empty or self._state.values['jog_frame']
            return chain.tip_link if which == 'tool' else chain.base_link
        prefix = self._state.values['frame_prefix'].lstrip('/')
        for link in (chain.base_link, chain.tip_link):
            if frame.lstrip('/') in (link, prefix + link):
                return link
        raise IKInputError(f'twist frame {frame!r} is unknown: use the base frame '
                           f'{prefix + chain.base_link!r} or the tool frame '
                           f'{prefix + chain.tip_link!r} (or an empty frame_id: jog_frame)')

    def _command(self, mode: str, apply: Callable[[Jogger, float], None], zero: bool,
                 topic: str, stamp: int) -> None:
        """
        Give the jog a command: ``apply(jogger, sent)``, ``sent`` when the message was sent.

        ``sent`` is the receive time less the message's lateness (its stamp's age beyond its
        stream's usual: :class:`ik_node.motion.reading_clock.LateArrival`; a zero stamp: none),
        so jog_timeout counts from when it was sent, as MoveIt Servo counts it from the
        stamp, and a message held back by the machine or the transport brakes on time. One
        already older than jog_timeout is not taken (a throttled warning); a stop always is.
        stamp: the message's header stamp [ns]; 0 when it has none.
        """
        now = self._clock.now()
        late = self._late[topic].lateness(self._clock.seconds(stamp), now) if stamp else 0.0
        timeout = self._state.values['jog_timeout']
        if late > timeout and not zero:
            self._log.warn(f'late {topic}', f'jog message on {self._state.values[topic]} not '
                           f'taken: it came {late:.3g} s later than its topic usually does '
                           f'(by its stamp), over jog_timeout {timeout:g} s (a busy machine or '
                           'transport)')
            return
        control = self._jog()
        if control is None or not control.tracker.ready:
            self._log.warn('jog not ready', 'jog ignored: the arm position is not known yet')
            return
        if self._state.paused:
            self._log.warn('jog while holding', 'jog ignored: holding (the hold service was '
                           'called)')
            return
        if self._state.feedback_lost(now) and not control.in_control:
            self._log.warn('jog feedback lost', 'jog ignored: joint_states lost (none for '
                           f'over {control.tracker.joint_states_timeout:g} s on '
                           f'{self._state.values["joint_states_topic"]})')
            return
        try:
            control.command(mode, lambda jog: apply(jog, now - late), zero, now)
        except IKInputError as exc:
            self._bad(topic, str(exc))
            return
        if control.lagging or control.braking:
            self._log.warn('jog lag', f'jog command not taken: '
                           f'{control.braking or control.lagging}')
            self._tell(False)
            return
        if control.in_control:
            self._pending = None        # the latest input wins: a goal held is dropped

    def _bad(self, topic: str, text: str) -> None:
        """Warn (throttled) of bad jog input; the jog in progress brakes (no motion)."""
        self._log.warn(f'bad {topic}', f'jog message on {self._state.values[topic]} ignored, '
                       f'no motion: {text}')

    # Goals and the command timer ------------------------------------------------------------

    def answer_goal(self, answer: Callable, target: np.ndarray, header: Any, now: float,
                    from_marker: bool) -> None:
        """Answer a goal target now, or hold it while the jog brakes to rest (then answer)."""
        control = self._control if self._control is not None and self._control.in_control \
            else None       # (not rebuilt here: a goal never waits on the jog's model)
        if control is None or not control.goal(now):
            answer(target, header, now, from_marker)
            return
        self._pending = (answer, target, header, from_marker)
        self._tell(True, force=True)

    def prepare(self) -> None:
        """
        Build the jog of the model in use (its kernels loaded: some 0.15 s), if not yet built.

        Called when a model is installed, so that neither the first jog command nor a tick
        of the control cycle pays for it. A jog in control goes on braking from its state
        under a new model of the same joints (:meth:`JogControl.carry_on`), a goal it held
        waiting for its end; otherwise the jog has ended and a goal it held is answered now.
        """
        control = self._control
        tracker = self._state.tracker
        if tracker is not None and (control is None or control.tracker is not tracker):
            pending = self._pending
            control = self._jog()
            if pending is not None and (control is None or not control.goal_held):
                answer, target, header, from_marker = pending
                answer(target, header, self._clock.now(), from_marker)

    def tick(self, commands: Any) -> None:
        """At a timer tick: step and publish the jog while it is in control, else ``commands``."""
        self.prepare()      # a no-op unless the model changed since (the node prepares it)
        control = self._control
        if control is None or not control.in_control:
            commands.tick()
            return
        state = self._state
        now_ns = max(self._clock.now_ns(), state.last_stamp_ns + 1)
        now = self._clock.seconds(now_ns)
        if self._outputs.unheard() or state.paused:
            # Nobody listens, or a hold: the jog ends where it was last commanded.
            self._end(control)
            commands.tick()
            return
        self._brake_if_unheard(control, now)
        jogged = control.step(now)
        if jogged is None:
            self._end(control)
            commands.tick()
            return
        self._publish(jogged, now_ns)
        self._last_step = jogged.step
        self._slowed_by = strongest_reason(self._slowed_by, jogged.step.reason)
        if control.lagging:
            self._log.warn('jog lag', f'jog paused: {control.lagging}')
        if jogged.stall:
            self._log.error('stall', jogged.stall)
            commands.status('ERROR', jogged.stall,
                            {'reached': False, 'stalled': True, 'control': CONTROL_GOAL})
        self._tell(False)
        if jogged.goal_due and self._pending is not None:
            answer, target, header, from_marker = self._pending
            self._pending = None
            answer(target, header, self._clock.now(), from_marker)

    def _brake_if_unheard(self, control: JogControl, now: float) -> None:
        """Brake the jog while the arm's joint_states are lost (JogControl.brake); WARN once."""
        lost = self._state.feedback_lost(now)
        if lost and not control.braking:
            tracker = self._state.tracker
            assert tracker is not None
            why = (f'joint_states lost (none for over {tracker.joint_states_timeout:g} s on '
                   f'{self._state.values["joint_states_topic"]}): the jog brakes to rest '
                   'within its limits and takes no jog command until the arm is heard again')
            control.brake(why, now)
            self._log.warn('jog feedback lost', f'jog stopping: {why}')
        elif not lost and control.braking:
            control.brake('', now)

    def end(self) -> None:
        """End the jog if it is in control (the command source failed: ik_node.ros.fail_stop)."""
        if self._control is not None and self._control.in_control:
            self._end(self._control)

    def _end(self, control: JogControl) -> None:
        if control.release():
            self._log.warn('jog ended', 'the goal held while jogging is dropped: the jog '
                           'ended before rest; send it again')
        self._pending = None
        self._tell(False)

    def _publish(self, jogged: JogTick, now_ns: int) -> None:
        state = self._state
        tracker = state.tracker
        assert tracker is not None
        state.last_stamp_ns = now_ns
        names = tracker.names
        state.last_command.update(zip(names, jogged.q.tolist()))
        points = None
        if self._outputs.sends_trajectories and self._control is not None \
                and not jogged.stall:
            points = self._trajectory_points(self._control)
        self._outputs.command(names, jogged.q, now_ns, state.forward_index, points)

    def _trajectory_points(self, control: JogControl) -> list[tuple]:
        """
        Return the JointTrajectory points of a jog command: (time from its stamp, q, v, a).

        Two points (docs/jogging.md): the jog's commanded state (q, v, a) due ``lead`` after
        its stamp, and the rest point it would brake to from there within the limits. The
        first points of successive messages are the jog's own trajectory ``lead`` late, so the
        controller's quintic blend from its state into each is as smooth as the jog; the next
        message replaces both before the first is due; if none comes, the arm brakes to rest
        instead of stopping at the first point with its velocity. The lead is two periods,
        at least TRAJECTORY_MIN_LEAD, so the first point is still ahead when the message is
        handled.
        """
        lead = max(2.0 / self._state.values['output_rate'], TRAJECTORY_MIN_LEAD)
        now, t_rest, q_rest = control.jogger.preview(0.0)
        points = [(lead, now.q, now.v, now.a)]
        if t_rest > 0.0:
            zero = np.zeros_like(q_rest)
            points.append((lead + t_rest, q_rest, zero, zero))
        return points

    def _tell(self, goal_held: bool, force: bool = False) -> None:
        """Publish the jog's state in ik_status on a change, and every STATUS_PERIOD."""
        control = self._control
        tracker = self._state.tracker
        if control is None or tracker is None:
            return
        last = self._last_step
        reason = strongest_reason(last.reason, self._slowed_by) \
            if last is not None and control.in_control else ''
        told = (control.control, reason, goal_held or control.goal_held,
                control.braking or control.lagging)
        now = self._clock.now()
        # A change of control or of the lag pause at once; a change of the slow-down reason
        # at most every STATUS_MIN_PERIOD (it may flip each step); the state every
        # STATUS_PERIOD.
        since = now - self._told_at
        urgent = not self._told or told[0] != self._told[0] or told[3] != self._told[3]
        if not force and not urgent and (
                (told == self._told and (not control.in_control or since < STATUS_PERIOD))
                or since < STATUS_MIN_PERIOD):
            return
        self._told, self._told_at = told, now
        self._slowed_by = ''
        values: dict[str, Any] = {'control': control.control, 'jog_slowed_by': reason,
                                  'goal_held': bool(told[2]),
                                  'jog_paused': ('feedback lost' if control.braking else
                                                 'arm lags' if control.lagging else '')}
        if last is not None and control.in_control:
            values.update(goal_dropped=control.dropped_goal,
                          jog_mode=last.mode, jog_scale=f'{last.scale:.3f}',
                          condition=f'{last.condition:.3g}',
                          clearance=f'{last.clearance:.4g}')
        level = 'OK'
        if control.braking:
            level, message = 'WARN', f'jog stopping: {control.braking}'
        elif control.lagging:
            level, message = 'WARN', f'jog paused: {control.lagging}'
        elif told[2]:
            message = 'goal held: the jog brakes to rest, then the goal motion starts there'
        elif control.in_control:
            message = (f'{control.control} in control'
                       + (' (it took over from a goal motion, the goal is dropped)'
                          if control.dropped_goal else '')
                       + (f', slowed by {reason}' if reason else ''))
        else:
            message = 'goal motion in control (the jog ended)'
        self._outputs.status(level, message, values, tracker.chain.robot_name)
