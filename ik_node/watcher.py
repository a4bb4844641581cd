# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Independent check of a published joint command stream: finite, in limits, no jumps.

:class:`CommandWatcher` looks at every command message as a subscriber sees it (joint names
and positions) and counts what a real arm must never receive:

``names``      a joint unknown or named twice, names and positions of different lengths, or
               (with ``require_all``) a joint missing; order does not matter;
``nonfinite``  a position is NaN or Inf;
``limits``     a position lies outside [lower, upper] (+ ``limit_margin``);
``step``       a joint moved farther than ``v_max * period`` (+ ``step_margin``) from its
               previous command, the most the velocity filter allows between two messages,
               and is not within that bound of the arm's measured position either (see
               below);
``speed``      (only when receive times are given) a joint moved farther than
               ``v_max * (t - t_ref + speed_slack)`` since a command received at ``t_ref``
               within the last ``speed_window`` seconds; this catches many small steps
               published too often, which the per-message ``step`` check cannot see.

A command may legitimately leave the previous one behind when the arm is not where the
previous command was (restarted elsewhere, moved by hand): the node then restarts its
commands at the measured position. Given the arm's joint_states through
:meth:`CommandWatcher.observe_arm`, such a command counts as a ``resync`` (not a violation)
when it is within one step of the measured arm, give or take how far the arm can move in
``arm_slack`` seconds (the watcher's and the node's latest arm readings need not be the same
sample): the arm is never asked to move faster than v_max. Without
:meth:`~CommandWatcher.observe_arm` every jump is a violation.

Messages from different processes may reach a subscriber out of order. :class:`StampedLog`
collects commands and arm readings as they arrive and replays them into a watcher in the order
of their header stamps (the node stamps its commands with strictly increasing times of the
clock they were computed at), so a stream is judged in publish order, never arrival order.

