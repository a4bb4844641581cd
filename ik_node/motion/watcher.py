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
               published too often, which the per-message ``step`` check cannot see;
``acceleration``, ``jerk``  (only with stamps, and limits ``a_max`` / ``j_max``) the
               acceleration or jerk of a joint's commands at their stamps exceeds
               ``tolerance`` x its limit (see below).

Acceleration and jerk are measured by divided differences of the commands at their stamps:
over the last three commands t0 < t1 < t2, 2 q[t0, t1, t2]; over the last four, 6 q[t0, ..,
t3] (q[..] the divided difference, computed right for uneven stamps). For commands sampled
from a trajectory whose acceleration is continuous, 2 q[t0, t1, t2] is a weighted mean of the
trajectory's acceleration over [t0, t2] and 6 q[t0, .., t3] one of its jerk over [t0, t3] (the
weights are a B-spline: positive, summing to 1), so the estimates never exceed the true
maxima, whatever the stamp jitter: a jerk-limited trajectory passes exactly, a velocity step
(acceleration step) between two commands shows as acceleration ~ dv / dt (jerk ~ da / dt).
What remains is noise from the stamps: a command sampled up to ``stamp_resolution`` (1 ns, the
resolution of a header stamp) away from its stamp is off by up to v_max x that, which the
k-th difference multiplies by k! sum_i 1 / prod_j |t_i - t_j|; at 1 kHz and 3 rad/s that is
0.01 rad/s^2 and 25 rad/s^3. It is added to the allowed bound (and shown in the record).
Stamps must be integer nanoseconds (``stamp_ns``), not float seconds since the epoch, whose
resolution (~240 ns) would add thousands of rad/s^3 at 1 kHz. A command sampled at another
time than its stamp (e.g. stamped after it was computed) breaks the contract the check
relies on and shows up as jerk.

With stamps, a late message may move a joint farther than one period's worth: by ``v_max *
max(period, dt)``, dt the time since its previous command, if dt <= ``max_gap``. A
position-controlled arm holds its last command, so over a longer pause the watcher takes the
joint as held at the earlier command (virtual samples at ``max_gap`` after it, or one period
before the next if that is sooner, and one period before the next): a stream that stops
while moving shows as the abrupt stop the arm sees, and the first command after the pause
may move the joint by one period's worth from where it was held. After a jump (``step``, a
``resync``, or a :meth:`~CommandWatcher.reset`), differences start afresh.

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
clock they were computed at), so a stream is judged in publish order, never arrival order;
it gives the watcher the stamps as integer nanoseconds.

It is independent of :mod:`ik_node.motion` on purpose: it re-derives the bounds from the
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
_HISTORY = 4    # commands per joint kept for the divided differences (jerk needs four)
_EPS = float(np.finfo(float).eps)


