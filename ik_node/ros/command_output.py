# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
From the motion layer to the command topics: solve a target, step the command, publish.

:class:`CommandOutput` is what the node calls with a target in the base frame
(:meth:`~CommandOutput.answer`) and at each timer tick (:meth:`~CommandOutput.tick`): it calls
the tracker (:class:`ik_node.motion.tracker.IKTracker`), turns its command into messages
(:mod:`ik_node.ros.outputs`) and tells how each target was answered (status, log, markers).

Command stamps are the node-clock time each command was computed for, strictly increasing:
a subscriber can put commands in publish order by their stamps.
"""

import math
from typing import Any

from ik_node.errors import IKError
from ik_node.motion.outcome import SolveOutcome, StepReport
from ik_node.ros import conversions as conv
from ik_node.ros import status_text
from ik_node.ros.kind_log import KindLog, LOG_PERIOD
from ik_node.ros.marker_view import MarkerView
from ik_node.ros.node_state import NodeClock, NodeState
from ik_node.ros.outputs import answer_level, Outputs, trajectory_points
from ik_node.ros.tip_targets import tip_values, TipTag
from ik_node.ros.tree_setup import as_tree, is_tree
import numpy as np
from std_msgs.msg import Header

__all__ = ['CommandOutput']


class CommandOutput:
    """The command stream of one node (see the module docstring)."""

    def __init__(self, state: NodeState, clock: NodeClock, outputs: Outputs, log: KindLog,
                 marker: MarkerView, refuse: Any):
        self._state, self._clock, self._outputs = state, clock, outputs
        self._log, self._marker, self._refuse = log, marker, refuse
        self._trajectory_revision = -1          # the motion last sent as a JointTrajectory
        self._lost_told = -math.inf    # when the last 'feedback lost' status went out [s]

    def answer(self, target: np.ndarray, header: Header, now: float,
               from_marker: bool = False, tip: int | None = None) -> SolveOutcome | None:
        """
        Answer a target ((4, 4) or (3,), base frame) received at ``now``; None if refused.

        tip: the index of the tip of a tree the target (t, 4, 4) is for; its status names
        it and gives every tip's errors (:func:`ik_node.ros.tip_targets.tip_values`).

        In output_mode 'immediate' the first command toward it goes out at once. A goal is
        searched in the background while the commands go on: it is answered (status, first
        command) at the timer tick that takes its plan, and None is returned here.
        """
        state = self._state
        tracker = state.tracker
        assert tracker is not None
        try:
            outcome = tracker.solve(target, now, stream=from_marker,
                                    tag=header if tip is None else TipTag(header, tip))
        except IKError as exc:
            self._refuse('target', f'target refused: {exc}', header)
            if from_marker:
                self._marker.show(None, 'refused')
            return None
        # Older targets answered meanwhile (dropped by this one) go first: answers go out in
        # the order their targets came.
        self._tell_events(now)
        report, command_stamp = None, None
        if state.values['output_mode'] == 'immediate':
            report, command_stamp = self.step_and_publish()
        if outcome is not None:
            self._answered(outcome, report, header, command_stamp, now, from_marker)
        return outcome

    def _tell_events(self, now: float, report: StepReport | None = None,
                     command_stamp: Any = None) -> None:
        """Tell the answers the tracker gave since the last call, each with its target's header."""
        tracker = self._state.tracker
        assert tracker is not None
        for outcome in tracker.take_events():
            self._answered(outcome, report, self._header_of(outcome, command_stamp),
                           command_stamp, now)

    def _header_of(self, outcome: SolveOutcome, stamp: Any = None) -> Header:
        """Return the target's header of ``outcome``, else one stamped ``stamp`` (or now)."""
        if isinstance(outcome.tag, Header):
            return outcome.tag
        if isinstance(outcome.tag, TipTag):
            return outcome.tag.header
        tracker = self._state.tracker
        assert tracker is not None
        if stamp is None:
            stamp = conv.stamp_from_ns(self._clock.now_ns())
        return Header(stamp=stamp, frame_id=tracker.chain.base_link)

    def _answered(self, outcome: SolveOutcome, report: StepReport | None, header: Header,
                  command_stamp: Any, now: float, from_marker: bool = False) -> None:
        """Tell how a target was answered; a target the arm goes to is the one in force."""
        if not outcome.refused:
            self._state.goal_stamp = conv.stamp_text(header.stamp)
        self._tell(outcome, report, header, command_stamp, now)
        self._marker.answered(outcome, from_marker)

    def tick(self) -> None:
        """Step and publish at a timer tick; say when feedback is lost or the arm arrived."""
        state = self._state
        tracker = state.tracker
        if tracker is None or not tracker.ready:
            return
        values = state.values
        if (values['output_mode'] == 'timer' or tracker.moving
                or self._clock.now() < state.hold_until):
            self.step_and_publish()
        now = self._clock.now()
        # Goals answered while no command went out (nobody listens, the feedback is lost):
        # told without a command.
        tracker.poll(now)
        self._tell_events(now)
        if state.feedback_lost(now):
            self._tell_lost(now)
        else:
            self._lost_told = -math.inf
        if tracker.arrived(now, values['reached_position_tolerance'],
                           values['reached_orientation_tolerance']):
            self.status('OK', 'target reached: the measured arm is there',
                        {'reached': True, 'target_stamp': state.goal_stamp})

    def step_and_publish(self) -> tuple[StepReport | None, Any]:
        """
        Step the command toward the goal for the time since the last step and publish it.

        The command's stamp is the clock time the step was sized for (made strictly
        increasing, even if a simulated clock stands still). Returns (report, stamp), both
        None while the arm position is unknown, the feedback is lost or nobody subscribes to
        the command topics.
        """
        state = self._state
        tracker = state.tracker
        assert tracker is not None
        now_ns = max(self._clock.now_ns(), state.last_stamp_ns + 1)
        now = self._clock.seconds(now_ns)
        if state.feedback_lost(now):
            return None, None
        unheard = self._outputs.unheard()
        if unheard:
            # No arm driver listens (not started, or not yet discovered): a command stepped
            # now would run ahead of an arm that cannot follow it. It holds instead.
            self._log.warn('no command subscriber', f'nobody subscribes to {unheard}: the '
                           'command holds until the arm driver does')
            return None, None
        report = tracker.step(now)
        if report is None:
            return None, None
        state.last_stamp_ns = now_ns
        stamp = conv.stamp_from_ns(now_ns)
        names = tracker.names
        state.last_command.update(zip(names, (float(v) for v in report.q)))
        self._outputs.command(names, report.q, now_ns, state.forward_index,
                              self._trajectory(now))
        self._tell_stops()
        # A goal searched in the background, or planned again: answered with this first
        # command toward it.
        self._tell_events(now, report, stamp)
        if tracker.stall:
            self._log.error('stall', tracker.stall)
            self.status('ERROR', tracker.stall, {'reached': False, 'stalled': True})
        return report, stamp

    def _tell_stops(self) -> None:
        """Tell each stop for a new obstacle (ik_node.motion.obstacle_stop): status and log."""
        tracker = self._state.tracker
        assert tracker is not None
        for stop in tracker.take_stops():
            text = f'stopping: {stop.text()}'
            if stop.level == 'WARN':
                self._log.warn('obstacle stop', text)
            else:
                self._log.error('obstacle stop', text)
            self.status(stop.level, text, {'reached': False, **stop.values()})

    def _trajectory(self, now: float) -> list | None:
        """
        Return the JointTrajectory points when the motion changed since the last, else None.

        A trajectory goes out when the motion changes (a new goal, a slow-down, a stop): the
        rest of the motion from two periods ahead, stamped now.
        """
        tracker = self._state.tracker
        assert tracker is not None
        revision = tracker.commander.revision
        if not self._outputs.sends_trajectories or revision == self._trajectory_revision:
            return None
        self._trajectory_revision = revision
        points = trajectory_points(tracker.commander, now,
                                   2.0 / self._state.values['output_rate'])
        # A lagging arm gets the time its velocity limit needs to reach the first point (the
        # controller blends from where the arm is): the whole trajectory is delayed.
        late = tracker.time_to_reach(points[0][1], now) - points[0][0]
        if late > 0.0:
            points = [(t + late, q, v, a) for t, q, v, a in points]
        return points

    def _tell_lost(self, now: float) -> None:
        """
        Say that the feedback is lost: in the log, and as a WARN status with the command held.

        The status goes out when the feedback turns lost and every LOG_PERIOD while it stays
        lost, so that a monitor, an operator or a driver that restarts can hold the arm where
        it was last commanded (``command.<joint>``), whichever of the commands reached them.
        """
        state = self._state
        tracker = state.tracker
        assert tracker is not None
        text = status_text.feedback_lost(state.values['joint_states_topic'],
                                         tracker.joint_states_timeout)
        self._log.warn('feedback lost', text)
        if now - self._lost_told < LOG_PERIOD:
            return
        self._lost_told = now
        held = {name: state.last_command[name] for name in tracker.names
                if name in state.last_command}
        self.status('WARN', f'feedback lost: {text}',
                    conv.held_values(held, state.last_stamp_ns))

    def status(self, level: str, message: str, values: dict[str, Any]) -> None:
        """Publish a status that answers no particular target (arrival, stall)."""
        if self._state.tracker is not None:
            self._outputs.status(level, message, values, self._state.tracker.chain.robot_name)

    def _tell(self, outcome: SolveOutcome, report: StepReport | None, header: Header,
              command_stamp: Any, t_target: float) -> None:
        """Tell how a target was answered: status, log, markers."""
        tracker = self._state.tracker
        assert tracker is not None
        r = outcome.result
        # Lost when the target came: a solve longer than joint_states_timeout holds up this
        # callback, and the readings that came meanwhile wait in the queue, not lost.
        level, message, kind = answer_level(outcome, self._state.feedback_lost(t_target))
        if kind:
            self._log.warn(kind, message)
        values = conv.answer_values(r, outcome.seed_source, outcome.solve_time, header,
                                    report.describe(tracker.names) if report else None,
                                    command_stamp)
        values.update(conv.motion_values(outcome))
        if is_tree(tracker.chain):
            tip = outcome.tag.tip if isinstance(outcome.tag, TipTag) else None
            values.update(tip_values(r, as_tree(tracker.chain).tip_links, tip))
            if not r.success and r.message:
                message = f'{message} ({r.message})'
        self._outputs.status(level, message, values, tracker.chain.robot_name)
        self._outputs.markers(tracker.chain, outcome.target, r.q, bool(r.success), t_target)
