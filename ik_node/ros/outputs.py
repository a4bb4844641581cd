# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
What ik_node publishes.

The command (as JointState, Float64MultiArray and JointTrajectory), the status of each
target and the target markers. :class:`Outputs` owns the publishers, remade when a topic
parameter changes (an empty topic turns that output off); :func:`answer_level` says how a
solve answer is told.
"""

from collections import deque
import math
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray
from ik_node.model.chain import Chain
from ik_node.motion.commander import MotionCommander
from ik_node.motion.motion_kinds import SUPERSEDED
from ik_node.result import (IKResult, STATUS_BLOCKED, STATUS_OUT_OF_REACH, STATUS_POSITION_ONLY,
                            STATUS_TOO_FAR)
from ik_node.ros import conversions as conv
from ik_node.ros.qos import publisher_events, STATUS_QOS
from ik_node.ros.topics import release_changed
from ik_node.ros.wire import JointStateWriter
import numpy as np
from rclpy.node import Node
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, Header
from trajectory_msgs.msg import JointTrajectory
from visualization_msgs.msg import MarkerArray

__all__ = ['Outputs', 'answer_level', 'trajectory_points', 'MARKER_PERIOD',
           'TRAJECTORY_SPACING', 'TRAJECTORY_POINTS']

MARKER_PERIOD = 0.05       # [s] markers are throttled to 20 Hz
# A JointTrajectory samples the motion this far apart [s], at most this many points (the last
# one is always the end, at rest). joint_trajectory_controller interpolates between them with
# quintic splines (positions, velocities, accelerations given).
TRAJECTORY_SPACING = 0.02
TRAJECTORY_POINTS = 500


def trajectory_points(commander: MotionCommander, now: float, lead: float
                      ) -> list[tuple[float, np.ndarray, np.ndarray, np.ndarray]]:
    """
    Return (time from ``now`` [s], q, v, a) samples of the motion left, the first ``lead`` ahead.

    The first point lies ``lead`` [s] (two control periods) ahead, so that the controller
    blends into it from its own state; the last is the end of the motion at rest.
    """
    segments = commander.segments
    t_end = segments[-1].t_end if segments else now
    # Sampled without moving the motion's clock: each segment answers for its own span.
    # Times from now are built from the lead and the spacing, so the first is exactly it.
    rel = [lead]
    while now + rel[-1] + TRAJECTORY_SPACING < t_end and len(rel) < TRAJECTORY_POINTS - 1:
        rel.append(rel[-1] + TRAJECTORY_SPACING)
    if t_end - now > rel[-1]:
        rel.append(t_end - now)
    goal = commander.goal
    out = []
    for dt in rel:
        t = now + dt
        seg = next((sg for sg in segments if t < sg.t_end), None)
        if seg is None:     # the end: at rest
            rest = goal if goal is not None else commander.sample(now).q
            out.append((dt, rest, np.zeros_like(rest), np.zeros_like(rest)))
        else:
            sample = seg.at(t)
            out.append((dt, sample.q, sample.v, sample.a))
    return out


# key: (message type, topic parameter, depth or QoS)
_PUBLISHERS: dict[str, tuple[Any, str, QoSProfile | int]] = {
    'command': (JointState, 'command_topic', 10),
    'trajectory': (JointTrajectory, 'trajectory_topic', 10),
    'status': (DiagnosticArray, 'status_topic', STATUS_QOS),
    'markers': (MarkerArray, 'marker_topic', 1),
    'forward': (Float64MultiArray, 'forward_command_topic', 10),
}
_COMMANDS = ('command', 'forward', 'trajectory')


def answer_level(outcome: Any, feedback_lost: bool) -> tuple[str, str, str]:
    """
    Return (status level, message, log kind) for the answer to a target (a SolveOutcome).

    The log kind names the throttled warning the node also logs ('' for none).
    """
    result: IKResult = outcome.result
    if outcome.motion == SUPERSEDED:
        return 'WARN', f'target dropped before moving: {outcome.reason}', ''
    if outcome.refused:
        return ('ERROR', f'target refused before moving: {outcome.reason}; the arm stays on '
                         'its way (or put)', 'refused')
    if outcome.motion == 'pending':
        return 'OK', f'target accepted: {outcome.reason}', ''
    how = {'planned': (f' around obstacles ({outcome.waypoints} waypoints, planned in '
                       f'{outcome.plan_time * 1e3:.0f} ms)'),
           'direct': ''}.get(outcome.motion, '')
    if result.success and feedback_lost:
        return ('WARN', 'target solved, but joint_states are lost: the arm is commanded there '
                        'once it is heard again', '')
    if result.success:
        return 'OK', f'target solved: commanding the arm there{how}', ''
    if result.status == STATUS_BLOCKED:
        return ('ERROR', f'target refused, every answer collides: {result.message}; the arm '
                         'stays put', 'blocked')
    if result.status == STATUS_POSITION_ONLY:
        return ('WARN', 'target position reached; this arm cannot take the orientation (it has '
                        f'fewer than 6 joints): moving there with the nearest orientation '
                        f'found (orientation error {result.orientation_error:.3f} rad){how}', '')
    if result.status == STATUS_OUT_OF_REACH:
        why = 'target out of reach'
    elif result.status == STATUS_TOO_FAR:
        why = ('target not reached within max_joint_change of the arm (another IK branch, or '
               'a larger move, would be needed)')
    else:
        why = ('target not reached by the solver (it may be reachable: raise max_attempts or '
               'timeout)')
    return ('WARN', f'{why}: moving to the best pose found (position error '
                    f'{result.position_error:.4f} m)', 'unreachable')


class Outputs:
    """The node's publishers (see the module docstring)."""

    def __init__(self, node: Node):
        self._node = node
        self._pubs: dict[str, tuple[Any, str]] = {}
        self._last_marker = -math.inf
        self._writer: JointStateWriter | None = None     # the command's bytes
        # For the state report: (level, message, target_stamp) of the last answer to a
        # target, (level, message, clock [ns]) of the last WARN or ERROR.
        self.last_answer: tuple[str, str, str] | None = None
        self.last_problem: tuple[str, str, int] | None = None
        self._last_q: list[float] | None = None
        # (stamp [ns], q) of the last three commands, oldest first (ik_node.ros.fail_stop
        # brakes from them), and how many were sent.
        self.recent: deque = deque(maxlen=3)
        self.sent_count = 0
        # The last command differs from the one before (the node's timer clears it at each
        # tick: ik_node.ros.cycle_watch).
        self.moving = False

    def release(self, values: dict[str, Any]) -> None:
        """Destroy the publishers whose topic parameter changed (see :meth:`update`)."""
        release_changed(self._pubs, _PUBLISHERS, values, self._node.destroy_publisher)

    def update(self, values: dict[str, Any]) -> None:
        """
        (Re)create the publishers whose topic parameter changed.

        A node cannot have two types on one topic: when topics change places, the node
        releases every changed publisher and subscription first (:meth:`release`).
        """
        self.release(values)
        for key, (msg_type, param, depth) in _PUBLISHERS.items():
            topic = values[param]
            if topic and key not in self._pubs:
                self._pubs[key] = (self._node.create_publisher(
                    msg_type, topic, depth, event_callbacks=publisher_events()), topic)

    def unheard(self) -> str:
        """Return the command topics when none of them has a subscriber, else ''."""
        outputs = [self._pubs[key] for key in _COMMANDS if key in self._pubs]
        if any(pub.get_subscription_count() > 0 for pub, _ in outputs):
            return ''
        return ', '.join(topic for _, topic in outputs)

    def command(self, names: tuple[str, ...], q: np.ndarray, stamp_ns: int,
                forward_index: np.ndarray | None, points: list | None) -> None:
        """
        Publish command ``q`` stamped ``stamp_ns`` [ns] on every command topic in use.

        The JointState goes out as CDR bytes written into a template
        (:class:`ik_node.ros.wire.JointStateWriter`), else as a message. forward_index: the
        controller's joint order for Float64MultiArray (None: not sent); points: the
        JointTrajectory's (time from the stamp, q, v, a) samples, None: none sent this time
        (the motion did not change).
        """
        # (As lists: a tenth of the time of numpy's comparison and copy, at every command.)
        listed = q.tolist()
        self.recent.append((stamp_ns, q))
        self.sent_count += 1
        last = self._last_q
        self.moving = last is not None and len(last) == len(listed) and last != listed
        self._last_q = listed
        if 'command' in self._pubs:
            # The bytes of one message, names written once: only the stamp and positions
            # change per command.
            writer = self._writer
            if writer is None or writer.names != tuple(names):
                writer = self._writer = JointStateWriter(names)
            self._pubs['command'][0].publish(
                writer.serialize(stamp_ns, q) if writer.usable
                else conv.joint_state(names, q, conv.stamp_from_ns(stamp_ns)))
        if 'forward' in self._pubs and forward_index is not None:
            self._pubs['forward'][0].publish(conv.float64_array(q[forward_index]))
        if 'trajectory' in self._pubs and points:
            self._pubs['trajectory'][0].publish(conv.joint_trajectory(
                names, points, conv.stamp_from_ns(stamp_ns)))

    @property
    def sends_trajectories(self) -> bool:
        """Whether a JointTrajectory topic is in use."""
        return 'trajectory' in self._pubs

    def status(self, level: str, message: str, values: dict[str, Any],
               hardware_id: str = '') -> None:
        """Publish one status of the node's 'ik' component."""
        now = self._node.get_clock().now()
        if 'target_stamp' in values:
            self.last_answer = (level, message, str(values['target_stamp']))
        if level != 'OK':
            self.last_problem = (level, message, now.nanoseconds)
        self._publish_status('ik', level, message, values, now, hardware_id)

    def state(self, level: str, message: str, values: dict[str, Any]) -> None:
        """Publish the node's periodic 'state' status (:mod:`ik_node.ros.state_report`)."""
        self._publish_status('state', level, message, values, self._node.get_clock().now())

    def _publish_status(self, component: str, level: str, message: str,
                        values: dict[str, Any], now: Any, hardware_id: str = '') -> None:
        if 'status' not in self._pubs:
            return
        self._pubs['status'][0].publish(conv.status_array(
            f'{self._node.get_name()}: {component}', level, message, values, now.to_msg(),
            hardware_id=hardware_id))

    def refusal(self, reason: str, header: Header) -> None:
        """Publish the ERROR status of a target refused for ``reason``."""
        self.status('ERROR', reason, {'success': False, 'target_frame': header.frame_id,
                                      'target_stamp': conv.stamp_text(header.stamp)})

    def markers(self, chain: Chain, target: np.ndarray, q: np.ndarray, success: bool,
                now: float) -> None:
        """Publish the target and the pose at ``q``, at most every MARKER_PERIOD."""
        if 'markers' not in self._pubs or now - self._last_marker < MARKER_PERIOD:
            return
        self._last_marker = now
        self._pubs['markers'][0].publish(conv.target_markers(
            chain.base_link, target, chain.fk(q), success, self._node.get_clock().now().to_msg()))
