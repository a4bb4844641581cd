# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A fixed-capacity ring of timed joint rows (time [s], q (n,)), oldest dropped when full.

The tracker keeps its commands and readings here: two numpy arrays that the compiled checks
of :mod:`ik_node.motion.window_checks` read in one call per cycle, where a deque of
(time, array) pairs cost a Python loop over some 200 of them at each reading.
"""

from typing import Optional

import numpy as np

__all__ = ['TimedRing']


class TimedRing:
    """``capacity`` timed rows of ``n`` values; ``head`` is the index of the oldest."""

    def __init__(self, capacity: int, n: Optional[int] = None):
        self.capacity = int(capacity)
        self.times = np.zeros(self.capacity)
        self.rows = np.zeros((self.capacity, 0 if n is None else int(n)))
        self.head = 0
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def _index(self, i: int) -> int:
        if not -self.count <= i < self.count:
            raise IndexError('TimedRing index out of range')
        return (self.head + (i % self.count)) % self.capacity

    def __getitem__(self, i: int) -> tuple[float, np.ndarray]:
        """Return the i-th (time, q) from the oldest (negative: from the newest), q copied."""
        k = self._index(i)
        return float(self.times[k]), self.rows[k].copy()

    def append(self, t: float, q: np.ndarray) -> None:
        """Add (t, q) as the newest; drop the oldest when full."""
        q = np.asarray(q, dtype=float)
        if self.count == 0 and self.rows.shape[1] != q.shape[0]:
            self.rows = np.zeros((self.capacity, q.shape[0]))
        k = (self.head + self.count) % self.capacity
        self.times[k] = t
        self.rows[k] = q
        if self.count < self.capacity:
            self.count += 1
        else:
            self.head = (self.head + 1) % self.capacity

    def clear(self) -> None:
        """Drop every row."""
        self.head = 0
        self.count = 0

    def copy(self) -> 'TimedRing':
        """Return an independent copy."""
        other = TimedRing(self.capacity)
        other.times, other.rows = self.times.copy(), self.rows.copy()
        other.head, other.count = self.head, self.count
        return other
