# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The command stream: jerk-limited motion to goals and along paths, with smooth slow-downs.

:class:`MotionCommander` turns "go there" into commands a real driver accepts. It owns the
:class:`ik_node.motion.trajectory.Motion` being commanded and the limits; the tracker asks it
for the command at each stamp (:meth:`MotionCommander.sample`). Every change starts from the
commanded state at that time, so position, velocity and acceleration stay continuous and
velocity, acceleration and jerk stay within the limits:

- :meth:`follow` a path of waypoints (straight segments, rest to rest: the arm stays on the
  lines that were checked); an arm in motion first brakes on its own path;
- :meth:`blend` to a goal from the current state (streamed targets): the curve is checked
  against the joint limits and, with obstacles, sampled for contacts before it is taken;
- :meth:`slow` (a speed scale, e.g. near a singularity) and :meth:`stop` (the quickest stop
  on the current path) keep the path and change only the timing.
"""

from typing import Sequence

from ik_node.model.chain import Chain
from ik_node.motion.planner import path_touches
from ik_node.motion.trajectory import (BlendSegment, JointSample, KinematicLimits, LineSegment,
                                       Motion, Segment)
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['MotionCommander', 'BLEND_SPACING']

# A blend's curve is checked at samples at most this far apart [rad or m], each chord with
# the certified edge check.
BLEND_SPACING = 0.05
# Speed scales closer than this are the same (no new profile is computed).
_SCALE_STEP = 0.02


class MotionCommander:
    """
    Jerk-limited commands for one chain (see the module docstring).

    limits: the joints' velocity, acceleration and jerk limits as commanded (scales applied).
    """

    def __init__(self, chain: Chain, limits: KinematicLimits):
        self.chain = chain
        self.limits = limits
        self._motion: Motion | None = None
        self.scale = 1.0
        self.revision = 0        # counts changes of the planned motion (for trajectories out)

    # State ------------------------------------------------------------------------------

    def reset(self, q: ArrayLike, now: float) -> np.ndarray:
        """Stand at rest at ``q`` (clipped into the limits) from ``now``; return it."""
        q = self.chain.clip(np.asarray(q, dtype=float))
        if self._motion is None:
            self._motion = Motion(q, now)
        else:
            self._motion.reset(q, now)
        self.scale = 1.0
        self.revision += 1
        return q.copy()

    @property
    def ready(self) -> bool:
        """Return True once a start position is known (:meth:`reset`)."""
        return self._motion is not None

    def sample(self, now: float) -> JointSample:
        """Return the commanded state at ``now`` (not before the last sample)."""
        assert self._motion is not None
        return self._motion.state(now)

    @property
    def moving(self) -> bool:
        """Return True while a segment is left to command."""
        return self._motion is not None and not self._motion.idle

    @property
    def goal(self) -> np.ndarray | None:
        """Return where the motion comes to rest, or None before :meth:`reset`."""
        return None if self._motion is None else self._motion.goal

    @property
    def segments(self) -> tuple[Segment, ...]:
        """Return the segments left, the active one first."""
        return () if self._motion is None else self._motion.segments

    def set_limits(self, limits: KinematicLimits, now: float) -> None:
        """Use ``limits`` from ``now`` on (the motion in progress is retimed)."""
        self.limits = limits
        self._retime(now)

    # Changes ----------------------------------------------------------------------------

    def follow(self, waypoints: ArrayLike, now: float) -> None:
        """
        Go along ``waypoints`` (m, n): straight segments, each from rest to rest.

        The first waypoint must be where the arm comes to rest: the current command when it
        stands, else the end of :meth:`stop` (an arm in motion brakes on its path first).
        """
        assert self._motion is not None
        w = np.asarray(waypoints, dtype=float)
        limits = self._limits()
        lines: list[Segment] = []
        t = now
        moving = self.moving
        if moving:
            self._motion.stop(now)
            lines = list(self._motion.segments)
            t = lines[-1].t_end if lines else now
        for a, b in zip(w[:-1], w[1:]):
            if np.any(a != b):
                lines.append(LineSegment(a, b, limits, t))
                t = lines[-1].t_end
        self._motion.replace(lines, now, from_rest=not moving)
        self.revision += 1

    def blend(self, q_goal: ArrayLike, now: float, obstacles: Sequence | None) -> str:
        """
        Go to ``q_goal`` (n,) from the state at ``now``; return why not ('' when taken).

        Refused (the motion in progress goes on) when the curve would leave the joint limits
        or, with ``obstacles`` (None: no collision check), may touch something.
        """
        assert self._motion is not None
        state = self._motion.state(now)
        goal = np.asarray(q_goal, dtype=float)
        if state.at_rest:
            # From rest the straight line: inside the limits box, checked as one edge.
            why = '' if obstacles is None else path_touches(
                self.chain, np.array([state.q, goal]), obstacles)
            if not why:
                # From ``now``, not deferred to the first sample: a stream step taken in the
                # same tick as that sample (a simulated clock standing still) would otherwise
                # restart from rest at every target and never get going.
                self._motion.replace([LineSegment(state.q, goal, self._limits(), now)], now)
                self.revision += 1
            return why
        segment = BlendSegment(state, goal, self._limits(), now)
        low, high = segment.extrema()
        tol = 1e-9
        out = (low < self.chain.lower - tol) | (high > self.chain.upper + tol)
        if np.any(out):
            names = ', '.join(n for n, o in zip(self.chain.joint_names, out) if o)
            return f'the blend from the current motion would overshoot the limits of {names}'
        if obstacles is not None:
            why = path_touches(self.chain, segment.samples(now, BLEND_SPACING), obstacles)
            if why:
                return why
        self._motion.replace([segment], now)
        self.revision += 1
        return ''

    def delay(self, shift: float) -> None:
        """Postpone the motion left by ``shift`` [s]: the commands stood still that long."""
        if self._motion is not None and shift > 0.0:
            self._motion.delay(shift)

    def stop(self, now: float) -> np.ndarray | None:
        """Brake as quickly as the limits allow on the current path; return the rest point."""
        if self._motion is None:
            return None
        if self.moving:
            self._motion.stop(now)
            self.revision += 1
        return self._motion.goal

    def stopping(self, now: float, scale: float = 1.0) -> Segment | None:
        """
        Return the quickest stop from ``now`` under ``scale`` x the acceleration and jerk limits.

        Not taken (see :meth:`take_stop`); None at rest.
        """
        return None if self._motion is None else self._motion.stopping(now, scale)

    def take_stop(self, stop: Segment, now: float) -> None:
        """Command ``stop`` (from :meth:`stopping`, maybe cut short) from ``now``."""
        assert self._motion is not None
        self._motion.replace([stop], now)
        self.revision += 1

    def slow(self, now: float, scale: float) -> None:
        """Command the motion at ``scale`` (0, 1] of the velocity limits from ``now``."""
        scale = float(min(max(scale, 1e-3), 1.0))
        if abs(scale - self.scale) < _SCALE_STEP and not (scale == 1.0 and self.scale < 1.0):
            return
        self.scale = scale
        self._retime(now)

    def remaining_path(self, now: float, spacing: float = BLEND_SPACING) -> np.ndarray:
        """Return (m, n) positions the motion still passes through, from ``now`` on."""
        rows = [self.sample(now).q[None, :]]
        for i, segment in enumerate(self.segments):
            rows.append(segment.samples(now if i == 0 else segment.t0, spacing))
        return np.vstack(rows)

    def _limits(self) -> KinematicLimits:
        return self.limits.scaled(self.scale) if self.scale != 1.0 else self.limits

    def _retime(self, now: float) -> None:
        if self.moving:
            assert self._motion is not None
            self._motion.slow(now, self._limits())
            self.revision += 1
