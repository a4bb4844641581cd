# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The compiled lag and stall checks over the tracker's rings decide as the deque loops did.

The references below are the straightforward loops over (time, q) pairs that the tracker
ran before (:mod:`ik_node.motion.window_checks`); each also says which branch decided, so
the random histories are shown to reach every one.
"""

from collections import Counter
import math

from ik_node.motion import guards
from ik_node.motion.joint_space import joint_distance
from ik_node.motion.timed_ring import TimedRing
import numpy as np
import pytest

LATENCY, MOTION = guards.ARM_LATENCY, guards.STALL_MOTION
CONTINUOUS = np.array([False, True, True])


def reference_stood_still(pairs, t):
    """Return (decision, branch) of the deque loop over ``pairs`` (oldest first)."""
    if not pairs or pairs[0][0] > t - LATENCY:
        return False, 'short'
    last = pairs[-1][1]
    start = -1
    if pairs[0][0] <= pairs[-1][0]:
        before = [i for i, (t_r, _) in enumerate(pairs) if t_r < t - LATENCY]
        # bisection over sorted times finds the newest before; unsorted: as the loop did
        lo, hi = 0, len(pairs) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if pairs[mid][0] < t - LATENCY else (lo, mid - 1)
        start = lo if pairs[lo][0] < t - LATENCY else -1
        assert start == -1 or before
    if start >= 0 and np.max(np.abs(pairs[start][1] - last)) > MOTION:
        return False, 'oldest moved'
    window = []
    for t_r, q_r in reversed(pairs):
        window.append(q_r)
        if t_r < t - LATENCY:
            break
    still = bool(np.max(np.abs(np.array(window) - last)) <= MOTION)
    return still, ('still' if still else 'moved') + ('' if start >= 0 else ' no start')


def reference_following_lag(pairs, q, t):
    """Return (lag, branch) of the deque loop over ``pairs`` (oldest first)."""
    window, cut = [], False
    for t_cmd, q_cmd in reversed(pairs):
        if t_cmd > t:
            continue
        window.append(q_cmd)
        if t_cmd < t - LATENCY:
            cut = True
            break
    if not window:
        return np.zeros(q.shape[0]), 'none'
    lag = np.min(joint_distance(CONTINUOUS, np.array(window) - q), axis=0)
    return lag, 'cut' if cut else 'whole'


def random_history(rng):
    """Return (capacity, pairs appended, t): wraps the ring, hits window edges and pi."""
    capacity = int(rng.integers(1, 9))
    t = float(rng.choice([0.0, 1.0, 10.0, 1234.5])) + float(rng.uniform(0.0, 0.5))
    pool = np.concatenate([t + rng.choice([-0.4, -0.3, -0.25, -0.15, -0.1, -0.05, 0.0, 0.05],
                                          8), [t - LATENCY, t, t - LATENCY - 1e-12]])
    times = np.sort(rng.choice(pool, int(rng.integers(0, 3 * capacity + 1))))
    if rng.random() < 0.15 and times.size > 1:
        rng.shuffle(times)            # the clock went back
    base = rng.choice([0.0, math.pi - 1e-4, -math.pi]) + np.zeros(3)
    pairs = []
    for t_r in times:
        step = rng.choice([0.0, MOTION, -MOTION, 0.5 * MOTION, 3.0 * MOTION], 3)
        q = base + step if rng.random() < 0.8 else base + rng.uniform(-4.0, 4.0, 3)
        pairs.append((float(t_r), q))
    return capacity, pairs, t


def test_the_compiled_checks_decide_as_the_loops_over_many_random_histories():
    rng = np.random.default_rng(30)
    seen = Counter()
    for _ in range(4000):
        capacity, appended, t = random_history(rng)
        ring = TimedRing(capacity)
        for t_r, q in appended:
            ring.append(t_r, q)
        kept = appended[-capacity:] if appended else []
        assert len(ring) == len(kept)
        assert all(ring[i][0] == kept[i][0] and np.array_equal(ring[i][1], kept[i][1])
                   for i in range(len(kept)))
        still, branch = reference_stood_still(kept, t)
        assert guards.stood_still(ring, t) == still, (kept, t)
        seen['stall ' + branch] += 1
        q = kept[-1][1] + rng.choice([0.0, 0.3, 2.0 * math.pi - 0.1]) if kept else np.ones(3)
        lag, branch = reference_following_lag(kept, q, t)
        got = guards.following_lag(ring, CONTINUOUS, q, t)
        assert np.array_equal(got, lag), (kept, q, t, got, lag)
        seen['lag ' + branch] += 1
        seen['wrapped'] += len(appended) > capacity
    for branch in ('stall short', 'stall oldest moved', 'stall still', 'stall moved',
                   'stall still no start', 'stall moved no start', 'lag none', 'lag cut',
                   'lag whole', 'wrapped'):
        assert seen[branch] > 0, (branch, seen)


@pytest.mark.parametrize('capacity', [1, 3])
def test_a_ring_keeps_the_newest_rows_and_copies_apart(capacity):
    ring = TimedRing(capacity)
    with pytest.raises(IndexError):
        ring[-1]
    for k in range(5):
        ring.append(float(k), np.full(2, float(k)))
    assert [ring[i][0] for i in range(len(ring))] == [float(k) for k in range(5 - capacity, 5)]
    copy = ring.copy()
    ring.append(9.0, np.zeros(2))
    assert copy[-1][0] == 4.0 and ring[-1][0] == 9.0
    ring.clear()
    assert len(ring) == 0 and len(copy) == capacity
