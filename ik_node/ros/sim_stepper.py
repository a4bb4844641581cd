# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The simulated arm's motion model: finite, inside the limits, velocity limited.

:mod:`ik_node.ros.sim_arm` moves its joints with :class:`CommandStepper` (the IK node's own
commands follow jerk-limited trajectories, :mod:`ik_node.motion`). No rclpy here. Given the
previous command ``q_prev`` (always finite and inside the limits) and a goal ``q_goal``, one
step is::

    g    = clip(q_goal, lower, upper)         non-finite goal entries are replaced by q_prev
    dq   = g - q_prev                         (shortest angle for continuous joints)
    dq   = clip(dq, -v_max * dt, v_max * dt)  dt = min(elapsed, max_dt)
    q    = q_prev + dq

``q`` lies between ``q_prev`` and ``g``, both inside the limits, so it is inside the limits too,
and ``|q - q_prev| <= v_max * dt`` per joint. A goal far away is approached over several steps,
never jumped to. The step reports which joints it clamped and why.
"""

import math

from ik_node.motion.joint_space import wrap_angle
from ik_node.motion.outcome import StepReport
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['CommandStepper']


class CommandStepper:
    """
    Velocity-limited stepping of a joint command toward a goal, inside the joint limits.

    lower, upper: (n,) limits [rad or m] (-inf/+inf for continuous joints); v_max: (n,)
    velocity limits [rad/s or m/s], finite and > 0; continuous: (n,) bool, for which joints a
    difference is taken the short way round; max_dt: longest time one step may be sized for [s],
    so that a command after a pause still moves by one period's worth at most.
    """

    def __init__(self, lower: ArrayLike, upper: ArrayLike, v_max: ArrayLike,
                 continuous: ArrayLike | None = None, max_dt: float = 0.01):
        self.lower = np.array(lower, dtype=float)
        self.upper = np.array(upper, dtype=float)
        self.v_max = np.array(v_max, dtype=float)
        n = self.lower.shape[0]
        if self.lower.shape != (n,) or self.upper.shape != (n,) or self.v_max.shape != (n,):
            raise ValueError('lower, upper and v_max must all have shape (n,)')
        if np.any(self.lower > self.upper):
            raise ValueError('lower limit above upper limit')
        if not np.all(np.isfinite(self.v_max)) or np.any(self.v_max <= 0.0):
            raise ValueError(f'velocity limits must be finite and > 0, got {self.v_max.tolist()}')
        self.continuous = (np.zeros(n, dtype=bool) if continuous is None
                           else np.array(continuous, dtype=bool).reshape(n))
        if not (math.isfinite(max_dt) and max_dt > 0.0):
            raise ValueError(f'max_dt must be finite and > 0, got {max_dt}')
        self.max_dt = float(max_dt)
        self._q: np.ndarray | None = None

    @property
    def n(self) -> int:
        """Return the number of joints."""
        return self.lower.shape[0]

    @property
    def q(self) -> np.ndarray | None:
        """Return the last command (n,), or None before :meth:`reset`."""
        return None if self._q is None else self._q.copy()

    def reset(self, q: ArrayLike) -> np.ndarray:
        """
        Start from the measured or assumed position ``q`` (n,), clipped into the limits.

        Raises ValueError if ``q`` has the wrong shape or is not finite.
        """
        q = np.array(q, dtype=float).reshape(-1)
        if q.shape != (self.n,) or not np.all(np.isfinite(q)):
            raise ValueError(f'start position must be {self.n} finite numbers, got {q.tolist()}')
        self._q = np.clip(q, self.lower, self.upper)
        return self._q.copy()

    def step(self, q_goal: ArrayLike, dt: float) -> StepReport:
        """
        Move the command toward ``q_goal`` (n,) for ``dt`` seconds and return the report.

        A negative or non-finite ``dt`` counts as 0 (the command holds); ``dt`` above
        ``max_dt`` counts as ``max_dt``. Raises RuntimeError before :meth:`reset`.
        """
        if self._q is None:
            raise RuntimeError('CommandStepper.step called before reset')
        goal = np.array(q_goal, dtype=float).reshape(-1)
        if goal.shape != (self.n,):
            raise ValueError(f'goal must have {self.n} elements, got {goal.size}')
        dt = float(dt)
        dt = min(dt, self.max_dt) if math.isfinite(dt) and dt > 0.0 else 0.0
        prev = self._q
        nonfinite = ~np.isfinite(goal)
        goal = np.where(nonfinite, prev, goal)
        clipped = np.clip(goal, self.lower, self.upper)
        position_clamped = clipped != goal
        diff = clipped - prev
        if np.any(self.continuous):
            diff = np.where(self.continuous, wrap_angle(diff), diff)
        bound = self.v_max * dt
        dq = np.clip(diff, -bound, bound)
        velocity_clamped = np.abs(diff) > bound
        q = prev + dq
        # Rounding cannot push q out of the limits by more than an ulp, but clip it anyway.
        q = np.clip(q, self.lower, self.upper)
        self._q = q
        return StepReport(q=q.copy(), dt=dt, nonfinite=nonfinite,
                          position_clamped=position_clamped,
                          velocity_clamped=velocity_clamped,
                          reached=not bool(np.any(velocity_clamped)))
