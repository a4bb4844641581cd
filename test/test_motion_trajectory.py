# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.motion.trajectory: jerk-limited segments keep every limit and stay continuous."""

from hypothesis import given, settings
from hypothesis import strategies as st
from ik_node.motion.trajectory import (BlendSegment, JointSample, KinematicLimits, LineSegment,
                                       Motion)
import numpy as np
from numpy.testing import assert_allclose
import pytest

LIMITS = KinematicLimits.of([2.0, 1.0, 3.0], [5.0, 4.0, 10.0], [50.0, 30.0, 200.0])
DT = 1e-3


def derivatives(q: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, ...]:
    """Return the velocity, acceleration and jerk of samples ``q`` by divided differences."""
    v = np.diff(q, axis=0) / np.diff(times)[:, None]
    tv = 0.5 * (times[1:] + times[:-1])
    a = np.diff(v, axis=0) / np.diff(tv)[:, None]
    ta = 0.5 * (tv[1:] + tv[:-1])
    j = np.diff(a, axis=0) / np.diff(ta)[:, None]
    return v, a, j


def within(values: np.ndarray, limit: np.ndarray, factor: float = 1.0 + 1e-6) -> bool:
    return bool(np.all(np.abs(values) <= factor * limit + 1e-9))


def run(motion: Motion, times: np.ndarray, events: dict) -> np.ndarray:
    out = []
    for t in times:
        for when, action in list(events.items()):
            if t >= when:
                action(motion, t)
                del events[when]
        out.append(motion.state(t).q)
    return np.array(out)


def test_line_keeps_every_joint_within_its_limits_and_on_the_line():
    q0, q1 = np.zeros(3), np.array([1.0, -0.5, 2.0])
    line = LineSegment(q0, q1, LIMITS, 0.0)
    times = np.arange(0.0, line.duration + 0.1, DT)
    q = np.array([line.at(t).q for t in times])
    v, a, j = derivatives(q, times)
    assert within(v, LIMITS.velocity) and within(a, LIMITS.acceleration)
    assert within(j, LIMITS.jerk, 1.001)
    # Every sample lies on the segment q0 -> q1.
    p = q @ (q1 - q0) / np.dot(q1 - q0, q1 - q0)
    assert_allclose(q, np.outer(p, q1 - q0), atol=1e-12)
    assert np.all(p >= -1e-12) and np.all(p <= 1.0 + 1e-12)
    assert_allclose(line.at(line.t_end).q, q1, atol=1e-12)
    assert line.at(line.t_end).at_rest


def test_a_line_is_time_optimal_for_its_slowest_joint():
    # Joint 1 alone: the rest-to-rest time of a jerk-limited 1-D move of 1 rad.
    one = LineSegment([0.0], [1.0], KinematicLimits.of([1.0], [4.0], [30.0]), 0.0)
    both = LineSegment([0.0, 0.0, 0.0], [0.1, 1.0, 0.1], LIMITS, 0.0)
    assert both.duration == pytest.approx(one.duration, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(goals=st.lists(st.lists(st.floats(-2.0, 2.0), min_size=3, max_size=3), min_size=2,
                      max_size=4),
       changes=st.lists(st.floats(0.05, 0.6), min_size=4, max_size=4),
       kinds=st.lists(st.sampled_from(['blend', 'stop', 'slow', 'line']), min_size=4,
                      max_size=4))
def test_any_change_mid_motion_keeps_velocity_acceleration_and_jerk_limits(
        goals, changes, kinds):
    motion = Motion(np.zeros(3), 0.0)
    motion.replace([LineSegment(np.zeros(3), goals[0], LIMITS, 0.0)], 0.0)
    events, t = {}, 0.0

    def action(kind, goal):
        def act(m, now):
            if kind == 'blend':
                m.replace([BlendSegment(m.state(now), goal, LIMITS, now)], now)
            elif kind == 'stop':
                m.stop(now)
            elif kind == 'slow':
                m.slow(now, LIMITS.scaled(0.3))
            else:
                rest = m.stop(now)
                m.replace(list(m.segments) + [LineSegment(rest, goal, LIMITS,
                                                          m.segments[-1].t_end
                                                          if m.segments else now)], now)
        return act

    for k, (dt, kind) in enumerate(zip(changes, kinds)):
        t += dt
        events[round(t, 3)] = action(kind, np.array(goals[(k + 1) % len(goals)]))
    # Long enough for the slowest case (a 4 rad line at 0.3x the velocity limits).
    times = np.arange(0.0, t + 20.0, DT)
    q = run(motion, times, events)
    v, a, j = derivatives(q, times)
    assert within(v, LIMITS.velocity, 1.001)
    assert within(a, LIMITS.acceleration, 1.001)
    # A change may step the jerk (from one limit to the other), never beyond 2x: the
    # acceleration stays continuous.
    assert within(j, 2.0 * LIMITS.jerk, 1.01)
    assert motion.state(times[-1]).at_rest


def test_a_stop_on_a_line_stays_on_the_line_and_short_of_its_end():
    line = LineSegment(np.zeros(3), [1.0, 1.0, -1.0], LIMITS, 0.0)
    motion = Motion(np.zeros(3), 0.0)
    motion.replace([line], 0.0)
    t_stop = 0.4 * line.duration
    rest = motion.stop(t_stop)
    assert_allclose(rest / np.array([1.0, 1.0, -1.0]), rest[0], atol=1e-12)
    assert 0.0 < rest[0] < 1.0
    times = np.arange(t_stop, t_stop + 3.0, DT)
    q = np.array([motion.state(t).q for t in times])
    assert_allclose(q[-1], rest, atol=1e-12)
    assert motion.idle


def test_queued_lines_start_when_the_one_before_comes_to_rest():
    a, b, c = np.zeros(3), np.array([0.5, 0.0, 0.0]), np.array([0.5, 0.5, 0.0])
    first = LineSegment(a, b, LIMITS, 0.0)
    second = LineSegment(b, c, LIMITS, first.t_end)
    motion = Motion(a, 0.0)
    motion.replace([first, second], 0.0)
    # Sampled late, at a time inside the second segment: its own clock, not the tick's.
    s = motion.state(first.t_end + 0.5 * second.duration)
    assert_allclose(s.q, second.at(second.t0 + 0.5 * second.duration).q)
    assert motion.goal.tolist() == c.tolist()


def test_a_blend_ends_at_rest_at_its_goal_within_the_limits():
    start = JointSample(np.zeros(3), np.array([1.5, -0.8, 2.0]), np.array([2.0, 0.0, -5.0]))
    blend = BlendSegment(start, [1.0, -0.5, 2.0], LIMITS, 0.0)
    times = np.arange(0.0, blend.duration + DT, DT)
    q = np.array([blend.at(t).q for t in times])
    v, a, _ = derivatives(np.vstack([start.q - start.v * DT, q]),
                          np.concatenate([[-DT], times]))
    assert within(v, LIMITS.velocity, 1.001) and within(a[1:], LIMITS.acceleration, 1.001)
    assert_allclose(blend.at(blend.t_end).q, [1.0, -0.5, 2.0], atol=1e-12)
    low, high = blend.extrema()
    assert np.all(low <= q.min(axis=0) + 1e-9) and np.all(high >= q.max(axis=0) - 1e-9)


def test_limits_are_checked():
    with pytest.raises(ValueError, match='acceleration limit of joint 1'):
        KinematicLimits.of([1.0, 1.0], [1.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match='jerk limit of joint 0'):
        KinematicLimits.of([1.0], [1.0], [np.nan])
