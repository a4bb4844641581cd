# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A jerk-limited blend of joint velocities toward a target velocity (Ruckig's velocity interface).

The jog steps along one: from the commanded state (q, v, a) to a wanted velocity under the
acceleration and jerk limits, never a step in v or a.

A blend is **in step** when the state's acceleration is parallel to the velocity change (from
rest, from a steady velocity, a stop in the middle of an in-step blend): every joint's velocity
then moves on one line, v(t) = v0 + s(t) * (v_target - v0), so the tool keeps its direction.
It is planned as that one scalar profile s(t) from 0 to 1, whose limits are the tightest of
the joints' divided by their share of the change: time-optimal for the joint that limits, as
Ruckig's phase synchronisation would be. (Ruckig phase-synchronises only inputs whose
velocities, acceleration and target are all on one line through zero, checked to 2e-16
absolute, so a blend from a velocity to another not parallel to it, or from rounded
samples, fell back to time synchronisation: each joint its own profile shape, the tool off
its line by up to a few per cent of the change.) Any other state is blended joint by joint,
time-synchronised.

Times are from the blend's start [s]; past its end the target velocity holds.
"""

from ik_node.errors import IKInputError
from ik_node.motion.trajectory import JointSample
import numpy as np
from numpy.typing import ArrayLike
from ruckig import (ControlInterface, InputParameter, Result, Ruckig, RuckigError,
                    Synchronization, Trajectory)

__all__ = ['VelocityBlend', 'nearest_in_step']

# An acceleration below this [rad/s^2 or m/s^2] in every joint is none.
_EPS_ACCELERATION = 1e-9
# An acceleration this close to parallel to the velocity change (relative) is parallel.
_PARALLEL = 1e-6
# The most a blend on the line may carry the velocity past its change, in changes.
_LINE_OVERSHOOT = 100.0


class VelocityBlend:
    """
    Plan and sample blends toward target velocities (see the module docstring).

    acceleration, jerk: (n,) limits, finite and > 0 [rad/s^2, rad/s^3 or m].
    """

    def __init__(self, acceleration: ArrayLike, jerk: ArrayLike):
        self._acceleration = np.array(acceleration, dtype=float)
        self._jerk = np.array(jerk, dtype=float)
        n = self._acceleration.shape[0]
        self._n = n
        self._joints = _Planner(n, self._acceleration, self._jerk)
        self._line = _Planner(1, np.ones(1), np.ones(1))
        # q0, v0 and v_target - v0 of an in-step blend (the joints' trajectory holds its own).
        self._q0, self._v0, self._change = np.zeros(n), np.zeros(n), np.zeros(n)
        self._in_step = False
        self.duration = 0.0

    @property
    def in_step(self) -> bool:
        """Return True when the last blend planned keeps every joint's velocity on one line."""
        return self._in_step

    def plan(self, s: JointSample, v_target: np.ndarray) -> None:
        """Plan the blend from the state ``s`` to ``v_target`` (n,); IKInputError if none."""
        change = v_target - s.v
        alpha = self._parallel_share(s.a, change)
        if alpha is not None:
            moving = change != 0.0
            share = np.abs(change[moving])
            acceleration = float(np.min(self._acceleration[moving] / share))
            jerk = float(np.min(self._jerk[moving] / share))
            # Braking the acceleration in hand carries the velocity alpha^2 / (2 jerk) of the
            # change past it: many times the change itself (micro-rad/s left to go while
            # accelerating), the line's units are too fine for Ruckig (a CI run: no blend
            # found, the tick failed); the joints' planner takes that in theirs.
            if alpha * alpha <= 2.0 * _LINE_OVERSHOOT * jerk:
                self._line.set_limits(np.array([acceleration]), np.array([jerk]))
                self.duration = self._line.plan(np.zeros(1), np.array([alpha]), np.ones(1))
                self._q0, self._v0, self._change = s.q.copy(), s.v.copy(), change
                self._in_step = True
                return
        a = np.zeros(self._n) if np.abs(s.a).max(initial=0.0) <= _EPS_ACCELERATION else s.a
        self.duration = self._joints.plan(s.v, a, v_target, s.q)
        self._in_step = False

    def at(self, t: float) -> JointSample:
        """Return the state ``t`` [s] after the blend's start."""
        if self._in_step:
            (p,), (v,), (a,) = self._line.trajectory.at_time(t)
            change = self._change
            return JointSample(self._q0 + self._v0 * t + p * change, self._v0 + v * change,
                               a * change)
        q, v, a = self._joints.at(t)
        return JointSample(q, v, a)

    def _parallel_share(self, a: np.ndarray, change: np.ndarray) -> float | None:
        """
        Return alpha with a = alpha * change (a within _PARALLEL of it), else None.

        None also for no change at all. An acceleration within _EPS_ACCELERATION of 0 is 0.
        """
        norm_change = float(np.linalg.norm(change))
        if norm_change == 0.0:
            return None
        if np.abs(a).max(initial=0.0) <= _EPS_ACCELERATION:
            return 0.0
        alpha = float(a @ change) / norm_change ** 2
        if np.linalg.norm(alpha * change - a) <= _PARALLEL * np.linalg.norm(a):
            return alpha
        return None


