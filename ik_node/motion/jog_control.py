# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Who commands the arm, a goal motion or a jog: the latest input wins, never with a jump.

:class:`JogControl` sits between the jog inputs, the :class:`ik_node.motion.jog.Jogger` and
the goal motion of an :class:`ik_node.motion.tracker.IKTracker`. The priority:

- **a jog command while a goal motion moves** takes over from the goal motion's commanded
  state (position, velocity and acceleration at that time: :meth:`Jogger.take_over`), so the
  hand-over is as smooth as any twist change; the goal is dropped;
- **a goal while jogging** stops the jogger, which brakes to rest within its limits
  (``MODE_STOPPING``); the goal is held meanwhile (:meth:`JogControl.goal` returns True) and
  is due once the jog command rests (:attr:`JogTick.goal_due`): the goal motion then starts
  from that rest point, like any goal from an arm at rest;
- a jog command during that braking drops the held goal (the latest input wins);
- a zero twist or all-zero joint velocities never takes control (an idle gamepad or a
  publisher that streams zeros must not block goals); while jogging it brakes to rest.

Three guards end a jog smoothly rather than with a jump:

- **the arm lags**: a command that leads the measured arm by more than
  :data:`ik_node.motion.guards.LAG_PAUSE` of the following-error limit (the tracker's) pauses
  the jog, as it pauses a goal motion: the jogger brakes to rest within its limits and no jog
  command is taken (:attr:`JogControl.lagging` says why) until the lead is below
  :data:`~ik_node.motion.guards.LAG_RESUME` of it; the next command then starts from rest;
- **the feedback lost mid-jog** (:meth:`JogControl.brake`): the jog brakes to rest within
  its limits from its commanded state, its commands still going out (a driver that holds its
  last command would otherwise stop with a velocity step), and takes no jog command until
  the arm is heard again;
- **new settings mid-jog** (limits, solver, timeout: a new Jogger, :meth:`JogControl.carry_on`),
  or a new model of the same joints, take over the old jogger's commanded state and brake
  from it within the new limits; a jog command meanwhile goes on from there, blended as any
  twist change.

While the jog is in control each of its commands is handed to the tracker
(:meth:`IKTracker.follow_external`), so readings are judged against it (feedback, resync, the
following-error guard) and a later goal starts where the jog left the arm. Anything else that
restarts the tracker's command (a resync, a hold, a stalled arm) ends the jog at once.
Nothing here imports rclpy; every time is the caller's clock [s].
"""

import math
from typing import Callable, NamedTuple

from ik_node.errors import IKInputError
from ik_node.motion.guards import LAG_PAUSE, LAG_RESUME
from ik_node.motion.jog import Jogger, JogStep, MODE_IDLE, MODE_JOINT, MODE_TWIST
from ik_node.motion.tracker import GAP_PERIODS
import numpy as np

__all__ = ['JogControl', 'JogTick', 'CONTROL_GOAL', 'CONTROL_JOG_TWIST', 'CONTROL_JOG_JOINT']

# Which input is in control (``ik_status`` value ``control``).
CONTROL_GOAL = 'goal'
CONTROL_JOG_TWIST = 'jog twist'
CONTROL_JOG_JOINT = 'jog joint'
_CONTROL = {MODE_TWIST: CONTROL_JOG_TWIST, MODE_JOINT: CONTROL_JOG_JOINT}
# [s] the shortest gap read as the arm holding the last command (at 100 Hz GAP_PERIODS
# periods; at a kHz five periods are a scheduling hiccup, not a stop of the arm).
LONG_GAP = 0.05


class JogTick(NamedTuple):
    """
    One jog command and what came of it.

    q: (n,) the command to publish [rad or m]. step: the jogger's step (its sample's v and a,
    the mode, the scale and why). stall: why the tracker held the arm instead ('' when it
    did not; the jog has then ended). released: the jog came to rest and hands the arm back.
    goal_due: a goal held while the jog braked is to be started now.
    """

    q: np.ndarray
    step: JogStep
    stall: str
    released: bool
    goal_due: bool


class JogControl:
    """
    The jog's share of the arm (see the module docstring).

    tracker: the node's IKTracker. jogger: a Jogger of the same chain and limits. period
    [s]: the command period. A step late after the one before (a late cycle) goes on from
    the jog's commanded state at its time, as the jogger's blend says, never from rest; after
    a gap over :data:`GAP_PERIODS` periods and :data:`LONG_GAP` (the arm held the last
    command meanwhile) the jog starts again from rest at the last command (no jump ahead), as
    the tracker does; also when the gap lies before the jog's first step, after the last
    command of the tracker it took over from.
    """

    def __init__(self, tracker, jogger: Jogger, period: float = 0.01):
        self.tracker = tracker
        self.jogger = jogger
        self.period = float(period)
        self._t_given = math.inf
        self.in_control = False
        self.control = CONTROL_GOAL
        self.goal_held = False
        self._given: np.ndarray | None = None      # the last command handed to the tracker
        self.dropped_goal = False       # the last take-over ended a goal motion
        self.lagging = ''       # why the jog is paused: the arm lags ('' while it follows)
        self.braking = ''       # why the jog brakes to rest whatever comes (feedback lost)

    def carry_on(self, other: 'JogControl') -> None:
        """
        Take over the jog of ``other`` (an older jogger of these joints) and brake it.

        For new settings or a new model of the same joints mid-jog (module docstring): this
        control's jogger goes on from the state ``other``'s jogger commanded last, with no
        command (it brakes to rest within its own limits unless a jog command comes).
        Nothing happens if ``other`` is not in control or jogs other joints (a model of other
        joints is refused while the arm moves).
        """
        if not other.in_control or other.tracker.names != self.tracker.names:
            return
        self.jogger.take_over(other.jogger.state, other.jogger.t)
        self.in_control, self.control, self.goal_held = True, other.control, other.goal_held
        self.dropped_goal, self.lagging = other.dropped_goal, other.lagging
        self.braking = other.braking
        self._given, self._t_given = other._given, other._t_given

    def _check_lag(self) -> None:
        """Pause the jog while the arm lags (module docstring); go on once it caught up."""
        ratio = self.tracker.lag_ratio()
        worst = float(np.max(ratio, initial=0.0))
        if self.lagging and worst < LAG_RESUME:
            self.lagging = ''
        elif not self.lagging and worst > LAG_PAUSE:
            name = self.tracker.names[int(np.argmax(ratio))]
            self.lagging = (f'the arm lags behind the jog: {name} is {worst:.2f} x its '
                            'following-error limit from the command; the jog brakes and goes '
                            f'on once the arm is within {LAG_RESUME:g} x the limit')

    def command(self, mode: str, apply: Callable[[Jogger], None], zero: bool,
                now: float) -> bool:
        """
        Give the jogger a command at ``now``: ``apply(jogger)`` (e.g. a twist); mode: MODE_*.

        zero: the command asks for no motion (see the module docstring). Returns True when
        the jog is in control afterwards. While the arm lags (:attr:`lagging`) the command is
        not taken and a jog in control brakes. IKInputError (from ``apply``): the jog brakes
        to rest, as without a command, and the error goes on to the caller.
        """
        if zero:
            if self.in_control:
                self.jogger.stop(now)
            return self.in_control
        if not self.tracker.ready:
            raise IKInputError('arm position unknown: no jog until joint_states arrive')
        if self.braking:
            return self.in_control      # not taken: the jog brakes (see brake)
        self._check_lag()
        if self.lagging:
            if self.in_control:
                self.jogger.stop(now)
            return self.in_control
        jogger = self.jogger
        if not self.in_control:
            # The goal motion's commanded state now: position, velocity, acceleration. The
            # first step checks the time since the tracker's last command, as every step
            # does since the one before: after a gap the arm stood at that command.
            tracker = self.tracker
            self.dropped_goal = tracker.moving
            jogger.take_over(tracker.commander.sample(now), now)
            self._given, self._t_given = tracker.command, tracker.command_time
        try:
            apply(jogger)
        except IKInputError:
            jogger.stop(now)
            raise
        self.in_control, self.goal_held = True, False
        self.control = _CONTROL[mode]
        return True

    def brake(self, why: str, now: float) -> None:
        """
        Brake the jog to rest within the limits from its commanded state, whatever comes.

        For a jog whose arm is no longer heard (the feedback lost): the command stream must
        not stop at once (a driver holding its last command would stop the arm with a
        velocity step); it brakes on, and jog commands are not taken, until it is called
        with ``why`` '' (the arm heard again). ``why`` is what :attr:`braking` tells.
        """
        self.braking = why
        if why and self.in_control:
            self.jogger.stop(now)

    def goal(self, now: float) -> bool:
        """Return True when a goal arriving at ``now`` must wait: the jog brakes first."""
        if not self.in_control:
            return False
        self.jogger.stop(now)
        self.goal_held = True
        return True

    def release(self) -> bool:
        """End the jog at once (another part restarted the command); True if it was held."""
        held = self.goal_held
        self.in_control, self.goal_held, self.control = False, False, CONTROL_GOAL
        self.braking = ''       # (the node checks the feedback before the next jog)
        self._given, self._t_given = None, math.inf
        return held

    def step(self, now: float) -> JogTick | None:
        """Return the jog command at ``now``, or None when the jog is not in control."""
        if not self.in_control:
            return None
        tracker = self.tracker
        if self._given is not None and not np.array_equal(tracker.command, self._given):
            self.release()      # a resync, a hold or a stall restarted the command
            return None
        if now - self._t_given > max(GAP_PERIODS * self.period, LONG_GAP):
            # A long gap: the arm held the last command meanwhile (stood there). Sampling the
            # jog's trajectory at ``now`` would jump it ahead; the jog starts again from rest
            # at the last command, as the tracker does for a goal motion.
            self.jogger.restart_from_rest(now - self.period, self._given)
        # A late step within GAP_PERIODS goes on on the jog's trajectory at ``now``.
        self._t_given = now
        self._check_lag()
        if self.lagging or self.braking:
            self.jogger.stop(now)
        step = self.jogger.step(now)
        q = tracker.follow_external(step.sample.q, now)
        stall = tracker.stall
        released = bool(stall) or step.mode == MODE_IDLE
        goal_due = released and self.goal_held and not stall
        if released:
            self.release()
        else:
            self._given = q
        return JogTick(q, step, stall, released, goal_due)
