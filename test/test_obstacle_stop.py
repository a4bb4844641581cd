# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The stop for a new obstacle (ik_node.motion.obstacle_stop) on the demo arm, without ROS.

The arm goes from START to GOAL on a straight joint line at its limits; a sphere appears
where the tool will be at 80 % of the line (its wrist would touch it at about 53 %). Sampled at
1 ms, the commands are checked for contact and, by divided differences, for acceleration and
jerk: within the limits when that stop avoids contact, within the emergency scale when only
that one does, and one reported velocity step at the last clear state when none does.
"""

from ik_node import HalfSpace, Sphere
from ik_node.motion.commander import MotionCommander
from ik_node.motion.obstacle_stop import EMERGENCY, plan_stop, UNAVOIDABLE, WITHIN_LIMITS
from ik_node.motion.planner import path_touches
from ik_node.motion.trajectory import KinematicLimits
import numpy as np
import pytest

START = np.array([0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0])
GOAL = np.array([0.603, -1.926, 0.403, -0.862, -1.49, -0.607])
LIMITS = KinematicLimits.of([3.15] * 6, [5.0] * 6, [1000.0] * 6)
DT = 1e-3


def world(demo) -> list:
    ball = Sphere(center=tuple(demo.fk(START + 0.8 * (GOAL - START))[:3, 3]), radius=0.05,
                  name='ball')
    return [HalfSpace(name='floor'), ball]


def moving(demo) -> MotionCommander:
    cmd = MotionCommander(demo, LIMITS)
    cmd.reset(START, 0.0)
    cmd.follow(np.array([START, GOAL]), 0.0)
    cmd.sample(0.0)
    return cmd


def stop_at(demo, t_obs: float, scale: float = 2.0):
    """Return (record, commands (m, n) every DT to rest, index of the obstacle's time)."""
    cmd = moving(demo)
    times = np.arange(0.0, 1.5, DT)
    k_obs = int(round(t_obs / DT))
    qs = [cmd.sample(t).q for t in times[:k_obs]]
    planned = plan_stop(cmd, world(demo), times[k_obs], scale)
    assert planned is not None
    cmd.take_stop(planned[0], times[k_obs])
    qs.extend(cmd.sample(t).q for t in times[k_obs:])
    return planned[1], np.array(qs), k_obs


def peaks(qs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return |v|, |a|, |j| (max over joints) at each divided difference."""
    v = np.diff(qs, axis=0) / DT
    a = np.diff(v, axis=0) / DT
    j = np.diff(a, axis=0) / DT
    return (np.max(np.abs(v), axis=1), np.max(np.abs(a), axis=1), np.max(np.abs(j), axis=1))


def the_step(qs: np.ndarray, scale: float) -> float:
    """Check the limits x ``scale`` up to one step to rest; return the speed before it."""
    v, a, _ = peaks(qs)
    m = int(np.flatnonzero(v > 0.0)[-1])      # the last interval that moved (maybe in part)
    assert np.max(a[:m - 1]) <= 5.0 * scale * 1.01
    return float(v[m - 1])


def assert_clear(demo, qs: np.ndarray) -> None:
    touching = [q for q in qs if demo.collisions(q, world(demo))]
    assert not touching, demo.collisions(touching[0], world(demo))


def test_a_clear_path_needs_no_stop(demo):
    assert plan_stop(moving(demo), [HalfSpace(name='floor')], 0.2, 2.0) is None


def test_an_obstacle_beyond_the_braking_distance_stops_the_arm_within_the_limits(demo):
    record, qs, _ = stop_at(demo, 0.25)
    assert record.kind == WITHIN_LIMITS and record.scale == 1.0 and record.level == 'WARN'
    assert record.stop_travel < record.contact_travel and 'wrist_1_link' in record.contact
    assert_clear(demo, qs)
    _, a, j = peaks(qs)
    assert np.max(a) <= 5.0 * 1.01 and np.max(j) <= 1000.0 * 1.01
    assert np.max(a) > 5.0 * 0.9        # it braked at its limit, not gently
    assert np.max(np.abs(qs[-1] - qs[-2])) == 0.0


def test_an_obstacle_inside_the_braking_distance_gets_the_gentlest_clear_emergency_stop(demo):
    cmd = moving(demo)
    within = cmd.stopping(0.4)
    assert path_touches(demo, within.samples(0.4, 0.05), world(demo))     # it would touch
    record, qs, _ = stop_at(demo, 0.4)
    assert record.kind == EMERGENCY and record.level == 'ERROR'
    assert 1.0 < record.scale <= 2.0 and record.braking_travel > record.contact_travel
    assert record.stop_travel < record.contact_travel
    assert 'emergency stop at' in record.text() and f'{record.scale:.2f}x' in record.text()
    assert_clear(demo, qs)
    _, a, j = peaks(qs)
    assert 5.0 * 1.05 < np.max(a) <= 5.0 * record.scale * 1.01
    assert np.max(j) <= 1000.0 * record.scale * 1.01


def test_beyond_the_emergency_scale_the_arm_holds_at_its_last_clear_state_and_says_so(demo):
    record, qs, _ = stop_at(demo, 0.47)
    assert record.kind == UNAVOIDABLE and record.level == 'ERROR' and record.scale == 2.0
    assert 'velocity step' in record.text()
    assert_clear(demo, qs)
    # Within twice the limits until the one step, whose size is the one reported.
    assert record.velocity_step == pytest.approx(the_step(qs, 2.0), rel=0.05, abs=0.02)
    assert record.stop_travel < record.contact_travel


def test_an_emergency_scale_of_one_never_exceeds_the_limits_before_holding(demo):
    record, qs, _ = stop_at(demo, 0.4, scale=1.0)
    assert record.kind == UNAVOIDABLE and record.scale == 1.0
    assert_clear(demo, qs)
    assert record.velocity_step == pytest.approx(the_step(qs, 1.0), rel=0.05, abs=0.02)
