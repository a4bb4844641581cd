# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A short history of measured joint positions, to look up where the arm was at a given time.

A target given in a frame that moves with the arm ("5 cm along the tool's z axis") means that
frame *when the target was stamped*. Resolving it with the arm's position at arrival instead
makes a repeated relative target walk away. :class:`JointHistory` keeps the last few seconds
of joint readings by their stamps and answers :meth:`JointHistory.at` by linear interpolation
between the two readings around a time, or None outside the history.

A time once answered keeps its answer. The readings that come after a target may already
show the arm moving toward it (a driver that applies the first command before its next
reading): interpolating with them would move the frame the target was given in, and the
same message sent again would mean another place.
"""

from bisect import bisect_left
from collections import deque
from typing import Mapping

__all__ = ['JointHistory']

_MAX_ANSWERED = 1024        # stamps whose answer is kept (a flood of targets: the oldest go)


class JointHistory:
    """
    Joint readings (name -> position [rad or m]) by stamp [s], for ``window`` seconds.

    ``slack`` [s]: a time up to this much after the newest reading is answered with the
    newest reading (a target stamped just after the last joint_states message).
    """

    def __init__(self, window: float = 2.0, slack: float = 0.05):
        self.window = float(window)
        self.slack = float(slack)
        self._stamps: deque[float] = deque()
        self._readings: deque[dict[str, float]] = deque()
        self._answered: dict[float, dict[str, float]] = {}     # stamp -> answer, as answered

    def __len__(self) -> int:
        """Return the number of readings held."""
        return len(self._stamps)

    def add(self, stamp: float, positions: Mapping[str, float]) -> None:
        """Record a reading; one stamped before the newest is ignored (out of order)."""
        if self._stamps and stamp <= self._stamps[-1]:
            if stamp == self._stamps[-1]:
                self._readings[-1].update(positions)
            return
        self._stamps.append(float(stamp))
        self._readings.append(dict(positions))
        while self._stamps and self._stamps[0] < stamp - self.window:
            self._stamps.popleft()
            self._readings.popleft()
        oldest = self._stamps[0]
        while self._answered and (next(iter(self._answered)) < oldest
                                  or len(self._answered) > _MAX_ANSWERED):
            del self._answered[next(iter(self._answered))]

    def span(self) -> tuple[float, float] | None:
        """Return (oldest, newest) stamp held, or None when empty."""
        return (self._stamps[0], self._stamps[-1]) if self._stamps else None

    def at(self, stamp: float) -> dict[str, float] | None:
        """
        Return the positions at ``stamp`` [s], or None if it is outside the history.

        The first answer for a stamp is kept (see the module docstring) while the stamp is
        inside the window.
        """
        if not self._stamps or stamp < self._stamps[0] \
                or stamp > self._stamps[-1] + self.slack:
            return None
        kept = self._answered.get(stamp)
        if kept is None:
            kept = self._answered[stamp] = self._interpolated(stamp)
        return dict(kept)

    def _interpolated(self, stamp: float) -> dict[str, float]:
        if stamp >= self._stamps[-1]:
            return dict(self._readings[-1])
        i = bisect_left(self._stamps, stamp)
        if self._stamps[i] == stamp:
            return dict(self._readings[i])
        t0, t1 = self._stamps[i - 1], self._stamps[i]
        a, b = self._readings[i - 1], self._readings[i]
        w = (stamp - t0) / (t1 - t0)
        return {name: (1.0 - w) * a[name] + w * b[name] if name in b else a[name]
                for name in a}
