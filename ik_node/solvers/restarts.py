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

__all__ = ['wrap_continuous', 'pick_nearest', 'out_of_reach', 'Starts', 'failure_message',
           'Budget']


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


def out_of_reach(chain, position: np.ndarray, tolerance: float) -> bool:
    """Return True when ``position`` [m] is provably beyond the chain's reach."""
    return float(np.linalg.norm(position - chain.reach_origin)) > chain.reach + tolerance


class Starts:
    """Start configurations: the seed first, then draws within the limits (lazy, seeded)."""

    def __init__(self, chain, q0: np.ndarray, rng_seed):
        """Start from ``q0``; later starts come from ``default_rng(rng_seed)``."""
        self.chain = chain
        self.q0 = q0
        self.rng_seed = rng_seed
        self._rng = None

    def start(self, attempt: int) -> np.ndarray:
        """Return the start of attempt number ``attempt`` (1 = the seed)."""
        if attempt == 1:
            return self.q0
        if self._rng is None:
            self._rng = np.random.default_rng(self.rng_seed)
        q = self.chain.random_q(self._rng)
        continuous = self.chain.continuous
        if continuous.any():
            # Continuous joints are drawn in +-pi around the seed, not around 0.
            q[continuous] += self.q0[continuous]
        return q


def failure_message(beyond_reach: bool, attempts: int, perr: float, oerr: float,
                    pose: bool) -> str:
    """Return the message of a failed solve: why, and the best errors reached."""
    return (('target out of reach; ' if beyond_reach else '')
            + f'no solution within tolerance after {attempts} attempt(s); '
            f'best position error {perr:.4g} m'
            + (f', orientation error {oerr:.4g} rad' if pose else ''))
