# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The stop from the commands already sent (ik_node.motion.fail_brake), read as a driver does."""

from ik_node.motion.fail_brake import FailBrake, JERK_SHARE
from ik_node.motion.trajectory import KinematicLimits
import numpy as np
import pytest

V = np.array([1.5, 2.0, 3.0])
A = np.array([4.0, 8.0, 10.0])
J = np.array([40.0, 100.0, 200.0])
LIMITS = KinematicLimits.of(V, A, J)
FREE = (np.full(3, -np.inf), np.full(3, np.inf))


def driver_view(ts: np.ndarray, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """
    Return velocity, acceleration and jerk of commands (t, q): k! times their divided differences.

    Newton's divided differences at the stamps, even or not: the k-th times k! is the k-th
    derivative somewhere between the stamps it spans, for any spacing, so a motion within
    the limits reads within them however late its commands came.
    """
    v = np.diff(qs, axis=0) / np.diff(ts)[:, None]
    a = 2.0 * np.diff(v, axis=0) / (ts[2:] - ts[:-2])[:, None]
    j = 3.0 * np.diff(a, axis=0) / (ts[3:] - ts[:-3])[:, None]
    return v, a, j


def sent_motion(brake: FailBrake, v0: np.ndarray, a0: np.ndarray, period: float,
                count: int = 3) -> tuple[list, list]:
    """Send ``count`` commands of a motion at velocity v0 and acceleration a0 (at the last)."""
    ts, qs = [], []
    for k in range(count):
        t = k * period
        dt = t - (count - 1) * period
        q = v0 * dt + 0.5 * a0 * dt * dt
        brake.sent(t, q)
        ts.append(t)
        qs.append(q)
    return ts, qs


@pytest.mark.parametrize('period', [0.01, 0.001, 0.004])
@pytest.mark.parametrize('v0, a0', [
    (np.array([1.4, -1.9, 2.9]), np.zeros(3)),              # cruising near the limits
    (np.array([0.5, -0.2, 1.0]), np.array([3.5, -7.0, 9.0])),   # still speeding up
    (np.array([0.3, 1.0, -0.5]), np.array([-3.0, -2.0, 6.0])),  # already slowing down
    (np.zeros(3), np.array([2.0, -3.0, 0.0])),               # starting to move
])
def test_the_stop_ends_at_rest_within_the_acceleration_and_jerk_limits(v0, a0, period):
    brake = FailBrake(LIMITS, *FREE)
    ts, qs = sent_motion(brake, v0, a0, period)
    assert brake.start() and brake.braking
    rest, t = False, ts[-1]
    while not rest:
        t += period
        q, rest = brake.step(t)
        ts.append(t)
        qs.append(q)
        assert t < 3.0, 'no rest within 3 s'
    assert not brake.braking
    v, a, j = driver_view(np.array(ts), np.array(qs))
    # What the driver saw before the stop goes on: no velocity or acceleration step. The
    # differences lag a stamp behind, so the first braked accelerations are the sent ones
    # turning at the jerk limit.
    bound = np.maximum(A, np.abs(a0))
    assert np.all(np.abs(a) <= bound * 1.02 + 1e-9), (np.abs(a).max(axis=0), bound)
    assert np.all(np.abs(j) <= J * 1.05 + 1e-6), (np.abs(j).max(axis=0), J)
    assert np.all(np.abs(v[-1]) <= J * period ** 2)     # the last step's rounding to rest
    # Not a crawl: within the time the acceleration takes to turn (at the jerk the stop
    # uses) plus the time the velocity, at its peak, takes to come down at full braking.
    jerk = JERK_SHARE * J
    peak = np.abs(v0) + a0 ** 2 / (2 * jerk)
    longest = np.max(np.abs(a0) / jerk + 2 * A / jerk + peak / A)
    assert ts[-1] - ts[2] <= longest + 2 * period + 1e-9


def test_a_stop_that_would_pass_a_limit_is_held_there_and_says_so():
    brake = FailBrake(LIMITS, np.full(3, -1.0), np.full(3, 0.01))
    sent_motion(brake, np.array([1.4, 0.0, 0.0]), np.zeros(3), 0.01)
    assert brake.start()
    t, rest = 0.02, False
    while not rest:
        t += 0.01
        q, rest = brake.step(t)
    assert q[0] == pytest.approx(0.01) and brake.clipped


def test_no_stop_without_a_command_sent_and_none_stepped_without_a_start():
    brake = FailBrake(LIMITS, *FREE)
    assert not brake.start()
    with pytest.raises(RuntimeError):
        brake.step(0.0)
    brake.sent(0.0, np.zeros(3))
    assert brake.start()        # one command: at rest there
    q, rest = brake.step(0.01)
    assert rest and np.array_equal(q, np.zeros(3))


def test_the_preview_is_the_stop_the_steps_then_take():
    brake = FailBrake(LIMITS, *FREE)
    sent_motion(brake, np.array([1.0, -1.0, 2.0]), np.zeros(3), 0.01)
    assert brake.start()
    points = brake.preview(0.02, 0.05, 100)
    assert np.all(np.abs(points[-1][2]) < 1e-6)       # the last point at rest
    for dt, q, _, _ in points[:5]:
        stepped, _ = brake.step(0.02 + dt)
        np.testing.assert_allclose(stepped, q, atol=1e-5)     # (sub-steps fall apart)
