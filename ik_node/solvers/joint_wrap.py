# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Joint values moved by whole turns toward a reference: the same pose, nearest the seed.

A continuous joint, or a revolute joint whose range spans more than 2π (a UR joint in
[-2π, 2π]), reaches one pose at values 2π apart; an answer should take the one nearest the
seed, not a turn away from it. :func:`wrap_in_place` is the kernel the restart driver runs
on every answer; :func:`wrap_continuous` is its call for arrays (goal search, users).
"""

import math

from ik_node._jit import njit
import numpy as np

__all__ = ['wrap_in_place', 'wrap_continuous']


@njit
def wrap_in_place(q, q0, continuous, wide, lower, upper):
    """
    Move joints of (n,) ``q`` by whole turns to lie nearest ``q0``, in place.

    Continuous joints always; ``wide`` revolute joints (a range over 2π) as far as their
    limits allow: the same pose, without a turn of 2π away from the seed.
    """
    two_pi = 2.0 * math.pi
    for i in range(q.shape[0]):
        if continuous[i]:
            d = q[i] - q0[i]
            q[i] = q0[i] + (d + math.pi) % two_pi - math.pi
        elif wide[i]:
            # Whole turns toward q0, as many as the limits allow (fewer when the nearest
            # image lies beyond a limit).
            turns = round((q0[i] - q[i]) / two_pi)
            while turns != 0:
                moved = q[i] + two_pi * turns
                if lower[i] <= moved <= upper[i]:
                    q[i] = moved
                    break
                turns -= 1 if turns > 0 else -1


def wrap_continuous(q: np.ndarray, q_ref: np.ndarray, continuous: np.ndarray,
                    chain=None) -> np.ndarray:
    """
    Return a copy of ``q`` with joints moved by multiples of 2π to lie nearest ``q_ref``.

    Continuous joints always; with ``chain``, also revolute joints whose range spans more
    than 2π (a UR joint in [-2π, 2π]), as far as their limits allow: the same pose, without
    a turn of 2π away from the seed.
    """
    out = np.array(q, dtype=float)
    if chain is None:
        n = out.shape[0]
        wide, lower, upper = np.zeros(n, dtype=bool), np.full(n, -np.inf), np.full(n, np.inf)
    else:
        wide, lower, upper = chain.wide_revolute, chain.lower, chain.upper
    wrap_in_place(out, np.asarray(q_ref, dtype=float), np.asarray(continuous, dtype=bool),
                  wide, lower, upper)
    return out
