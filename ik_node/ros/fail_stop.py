# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
What the command timer does when computing a command fails: brake to rest, then say so.

A tick whose goal motion or jog raises (a bug, a planner without an answer) leaves the arm
holding its last command, which stops a moving position-controlled arm within one period.
Instead the node brakes from the commands it sent (:class:`ik_node.motion.fail_brake.FailBrake`,
nothing of the part that failed), one command per tick within the acceleration and jerk
limits, a JointTrajectory of the whole stop where one is sent; once at rest, the goal motion
starts again there without its goal, the jog (if it was in control) has ended, and the next
goal or twist is taken as usual. The failure is logged (ERROR, with the exception) and told
on ``ik_status`` (ERROR) when it happens and when the arm is at rest.
"""

from typing import Any

from ik_node.motion.fail_brake import FailBrake
from ik_node.ros.kind_log import KindLog
from ik_node.ros.node_state import NodeClock, NodeState
from ik_node.ros.outputs import Outputs

__all__ = ['FailStop', 'TRAJECTORY_SPACING_S']

# [s] between the points of the stop's JointTrajectory (at most 200 of them).
TRAJECTORY_SPACING_S = 0.02


class FailStop:
    """The command timer's stop after a failed tick (see the module docstring)."""

    def __init__(self, state: NodeState, clock: NodeClock, outputs: Outputs, log: KindLog,
                 status: Any, end_jog: Any):
        self._state, self._clock, self._outputs, self._log = state, clock, outputs, log
        self._status, self._end_jog = status, end_jog
        self._brake: FailBrake | None = None
        self._tracker: Any = None       # the goal motion the stop is for
        self._sent_at_tick = 0
        self._trajectory_due = False

    @property
    def braking(self) -> bool:
        """Whether a stop after a failure runs."""
        return self._brake is not None

    def begin_tick(self) -> None:
        """Note the commands sent so far (a tick that failed after its command sends none)."""
        self._sent_at_tick = self._outputs.sent_count

    def failed(self, exc: Exception) -> None:
        """Tell the failure of this tick and start the stop from the commands sent."""
        what = f'command timer failed: {type(exc).__name__}: {exc}'
        tracker = self._state.tracker
        if self._brake is not None or tracker is None:
            self._log.error('internal command timer', f'{what} (no command this tick)')
            return
        brake = FailBrake(tracker.limits, tracker.chain.lower, tracker.chain.upper)
        for stamp_ns, q in self._outputs.recent:
            if len(q) == tracker.chain.n:       # (not those of a model replaced since)
                brake.sent(self._clock.seconds(stamp_ns), q)
        if not brake.start():
            self._log.error('internal command timer', f'{what} (no command sent yet)')
            return
        text = (f'{what}; braking to rest from the last commands within the acceleration '
                'and jerk limits, the goal is dropped')
        self._log.error('internal command timer', text)
        self._status('ERROR', text, {'reached': False, 'failed': True})
        self._brake, self._tracker, self._trajectory_due = brake, tracker, True
        if self._outputs.sent_count == self._sent_at_tick:
            self.tick()

    def tick(self) -> None:
        """Send the stop's command for now; at rest, hand the command back (module docstring)."""
        brake, state, tracker = self._brake, self._state, self._state.tracker
        assert brake is not None
        assert tracker is not None
        if tracker is not self._tracker:
            # A new model of the same joints: the stop goes on, then the new model takes the
            # command at rest. (One of other joints is refused while the arm moves,
            # ik_node.ros.robot_setup.check_carry_over.)
            if tracker.names != self._tracker.names:
                self._brake = None
                self._log.error('failure stop', 'a model of other joints replaced the one '
                                'braking after a failed command timer: the stop ends')
                return
            self._tracker = tracker
        now_ns = max(self._clock.now_ns(), state.last_stamp_ns + 1)
        now = self._clock.seconds(now_ns)
        points = None
        if self._trajectory_due and self._outputs.sends_trajectories:
            points = brake.preview(now, TRAJECTORY_SPACING_S, 200)
        self._trajectory_due = False
        q, rest = brake.step(now)
        state.last_stamp_ns = now_ns
        state.last_command.update(zip(tracker.names, q.tolist()))
        self._outputs.command(tracker.names, q, now_ns, state.forward_index, points)
        if not rest:
            return
        self._brake = None
        self._end_jog()
        tracker.start_at(q, now)
        held = ' (held at a joint limit on the way)' if brake.clipped else ''
        text = (f'at rest after the failed command timer{held}; send a new goal or twist '
                'to go on')
        self._log.error('failure stop', text)
        self._status('ERROR', text, {'reached': False, 'failed': True})
