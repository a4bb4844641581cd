# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The ROS tests' judgment of a command stream, and the late ticks the machine caused.

:func:`judge_commands` replays the commands a probe heard, in stamp order, into a
:class:`~ik_node.motion.watcher.CommandWatcher` with the node's velocity, acceleration and
jerk limits, and fails on any violation, but one: an abrupt stop where the node's control
thread was not run by the machine.

The node tells each late command tick (a WARN ``ik_node.late_cycle``, see
:mod:`ik_node.ros.cycle_watch`) with what its control thread did between the two ticks. When
the gap went by inside the tick before (its work ran all but two periods of it), and in it
the thread was on the CPU for a few milliseconds at most, gave the CPU up only for its tick
(no wait for the GIL, a lock or a disk), loaded no kernel, ran no other callback and no
garbage collection ran, the time went outside the process: the machine held the thread
while it ran (on these virtual machines a tick's work has been seen to take 50 ms of wall
time with 1 ms on the CPU and no preemption; a VM's stolen time does not count as the
thread's CPU). A late wake from the tick's wait is not excused: the node's timer could be
its cause. An arm holding its last command through the gap stops abruptly, which the watcher
rightly reports; the node cannot prevent it and has told it. Such acceleration and jerk
violations, within the gap and the four commands after it, are excused (and listed as a
pytest warning); every other violation fails, as does a late tick of the node's own making
(work, a wait, a collection) or one it did not tell.
"""

from dataclasses import dataclass
from pathlib import Path
import re
from typing import Any, Iterable, Optional
import warnings

from ik_node.motion.watcher import CommandWatcher
from ros_harness import stamp_ns

__all__ = ['around', 'judge_commands', 'late_tick', 'MachineStall', 'machine_stalls',
           'stall_over', 'told_stalls']

# The node's WARN of a late tick (ik_node.ros.cycle_watch.CycleWatch.tick): its log stamp [s]
# (the node's clock, which stamps its commands), the gap and what the control thread did.
_LATE = re.compile(
    r'\[WARN\] \[(?P<stamp>\d+\.\d+)\] \[[\w.]*late_cycle\]: control cycle late: no command '
    r'tick for (?P<gap>\d+) ms .*?one every (?P<period>\d+) ms asked.*?the tick before ran '
    r'(?P<ran>\d+) ms; between the two ticks the thread was (?P<cpu>\d+) ms on the '
    r'CPU, waited (?P<waits>\d+) times .*?had \d+ page faults \((?P<disk>\d+) from disk\) and '
    r'loaded kernels for (?P<loading>\d+) ms; (?:other callbacks in the control thread '
    r'(?P<calls>\d+) ms [^;]*; )?(?P<gc>no garbage collection meanwhile)?')
# [ms] the most CPU the control thread may have used between the two ticks of a gap the
# machine caused (a tick's own work: about 0.3 ms; reading the late tick's report: 1-2 ms).
_CPU_MS = 5
_CALLS_MS = 5
# Violations after the gap's end still within this many periods (the jerk estimate spans four
# commands) belong to it.
_AFTER_PERIODS = 4


@dataclass(frozen=True)
class MachineStall:
    """A command gap the node told, of the machine's making: its span [ns] and the node's text."""

    start_ns: int
    end_ns: int
    text: str


def late_tick(line: str) -> Optional[dict]:
    """
    Return the figures of a node's late-tick WARN line, None for another line.

    Keys: stamp_ns (the log stamp: the late tick), gap, period, ran, cpu, loading, calls [ms];
    waits, disk (counts); gc (True when a garbage collection ran in the gap).
    """
    m = _LATE.search(line)
    if m is None:
        return None
    keys = ('gap', 'period', 'ran', 'cpu', 'waits', 'disk', 'loading', 'calls')
    told = {key: int(m[key] or 0) for key in keys}
    told['stamp_ns'] = int(m['stamp'].replace('.', '').ljust(19, '0')[:19])
    told['gc'] = m['gc'] is None
    return told


def machine_stalls(logs: Iterable[Path]) -> list[MachineStall]:
    """Return the late ticks told in the node logs ``logs`` that the machine caused."""
    found = []
    for path in logs:
        for line in path.read_text(errors='replace').splitlines():
            t = late_tick(line)
            if (t is None or t['gc'] or t['cpu'] > _CPU_MS or t['waits'] > 1 or t['disk']
                    or t['loading'] or t['calls'] > _CALLS_MS):
                continue
            # The time went by inside the tick's own work, where the thread never waited: a
            # late wake from the tick's wait instead could be the node's timer.
            if t['ran'] < t['gap'] - 2 * t['period']:
                continue
            found.append(MachineStall(t['stamp_ns'] - t['gap'] * 1_000_000, t['stamp_ns'],
                                      line.strip()))
    return found


def told_stalls(probe: Any) -> list[MachineStall]:
    """Return the machine's stalls the ik_node processes of ``probe.procs`` told (none without)."""
    procs = getattr(probe, 'procs', None)
    if procs is None:
        return []
    return machine_stalls(p.log_path for p in procs.procs if p.executable == 'ik_node')


def stall_over(stalls: Iterable[MachineStall], start_ns: int, end_ns: int, period: float
               ) -> Optional[MachineStall]:
    """
    Return the stall of ``stalls`` that meets the span [start_ns, end_ns], else None.

    A stall spans its gap and the ``_AFTER_PERIODS`` periods [s] after it, whose commands
    the jerk estimate still reads across the gap.
    """
    after = int(_AFTER_PERIODS * period * 1e9)
    return next((s for s in stalls if s.start_ns <= end_ns and start_ns <= s.end_ns + after),
                None)


def judge_commands(chain: Any, probe: Any, since: int, limits: Any, period: float,
                   held: bool = False, stalls: Optional[list] = None) -> CommandWatcher:
    """
    Judge ``probe.commands[since:]`` in stamp order against ``limits`` (JointLimits).

    period [s]: the node's command period; held: the arm rests after the last command
    (:meth:`CommandWatcher.finish`); stalls: the machine's stalls to excuse (default: those
    the nodes of ``probe.procs`` told, none without). Fails on a violation they do not
    explain; returns the watcher.
    """
    w = CommandWatcher.for_limits(chain, limits, period, require_all=False)
    msgs = sorted((m for _, m in probe.commands[since:]), key=lambda m: stamp_ns(m.header.stamp))
    assert len(msgs) > 20
    for m in msgs:
        ns = stamp_ns(m.header.stamp)
        w.check(list(m.name), list(m.position), t=ns * 1e-9, stamp_ns=ns)
    w.finish(held)
    if stalls is None and w.violations:         # the nodes' logs are read only when needed
        stalls = told_stalls(probe)
    left, excused = [], []
    for v in w.violations:
        stall = (stall_over(stalls or (), v.stamp_ns, v.stamp_ns, period)
                 if v.kind in ('acceleration', 'jerk') and v.stamp_ns is not None else None)
        (excused if stall else left).append((v, stall))
    assert not left and w.total_violations == len(w.violations), (
        w.summary(), [str(v) for v, _ in left[:5]], around(msgs, left[0][0]) if left else [])
    for v, stall in excused:
        warnings.warn(f'excused, the machine held the node: {v.detail} (the node: {stall.text})')
    return w


def around(msgs: list, violation: Any, count: int = 6) -> list[str]:
    """Return the commands (stamp, position of its joint) near a violation, for its report."""
    if violation.stamp_ns is None or not violation.joint:
        return []
    stamps = [stamp_ns(m.header.stamp) for m in msgs]
    i = next((k for k, s in enumerate(stamps) if s >= violation.stamp_ns), len(stamps))
    return [f'{stamps[k] * 1e-9:.6f} s: {m.position[list(m.name).index(violation.joint)]:.9f}'
            for k, m in enumerate(msgs[max(0, i - count):i + count], start=max(0, i - count))
            if violation.joint in m.name]
