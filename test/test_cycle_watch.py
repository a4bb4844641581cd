# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.ros.cycle_watch: command ticks held off while the arm moved are told, with GC time."""

import gc
import re
import time

from ik_node.ros.cycle_watch import CycleWatch, LATE_MIN
import pytest

# The node's clock, as real time.
clock = time.monotonic


@pytest.fixture
def watch():
    w = CycleWatch()
    yield w
    w.close()


def test_a_tick_held_off_while_the_arm_moved_is_told_with_the_gap(watch):
    assert watch.tick(0.01, True, clock()) == ''        # the first tick has nothing before it
    time.sleep(0.03)            # the tick's own work: a wait, then a kernel compiled
    numba = pytest.importorskip('numba')
    assert numba.njit(lambda x: x + 1)(1) == 2
    watch.done()
    time.sleep(0.03)
    told = watch.tick(0.01, True, clock(), (0.012, 0.0099))
    gap_ms = int(told.split('no command tick for ')[1].split(' ms')[0])
    ran_ms = int(told.split('the tick before ran ')[1].split(' ms')[0])
    assert gap_ms >= 60 and 30 <= ran_ms < gap_ms, told
    usage = re.search(r'between the two ticks the thread was (\d+) ms on the CPU, waited (\d+) '
                      r'times .*, was preempted (\d+) times, had (\d+) page faults \((\d+) from '
                      r'disk\) and loaded kernels for (\d+) ms', told)
    assert usage, told
    cpu_ms, waits, _, _, _, loading_ms = (int(x) for x in usage.groups())
    # The two 30 ms sleeps are waits, not on the CPU; the compile is told as loading (wall
    # time in numba's compiler lock: its CPU time and whatever preempted it).
    assert waits >= 2 and cpu_ms <= gap_ms - 50 and 0 < loading_ms <= ran_ms, told
    assert 'other callbacks in the control thread 12 ms (the longest 10 ms)' in told
    assert 'one every 10 ms asked' in told and '(1 late so far)' in told
    assert watch.late == 1 and watch.longest >= 0.06


def test_a_gap_at_rest_or_within_three_periods_is_not_late(watch):
    watch.tick(0.01, False, clock())
    time.sleep(LATE_MIN + 0.04)
    assert watch.tick(0.01, False, clock()) == ''       # at rest: nothing held up
    time.sleep(LATE_MIN + 0.04)
    assert watch.tick(1.0, True, clock()) == ''         # three periods of a slow rate not yet over
    assert watch.late == 0


def test_the_garbage_collection_during_the_gap_is_named():
    heap = [[i] for i in range(300_000)]        # a full collection walks them: milliseconds
    watch = CycleWatch()
    try:
        watch.tick(0.001, True, clock())
        gc.collect()
        time.sleep(LATE_MIN)
        told = watch.tick(0.001, True, clock())
        assert 'garbage collection (generation 2) took' in told, told
        time.sleep(LATE_MIN + 0.01)
        assert 'no garbage collection meanwhile' in watch.tick(0.001, True, clock())
    finally:
        watch.close()
    assert watch._on_gc not in gc.callbacks
    del heap


def test_a_gap_while_the_nodes_clock_stood_still_is_not_late(watch):
    # A simulated clock paused: the timer stops, and the arm with it.
    watch.tick(0.01, True, 100.0)
    time.sleep(LATE_MIN + 0.04)
    assert watch.tick(0.01, True, 100.01) == '' and watch.late == 0


SLOW_TICK = """
import time
from ik_node.ros.cycle_watch import CycleWatch
watch = CycleWatch()


def slow_work():
    time.sleep(0.3)


for work in (lambda: None, slow_work, lambda: time.sleep(0.01)):
    watch.tick(0.01, True, time.monotonic())
    work()
    watch.done()
time.sleep(0.3)     # (a dump armed by a tick not cancelled would come now)
watch.close()
"""


def test_a_slow_tick_dumps_every_threads_stack_while_it_runs_when_asked():
    import os
    import subprocess
    import sys
    env = {**os.environ, 'IK_NODE_SLOW_TICK_DUMP': '0.1'}
    out = subprocess.run([sys.executable, '-c', SLOW_TICK], env=env, capture_output=True,
                         text=True, timeout=60, check=True).stderr
    assert out.count('Timeout (0:00:00.100000)!') == 1, out
    assert 'in slow_work' in out, out
    env.pop('IK_NODE_SLOW_TICK_DUMP')
    quiet = subprocess.run([sys.executable, '-c', SLOW_TICK], env=env, capture_output=True,
                           text=True, timeout=60, check=True).stderr
    assert quiet == ''
