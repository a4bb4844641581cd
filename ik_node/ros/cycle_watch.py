# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Late control cycles: a command tick that came several periods late while the arm moved.

An arm driver holds the last command through a gap in the stream; a gap of several periods
while the arm moves stops it abruptly. The node's control thread runs at SCHED_FIFO, but a
thread that holds the GIL (a garbage collection, a native call that does not release it)
holds it off as long, and so does a tick whose own work runs long, or another callback the
control thread runs between ticks. :class:`CycleWatch` notices each such gap at the tick
after it, says how long it was, how long the tick before and the other callbacks ran and
how much of the gap garbage collections took, and counts them for the node's state status:
the owner learns of it, and the cause can be looked for. Of the control thread between the
two ticks it tells how long it was on the CPU, how often it gave the CPU up to wait (for the
GIL, a lock, a disk; its wait for the tick is one) and was preempted, its page faults, and how
long it spent loading or compiling kernels (numba's compiler lock,
:func:`ik_node._jit.loading_seconds`).

For that search, the environment variable ``IK_NODE_SLOW_TICK_DUMP`` [s] (unset: off) makes a
tick that runs longer dump the stacks of all the process's threads to stderr while it runs
(:func:`faulthandler.dump_traceback_later`: it shows what the tick waits for and which
thread holds the GIL). A diagnosis tool for a quiet machine, never for an arm in use: each
tick starts a watchdog thread and, at its end, waits with the GIL held until that thread has
ended; the thread starts at normal scheduling (the control thread's SCHED_FIFO is reset for
the threads it starts), so on a busy machine that wait itself held ticks 50-170 ms.
"""

from collections import deque
import faulthandler
import gc
import os
import resource
import threading
import time

from ik_node._jit import loading_seconds

__all__ = ['CycleWatch', 'LATE_PERIODS', 'LATE_MIN', 'SLOW_TICK_DUMP']

# A tick is late when it comes more than this many periods after the one before ...
LATE_PERIODS = 3.0
# ... and more than this [s] after it (at 1 kHz three periods are within the machine's jitter).
LATE_MIN = 0.02
# Garbage collections shorter than this [s] are not kept.
_GC_KEPT = 1e-3
# The environment variable of the slow-tick stack dump (module docstring).
SLOW_TICK_DUMP = 'IK_NODE_SLOW_TICK_DUMP'


def _dump_after() -> float:
    """Return the SLOW_TICK_DUMP time [s], 0 when off (unset, not a positive number)."""
    try:
        seconds = float(os.environ.get(SLOW_TICK_DUMP, '') or 0.0)
    except ValueError:
        return 0.0
    return seconds if seconds > 0.0 else 0.0


class CycleWatch:
    """
    The command ticks of one node, told when late (see the module docstring).

    A gap counts on both clocks: the process's monotonic clock (``time.perf_counter``, what
    it tells) and the node's (a simulated clock that stands still stops the timer, and the
    arm with it: no gap then).
    """

    def __init__(self) -> None:
        self.late = 0                   # late ticks while the arm moved
        self.longest = 0.0              # [s] the longest such gap
        self._last: float | None = None     # perf_counter() of the last tick
        self._last_clock = 0.0          # [s] the node's clock then
        self._ran = 0.0                 # [s] how long the last tick's own work took
        self._usage: tuple | None = None    # (thread, its usage) at the last tick
        self._gc: deque = deque(maxlen=32)      # (start, end, generation) of collections
        self._gc_start = 0.0
        gc.callbacks.append(self._on_gc)
        self._dump_after = _dump_after()

    def close(self) -> None:
        """Stop watching garbage collections (and slow ticks)."""
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        if self._dump_after:
            faulthandler.cancel_dump_traceback_later()
            self._dump_after = 0.0

    def tick(self, period: float, moving: bool, clock: float,
             calls: tuple[float, float] | None = None) -> str:
        """
        Note a command tick now; return why it is late ('' if it is not).

        period [s]: the tick period asked for; moving: a command since the tick before moved
        the arm (a gap at rest holds nothing up); clock [s]: the node's clock now; calls
        [s]: (total, longest) of the other callbacks the control thread ran since the tick
        before (:meth:`ik_node.ros.control_loop.CycleGroup.take_calls`), None without one.
        """
        now = time.perf_counter()
        usage, self._usage = self._usage, (threading.get_ident(), _thread_usage())
        if self._dump_after:
            faulthandler.dump_traceback_later(self._dump_after)
        last, self._last = self._last, now
        last_clock, self._last_clock = self._last_clock, clock
        if last is None or not moving:
            return ''
        gap = now - last
        if min(gap, clock - last_clock) <= max(LATE_PERIODS * period, LATE_MIN):
            return ''
        self.late += 1
        self.longest = max(self.longest, gap)
        ran = f'the tick before ran {self._ran * 1e3:.0f} ms; '
        if usage is not None and usage[0] == self._usage[0]:
            cpu, waits, preempted, faults, disk, loading = (
                b - a for a, b in zip(usage[1], self._usage[1]))
            ran += (f'between the two ticks the thread was {cpu * 1e3:.0f} ms on the CPU, '
                    f'waited {waits} times (its wait for this tick is one), was preempted '
                    f'{preempted} times, had {faults} page faults ({disk} from disk) and loaded '
                    f'kernels for {loading * 1e3:.0f} ms; ')
        if calls is not None:
            ran += (f'other callbacks in the control thread {calls[0] * 1e3:.0f} ms (the '
                    f'longest {calls[1] * 1e3:.0f} ms); ')
        spent = [(min(end, now) - max(start, last), generation)
                 for start, end, generation in self._gc if end > last and start < now]
        if spent:
            took = (f'garbage collection (generation {max(g for _, g in spent)}) took '
                    f'{sum(s for s, _ in spent) * 1e3:.0f} ms of it')
        else:
            took = 'no garbage collection meanwhile'
        return (f'control cycle late: no command tick for {gap * 1e3:.0f} ms while the arm '
                f'moved (one every {period * 1e3:.0f} ms asked); the arm held its last command '
                f'meanwhile; {ran}{took} ({self.late} late so far)')

    def done(self) -> None:
        """Note the end of the tick's own work (its length is told if the next is late)."""
        if self._dump_after:
            faulthandler.cancel_dump_traceback_later()
        if self._last is not None:
            self._ran = time.perf_counter() - self._last

    def _on_gc(self, phase: str, info: dict) -> None:
        # Called in whichever thread collects, with the GIL held.
        now = time.perf_counter()
        if phase == 'start':
            self._gc_start = now
        elif now - self._gc_start >= _GC_KEPT:
            self._gc.append((self._gc_start, now, info['generation']))


def _thread_usage() -> tuple:
    """
    Return this thread's (CPU s, waits, preemptions, page faults, from disk, loading s).

    One getrusage call (about 1-2 us): the context switches it gave up (a wait) and was made
    to (a preemption), page faults (minor and major), and its kernel loading.
    """
    r = resource.getrusage(resource.RUSAGE_THREAD)
    return (r.ru_utime + r.ru_stime, r.ru_nvcsw, r.ru_nivcsw, r.ru_minflt + r.ru_majflt,
            r.ru_majflt, loading_seconds())
