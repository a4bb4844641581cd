# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.watcher: every kind of unsafe command is caught, a safe stream passes clean."""

import math

from conftest import load
from hypothesis import given, settings
from hypothesis import strategies as st
from ik_node.safety import CommandStepper
from ik_node.watcher import CommandWatcher
import numpy as np
import pytest

NAMES = ('a', 'b', 'c')
LOWER = np.array([-1.0, 0.0, -math.inf])
UPPER = np.array([1.0, 0.5, math.inf])
V_MAX = np.array([1.0, 0.5, 2.0])
PERIOD = 0.01


def watcher(**kwargs) -> CommandWatcher:
    return CommandWatcher(NAMES, LOWER, UPPER, V_MAX, PERIOD,
                          continuous=[False, False, True], **kwargs)


def test_a_smooth_stream_inside_the_limits_has_no_violation():
    w = watcher()
    q = np.array([0.0, 0.1, 3.0])
    for k in range(200):
        q = q + np.array([0.01, 0.004, 0.02]) * (1 if k < 100 else -1)
        assert w.check(NAMES, q.tolist(), t=k * PERIOD) == []
    s = w.summary()
    assert s['messages'] == 200 and s['violations'] == 0 and s['by_kind'] == {}
    assert s['max_step_ratio'] == pytest.approx(1.0)


@pytest.mark.parametrize('names, positions, kind', [
    (('a', 'b', 'c'), [0.0, math.nan, 0.0], 'nonfinite'),
    (('a', 'b', 'c'), [math.inf, 0.0, 0.0], 'nonfinite'),
    (('a', 'b', 'c'), [1.0 + 1e-6, 0.0, 0.0], 'limits'),
    (('a', 'b', 'c'), [0.0, -0.001, 0.0], 'limits'),
    (('a', 'b'), [0.0, 0.0], 'names'),
    (('a', 'b', 'c'), [0.0, 0.0], 'names'),
    (('a', 'b', 'x'), [0.0, 0.0, 0.0], 'names'),
    (('a', 'a', 'c'), [0.0, 0.0, 0.0], 'names'),
])
def test_each_kind_of_bad_message_is_counted(names, positions, kind):
    w = watcher()
    found = w.check(names, positions)
    assert [v.kind for v in found] == [kind]
    assert w.counts[kind] == 1 and w.total_violations == 1
    assert w.violations[0].index == 0 and w.violations[0].detail


def test_a_step_beyond_v_max_times_the_period_is_a_jump():
    w = watcher()
    w.check(NAMES, [0.0, 0.0, 0.0])
    assert w.check(NAMES, [0.01, 0.005, 0.02]) == []      # exactly one period's worth
    (v,) = w.check(NAMES, [0.01 + 0.0101, 0.005, 0.02])
    assert v.kind == 'step' and v.detail.startswith('a moved by 0.0101')
    assert w.max_step_ratio == pytest.approx(1.01)


def test_joints_are_matched_by_name_in_any_order():
    w = watcher()
    w.check(NAMES, [0.0, 0.1, 0.0])
    assert w.check(('c', 'b', 'a'), [0.02, 0.105, 0.01]) == []
    (v,) = w.check(('b', 'a', 'c'), [0.2, 0.01, 0.02])
    assert v.kind == 'step' and v.detail.startswith('b moved by 0.095')


def test_subsets_of_joints_are_checked_joint_by_joint_unless_all_are_required():
    w = watcher(require_all=False)
    w.check(NAMES, [0.0, 0.0, 0.0])
    assert w.check(('a',), [0.01]) == []
    assert w.check(('b', 'c'), [0.005, 0.02]) == []
    assert [v.kind for v in w.check(('a',), [0.03])] == ['step']
    assert [v.kind for v in watcher().check(('a',), [0.0])] == ['names']


