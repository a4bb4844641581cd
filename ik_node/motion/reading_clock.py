# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
When a joint reading was taken, on this node's clock.

A reading's stamp is the sender's clock. On one machine (or with synchronised clocks) it is
used as it is, and its age tells whether the arm is still heard: a reading delivered late (a
backlog after a busy spell, a transport that held it back) is old, however recently it
arrived. A sender whose clock runs steadily off this one (every reading of the last
:data:`OFFSET_SPAN` off by the same amount, within :data:`OFFSET_SPREAD`) has its stamps
shifted by that offset; late readings never look like that, their offsets grow with the time
they waited. A stamp ahead of this clock (after the shift) by more than
:data:`SYNC_TOLERANCE` tells nothing about its age: it is not judged (None).

:class:`DeliveryDelay` finds the usual age of readings on arrival (a busy machine or
network, or clocks a little apart): the least age over the last :data:`DELIVERY_SPAN`, up
to :data:`DELIVERY_MAX`. A reading is then as recent as it can be when its age exceeds that
by little; one from a backlog exceeds it by the time it waited. Readings that all come
later than that are not made recent by it: a clock further off is the ReadingClock's to
find, and an arm heard that late is not one to start commands from.

:class:`LateArrival` judges commands (jog twists) the same way, without a cap: a message's
lateness is its age beyond the least age of its stream over the last :data:`LATE_SPAN`.
A steady delay (clocks apart by any amount, a slow link) is the stream's usual and costs
nothing; a message held back beyond it (a busy machine, a transport hiccup) is late by
the time it waited, so a command timeout can count from when it was sent.
"""

from collections import deque
import math

__all__ = ['ReadingClock', 'DeliveryDelay', 'SYNC_TOLERANCE', 'OFFSET_SPAN', 'OFFSET_SPREAD',
           'OFFSET_READINGS', 'DELIVERY_SPAN', 'DELIVERY_GAP', 'DELIVERY_MAX', 'LateArrival',
           'LATE_SPAN']

SYNC_TOLERANCE = 1.0     # [s] clocks closer than this are taken as one clock
OFFSET_SPAN = 1.0        # [s] of receive time over which an offset must hold to be believed
OFFSET_SPREAD = 0.1      # [s] how much the offsets of those readings may differ
OFFSET_READINGS = 5      # fewest readings in that span
DELIVERY_SPAN = 1.0      # [s] of receive time over which the usual delivery delay is found
DELIVERY_GAP = 0.25      # [s] a longer pause between readings breaks their stream
DELIVERY_MAX = 0.25      # [s] the most of a steady delay that counts as usual
LATE_SPAN = 2.0          # [s] of receive time over which a command stream's usual age is found


class ReadingClock:
    """Map reading stamps to this node's clock (see the module docstring)."""

    def __init__(self) -> None:
        self._recent: deque[tuple[float, float]] = deque()   # (receive time, now - stamp)
        self.offset = 0.0               # [s] added to a stamp: this clock minus the sender's
        self.offset_changed = False     # the last reading started, changed or ended a shift

    def judge(self, stamp: float, now: float) -> float | None:
        """
        Return when a reading was taken, on this clock; None if it cannot tell.

        stamp: the reading's stamp [s] (the sender's clock); now: when it came [s]. None for a
        stamp from the future (after the shift).
        """
        lag = now - stamp
        recent = self._recent
        recent.append((now, lag))
        while recent and recent[0][0] < now - OFFSET_SPAN:
            recent.popleft()
        self.offset_changed = False
        if abs(lag - self.offset) > SYNC_TOLERANCE:
            steady = self._steady_lag()
            if steady is not None:
                offset = steady if abs(steady) > SYNC_TOLERANCE else 0.0
                self.offset_changed = offset != self.offset
                self.offset = offset
        if lag - self.offset < -SYNC_TOLERANCE:
            return None
        return min(now, stamp + self.offset)

    def _steady_lag(self) -> float | None:
        """Return the smallest lag if every reading of the last OFFSET_SPAN shows it, else None."""
        recent = self._recent
        if len(recent) < OFFSET_READINGS or recent[-1][0] - recent[0][0] < 0.5 * OFFSET_SPAN:
            return None
        lags = [lag for _, lag in recent]
        if max(lags) - min(lags) > OFFSET_SPREAD:
            return None
        return min(lags)


class _RunningMin:
    """The least value added over the last ``span`` [s] of add times."""

    def __init__(self, span: float):
        self.span = span
        # (add time, value), values increasing: the front is the least in the span.
        self._window: deque[tuple[float, float]] = deque()

    def add(self, value: float, now: float) -> float:
        """Add ``value`` at ``now`` [s]; return the least value of the span."""
        window = self._window
        while window and window[-1][1] >= value:
            window.pop()
        window.append((now, value))
        while window[0][0] < now - self.span:
            window.popleft()
        return window[0][1]

    def newest(self) -> float:
        """Return the add time of the newest value (-inf if none)."""
        return self._window[-1][0] if self._window else -math.inf

    def clear(self) -> None:
        self._window.clear()


class DeliveryDelay:
    """The usual delay between a reading's stamp and its arrival (see the module docstring)."""

    def __init__(self) -> None:
        self._least = _RunningMin(DELIVERY_SPAN)
        self._since = -math.inf     # receive time of the first reading of the stream

    def excess(self, age: float, now: float) -> float:
        """
        Record a reading of ``age`` [s] received ``now`` [s]; return how much older than usual.

        The usual delay (at most DELIVERY_MAX) counts once readings have come for half of
        DELIVERY_SPAN without a pause longer than DELIVERY_GAP; until then (at start-up,
        after feedback came back, a burst after a busy spell) a reading is judged by its age
        alone, 0 taken as usual.
        """
        least = self._least
        if now - least.newest() > DELIVERY_GAP:
            self._since = now
            least.clear()
        usual = least.add(age, now)
        if now - self._since < 0.5 * DELIVERY_SPAN:
            return age
        return age - min(max(usual, 0.0), DELIVERY_MAX)


class LateArrival:
    """How much later than its stream's usual a command came (see the module docstring)."""

    def __init__(self) -> None:
        self._least = _RunningMin(LATE_SPAN)

    def lateness(self, stamp: float, now: float) -> float:
        """
        Record a message stamped ``stamp`` [s, the sender's clock] received ``now`` [s].

        Returns how much longer than the least age of the stream's last LATE_SPAN it took
        (>= 0; 0 for the first message of a stream, whose delay is taken as usual).
        """
        age = now - stamp
        return age - self._least.add(age, now)
