# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.motion.velocity_blend: jerk-limited velocity blends, in step when they can be."""

from ik_node.motion.trajectory import JointSample
from ik_node.motion.velocity_blend import nearest_in_step, VelocityBlend
import numpy as np
from numpy.testing import assert_allclose
import pytest
from ruckig import ControlInterface, InputParameter, Ruckig, Trajectory

A = np.array([5.0, 4.0, 6.0, 3.0])
J = np.array([1000.0, 400.0, 800.0, 600.0])
DT = 1e-4


def samples(blend: VelocityBlend, tail: float = 0.05) -> tuple[np.ndarray, list]:
    times = np.arange(0.0, blend.duration + tail, DT)
    return times, [blend.at(t) for t in times]


def off_line(states: list, v0: np.ndarray, change: np.ndarray) -> float:
    """Return the largest distance of v - v0 from the line of ``change``, over |change|."""
    u = change / np.linalg.norm(change)
    d = np.array([s.v - v0 for s in states])
    return float(np.max(np.linalg.norm(d - np.outer(d @ u, u), axis=1)) / np.linalg.norm(change))


def assert_a_blend(blend: VelocityBlend, start: JointSample, v_target: np.ndarray) -> None:
    """Continuous from ``start``, within A and J, positions integrate, ends at v_target."""
    times, states = samples(blend)
    first = states[0]
    assert_allclose(first.q, start.q, atol=1e-12)
    assert_allclose(first.v, start.v, atol=1e-12)
    assert_allclose(first.a, start.a, atol=1e-9)
    a = np.array([s.a for s in states])
    v = np.array([s.v for s in states])
    q = np.array([s.q for s in states])
    assert np.all(np.abs(a) <= np.maximum(A, np.abs(start.a)) * (1 + 1e-9))
    jerk = np.diff(a, axis=0) / DT
    assert np.all(np.abs(jerk) <= J * (1 + 1e-6))
    # q is the integral of v (trapezoids: second order in DT).
    assert_allclose(np.diff(q, axis=0), (v[1:] + v[:-1]) / 2 * DT, atol=1e-9)
    assert_allclose(v[-1], v_target, atol=1e-12)
    assert_allclose(a[-1], 0.0, atol=1e-12)


def test_from_a_steady_velocity_to_another_every_joint_stays_on_one_line():
    # What Ruckig's phase synchronisation refuses (v0 and the target not parallel): each
    # joint would get its own profile shape.
    blend = VelocityBlend(A, J)
    start = JointSample(np.array([0.1, -0.2, 0.3, 0.0]), np.array([0.2, 0.1, -0.3, 0.05]),
                        np.zeros(4))
    target = np.array([-0.1, 0.4, 0.2, 0.3])
    blend.plan(start, target)
    assert blend.in_step
    assert_a_blend(blend, start, target)
    assert off_line(samples(blend)[1], start.v, target - start.v) < 1e-12


def test_a_change_in_one_joint_takes_that_joints_own_shortest_time():
    blend = VelocityBlend(A, J)
    start = JointSample(np.zeros(4), np.array([0.0, 0.5, 0.0, 0.0]), np.zeros(4))
    target = np.array([0.0, -0.7, 0.0, 0.0])
    blend.plan(start, target)
    one = Ruckig(1)
    inp = InputParameter(1)
    inp.control_interface = ControlInterface.Velocity
    inp.current_position, inp.current_velocity, inp.current_acceleration = [0.0], [0.5], [0.0]
    inp.target_velocity, inp.target_acceleration = [-0.7], [0.0]
    inp.max_velocity, inp.max_acceleration, inp.max_jerk = [1.0], [A[1]], [J[1]]
    trajectory = Trajectory(1)
    one.calculate(inp, trajectory)
    assert blend.duration == pytest.approx(trajectory.duration, rel=1e-12)
    assert_a_blend(blend, start, target)


def test_a_stop_in_the_middle_of_an_in_step_blend_stays_in_step():
    blend = VelocityBlend(A, J)
    start = JointSample(np.zeros(4), np.zeros(4), np.zeros(4))
    target = np.array([0.6, -0.3, 0.4, 0.2])
    blend.plan(start, target)
    middle = blend.at(blend.duration / 3)
    assert np.any(middle.a)
    blend.plan(middle, np.zeros(4))
    assert blend.in_step
    assert_a_blend(blend, middle, np.zeros(4))
    assert off_line(samples(blend)[1], middle.v, -middle.v) < 1e-12


def test_a_stroke_resumed_while_braking_goes_in_step_along_the_brakings_line():
    blend = VelocityBlend(A, J)
    moving = JointSample(np.zeros(4), np.array([0.6, -0.3, 0.4, 0.2]), np.zeros(4))
    blend.plan(moving, np.zeros(4))
    braking = blend.at(blend.duration * 0.6)
    # The arm moved meanwhile: the twist asks for nearly the same joint velocity again.
    wanted = moving.v + np.array([0.004, 0.003, -0.002, 0.001])
    on_line = nearest_in_step(braking, wanted, 0.02)
    assert np.linalg.norm(on_line - wanted) <= 0.02 * np.linalg.norm(wanted)
    blend.plan(braking, on_line)
    assert blend.in_step
    assert_a_blend(blend, braking, on_line)
    assert off_line(samples(blend)[1], braking.v, on_line - braking.v) < 1e-12
    # A velocity well off the line is left as it is: that blend cannot be in step.
    turned = np.array([-0.3, 0.5, 0.1, 0.0])
    assert_allclose(nearest_in_step(braking, turned, 0.02), turned)
    blend.plan(braking, turned)
    assert not blend.in_step
    assert_a_blend(blend, braking, turned)
    # Without acceleration every velocity is reached in step: nothing to move.
    assert_allclose(nearest_in_step(moving, turned, 0.02), turned)


@pytest.mark.parametrize('left', [1e-3, 1e-5, 1e-7, 1e-10])
@pytest.mark.parametrize('sign', [1.0, -1.0])
def test_a_velocity_nearly_reached_while_accelerating_blends_within_the_limits(left, sign):
    # The jog's velocity a hair from its target while it still accelerates along the change:
    # on the line's scale the acceleration was alpha = 4.9e7 for 1e-7 rad/s left, and Ruckig
    # found no blend (a CI run: the command tick failed, and the command stream jumped after).
    blend = VelocityBlend(A, J)
    change = np.array([0.6, 0.0, -0.8, 0.0])
    target = np.array([0.3, 0.1, -0.4, 0.0])
    start = JointSample(np.zeros(4), target - left * change, sign * 3.0 * change)
    blend.plan(start, target)
    assert_a_blend(blend, start, target)


def test_a_blend_from_an_acceleration_off_the_change_is_time_synchronised():
    blend = VelocityBlend(A, J)
    start = JointSample(np.zeros(4), np.array([0.2, 0.0, -0.1, 0.0]),
                        np.array([1.0, -2.0, 0.5, 0.0]))
    target = np.array([0.4, 0.3, 0.0, -0.2])
    blend.plan(start, target)
    assert not blend.in_step
    assert_a_blend(blend, start, target)
    # The joints end together: each still blends just before the end.
    late = blend.at(0.99 * blend.duration)
    assert np.all(np.abs(late.v - target) > 1e-9)
