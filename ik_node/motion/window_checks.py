# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The tracker's lag and stall checks over a :class:`ik_node.motion.timed_ring.TimedRing`, compiled.

Same decisions as the window loops they replace (:func:`ik_node.motion.guards.following_lag`
and :func:`ik_node.motion.guards.stood_still` describe them); at a kHz with some 200 rows in
the window each took tens of microseconds in Python.
"""

import math

from ik_node._jit import njit
import numpy as np

__all__ = ['ring_following_lag', 'ring_stood_still']


@njit
def _window_start(times, head, count, start):
    """Return the ring position of the newest time before ``start`` by bisection; -1 if unsure."""
    cap = times.shape[0]
    if not times[head] <= times[(head + count - 1) % cap]:
        return -1           # the clock went back: not in time order
    lo, hi = 0, count - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if times[(head + mid) % cap] < start:
            lo = mid
        else:
            hi = mid - 1
    return lo if times[(head + lo) % cap] < start else -1


@njit
def _moved(a, b, limit):
    """Return max |a - b| > limit (False with a NaN, as numpy's max then compares)."""
    worst = 0.0
    for j in range(a.shape[0]):
        d = abs(a[j] - b[j])
        if d > worst or d != d:
            worst = d
    return worst > limit, worst


@njit
def ring_stood_still(times, rows, head, count, t, latency, motion):
    """Return True if the rows of the last ``latency`` before ``t`` moved <= ``motion``."""
    cap = times.shape[0]
    if count == 0 or times[head] > t - latency:
        return False        # not enough history to tell
    last = rows[(head + count - 1) % cap]
    start = _window_start(times, head, count, t - latency)
    if start >= 0 and _moved(rows[(head + start) % cap], last, motion)[0]:
        return False
    worst = 0.0
    for i in range(count - 1, -1, -1):
        k = (head + i) % cap
        d = _moved(rows[k], last, motion)[1]
        if d > worst or d != d:
            worst = d
        if times[k] < t - latency:
            break
    return worst <= motion


@njit
def ring_following_lag(times, rows, head, count, continuous, q, t, latency):
    """Return (n,) the distance of ``q`` to the nearest row in force ``latency`` before ``t``."""
    cap = times.shape[0]
    n = q.shape[0]
    best = np.full(n, np.inf)
    found = False
    for i in range(count - 1, -1, -1):
        k = (head + i) % cap
        if times[k] > t:
            continue
        found = True
        for j in range(n):
            d = rows[k, j] - q[j]
            if continuous[j]:
                d = (d + math.pi) % (2.0 * math.pi) - math.pi
            d = abs(d)
            if d < best[j] or d != d:
                best[j] = d
        if times[k] < t - latency:
            break
    if not found:
        return np.zeros(n)
    return best