def test_a_jump_back_to_the_measured_arm_is_a_resync_not_a_violation():
    w = watcher()
    w.check(NAMES, [0.5, 0.2, 0.0])
    w.observe_arm(('a', 'b', 'c', 'gripper'), [0.0, 0.1, 0.0, 0.3])
    assert w.check(NAMES, [0.005, 0.1, 0.0]) == []            # within one step of the arm
    assert w.resyncs == 1 and w.max_step_ratio == 0.0
    w.check(NAMES, [0.01, 0.1, 0.0])
    w.observe_arm(NAMES, [math.nan, 0.1, 0.0])               # NaN readings are ignored
    # Far from command and arm: unsafe until arm readings explain it, a step if none does.
    assert w.check(NAMES, [0.5, 0.1, 0.0]) == [] and w.total_violations == 1
    for _ in range(5):
        w.observe_arm(NAMES, [0.0, 0.1, 0.0])
    assert w.counts['step'] == 1 and w.total_violations == 1 and w.resyncs == 1
    # The node's arm reading may be a tick or two apart from the watcher's: arm_slack.
    assert w.check(NAMES, [0.029, 0.1, 0.0]) == [] and w.resyncs == 2
    w.check(NAMES, [0.5, 0.1, 0.0])
    w.observe_arm(NAMES, [0.0, 0.1, 0.0])
    w.check(NAMES, [0.031, 0.1, 0.0])                        # just beyond step + slack
    for _ in range(5):
        w.observe_arm(NAMES, [0.0, 0.1, 0.0])
    assert w.counts['step'] == 3 and w.resyncs == 2
    # A command that overtook the joint_states it answers is a resync once they arrive.
    w.check(NAMES, [0.6, 0.1, 0.0])
    assert w.total_violations == 4
    w.observe_arm(NAMES, [0.6, 0.1, 0.0])
    assert w.resyncs == 3 and w.total_violations == 3


def test_continuous_joints_step_the_short_way_round():
    w = watcher()
    w.check(NAMES, [0.0, 0.0, math.pi - 0.005])
    assert w.check(NAMES, [0.0, 0.0, -math.pi + 0.005]) == []
    assert [v.kind for v in w.check(NAMES, [0.0, 0.0, 1.0])] == ['step']


def test_reset_compares_the_next_command_with_the_given_position():
    w = watcher()
    w.check(NAMES, [0.0, 0.0, 0.0])
    w.reset([0.5, 0.2, 0.0])                 # e.g. a restarted node, arm measured here
    assert w.check(NAMES, [0.505, 0.2, 0.0]) == []
    w.reset()
    assert w.check(NAMES, [-0.9, 0.4, 2.0]) == []
    assert w.violations == []


def test_many_small_steps_too_often_break_the_speed_check():
    w = watcher(speed_slack=0.02)
    q = np.zeros(3)
    t = 0.0
    kinds = set()
    for _ in range(100):
        # Each step is one full period's worth, but they come 10 times too fast.
        q = q + np.array([0.0, 0.0, 0.02])
        t += PERIOD / 10
        kinds |= {v.kind for v in w.check(NAMES, q, t=t)}
    assert kinds == {'speed'}
    assert w.counts['step'] == 0


def test_violations_are_kept_up_to_a_cap_and_all_counted():
    w = watcher()
    for _ in range(150):
        w.check(NAMES, [5.0, 0.0, 0.0])
    assert w.counts['limits'] == 150 and len(w.violations) == 100


def test_invalid_construction_is_refused():
    with pytest.raises(ValueError):
        CommandWatcher(NAMES, LOWER, UPPER, [1.0, 0.0, 1.0], PERIOD)
    with pytest.raises(ValueError):
        CommandWatcher(NAMES, LOWER[:2], UPPER, V_MAX, PERIOD)
    with pytest.raises(ValueError):
        CommandWatcher(NAMES, LOWER, UPPER, V_MAX, 0.0)
    with pytest.raises(ValueError):
        CommandWatcher(('a', 'a', 'c'), LOWER, UPPER, V_MAX, PERIOD)


goal = st.one_of(st.floats(-10.0, 10.0), st.sampled_from([math.nan, math.inf, -math.inf]))


@settings(max_examples=100, deadline=None)
@given(start=st.lists(st.floats(-10.0, 10.0), min_size=6, max_size=6),
       goals=st.lists(st.lists(goal, min_size=6, max_size=6), min_size=1, max_size=20),
       dts=st.lists(st.floats(-0.02, 0.05), min_size=20, max_size=20))
def test_the_safety_filter_output_always_passes_the_watcher(start, goals, dts):
    chain = load('ur5')
    v = np.full(chain.n, 3.15)
    stepper = CommandStepper(chain.lower, chain.upper, v, continuous=chain.continuous,
                             max_dt=PERIOD)
    w = CommandWatcher.for_chain(chain, v, PERIOD)
    w.reset(stepper.reset(start))
    for g, dt in zip(goals, dts):
        w.check(chain.joint_names, stepper.step(g, dt).q.tolist())
    assert w.total_violations == 0, w.summary()


def test_a_filter_that_forgets_the_time_cap_is_caught():
    chain = load('ur5')
    v = np.full(chain.n, 3.15)
    loose = CommandStepper(chain.lower, chain.upper, v, max_dt=10 * PERIOD)
    w = CommandWatcher.for_chain(chain, v, PERIOD)
    w.reset(loose.reset(chain.mid))
    w.check(chain.joint_names, loose.step(chain.mid + 1.0, 0.1).q)
    assert w.counts['step'] == 1
