# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Jerk-limited joint motion, sampled at the commands' stamps (Ruckig).

A motion is a queue of segments, each from a joint state to rest at its end point:

- :class:`LineSegment`: the straight joint-space line q0 -> q1, travelled with one scalar
  profile p(t) in [0, 1] (q = q0 + p * (q1 - q0)). The profile's limits are the tightest of the
  joints' own divided by their share of the line, so every joint keeps its velocity,
  acceleration and jerk limits and the arm never leaves the line it was checked on, also
  while it slows down or stops early.
- :class:`BlendSegment`: from any state (moving, accelerating) to rest at q1, each joint
  time-synchronised (a new goal mid-motion, a streamed target). Its path is a curve, even
  from rest: the caller checks it (:meth:`Segment.samples`) before taking it.

Both are time-optimal under the limits and continuous in position, velocity and acceleration
from the state they start at; consecutive segments meet at rest. :class:`Motion` holds the
queue and answers :meth:`Motion.state` for any time: commands are samples of a trajectory at
their stamps, so a late timer tick gives a later sample, never a bigger step.

Ruckig (PyPI ``ruckig``, community version) computes the profiles: about 2 us each.
"""

from dataclasses import dataclass
import math
from typing import NamedTuple, Sequence

import numpy as np
from numpy.typing import ArrayLike
from ruckig import (ControlInterface, InputParameter, Result, Ruckig, RuckigError,
                    Synchronization, Trajectory)

__all__ = ['KinematicLimits', 'JointSample', 'Segment', 'LineSegment', 'BlendSegment',
           'Motion', 'TrajectoryError', 'cut_at']

# Profiles shorter than this [s] count as done (Ruckig's own resolution is about 1e-12).
_EPS_TIME = 1e-9
# A profile parameter beyond [0, 1] by more than this counts as leaving the line.
_EPS_P = 1e-9
# A line shorter than this [rad or m] in every joint is no motion (its end is taken at once).
_EPS_MOVE = 1e-9


class TrajectoryError(RuntimeError):
    """Ruckig refused a profile (input outside what it can solve); the message says why."""


class KinematicLimits(NamedTuple):
    """Per-joint limits (n,) each, finite and > 0: [rad/s, rad/s^2, rad/s^3] (m for prismatic)."""

    velocity: np.ndarray
    acceleration: np.ndarray
    jerk: np.ndarray

    @classmethod
    def of(cls, velocity: ArrayLike, acceleration: ArrayLike, jerk: ArrayLike
           ) -> 'KinematicLimits':
        """Return checked read-only copies; ValueError names the first bad entry."""
        arrays = []
        for name, values in (('velocity', velocity), ('acceleration', acceleration),
                             ('jerk', jerk)):
            a = np.array(values, dtype=float).reshape(-1)
            bad = ~(np.isfinite(a) & (a > 0.0))
            if np.any(bad):
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f'{name} limit of joint {i} must be finite and > 0, got {a[i]}')
            a.setflags(write=False)
            arrays.append(a)
        if not arrays[0].shape == arrays[1].shape == arrays[2].shape:
            raise ValueError('velocity, acceleration and jerk limits differ in length')
        return cls(*arrays)

    def scaled(self, velocity: float = 1.0) -> 'KinematicLimits':
        """Return the limits with the velocity scaled by ``velocity`` (> 0)."""
        return KinematicLimits(self.velocity * velocity, self.acceleration, self.jerk)


@dataclass(frozen=True)
class JointSample:
    """Commanded joint state at one time: positions, velocities, accelerations (n,) each."""

    q: np.ndarray
    v: np.ndarray
    a: np.ndarray

    @classmethod
    def rest(cls, q: ArrayLike) -> 'JointSample':
        """Return the state at rest at ``q``."""
        q = np.array(q, dtype=float)
        return cls(q, np.zeros_like(q), np.zeros_like(q))

    @property
    def at_rest(self) -> bool:
        """Return True when no joint moves or accelerates."""
        return not (np.any(self.v) or np.any(self.a))


def _solve(inp: InputParameter, dof: int) -> Trajectory:
    trajectory = Trajectory(dof)
    try:
        result = Ruckig(dof).calculate(inp, trajectory)
    except RuckigError as exc:        # input it cannot solve (limits, huge values)
        raise TrajectoryError(f'Ruckig could not compute a profile: {exc}') from exc
    if result not in (Result.Working, Result.Finished):
        raise TrajectoryError(f'Ruckig could not compute a profile: {result.name}')
    return trajectory


class Segment:
    """A piece of motion from ``t0`` [s] to rest at :attr:`end` after :attr:`duration` [s]."""

    t0: float
    duration: float
    end: np.ndarray

    def at(self, t: float) -> JointSample:
        """Return the state at time ``t`` [s] (clamped to the segment's span)."""
        raise NotImplementedError

    def slowed(self, t: float, limits: KinematicLimits) -> 'Segment':
        """Return the same path from time ``t`` under (lower velocity) ``limits``."""
        raise NotImplementedError

    def stopping(self, t: float, scale: float = 1.0) -> 'Segment':
        """
        Return the quickest stop from the state at ``t``, as a segment from ``t``.

        scale (>= 1): the factor on the acceleration and jerk limits the stop may use (an
        emergency stop, :mod:`ik_node.motion.obstacle_stop`); 1 keeps the limits.
        """
        raise NotImplementedError

    @property
    def t_end(self) -> float:
        """Return the time [s] the segment comes to rest."""
        return self.t0 + self.duration

    def samples(self, t_from: float, spacing: float, t_to: float | None = None
                ) -> np.ndarray:
        """
        Return (m, n) positions from ``t_from`` to ``t_to`` (None: the end), ``spacing`` apart.

        spacing [rad or m]: the largest joint change between two samples (for a collision
        check of the path between them). The first row is the state at ``t_from``, the last
        the state at ``t_to``.
        """
        t_end = self.t_end if t_to is None else min(max(t_to, self.t0), self.t_end)
        t_from = min(max(t_from, self.t0), t_end)
        span = t_end - t_from
        if span <= _EPS_TIME:
            return self.at(t_from).q[None, :]
        # Bound the joint travel by the peak speed, sampled finely enough to find it.
        probe = np.linspace(t_from, t_end, 33)
        qs = np.array([self.at(t).q for t in probe])
        travel = np.max(np.sum(np.abs(np.diff(qs, axis=0)), axis=0))
        count = max(2, int(math.ceil(2.0 * travel / spacing)) + 1)
        times = np.linspace(t_from, t_end, count)
        return np.array([self.at(t).q for t in times])


class LineSegment(Segment):
    """
    The straight line q0 -> q1 with a jerk-limited scalar profile (see the module docstring).

    start: the profile state (p, dp/dt, d2p/dt2) at ``t0``, default at rest at p = 0.
    """

    def __init__(self, q0: ArrayLike, q1: ArrayLike, limits: KinematicLimits, t0: float,
                 start: tuple[float, float, float] = (0.0, 0.0, 0.0)):
        self.q0 = np.array(q0, dtype=float)
        self.end = np.array(q1, dtype=float)
        self.dq = self.end - self.q0
        self.t0 = float(t0)
        self.limits = limits
        moving = np.abs(self.dq) > _EPS_MOVE
        if not np.any(moving):
            self._profile = None
            self.duration = 0.0
            return
        share = np.abs(self.dq[moving])
        p_lim = [float(np.min(lim[moving] / share)) for lim in limits]
        inp = InputParameter(1)
        inp.current_position, inp.current_velocity, inp.current_acceleration = (
            [start[0]], [start[1]], [start[2]])
        inp.target_position, inp.target_velocity, inp.target_acceleration = [1.0], [0.0], [0.0]
        inp.max_velocity, inp.max_acceleration, inp.max_jerk = ([p_lim[0]], [p_lim[1]],
                                                                [p_lim[2]])
        self._profile = _solve(inp, 1)
        self.duration = float(self._profile.duration)
        self._p_lim = p_lim

    def _p(self, t: float) -> tuple[float, float, float]:
        if self._profile is None:
            return 1.0, 0.0, 0.0
        p, dp, ddp = self._profile.at_time(min(max(t - self.t0, 0.0), self.duration))
        return p[0], dp[0], ddp[0]

    def at(self, t: float) -> JointSample:
        """Return the state at ``t`` [s] on the line."""
        p, dp, ddp = self._p(t)
        return JointSample(self.q0 + p * self.dq, dp * self.dq, ddp * self.dq)

    def slowed(self, t: float, limits: KinematicLimits) -> 'LineSegment':
        """Return the rest of the line from ``t`` under ``limits`` (the line is kept)."""
        return LineSegment(self.q0, self.end, limits, t, self._p(t))

    def stopping(self, t: float, scale: float = 1.0) -> Segment:
        """Return the quickest stop on the line from the state at ``t`` (see Segment)."""
        if self._profile is None:
            return _Rest(self.end, t)
        return _stop_on_line(self, t, self._p(t), scale)


def _stop_on_line(line: LineSegment, t: float, state: tuple[float, float, float],
                  scale: float) -> Segment:
    """Return the quickest stop on ``line`` from the profile ``state`` (p, p', p'') at ``t``."""
    p, dp, ddp = state
    if dp == 0.0 and ddp == 0.0:
        return _Rest(line.q0 + p * line.dq, t)
    inp = InputParameter(1)
    inp.control_interface = ControlInterface.Velocity
    inp.current_position, inp.current_velocity, inp.current_acceleration = [p], [dp], [ddp]
    inp.target_velocity, inp.target_acceleration = [0.0], [0.0]
    v, a, j = line._p_lim
    inp.max_velocity, inp.max_acceleration, inp.max_jerk = [v], [a * scale], [j * scale]
    stop = _solve(inp, 1)
    p_stop = stop.at_time(stop.duration)[0][0]
    if p_stop > 1.0 + _EPS_P:
        return line.slowed(t, line.limits)    # the line's own end is the nearer stop
    return _LineStop(line, stop, t, scale)


class _LineStop(Segment):
    """A stop on a line: the line's geometry with a velocity-interface profile to rest."""

    def __init__(self, line: LineSegment, profile: Trajectory, t0: float, scale: float):
        self._line, self._profile, self.t0 = line, profile, float(t0)
        self.scale = float(scale)
        self.duration = float(profile.duration)
        p = profile.at_time(self.duration)[0][0]
        self.end = line.q0 + p * line.dq

    def _p(self, t: float) -> tuple[float, float, float]:
        p, dp, ddp = self._profile.at_time(min(max(t - self.t0, 0.0), self.duration))
        return p[0], dp[0], ddp[0]

    def at(self, t: float) -> JointSample:
        p, dp, ddp = self._p(t)
        line = self._line
        return JointSample(line.q0 + p * line.dq, dp * line.dq, ddp * line.dq)

    def slowed(self, t: float, limits: KinematicLimits) -> Segment:
        return self             # already stopping as fast as it may

    def stopping(self, t: float, scale: float = 1.0) -> Segment:
        if scale <= self.scale:
            return self
        return _stop_on_line(self._line, t, self._p(t), scale)


class _Rest(Segment):
    """Standing at ``q`` from ``t0`` (a zero-length segment)."""

    def __init__(self, q: ArrayLike, t0: float):
        self.end = np.array(q, dtype=float)
        self.t0, self.duration = float(t0), 0.0

    def at(self, t: float) -> JointSample:
        return JointSample.rest(self.end)

    def slowed(self, t: float, limits: KinematicLimits) -> Segment:
        return self

    def stopping(self, t: float, scale: float = 1.0) -> Segment:
        return self


class BlendSegment(Segment):
    """
    From the state ``start`` at ``t0`` to rest at ``q1``, joints time-synchronised.

    The path is a curve in general (Ruckig's phase synchronisation keeps a straight line only
    in special cases; from rest, use :class:`LineSegment`): check :meth:`samples` before
    commanding it.
    """

    def __init__(self, start: JointSample, q1: ArrayLike, limits: KinematicLimits, t0: float):
        self.start, self.t0, self.limits = start, float(t0), limits
        self.end = np.array(q1, dtype=float)
        n = self.end.shape[0]
        inp = InputParameter(n)
        inp.current_position = start.q.tolist()
        inp.current_velocity = start.v.tolist()
        inp.current_acceleration = start.a.tolist()
        inp.target_position = self.end.tolist()
        inp.target_velocity, inp.target_acceleration = [0.0] * n, [0.0] * n
        inp.max_velocity = limits.velocity.tolist()
        inp.max_acceleration = limits.acceleration.tolist()
        inp.max_jerk = limits.jerk.tolist()
        inp.synchronization = Synchronization.Time
        self._profile = _solve(inp, n)
        self.duration = float(self._profile.duration)

    def at(self, t: float) -> JointSample:
        """Return the state at ``t`` [s]."""
        q, v, a = self._profile.at_time(min(max(t - self.t0, 0.0), self.duration))
        return JointSample(np.array(q), np.array(v), np.array(a))

    def extrema(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the (n,) lowest and highest position each joint passes through."""
        ext = self._profile.position_extrema
        return np.array([e.min for e in ext]), np.array([e.max for e in ext])

    def slowed(self, t: float, limits: KinematicLimits) -> Segment:
        """Return a blend to the same end from the state at ``t`` under ``limits``."""
        return BlendSegment(self.at(t), self.end, limits, t)

    def stopping(self, t: float, scale: float = 1.0) -> Segment:
        """Return every joint's quickest stop from the state at ``t`` (see Segment)."""
        return _joint_stop(self.at(t), self.limits, t, scale)


def _joint_stop(s: JointSample, limits: KinematicLimits, t: float, scale: float) -> Segment:
    """Return every joint's quickest stop from the state ``s`` at ``t``."""
    if s.at_rest:
        return _Rest(s.q, t)
    n = s.q.shape[0]
    inp = InputParameter(n)
    inp.control_interface = ControlInterface.Velocity
    inp.synchronization = Synchronization.No
    inp.current_position, inp.current_velocity = s.q.tolist(), s.v.tolist()
    inp.current_acceleration = s.a.tolist()
    inp.target_velocity, inp.target_acceleration = [0.0] * n, [0.0] * n
    inp.max_velocity = limits.velocity.tolist()
    inp.max_acceleration = (limits.acceleration * scale).tolist()
    inp.max_jerk = (limits.jerk * scale).tolist()
    return _Stop(_solve(inp, n), t, limits, scale)


class _Stop(Segment):
    """Each joint's quickest stop (velocity interface) from a moving state."""

    def __init__(self, profile: Trajectory, t0: float, limits: KinematicLimits,
                 scale: float):
        self._profile, self.t0 = profile, float(t0)
        self.limits, self.scale = limits, float(scale)
        self.duration = float(profile.duration)
        self.end = np.array(profile.at_time(self.duration)[0])

    def at(self, t: float) -> JointSample:
        q, v, a = self._profile.at_time(min(max(t - self.t0, 0.0), self.duration))
        return JointSample(np.array(q), np.array(v), np.array(a))

    def slowed(self, t: float, limits: KinematicLimits) -> Segment:
        return self

    def stopping(self, t: float, scale: float = 1.0) -> Segment:
        if scale <= self.scale:
            return self
        return _joint_stop(self.at(t), self.limits, t, scale)


class _Cut(Segment):
    """
    A segment followed up to ``t_cut``, then held there at once (a velocity step).

    Only for a stop that no bounded deceleration keeps out of contact
    (:mod:`ik_node.motion.obstacle_stop`): the commands follow the stop while it is clear and
    hold at its last clear state.
    """

    def __init__(self, segment: Segment, t_cut: float):
        self._segment, self.t0 = segment, segment.t0
        self.duration = max(float(t_cut) - segment.t0, 0.0)
        self.end = segment.at(self.t_end).q

    def at(self, t: float) -> JointSample:
        if t >= self.t_end:
            return JointSample.rest(self.end)
        # Relative to t0, which the queue may move (Motion.delay): the inner segment's clock
        # stays where it was made.
        return self._segment.at(self._segment.t0 + (t - self.t0))

    def slowed(self, t: float, limits: KinematicLimits) -> Segment:
        return self

    def stopping(self, t: float, scale: float = 1.0) -> Segment:
        return self


def cut_at(segment: Segment, t_cut: float) -> Segment:
    """Return ``segment`` followed until ``t_cut`` [s], then held there (see :class:`_Cut`)."""
    return _Cut(segment, t_cut)


class Motion:
    """
    The commanded motion: a queue of segments from a state, sampled at any later time.

    Start it with :meth:`reset` (at rest at q). :meth:`state` samples the motion at ``now``
    and drops the segments that ended (the next one starts exactly when the one before came
    to rest). Times are seconds of the caller's clock, non-decreasing.
    """

    def __init__(self, q: ArrayLike, now: float):
        self._segments: list[Segment] = []
        self._deferred = False
        self.reset(q, now)

    def reset(self, q: ArrayLike, now: float) -> None:
        """Stand at rest at ``q`` from ``now``: every segment is dropped."""
        self._rest = np.array(q, dtype=float)
        self._segments = []
        self._t = float(now)
        self._deferred = False

    @property
    def idle(self) -> bool:
        """Return True when no segment is left (the arm stands at :attr:`goal`)."""
        return not self._segments

    @property
    def goal(self) -> np.ndarray:
        """Return where the motion comes to rest at last (n,)."""
        return (self._segments[-1].end if self._segments else self._rest).copy()

    @property
    def segments(self) -> tuple[Segment, ...]:
        """Return the segments left, the active one first."""
        return tuple(self._segments)

    def state(self, now: float) -> JointSample:
        """Return the commanded state at ``now`` (which must not go back in time)."""
        now = max(float(now), self._t)
        self._t = now
        if self._deferred and self._segments:
            # A motion from rest starts at its first sample, however long it took to plan:
            # the arm stood still until then.
            shift = now - self._segments[0].t0
            for segment in self._segments:
                segment.t0 += shift
            self._deferred = False
            return self._segments[0].at(now)
        while self._segments and now >= self._segments[0].t_end:
            done = self._segments.pop(0)
            self._rest = done.end
            if self._segments:
                self._segments[0] = self._restart(self._segments[0], done.t_end)
        if not self._segments:
            return JointSample.rest(self._rest)
        return self._segments[0].at(now)

    @staticmethod
    def _restart(segment: Segment, t0: float) -> Segment:
        """Return ``segment`` moved to start at ``t0`` (queued segments start at rest)."""
        segment.t0 = float(t0)
        return segment

    def replace(self, segments: Sequence[Segment], now: float, from_rest: bool = False
                ) -> None:
        """
        Make ``segments`` the motion from ``now`` (the first must start at ``now``).

        from_rest: the motion starts from rest, at its first sample (:meth:`state`) rather
        than at ``now``: the time a caller took to plan it is not skipped.
        """
        self.state(now)
        self._segments = list(segments)
        self._deferred = bool(from_rest) and bool(self._segments)

    def delay(self, shift: float) -> None:
        """Postpone every segment left by ``shift`` [s] (> 0): the motion waits that long."""
        for segment in self._segments:
            segment.t0 += float(shift)

    def slow(self, now: float, limits: KinematicLimits) -> None:
        """Go on along the same path from ``now`` under ``limits`` (queued ones too)."""
        if not self._segments:
            return
        self.state(now)
        if not self._segments:
            return
        first = self._segments[0].slowed(now, limits)
        self._segments = [first] + [s.slowed(s.t0, limits) if isinstance(s, LineSegment)
                                    else s for s in self._segments[1:]]

    def stop(self, now: float) -> np.ndarray:
        """Brake from ``now`` as quickly as the limits allow; return where it comes to rest."""
        self.state(now)
        if self._segments:
            self._segments = [self._segments[0].stopping(now)]
        return self.goal

    def stopping(self, now: float, scale: float = 1.0) -> Segment | None:
        """Return the stop from ``now`` (see :meth:`Segment.stopping`), not taken; None at rest."""
        self.state(now)
        return self._segments[0].stopping(now, scale) if self._segments else None