class _Planner:
    """One Ruckig velocity-interface problem of ``n`` joints, reused between plans."""

    def __init__(self, n: int, acceleration: np.ndarray, jerk: np.ndarray):
        self._ruckig = Ruckig(n)
        self._input = InputParameter(n)
        self._input.control_interface = ControlInterface.Velocity
        self._input.target_acceleration = [0.0] * n
        self.trajectory = Trajectory(n)
        self._velocity_floor = np.ones(n)
        self.set_limits(acceleration, jerk)

    def set_limits(self, acceleration: np.ndarray, jerk: np.ndarray) -> None:
        self._input.max_acceleration = acceleration.tolist()
        self._input.max_jerk = jerk.tolist()

    def plan(self, v0: np.ndarray, a0: np.ndarray, v_target: np.ndarray,
             q0: np.ndarray | None = None) -> float:
        """Plan from (q0, v0, a0) to v_target; return the duration [s]."""
        inp = self._input
        inp.current_position = [0.0] * v0.shape[0] if q0 is None else q0.tolist()
        inp.current_velocity = v0.tolist()
        inp.current_acceleration = a0.tolist()
        inp.target_velocity = v_target.tolist()
        # Not a limit of the velocity interface, but checked against its inputs.
        inp.max_velocity = np.maximum(self._velocity_floor,
                                      np.maximum(np.abs(v0), np.abs(v_target))).tolist()
        for sync in (Synchronization.Phase, Synchronization.No):
            inp.synchronization = sync
            try:
                result = self._ruckig.calculate(inp, self.trajectory)
            except RuckigError:
                continue
            if result in (Result.Working, Result.Finished):
                return float(self.trajectory.duration)
        raise IKInputError(f'Ruckig found no velocity blend from v={v0.tolist()}, '
                           f'a={a0.tolist()} to {v_target.tolist()}')

    def at(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        q, v, a = self.trajectory.at_time(t)
        return np.array(q), np.array(v), np.array(a)


def nearest_in_step(s: JointSample, v_target: np.ndarray, tolerance: float) -> np.ndarray:
    """
    Return the velocity a blend from ``s`` can reach in step nearest ``v_target`` (n,).

    A state mid-blend (a braking) reaches in step only the velocities on the line through its
    velocity along its acceleration. The one nearest ``v_target`` is returned when it is
    within ``tolerance`` [1] of ``|v_target|``, else ``v_target`` itself (also from a state
    without acceleration, which reaches every velocity in step).
    """
    norm_a = float(np.linalg.norm(s.a))
    if np.abs(s.a).max(initial=0.0) <= _EPS_ACCELERATION:
        return v_target
    on_line = s.v + float(s.a @ (v_target - s.v)) / norm_a ** 2 * s.a
    if (np.array_equal(on_line, s.v)
            or np.linalg.norm(v_target - on_line) > tolerance * np.linalg.norm(v_target)):
        return v_target
    return on_line
