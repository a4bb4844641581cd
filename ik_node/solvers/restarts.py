# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Restarts within a budget, and the choice among the solutions found.

The first attempt starts at the seed. When it fails, random starts drawn within the limits
follow until a solution is found (or ``solutions`` of them), the attempt cap or the timeout.
Among solutions the one nearest the seed (weighted joint distance) wins, so a seed close to a
solution never jumps to another IK branch; with none, the attempt with the lowest task error
is returned with ``success=False``.
"""

import math
import time

import numpy as np

__all__ = ['wrap_continuous', 'pick_nearest']


def wrap_continuous(q: np.ndarray, q_ref: np.ndarray, continuous: np.ndarray) -> np.ndarray:
    """Return ``q`` with continuous joints moved by multiples of 2π to lie nearest ``q_ref``."""
    if not continuous.any():
        return q
    out = q.copy()
    d = out[continuous] - q_ref[continuous]
    out[continuous] = q_ref[continuous] + (d + math.pi) % (2.0 * math.pi) - math.pi
    return out


def pick_nearest(solutions: list, q_ref: np.ndarray, w: np.ndarray):
    """Return the entry of ``solutions`` [(q, ...)] whose q is nearest ``q_ref`` (weights w)."""
    return min(solutions, key=lambda s: float(np.sum(w * (s[0] - q_ref) ** 2)))


class Budget:
    """Attempt and wall-clock budget of one solve."""

    def __init__(self, max_attempts: int, timeout: float):
        """Start the clock now."""
        self.max_attempts = max_attempts
        self.deadline = time.perf_counter() + timeout
        self.attempts = 0

    def expired(self) -> bool:
        """Return True once the wall-clock budget is spent."""
        return time.perf_counter() >= self.deadline

    def take(self) -> bool:
        """Count one more attempt; False once the budget is spent (the first always runs)."""
        if self.attempts and (self.attempts >= self.max_attempts
                              or time.perf_counter() >= self.deadline):
            return False
        self.attempts += 1
        return True