@dataclass(frozen=True)
class Violation:
    """
    One failed check.

    index: 0-based number of the command message; kind: 'names', 'nonfinite', 'limits',
    'step', 'speed', 'acceleration', 'jerk' or 'stamp'; detail: what was wrong, with the
    joint names and values. For 'acceleration' and 'jerk' also the worst joint of the
    message: joint, stamp_ns (the stamp of the command that completed the estimate), value
    (the estimate, signed) and limit (the joint's limit, before ``tolerance``).
    """

    index: int
    kind: str
    detail: str
    joint: str = ''
    stamp_ns: int | None = None
    value: float = math.nan
    limit: float = math.nan


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
    back [s] that check looks. a_max, j_max: (n,) acceleration [rad/s^2 or m/s^2] and jerk
    [rad/s^3 or m/s^3] limits, finite and > 0, or None (not checked); tolerance: factor on
    them (1.05: 5 % over a limit is a violation); stamp_resolution: how far [s] a command may
    have been sampled from its stamp (see the module docstring); max_gap: the longest pause
    [s] between two commands of a joint before the arm counts as holding the earlier one
    (default 5 periods).
    """

    def __init__(self, names: Sequence[str], lower: ArrayLike, upper: ArrayLike,
                 v_max: ArrayLike, period: float, continuous: ArrayLike | None = None,
                 require_all: bool = True, step_margin: float = 1e-9,
                 limit_margin: float = 1e-9, arm_slack: float = 0.02,
                 speed_slack: float = 0.1, speed_window: float = 1.0,
                 a_max: ArrayLike | None = None, j_max: ArrayLike | None = None,
                 tolerance: float = 1.05, stamp_resolution: float = 1e-9,
                 max_gap: float | None = None):
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
        self.a_max = self._optional_limits('a_max', a_max, n)
        self.j_max = self._optional_limits('j_max', j_max, n)
        for name, value in (('tolerance', tolerance), ('stamp_resolution', stamp_resolution)):
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f'{name} must be finite and >= 0, got {value}')
        self.tolerance = float(tolerance)
        self.stamp_resolution = float(stamp_resolution)
        gap = 5.0 * self.period if max_gap is None else float(max_gap)
        if not (math.isfinite(gap) and gap >= self.period):
            raise ValueError(f'max_gap must be finite and >= period ({self.period}), got {gap}')
        self.max_gap = gap
        self._gap_ns = int(round(gap * 1e9))
        # Largest |estimate| / limit seen (velocity from commands at their stamps).
        self.max_velocity_ratio = 0.0
        self.max_acceleration_ratio = 0.0
        self.max_jerk_ratio = 0.0
        # The last commands of each joint, newest last: stamps [ns] and positions (continuous
        # joints unwrapped); _count[i] of the _HISTORY columns are valid.
        self._stamps = np.zeros((n, _HISTORY), dtype=np.int64)
        self._values = np.zeros((n, _HISTORY))
        self._count = np.zeros(n, dtype=np.int64)
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

    @classmethod
    def for_limits(cls, chain: Any, limits: Any, period: float,
                   **kwargs) -> 'CommandWatcher':
        """
        Return a watcher for ``chain`` with the velocity, acceleration and jerk ``limits``.

        limits: an :class:`ik_node.motion.limits.JointLimits` naming every chain joint (in
        any order), e.g. the node's scaled command limits.
        """
        own = limits.select(chain.joint_names)
        return cls.for_chain(chain, own.velocity, period, a_max=own.acceleration,
                             j_max=own.jerk, **kwargs)

    @staticmethod
    def _optional_limits(name: str, values: ArrayLike | None, n: int) -> np.ndarray | None:
        if values is None:
            return None
        a = np.array(values, dtype=float).reshape(-1)
        if a.shape != (n,):
            raise ValueError(f'{name} must have {n} values, one per name')
        if not np.all(np.isfinite(a)) or np.any(a <= 0.0):
            raise ValueError(f'{name} must be finite and > 0, got {a.tolist()}')
        return a

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
        self._count[:] = 0

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
              t: float | None = None, stamp_ns: int | None = None) -> list[Violation]:
        """
        Check one command message; return its violations (also counted and kept).

        names, positions: the message's joint names and positions. t: receive time [s] of a
        monotonic clock, for the ``speed`` check (None skips it). stamp_ns: the message's
        header stamp [ns] (an int), for the stamp-based checks (``step`` over the time since
        the previous command, ``acceleration``, ``jerk``); None skips them (``step`` then
        allows one period's worth). Stamps of one joint must increase: a command at or
        before the previous one starts its differences afresh (:class:`StampedLog` orders
        commands by stamp and flags repeats).
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
        jump = np.zeros(len(idx), dtype=bool)
        if np.any(known):
            dq = np.where(known, np.abs(self._diff(idx, q, np.where(known, prev, q))), 0.0)
            bound = self.v_max[idx] * self._step_time(idx, stamp_ns)
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
        if stamp_ns is None:
            self._count[idx] = 0
        else:
            if np.any(jump):
                self._count[idx] = 0    # the commands start over: so do their differences
            found.extend(self._check_derivatives(index, idx, q, int(stamp_ns)))
        if t is not None:
            found.extend(self._check_speed(index, float(t)))
        return self._record(found)

    def finish(self, held: bool = False) -> None:
        """
        End of the stream: a jump still waiting for arm readings counts as a violation.

        held: the stream has ended for good (the arm is known to rest since): the arm holds
        each joint's last command, judged as after a pause (virtual samples at ``max_gap``
        after it and a period later), so a stream cut while moving shows as the abrupt stop
        it is. Leave it False for a stream only looked at until now.
        """
        if held:
            rows = np.flatnonzero(self._count > 0)
            if len(rows):
                last_stamp = self._stamps[rows, -1]
                last_value = self._values[rows, -1].copy()
                note = 'the arm holding the last command of the stream'
                for shift in (self._gap_ns, self._gap_ns + int(round(self.period * 1e9))):
                    self._record(self._push(self.messages, rows, last_stamp + shift,
                                            last_value, note))
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
                'max_velocity_ratio': self.max_velocity_ratio,
                'max_acceleration_ratio': self.max_acceleration_ratio,
                'max_jerk_ratio': self.max_jerk_ratio,
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

    def _step_time(self, idx: np.ndarray, stamp_ns: int | None) -> np.ndarray:
        """
        Return (len(idx),) the time [s] over which each joint's step is judged.

        One period without stamps. With them, the time since the joint's previous command
        but at least one period, if that is at most max_gap (else the arm held the previous
        command: one period); plus the stamps' sampling noise (two stamps).
        """
        span = np.full(len(idx), self.period)
        if stamp_ns is None:
            return span
        have = self._count[idx] > 0
        if not np.any(have):
            return span
        dt = (stamp_ns - self._stamps[idx, -1]).astype(float) * 1e-9
        late = have & (dt > self.period) & (dt <= self.max_gap)
        return np.where(late, dt, span) + 2.0 * self.stamp_resolution

    def _check_derivatives(self, index: int, idx: np.ndarray, q: np.ndarray,
                           stamp: int) -> list[Violation]:
        """Add this command to each joint's history; judge acceleration and jerk."""
        count = self._count[idx]
        last_stamp = self._stamps[idx, -1]
        last_value = self._values[idx, -1]
        # Stamps must increase; a repeat or a step back starts afresh.
        count = np.where((count > 0) & (stamp <= last_stamp), 0, count)
        self._count[idx] = count
        # Continuous joints: the history is unwrapped, so differences never see a 2 pi jump.
        q = np.where((count > 0) & self.continuous[idx], last_value + self._diff(
            idx, q, last_value), q)
        found: list[Violation] = []
        held = (count > 0) & (stamp - last_stamp > self._gap_ns)
        if np.any(held):
            # The arm held the previous command from max_gap after it (or from one period
            # before this one, if that is sooner) until one period before this one.
            note = f'the arm holding the previous command through a pause over {self.max_gap:g} s'
            end = np.int64(stamp - int(round(self.period * 1e9)))
            start = np.minimum(last_stamp[held] + self._gap_ns, end)
            found.extend(self._push(index, idx[held], start, last_value[held], note))
            more = held & (end > last_stamp + self._gap_ns)
            if np.any(more):
                found.extend(self._push(index, idx[more], np.full(int(np.sum(more)), end),
                                        last_value[more], note))
        found.extend(self._push(index, idx, np.full(len(idx), stamp, dtype=np.int64), q, ''))
        return found

    def _push(self, index: int, rows: np.ndarray, stamps: np.ndarray, values: np.ndarray,
              note: str) -> list[Violation]:
        """Append one sample per joint of ``rows``; judge the estimates it completes."""
        self._stamps[rows, :-1] = self._stamps[rows, 1:]
        self._values[rows, :-1] = self._values[rows, 1:]
        self._stamps[rows, -1] = stamps
        self._values[rows, -1] = values
        self._count[rows] = np.minimum(self._count[rows] + 1, _HISTORY)
        count = self._count[rows]
        if not np.any(count >= 2):
            return []
        s = self._stamps[rows]
        x = self._values[rows]
        # Gaps between the four samples [s], from exact integer differences.
        h = np.diff(s, axis=1).astype(float) * 1e-9
        h = np.where(h > 0.0, h, np.inf)            # unused columns of a short history
        a, b, c = h[:, 0], h[:, 1], h[:, 2]
        f = np.diff(x, axis=1) / h                   # first divided differences
        f2 = np.diff(f, axis=1) / (h[:, :-1] + h[:, 1:])
        f3 = (f2[:, 1] - f2[:, 0]) / (a + b + c)
        # Position noise of one sample: stamp sampling, and rounding of the values.
        eps = (self.v_max[rows] * self.stamp_resolution
               + 4.0 * _EPS * (1.0 + np.max(np.abs(np.where(np.isfinite(x), x, 0.0)), axis=1)))
        velocity = f[:, 2]
        ok2 = count >= 2
        self.max_velocity_ratio = max(self.max_velocity_ratio, float(np.max(
            np.where(ok2, np.abs(velocity) / self.v_max[rows], 0.0))))
        found = []
        if self.a_max is not None and np.any(count >= 3):
            acc = 2.0 * f2[:, 1]
            noise = 2.0 * eps * (1.0 / (b * (b + c)) + 1.0 / (b * c) + 1.0 / ((b + c) * c))
            found.extend(self._judge(index, 'acceleration', rows, count >= 3, acc,
                                     self.a_max[rows], noise, stamps, '/s^2', note))
        if self.j_max is not None and np.any(count >= 4):
            jerk = 6.0 * f3
            noise = 6.0 * eps * (1.0 / (a * (a + b) * (a + b + c)) + 1.0 / (a * b * (b + c))
                                 + 1.0 / ((a + b) * b * c) + 1.0 / ((a + b + c) * (b + c) * c))
            found.extend(self._judge(index, 'jerk', rows, count >= 4, jerk, self.j_max[rows],
                                     noise, stamps, '/s^3', note))
        return found

    def _judge(self, index: int, kind: str, rows: np.ndarray, valid: np.ndarray,
               value: np.ndarray, limit: np.ndarray, noise: np.ndarray, stamps: np.ndarray,
               unit: str, note: str) -> list[Violation]:
        """Return one violation of ``kind`` naming the worst joint, if any is over."""
        ratio = np.where(valid, np.abs(value) / limit, 0.0)
        worst = float(np.max(ratio))
        if kind == 'acceleration':
            self.max_acceleration_ratio = max(self.max_acceleration_ratio, worst)
        else:
            self.max_jerk_ratio = max(self.max_jerk_ratio, worst)
        over = valid & (np.abs(value) > self.tolerance * limit + noise)
        if not np.any(over):
            return []
        k = int(np.argmax(np.where(over, ratio, -1.0)))
        parts = ', '.join(
            f'{self.names[i]} {v:.6g}{unit} (limit {lim:.6g}, x{r:.3g}; allowed '
            f'{self.tolerance * lim + e:.6g})'
            for i, o, v, lim, r, e in zip(rows, over, value, limit, ratio, noise) if o)
        stamp = int(stamps[k])
        where = f' at stamp {stamp // 10**9}.{stamp % 10**9:09d} s'
        return [Violation(index, kind, parts + where + (f' ({note})' if note else ''),
                          joint=self.names[int(rows[k])], stamp_ns=stamp,
                          value=float(value[k]), limit=float(limit[k]))]

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
                watcher.check(a, b, t=stamp * 1e-9, stamp_ns=stamp)
        watcher.finish()
        return watcher
