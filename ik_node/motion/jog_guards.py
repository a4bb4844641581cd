# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Speed factors of a jog near singularities, joint limits and contact: pure functions.

Each guard compares the state now with the state ahead (where the arm would come to rest if
it braked from the wanted velocity, see :func:`braking_lookahead`) and returns a factor in
[0, 1] for the wanted velocity. Motion that leaves the danger (the condition number falls,
the clearance grows, the joint turns away from its limit) always gets 1, so the arm is never
stuck; motion into it slows smoothly with the distance left.
"""

import math

import numpy as np
from numpy.typing import ArrayLike

__all__ = ['braking_lookahead', 'singularity_scale', 'joint_limit_scale', 'clearance_scale']


def braking_lookahead(v: ArrayLike, acceleration: ArrayLike, jerk: ArrayLike,
                      period: float) -> float:
    """
    Return the time [s] that moving on at ``v`` covers the braking distance, plus ``period``.

    A jerk-limited stop from v at rest acceleration (a and j the limits) takes
    t = |v| / a + a / j and covers about v t / 2: the slowest joint's t / 2 is returned,
    with one control period more for the step about to be taken.
    """
    speed = np.abs(np.asarray(v, dtype=float))
    a = np.asarray(acceleration, dtype=float)
    j = np.asarray(jerk, dtype=float)
    t = np.where(speed > 0.0, speed / a + a / j, 0.0)
    return 0.5 * float(np.max(t, initial=0.0)) + float(period)


def singularity_scale(k_now: float, k_ahead: float, slowdown: float, stop: float,
                      min_scale: float) -> float:
    """
    Return the speed factor for a motion from condition number k_now toward k_ahead.

    1 while k_ahead <= slowdown or k_ahead <= k_now (moving away); else
    (stop - k_ahead) / (stop - slowdown) clipped to [min_scale, 1] (MoveIt Servo's
    thresholds: slowdown 17, hard stop 30).
    """
    if not k_ahead > slowdown or k_ahead <= k_now:
        return 1.0
    if not math.isfinite(k_ahead):
        return float(min_scale)
    return float(min(max((stop - k_ahead) / (stop - slowdown), min_scale), 1.0))


def joint_limit_scale(q: ArrayLike, v: ArrayLike, lower: ArrayLike, upper: ArrayLike,
                      margin: float, deceleration: ArrayLike) -> tuple[float, int]:
    """
    Return (factor, joint) that keeps each joint able to stop ``margin`` before its limit.

    A joint moving toward its limit with room d [rad or m] left before ``margin`` may move at
    sqrt(2 b d), b its ``deceleration`` (a part of its acceleration limit, so a jerk-limited
    stop fits): the factor is the smallest of allowed / |v| over the joints (1 when none is
    bound). joint: the index of the binding joint, -1 for none. Joints moving away from a
    limit, or without one (continuous), are never slowed.
    """
    qa = np.asarray(q, dtype=float)
    va = np.asarray(v, dtype=float)
    speed = np.abs(va)
    room = np.where(va > 0.0, np.asarray(upper) - qa, qa - np.asarray(lower)) - margin
    # (A joint without a limit has infinite room; nan only for a nan q, never bound.)
    allowed = np.sqrt(2.0 * np.asarray(deceleration, dtype=float) * np.maximum(room, 0.0))
    bound = speed > allowed
    if not bound.any():
        return 1.0, -1
    ratio = np.ones_like(speed)
    ratio[bound] = allowed[bound] / speed[bound]
    i = int(np.argmin(ratio))
    return float(ratio[i]), i


def clearance_scale(d_now: ArrayLike, d_ahead: ArrayLike, travel: float, slowdown: float,
                    stop: float, min_rate: float) -> tuple[float, int]:
    """
    Return (factor, pair) for a motion that changes each pair's clearance d_now -> d_ahead.

    d_now, d_ahead: (m,) signed clearances [m] of the checked pairs now and at the state
    ahead; travel: the largest joint change [rad or m] between the two states. A pair
    approaches when its clearance falls by more than ``min_rate`` [m per rad] of that travel
    (a link turning about its own axis next to another barely changes their clearance and is
    left to the final contact check); an approaching pair whose clearance ahead is under
    ``slowdown`` gets (d_ahead - stop) / (slowdown - stop) clipped to [0, 1]: 0 when the state
    ahead is within ``stop`` of contact. The factor is the smallest; pair: its index, -1 for
    none. A pair whose clearance grows (leaving a contact, too) is never slowed.
    """
    now = np.asarray(d_now, dtype=float)
    ahead = np.asarray(d_ahead, dtype=float)
    approaching = (ahead < slowdown) & (now - ahead > min_rate * travel)
    if not np.any(approaching):
        return 1.0, -1
    f = np.where(approaching, np.clip((ahead - stop) / (slowdown - stop), 0.0, 1.0), 1.0)
    i = int(np.argmin(f))
    return (float(f[i]), i) if f[i] < 1.0 else (1.0, -1)
