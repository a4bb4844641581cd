# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
How the tracker judges a joint reading: usable, a jump, or the arm elsewhere than commanded.

Plain functions over arrays, and the thresholds they use. Feedback that comes back (after a
gap longer than the timeout, or for the first time) more than :data:`RESYNC_STEPS`
velocity-limited steps and :data:`RESYNC_LAG` seconds of motion from the command means the
arm is elsewhere: it was restarted, moved by hand, or never where it was assumed, and the
command restarts there (:class:`ik_node.motion.tracker.IKTracker`).
"""

from typing import Sequence

from ik_node.motion.joint_space import joint_distance
from ik_node.motion.outcome import FeedbackProblem
from ik_node.motion.timed_ring import TimedRing
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['RESYNC_STEPS', 'RESYNC_LAG', 'START_READING_AGE', 'JUMP_STEPS', 'chain_index',
           'jumped', 'away_from_command', 'outside_limits']

# Continuing the command from where it was would be a jump for an arm this many steps away.
RESYNC_STEPS = 5.0
# ... and more than this much motion [s at v_max]: an arm that lags its command by less is
# following it, not restarted (at a high output rate five steps are only a few ms of motion,
# less than an arm driver's own latency).
RESYNC_LAG = 0.1
# The command starts, or restarts after a gap, only at a reading at most this old [s, beyond
# the usual delivery delay]: the newest of a backlog, not the first.
START_READING_AGE = 0.1
# A reading farther from the one before than this many steps at the arm's own speed limits
# (for the time between their stamps, at least one output period) is a jump no motion of the
# arm makes: an arm driver restarted, or an arm moved, between two readings. It is judged
# like feedback that comes back after a gap. (The arm's limits, not the commands' scaled
# ones: an arm may catch up with a command that ran ahead at its full speed.)
JUMP_STEPS = 3.0


def chain_index(names: tuple[str, ...], chain_names: Sequence[str]
                ) -> np.ndarray | FeedbackProblem:
    """Return where each chain joint is in a message's ``names``, or why it cannot be used."""
    lookup: dict[str, int] = {}
    repeated = set()
    for i, name in enumerate(names):
        if name in lookup:
            repeated.add(name)
        lookup[name] = i
    missing = [j for j in chain_names if j not in lookup]
    if missing:
        return FeedbackProblem('missing', 'chain joints missing: ' + ', '.join(missing))
    twice = [j for j in chain_names if j in repeated]
    if twice:
        return FeedbackProblem('duplicate', 'chain joints named more than once: '
                               + ', '.join(twice))
    return np.array([lookup[j] for j in chain_names], dtype=int)


def jumped(readings: TimedRing, continuous: np.ndarray,
           speed: np.ndarray, min_dt: float, q: np.ndarray, t: float) -> bool:
    """
    Return True if ``q`` taken at ``t`` is farther from the reading before than motion.

    speed: (n,) the fastest the arm moves; min_dt: the least time [s] between two readings
    that counts (one output period).
    """
    if not readings:
        return False
    t_prev, q_prev = readings[-1]
    diff = joint_distance(continuous, q - q_prev)
    dt = max(t - t_prev, min_dt)
    return bool(np.any(diff > JUMP_STEPS * speed * dt))


def away_from_command(continuous: np.ndarray, v_max: np.ndarray, period: float,
                      q: np.ndarray, command: np.ndarray | None) -> float:
    """
    Return how far [rad or m] the arm at ``q`` is from ``command``, or 0 if it is near.

    Near: within :data:`RESYNC_STEPS` velocity-limited steps (of ``period`` [s]) and
    :data:`RESYNC_LAG` seconds of motion on every joint.
    """
    if command is None:
        return 0.0
    diff = joint_distance(continuous, q - command)
    allowed = v_max * max(RESYNC_STEPS * period, RESYNC_LAG)
    return 0.0 if np.all(diff <= allowed) else float(np.max(diff))


def outside_limits(names: Sequence[str], lower: np.ndarray, upper: np.ndarray, q: np.ndarray,
                   tolerance: ArrayLike) -> str:
    """Describe the joints of ``q`` (n,) farther outside [lower, upper] than ``tolerance``."""
    tol = np.asarray(tolerance, dtype=float) + 1e-12
    far = (q < lower - tol) | (q > upper + tol)
    if not far.any():
        return ''       # (the common case, at every reading: no text to build)
    return ', '.join(f'{name} at {v:.4g} outside [{lo:.4g}, {hi:.4g}]'
                     for name, v, lo, hi, f in zip(names, q, lower, upper, far) if f)