It is independent of :mod:`ik_node.safety` on purpose: it re-derives the bounds from the
chain, so a bug in the filter shows up here. Nothing here imports rclpy; the tests and
benchmarks feed it from their subscription callbacks.
"""

from collections import Counter, deque
from dataclasses import dataclass
import math
from typing import Any, Sequence

import numpy as np
from numpy.typing import ArrayLike

__all__ = ['Violation', 'CommandWatcher', 'StampedLog']

_KEPT = 100     # violations kept in full; the counts cover all of them
_PENDING_ARM_MESSAGES = 5   # arm readings a jump may wait for its explanation


@dataclass(frozen=True)
class Violation:
    """
    One failed check.

    index: 0-based number of the command message; kind: 'names', 'nonfinite', 'limits',
    'step' or 'speed'; detail: what was wrong, with the joint names and values.
    """

    index: int
    kind: str
    detail: str


class CommandWatcher:
    """
    Count unsafe messages in a stream of joint commands, joint by joint.

    names: (n,) every joint the commands may name. lower, upper: (n,) position limits
    [rad or m] (-inf/+inf for continuous joints). v_max: (n,) velocity limits [rad/s or m/s],
    finite and > 0. period: the output period of the node [s]; one message may move a joint
    by at most ``v_max * period``. continuous: (n,) bool, joints whose steps are taken the
    short way round. require_all: a message must name every joint (else a subset is fine,
    e.g. after a tip_link change; each joint is compared with its own last command).
    step_margin, limit_margin: absolute tolerances [rad or m] for rounding. arm_slack: age
    difference [s] allowed between the node's and the watcher's arm readings. speed_slack:
    delivery jitter [s] allowed in the receive-time ``speed`` check; speed_window: how far
    back [s] that check looks.
    """

    def __init__(self, names: Sequence[str], lower: ArrayLike, upper: ArrayLike,
                 v_max: ArrayLike, period: float, continuous: ArrayLike | None = None,
                 require_all: bool = True, step_margin: float = 1e-9,
                 limit_margin: float = 1e-9, arm_slack: float = 0.02,
                 speed_slack: float = 0.1, speed_window: float = 1.0):
        self.names = tuple(names)
        n = len(self.names)
        if len(set(self.names)) != n:
            raise ValueError(f'joint names must be unique, got {list(self.names)}')
        self._index = {name: i for i, name in enumerate(self.names)}
        self.lower = np.array(lower, dtype=float).reshape(-1)
        self.upper = np.array(upper, dtype=float).reshape(-1)
        self.v_max = np.array(v_max, dtype=float).reshape(-1)
        if not (self.lower.shape == self.upper.shape == self.v_max.shape == (n,)):
            raise ValueError(f'lower, upper and v_max must have {n} values, one per name')
        if not np.all(np.isfinite(self.v_max)) or np.any(self.v_max <= 0.0):
            raise ValueError(f'v_max must be finite and > 0, got {self.v_max.tolist()}')
        if not (math.isfinite(period) and period > 0.0):
            raise ValueError(f'period must be finite and > 0, got {period}')
        self.continuous = (np.zeros(n, dtype=bool) if continuous is None
                           else np.array(continuous, dtype=bool).reshape(n))
        self.period = float(period)
        self.require_all = bool(require_all)
        self.step_margin = float(step_margin)
        self.limit_margin = float(limit_margin)
        self.arm_slack = float(arm_slack)
        self.speed_slack = float(speed_slack)
        self.speed_window = float(speed_window)
        self.messages = 0
        self.counts: Counter = Counter()
        self.violations: list[Violation] = []
        self.max_step_ratio = 0.0       # largest |dq| / (v_max * period) seen
        self.resyncs = 0                # jumps back to the measured arm (not violations)
        self._pending: list[tuple] = []  # jumps to judge against the next arm readings
        self._pending_left: list[int] = []
        self.last = np.full(n, math.nan)  # last command per joint, NaN before the first
        self.arm = np.full(n, math.nan)   # last measured arm position per joint
        self._anchors: deque = deque()  # (t, last) every speed_window / 10

    @classmethod
    def for_chain(cls, chain: Any, v_max: ArrayLike, period: float,
                  **kwargs) -> 'CommandWatcher':
        """Return a watcher for an :class:`ik_node.Chain` with command limits ``v_max``."""
        return cls(chain.joint_names, chain.lower, chain.upper, v_max, period,
                   continuous=chain.continuous, **kwargs)

    @property
    def total_violations(self) -> int:
        """Return the number of failed checks so far (a message can fail several)."""
        # A jump still waiting for the arm readings that would explain it counts as unsafe.
        return sum(self.counts.values()) + len(self._pending)

    def reset(self, q: ArrayLike | None = None) -> None:
        """
        Forget the previous commands, or compare the next ones with ``q`` (n,) instead.

        Use it when the publisher legitimately starts over, e.g. a restarted node: pass the
        measured arm position, from which the new node's first command may move one step.
        """
        n = len(self.names)
        self.last = np.full(n, math.nan) if q is None else np.array(q, dtype=float).reshape(n)
        self._anchors.clear()

    def observe_arm(self, names: Sequence[str], positions: Sequence[float]) -> None:
        """Record the arm's measured positions (from joint_states); non-finite ones are skipped."""
        if len(names) != len(positions):
            return
        for name, value in zip(names, positions):
            i = self._index.get(name)
            if i is not None and math.isfinite(value):
                self.arm[i] = value
        pending, left = [], []
        for entry, count in zip(self._pending, self._pending_left):
            index, idx, q, jump, dq, bound = entry
            arm = self.arm[idx]
            near = np.isfinite(arm) & (np.abs(self._diff(
                idx, q, np.where(np.isfinite(arm), arm, q)))
                <= self.v_max[idx] * (self.period + self.arm_slack) + self.step_margin)
            if np.all(near[jump]):
                self.resyncs += 1
                self._anchors.clear()
            elif count > 1:
                pending.append(entry)
                left.append(count - 1)
            else:
                self.max_step_ratio = max(self.max_step_ratio, float(np.max(dq / bound)))
                self._record([Violation(index, 'step', self._joints(idx, jump, dq, 'moved by'))])
        self._pending, self._pending_left = pending, left

    def check(self, names: Sequence[str], positions: Sequence[float],
              t: float | None = None) -> list[Violation]:
        """
        Check one command message; return its violations (also counted and kept).

        names, positions: the message's joint names and positions. t: receive time [s] of a
        monotonic clock, for the ``speed`` check (None skips it).
        """
        index = self.messages
        self.messages += 1
        names = tuple(names)
        problem = self._names_problem(names, len(positions))
        if problem:
            return self._record([Violation(index, 'names', problem)])
        idx = np.array([self._index[name] for name in names], dtype=int)
        q = np.array(positions, dtype=float)
        bad = ~np.isfinite(q)
        if np.any(bad):
            return self._record([Violation(index, 'nonfinite', self._joints(idx, bad, q))])
        found = []
        outside = ((q < self.lower[idx] - self.limit_margin)
                   | (q > self.upper[idx] + self.limit_margin))
        if np.any(outside):
            found.append(Violation(index, 'limits', self._joints(idx, outside, q)))
        prev = self.last[idx]
        known = np.isfinite(prev)
        if np.any(known):
            dq = np.where(known, np.abs(self._diff(idx, q, np.where(known, prev, q))), 0.0)
            bound = self.v_max[idx] * self.period
            jump = dq > bound + self.step_margin
            arm = self.arm[idx]
            near_arm = np.isfinite(arm) & (np.abs(self._diff(
                idx, q, np.where(np.isfinite(arm), arm, q)))
                <= self.v_max[idx] * (self.period + self.arm_slack) + self.step_margin)
            if np.any(jump):
                # The commands start over (at the arm, or the jump is judged below): speeds
                # are measured from here on, the jump itself by the step check.
                self._anchors.clear()
            if np.any(jump) and np.all(near_arm[jump]):
                self.resyncs += 1
            elif np.any(jump) and np.all(np.isfinite(arm[jump])):
                # The command may have overtaken the joint_states it answers (they come from
                # another process): judge it against the next few arm readings.
                self._pending.append((index, idx, q.copy(), jump, dq, bound))
                self._pending_left.append(_PENDING_ARM_MESSAGES)
            else:
                self.max_step_ratio = max(self.max_step_ratio, float(np.max(dq / bound)))
                if np.any(jump):
                    found.append(Violation(index, 'step',
                                           self._joints(idx, jump, dq, 'moved by')))
        self.last[idx] = q
        if t is not None:
            found.extend(self._check_speed(index, float(t)))
        return self._record(found)

    def finish(self) -> None:
        """End of the stream: a jump still waiting for arm readings counts as a violation."""
        for index, idx, q, jump, dq, bound in self._pending:
            self.max_step_ratio = max(self.max_step_ratio, float(np.max(dq / bound)))
            arm = ', '.join(f'{self.names[i]} arm at {a:.6g}' for i, a, j
                            in zip(idx, self.arm[idx], jump) if j)
            self._record([Violation(index, 'step', self._joints(idx, jump, dq, 'moved by')
                                    + f' to {np.round(q, 4).tolist()} (no arm reading '
                                    f'explained it; {arm})')])
        self._pending, self._pending_left = [], []

    def flag(self, kind: str, detail: str) -> None:
        """Count a violation found outside :meth:`check` (at the next message's index)."""
        self._record([Violation(self.messages, kind, detail)])

    def summary(self) -> dict[str, Any]:
        """Return messages, violation counts by kind and the largest step ratio, as plain data."""
        return {'messages': self.messages, 'violations': self.total_violations,
                'by_kind': dict(self.counts), 'max_step_ratio': self.max_step_ratio,
                'resyncs': self.resyncs,
                'first': [f'#{v.index} {v.kind}: {v.detail}' for v in self.violations[:5]]}

    def _names_problem(self, names: tuple[str, ...], count: int) -> str:
        if count != len(names):
            return f'{len(names)} names but {count} positions'
        unknown = [name for name in names if name not in self._index]
        if unknown:
            return f'unknown joints {unknown}'
        if len(set(names)) != len(names):
            return f'a joint named twice in {list(names)}'
        if self.require_all and len(names) != len(self.names):
            return f'joints missing: {sorted(set(self.names) - set(names))}'
        return ''

    def _check_speed(self, index: int, t: float) -> list[Violation]:
        anchors = self._anchors
        while anchors and t - anchors[0][0] > self.speed_window:
            anchors.popleft()
        found = []
        every = np.arange(len(self.names))
        for t_ref, q_ref in anchors:
            known = np.isfinite(q_ref) & np.isfinite(self.last)
            moved = np.where(known, np.abs(self._diff(every, self.last,
                                                      np.where(known, q_ref, 0.0))), 0.0)
            allowed = self.v_max * (max(t - t_ref, 0.0) + self.speed_slack) + self.step_margin
            fast = moved > allowed
            if np.any(fast):
                found.append(Violation(index, 'speed', self._joints(
                    every, fast, moved, f'moved in {t - t_ref:.4f} s by')))
                break
        if not anchors or t - anchors[-1][0] >= self.speed_window / 10.0:
            anchors.append((t, self.last.copy()))
        return found

    def _diff(self, idx: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        d = a - b
        continuous = self.continuous[idx]
        if np.any(continuous):
            wrapped = (d + math.pi) % (2.0 * math.pi) - math.pi
            d = np.where(continuous, wrapped, d)
        return d

    def _joints(self, idx: np.ndarray, mask: np.ndarray, values: np.ndarray,
                verb: str = 'at') -> str:
        return ', '.join(f'{self.names[i]} {verb} {v:.6g}'
                         for i, m, v in zip(idx, mask, values) if m)

    def _record(self, found: list[Violation]) -> list[Violation]:
        for v in found:
            self.counts[v.kind] += 1
            if len(self.violations) < _KEPT:
                self.violations.append(v)
        return found


class StampedLog:
    """
    Commands and arm readings as received, replayed into a :class:`CommandWatcher` by stamp.

    Stamps are integer nanoseconds of the publishers' clocks (one machine: one clock). At equal
    stamps an arm reading comes before a command. Two commands with the same stamp cannot be
    put in publish order: the second one counts as a ``stamp`` violation.
    """

    _ARM, _RESET, _COMMAND = 0, 1, 2

    def __init__(self):
        self._events: list[tuple[int, int, int, Any, Any]] = []

    def __len__(self) -> int:
        """Return the number of events recorded."""
        return len(self._events)

    def command(self, stamp_ns: int, names: Sequence[str], positions: Sequence[float]) -> None:
        """Record a command message (its header stamp [ns], names and positions)."""
        self._add(stamp_ns, self._COMMAND, tuple(names), tuple(positions))

    def arm(self, stamp_ns: int, names: Sequence[str], positions: Sequence[float]) -> None:
        """Record an arm reading (a joint_states message of the arm)."""
        self._add(stamp_ns, self._ARM, tuple(names), tuple(positions))

    def reset(self, stamp_ns: int, q: ArrayLike | None = None) -> None:
        """Record that the publisher legitimately started over at ``stamp_ns`` (see reset)."""
        self._add(stamp_ns, self._RESET, None, None if q is None else np.array(q, dtype=float))

    def _add(self, stamp_ns: int, kind: int, a: Any, b: Any) -> None:
        self._events.append((int(stamp_ns), kind, len(self._events), a, b))

    def replay(self, watcher: CommandWatcher) -> CommandWatcher:
        """Feed every event into ``watcher`` in stamp order; return the watcher."""
        last_command = None
        for stamp, kind, _, a, b in sorted(self._events):
            if kind == self._ARM:
                watcher.observe_arm(a, b)
            elif kind == self._RESET:
                watcher.reset(b)
            else:
                if stamp == last_command:
                    watcher.flag('stamp', f'two commands stamped {stamp} ns')
                last_command = stamp
                watcher.check(a, b, t=stamp * 1e-9)
        watcher.finish()
        return watcher
