# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.ros.sim_stepper: every command is finite, inside the limits and velocity limited."""

import math
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st
from ik_node.motion.joint_space import wrap_angle
from ik_node.ros.sim_stepper import CommandStepper
import numpy as np
from numpy.testing import assert_allclose
import pytest

LOWER = np.array([-1.0, -2.0, 0.0, -math.inf])
UPPER = np.array([1.0, 2.0, 0.5, math.inf])
V_MAX = np.array([1.0, 2.0, 0.25, 3.0])
CONTINUOUS = np.array([False, False, False, True])


def stepper(max_dt=0.01):
    return CommandStepper(LOWER, UPPER, V_MAX, continuous=CONTINUOUS, max_dt=max_dt)


goal_value = st.one_of(st.floats(-10.0, 10.0), st.just(math.nan), st.just(math.inf),
                       st.just(-math.inf))


@settings(max_examples=300, deadline=None)
@given(start=st.lists(st.floats(-5.0, 5.0), min_size=4, max_size=4),
       goals=st.lists(st.lists(goal_value, min_size=4, max_size=4), min_size=1, max_size=6),
       dts=st.lists(st.floats(-0.01, 0.1), min_size=6, max_size=6))
def test_every_step_is_finite_inside_limits_and_velocity_limited(start, goals, dts):
    s = stepper()
    prev = s.reset(start)
    assert np.all(prev >= LOWER) and np.all(prev <= UPPER)
    for goal, dt in zip(goals, dts):
        report = s.step(goal, dt)
        q = report.q
        assert np.all(np.isfinite(q))
        assert np.all(q >= LOWER) and np.all(q <= UPPER)
        bound = V_MAX * min(max(dt, 0.0), s.max_dt)
        assert np.all(np.abs(q - prev) <= bound + 1e-12)
        assert_allclose(report.dt, min(max(dt, 0.0), s.max_dt))
        prev = q


def test_goal_within_one_step_is_reached_exactly():
    s = stepper()
    s.reset([0.0, 0.0, 0.1, 0.0])
    goal = np.array([0.005, -0.01, 0.1015, 0.02])
    report = s.step(goal, 0.01)
    assert report.reached
    assert_allclose(report.q, goal, atol=0.0)
    assert not report.velocity_clamped.any()


def test_far_goal_is_approached_in_the_expected_number_of_steps():
    s = stepper()
    s.reset([0.0, 0.0, 0.0, 0.0])
    goal = np.array([0.9, -1.5, 0.5, 2.0])
    steps = 0
    while True:
        report = s.step(goal, 0.01)
        steps += 1
        if report.reached:
            break
        assert steps < 1000
    # The slowest joint: 0.5 m at 0.25 m/s is 2 s, 200 steps of 10 ms.
    assert steps == 200
    assert_allclose(report.q, goal, atol=1e-12)


def test_goal_outside_limits_is_clipped_and_reported():
    s = stepper()
    s.reset([0.99, 0.0, 0.0, 0.0])
    report = s.step([5.0, 0.0, -1.0, 0.0], 0.01)
    assert report.position_clamped.tolist() == [True, False, True, False]
    assert_allclose(report.q, [1.0, 0.0, 0.0, 0.0])


def test_non_finite_goal_entries_hold_the_joint():
    s = stepper()
    s.reset([0.2, 0.3, 0.1, 1.0])
    report = s.step([math.nan, 0.31, math.inf, -math.inf], 0.01)
    assert report.nonfinite.tolist() == [True, False, True, True]
    assert_allclose(report.q, [0.2, 0.31, 0.1, 1.0])
    assert 'non-finite goal held' in report.describe(('a', 'b', 'c', 'd'))


def test_long_pause_moves_by_max_dt_only():
    s = stepper(max_dt=0.01)
    s.reset([0.0, 0.0, 0.0, 0.0])
    report = s.step([1.0, 1.0, 0.5, 1.0], 5.0)
    assert_allclose(report.q, V_MAX * 0.01)
    assert report.velocity_clamped.all()
    assert report.describe(('a', 'b', 'c', 'd')) == 'velocity limited: a, b, c, d'


def test_negative_or_nan_dt_holds():
    s = stepper()
    s.reset([0.1, 0.1, 0.1, 0.1])
    for dt in (-1.0, math.nan):
        report = s.step([0.5, 0.5, 0.5, 0.5], dt)
        assert_allclose(report.q, [0.1, 0.1, 0.1, 0.1])
        assert report.dt == 0.0


def test_continuous_joint_goes_the_short_way_round():
    s = stepper(max_dt=1.0)
    s.reset([0.0, 0.0, 0.0, 3.0])
    report = s.step([0.0, 0.0, 0.0, -3.0], 1.0)     # -3 is 0.28 rad ahead, through pi
    assert_allclose(report.q[3], 3.0 + (2.0 * math.pi - 6.0))
    assert report.reached


def test_reset_clips_into_limits_and_rejects_bad_input():
    s = stepper()
    assert_allclose(s.reset([2.0, -3.0, 0.7, 10.0]), [1.0, -2.0, 0.5, 10.0])
    with pytest.raises(ValueError):
        s.reset([0.0, math.nan, 0.0, 0.0])
    with pytest.raises(ValueError):
        s.reset([0.0, 0.0])


def test_step_before_reset_and_bad_construction_raise():
    with pytest.raises(RuntimeError):
        stepper().step([0.0] * 4, 0.01)
    with pytest.raises(ValueError):
        CommandStepper([0.0], [1.0], [math.inf])
    with pytest.raises(ValueError):
        CommandStepper([0.0], [1.0], [0.0])
    with pytest.raises(ValueError):
        CommandStepper([1.0], [0.0], [1.0])


def test_inputs_are_not_changed():
    s = stepper()
    start = np.array([0.0, 0.0, 0.0, 0.0])
    goal = np.array([1.0, 1.0, 1.0, 1.0])
    s.reset(start)
    s.step(goal, 0.01)
    assert_allclose(start, 0.0)
    assert_allclose(goal, 1.0)


def test_wrap_angle():
    assert_allclose(wrap_angle([0.0, math.pi, -math.pi, 3 * math.pi / 2, 7.0]),
                    [0.0, -math.pi, -math.pi, -math.pi / 2, 7.0 - 2 * math.pi])


def test_the_simulated_arm_reads_its_model_and_steps_without_numba():
    # sim_arm reads a URDF and steps commands: no kernel, so its start (46 of them in the
    # ROS tests) must not pay for numba and SciPy (0.3 of its 0.55 CPU-s). A fresh process
    # does what its start does, steps once and lists what it imported.
    pytest.importorskip('rclpy')
    code = ('import sys\n'
            'import ik_node.ros.sim_arm\n'
            'from ik_node import share_path\n'
            'from ik_node.model.link_tree import RobotTree\n'
            'from ik_node.ros.sim_stepper import CommandStepper\n'
            'import numpy as np\n'
            'joints = RobotTree.from_urdf(share_path()).actuated_joints\n'
            'stepper = CommandStepper(np.array([j.lower for j in joints]),\n'
            '                         np.array([j.upper for j in joints]),\n'
            '                         np.array([j.velocity for j in joints]),\n'
            '                         continuous=[False] * len(joints), max_dt=0.01)\n'
            'stepper.reset(np.zeros(len(joints)))\n'
            'stepper.step(np.full(len(joints), 0.1), 0.01)\n'
            "print(len(joints), *sorted(m for m in ('numba', 'scipy', 'llvmlite')\n"
            '                           if m in sys.modules))\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ['6']
