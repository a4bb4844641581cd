# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A stop from the commands already sent, for when the motion layer itself fails.

If computing a command raises (a bug, a planner that finds no profile), the arm must not be
left to hold its last command: a position-controlled driver would stop it within one period,
whatever its speed (a velocity step), and a node that skips ticks and comes back later jumps.
:class:`FailBrake` needs nothing of the part that failed: it reads the arm's state as a driver
does, from the last commands and their stamps (velocity and acceleration by differences), and
brakes each joint to rest with its acceleration and jerk limits: the acceleration ramps (jerk
at most the limit) toward the largest one that still ends at rest without overshoot,
``-sign(v) min(a_max, sqrt(2 j_max |v|))``, so it comes back to zero as the velocity does.

No rclpy here: the node feeds it the commands it published (:meth:`FailBrake.sent`) and
publishes :meth:`FailBrake.step`'s positions while it brakes.
"""

from collections import deque
import math

from ik_node.motion.trajectory import KinematicLimits
import numpy as np

__all__ = ['FailBrake']

# [rad/s, rad/s^2] below these the arm is at rest.
_REST_V = 1e-6
_REST_A = 1e-4
# The share of the jerk limit the stop uses: read by differences at the command stamps (as a
# driver does), a change of jerk between two stamps shows up to some 7 % above its value.
JERK_SHARE = 0.9


class FailBrake:
    """
    The last commands sent, and a jerk-limited stop from them (see the module docstring).

    lower, upper: (n,) position limits (-inf/+inf for continuous joints); a braked position
    beyond one is held at it, and :attr:`clipped` says so.
    """

    def __init__(self, limits: KinematicLimits, lower: np.ndarray, upper: np.ndarray):
        self._limits, self._lower, self._upper = limits, lower, upper
        self._sent: deque = deque(maxlen=3)     # (time [s], q (n,)), oldest first
        self._state: tuple | None = None        # (t, q, v, a) while braking
        self.clipped = False

    def sent(self, t: float, q: np.ndarray) -> None:
        """Record command ``q`` (n,) sent for time ``t`` [s] (the last three are kept)."""
        self._sent.append((t, np.array(q, dtype=float)))

    @property
    def braking(self) -> bool:
        """Whether a stop runs (from :meth:`start` until :meth:`step` reached rest)."""
        return self._state is not None

    def start(self) -> bool:
        """Start the stop from the last commands sent; False when none was sent yet."""
        if not self._sent:
            return False
        t, q = self._sent[-1]
        n = q.shape[0]
        v, a = np.zeros(n), np.zeros(n)
        if len(self._sent) >= 2:
            t1, q1 = self._sent[-2]
            v = (q - q1) / max(t - t1, 1e-6)
            if len(self._sent) == 3:
                # The differences are the velocities half-way between the stamps: the one
                # at the last command is half a step of the acceleration on.
                t0, q0 = self._sent[0]
                v1 = (q1 - q0) / max(t1 - t0, 1e-6)
                a = (v - v1) / max(0.5 * (t - t0), 1e-6)
                v = v + 0.5 * (t - t1) * a
        self._state = (t, q, v, a)
        self.clipped = False
        return True

    def step(self, t: float) -> tuple[np.ndarray, bool]:
        """
        Return (q at time ``t``, at rest) of the stop; once at rest the stop ends.

        Raises RuntimeError when no stop runs.
        """
        if self._state is None:
            raise RuntimeError('FailBrake.step called without a stop')
        t0, q, v, a = self._state
        dt = t - t0
        if dt > 0.0:
            q, v, a = self._advance(q, v, a, dt)
        rest = _at_rest(v, a)
        self._state = None if rest else (t, q, v, a)
        return q.copy(), rest

    def preview(self, t: float, spacing: float, count: int) -> list:
        """Return up to ``count`` (time from ``t``, q, v, a) of the stop ``spacing`` apart."""
        if self._state is None:
            raise RuntimeError('FailBrake.preview called without a stop')
        t0, q, v, a = self._state
        out = []
        for k in range(1, count + 1):
            q, v, a = self._advance(q, v, a, spacing if k > 1 else max(t + spacing - t0, 0.0))
            out.append((k * spacing, q.copy(), v.copy(), a.copy()))
            if _at_rest(v, a):
                break
        return out

    def _advance(self, q: np.ndarray, v: np.ndarray, a: np.ndarray,
                 dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Brake (q, v, a) for ``dt`` [s], in sub-steps of at most 1 ms."""
        steps = max(1, math.ceil(dt / 1e-3))
        h = dt / steps
        a_max, j_max = self._limits.acceleration, JERK_SHARE * self._limits.jerk
        for _ in range(steps):
            aim = -np.sign(v) * np.minimum(a_max, np.sqrt(2.0 * j_max * np.abs(v)))
            a_new = a + np.clip(aim - a, -j_max * h, j_max * h)
            v_new = v + 0.5 * (a + a_new) * h
            # Through zero, or within one step of rest, with the acceleration about done: at
            # rest there (what is left is below one step's jerk).
            done = (np.abs(a_new) <= j_max * h) & ((v_new * v <= 0.0)
                                                   | (np.abs(v_new) <= j_max * h * h))
            v_new = np.where(done, 0.0, v_new)
            a_new = np.where(done, 0.0, a_new)
            q = q + 0.5 * (v + v_new) * h
            v, a = v_new, a_new
        held = np.clip(q, self._lower, self._upper)
        if np.any(held != q):
            self.clipped = True
            v = np.where(held != q, 0.0, v)
            a = np.where(held != q, 0.0, a)
        return held, v, a


def _at_rest(v: np.ndarray, a: np.ndarray) -> bool:
    """Return True when every joint's velocity and acceleration are below the rest bounds."""
    return bool(np.all(np.abs(v) < _REST_V) and np.all(np.abs(a) < _REST_A))
