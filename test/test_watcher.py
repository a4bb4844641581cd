# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.motion.watcher: every kind of unsafe command is caught, a safe stream passes clean."""

import math

from conftest import load
from hypothesis import given, settings
from hypothesis import strategies as st
from ik_node import IKInputError
from ik_node.motion.watcher import CommandWatcher, StampedLog
from ik_node.ros.sim_stepper import CommandStepper
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


# --- acceleration and jerk at the stamps -------------------------------------------------

A_MAX = np.array([5.0, 2.0, 10.0])
J_MAX = np.array([500.0, 100.0, 1000.0])
EPOCH_NS = 1_712_345_678_000_000_000     # stamps as a ROS clock gives them: ns since 1970


def derivative_watcher(period: float = 0.001, **kwargs) -> CommandWatcher:
    return CommandWatcher(NAMES, [-100.0, -100.0, -math.inf], [100.0, 100.0, math.inf],
                          V_MAX, period, continuous=[False, False, True], a_max=A_MAX,
                          j_max=J_MAX, **kwargs)


class JerkProfile:
    """
    A trajectory of piecewise-constant jerk per joint, integrated exactly.

    segments: [(duration [s], (n,) jerk)] from rest at q0; q(t) holds the last state after
    the end (with the acceleration and velocity it has there).
    """

    def __init__(self, q0, segments):
        self.starts, self.states, self.jerks = [], [], []
        t, q, v, a = 0.0, np.array(q0, dtype=float), np.zeros(len(q0)), np.zeros(len(q0))
        for duration, jerk in segments:
            jerk = np.array(jerk, dtype=float)
            self.starts.append(t)
            self.states.append((q, v, a))
            self.jerks.append(jerk)
            q, v, a = self._advance(q, v, a, jerk, duration)
            t += duration
        self.duration = t
        self.end = (q, v, a)

    @staticmethod
    def _advance(q, v, a, jerk, dt):
        return (q + v * dt + a * dt ** 2 / 2 + jerk * dt ** 3 / 6,
                v + a * dt + jerk * dt ** 2 / 2, a + jerk * dt)

    def at(self, t: float) -> np.ndarray:
        if t >= self.duration:
            q, v, a = self.end
            return self._advance(q, v, a, 0.0 * a, t - self.duration)[0]
        k = max(i for i, start in enumerate(self.starts) if start <= t) if t > 0 else 0
        q, v, a = self.states[k]
        return self._advance(q, v, a, self.jerks[k], t - self.starts[k])[0]


def s_curve(j, ramp, hold, cruise):
    """Rest to rest: jerk +j for ramp, 0 for hold, -j for ramp, cruise, then the mirror."""
    j = np.asarray(j, dtype=float)
    up = [(ramp, j), (hold, 0 * j), (ramp, -j)]
    down = [(ramp, -j), (hold, 0 * j), (ramp, j)]
    return up + [(cruise, 0 * j)] + down


def feed(w, profile, stamps_ns, names=NAMES):
    """Feed the profile sampled exactly at each stamp (relative to the first)."""
    found = []
    for s in stamps_ns:
        q = profile.at((s - stamps_ns[0]) * 1e-9)
        found += w.check(names, q.tolist(), stamp_ns=int(s))
    return found


def jittered_stamps(rng, period, duration, jitter=0.3):
    """Stamps [ns] about ``period`` apart, each gap off by up to +-jitter of a period."""
    gaps = period * (1.0 + jitter * rng.uniform(-1.0, 1.0, int(duration / period) + 50))
    t = np.concatenate([[0.0], np.cumsum(gaps)])
    return EPOCH_NS + np.round(t[t <= duration] * 1e9).astype(np.int64)


def full_profile():
    # Every joint at its jerk limit; a and c reach their acceleration limits (b half of its),
    # top speeds 0.15, 0.06 and 0.15 of v_max.
    ramp = float(np.min(A_MAX / J_MAX))             # 10 ms
    return JerkProfile([0.0, 0.1, 3.0], s_curve(J_MAX, ramp, 0.02, 0.05))


def test_a_jerk_limited_profile_sampled_at_uneven_stamps_passes(rng):
    profile = full_profile()
    w = derivative_watcher()
    stamps = jittered_stamps(rng, 0.001, profile.duration + 0.02)
    assert feed(w, profile, stamps) == [], w.summary()
    # The profile runs at its limits, and the estimates find them (they are weighted means).
    assert 0.99 < w.max_jerk_ratio <= 1.0 + 1e-6
    assert 0.99 < w.max_acceleration_ratio <= 1.0 + 1e-6


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rate=st.sampled_from([100.0, 500.0, 1000.0, 2000.0]),
       jitter=st.floats(0.0, 0.9), scale=st.floats(0.05, 1.0),
       ramp=st.floats(1e-4, 0.05), hold=st.floats(0.0, 0.05))
def test_any_jerk_limited_profile_at_any_stamps_passes(seed, rate, jitter, scale, ramp, hold):
    rng = np.random.default_rng(seed)
    j = J_MAX * scale * np.array([1.0, -1.0, 0.5])
    ramp = min(ramp, float(np.min(A_MAX / np.abs(j))))      # peak acceleration in limits
    cruise = 0.0 if rng.uniform() < 0.5 else 0.03
    profile = JerkProfile(rng.uniform(-3, 3, 3), s_curve(j, ramp, hold, cruise))
    peak_v = np.abs(j) * ramp * (ramp + hold)
    if np.any(peak_v > V_MAX):
        return
    w = derivative_watcher(period=1.0 / rate)
    stamps = jittered_stamps(rng, 1.0 / rate, profile.duration + 0.01, jitter)
    assert feed(w, profile, stamps) == [], w.summary()


def test_ruckig_trajectories_sampled_at_their_stamps_pass(rng):
    ruckig = pytest.importorskip('ruckig')
    n = 3
    w = derivative_watcher()
    inp = ruckig.InputParameter(n)
    inp.max_velocity, inp.max_acceleration, inp.max_jerk = V_MAX, A_MAX, J_MAX
    inp.current_position = [0.0, 0.1, 3.0]
    stamp, messages = EPOCH_NS, 0
    for _ in range(3):      # three moves, each re-targeted mid-way from the current state
        inp.target_position = rng.uniform(-2.0, 2.0, n)
        trajectory = ruckig.Trajectory(n)
        assert ruckig.Ruckig(n).calculate(inp, trajectory) == ruckig.Result.Working
        start = stamp
        while stamp - start < 0.5e9 * trajectory.duration:
            stamp += int(1e6 * (1.0 + 0.3 * rng.uniform(-1.0, 1.0)))
            p, v, a = trajectory.at_time((stamp - start) * 1e-9)
            assert w.check(NAMES, p, stamp_ns=stamp) == [], w.summary()
            messages += 1
        inp.current_position, inp.current_velocity, inp.current_acceleration = p, v, a
    assert messages > 500 and w.total_violations == 0
    assert w.max_jerk_ratio > 0.99 and w.max_velocity_ratio <= 1.0 + 1e-9


def test_a_velocity_step_fails_the_acceleration_check(rng):
    w = derivative_watcher()
    stamps = jittered_stamps(rng, 0.001, 0.02)
    # Joint b cruises at 0.1 rad/s, then at 0.2: within v_max, a step of 0.1 rad/s in a tick.
    t = (stamps - stamps[0]) * 1e-9
    t_step = t[10] + 0.3e-3
    qb = 0.1 + 0.1 * t + 0.1 * np.maximum(t - t_step, 0.0)
    found = []
    for s, b in zip(stamps, qb):
        found += w.check(NAMES, [0.0, b, 0.0], stamp_ns=int(s))
    assert {v.kind for v in found} == {'acceleration', 'jerk'}
    (first,) = [v for v in found if v.kind == 'acceleration'][:1]
    assert first.joint == 'b' and first.limit == 2.0
    assert first.stamp_ns in (stamps[11], stamps[12])
    assert 40.0 < abs(first.value) < 110.0          # 0.1 rad/s over one or two ticks
    assert first.detail.startswith('b ') and 'limit 2' in first.detail
    assert w.counts['step'] == 0 and w.max_acceleration_ratio > 20.0


def test_an_acceleration_step_fails_the_jerk_check_only(rng):
    w = derivative_watcher()
    stamps = jittered_stamps(rng, 0.001, 0.03)
    t = (stamps - stamps[0]) * 1e-9
    t_step = t[12] + 0.5e-3
    # Joint a accelerates at 1 rad/s^2, then at 4: acceleration within its limit of 5, but it
    # changes by 3 rad/s^2 at once.
    qa = 0.5 * 1.0 * t ** 2 + 0.5 * 3.0 * np.maximum(t - t_step, 0.0) ** 2
    found = []
    for s, a in zip(stamps, qa):
        found += w.check(NAMES, [a, 0.1, 0.0], stamp_ns=int(s))
    assert {v.kind for v in found} == {'jerk'}
    assert found[0].joint == 'a' and found[0].limit == 500.0 and found[0].value > 525.0
    assert w.max_acceleration_ratio < 1.0


def test_stopping_the_stream_while_moving_is_an_abrupt_stop():
    w = derivative_watcher(period=0.01)
    q, stamp = 0.0, EPOCH_NS
    for _ in range(10):                     # 0.5 rad/s, steady
        assert w.check(NAMES, [q, 0.1, 0.0], stamp_ns=stamp) == []
        q += 0.005
        stamp += 10_000_000
    # 0.2 s without a command, then the last one again: the arm held it from 5 periods on,
    # stopping from 0.5 rad/s at once.
    found = w.check(NAMES, [q - 0.005, 0.1, 0.0], stamp_ns=stamp + 200_000_000)
    assert {v.kind for v in found} == {'acceleration', 'jerk'}
    assert 'holding the previous command' in found[0].detail and found[0].joint == 'a'
    # Moving on after another pause: one period's worth at most (0.01 rad for a), from where
    # the arm was held, though 0.2 s passed.
    assert [v.kind for v in w.check(NAMES, [q + 0.01, 0.1, 0.0], stamp_ns=stamp + 400_000_000)
            ] == ['step']
    # A pause at rest and a smooth start after it pass.
    w = derivative_watcher(period=0.01)
    profile = JerkProfile([0.0, 0.1, 0.0], s_curve([50.0, 0, 0], 0.02, 0.0, 0.0))
    for s in EPOCH_NS + np.arange(5) * 10_000_000:
        assert w.check(NAMES, [0.0, 0.1, 0.0], stamp_ns=int(s)) == []
    late = EPOCH_NS + 3_000_000_000
    assert feed(w, profile, late + np.arange(0, 20) * 10_000_000) == [], w.summary()


def test_a_start_one_period_before_the_first_command_after_a_pause_passes():
    # The arm held the last command through a pause (just over max_gap, or long); the next
    # command is a smooth start from rest one period before it, what the jog sends after a
    # gap in its steps, at the jerk limit. The arm is taken as held until then, never later.
    profile = JerkProfile([0.0, 0.1, 0.0], s_curve([J_MAX[0], 0, 0], 0.01, 0.0, 0.0))
    for pause in (0.0502, 0.055, 0.2):
        w = derivative_watcher(period=0.01, max_gap=0.05)
        for s in EPOCH_NS + np.arange(5) * 10_000_000:
            assert w.check(NAMES, [0.0, 0.1, 0.0], stamp_ns=int(s)) == []
        start = EPOCH_NS + 40_000_000 + int(pause * 1e9) - 10_000_000
        found = []
        for s in start + np.arange(1, 20) * 10_000_000:
            found += w.check(NAMES, profile.at((s - start) * 1e-9).tolist(), stamp_ns=int(s))
        assert found == [], (pause, w.summary())


def test_a_stream_that_ends_while_moving_is_an_abrupt_stop_once_it_is_held():
    # A smooth motion rest to rest, and the same motion's first half alone: the arm holds
    # the last command it got. finish(held=True) judges that hold; finish() does not (the
    # stream may go on).
    profile = JerkProfile([0.0, 0.1, 0.0], s_curve([J_MAX[0], 0, 0], 0.01, 0.01, 0.05))
    stamps = EPOCH_NS + np.arange(int(profile.duration / 0.001) + 20) * 1_000_000
    for cut, held, expected in ((len(stamps), True, 0), (len(stamps) // 2, True, 2),
                                (len(stamps) // 2, False, 0)):
        w = derivative_watcher(max_gap=0.005)
        assert feed(w, profile, stamps[:cut]) == []
        w.finish(held=held)
        assert len({v.kind for v in w.violations}) == expected, (cut, held, w.summary())
        assert set(w.counts) <= {'acceleration', 'jerk'}


def test_a_late_tick_while_moving_is_judged_over_its_real_interval():
    w = derivative_watcher(period=0.01, max_gap=0.05)
    stamp, q = EPOCH_NS, 0.0
    for k in range(12):
        dt = 0.04 if k == 6 else 0.01        # one tick 30 ms late: still the same motion
        stamp += int(dt * 1e9)
        q += 0.9 * dt                         # 0.9 of v_max for joint a
        assert w.check(NAMES, [q, 0.1, 0.0], stamp_ns=stamp) == [], w.summary()
    assert w.max_step_ratio == pytest.approx(0.9, rel=1e-6)


def test_continuous_joints_are_differenced_the_short_way_round(rng):
    w = derivative_watcher()
    profile = JerkProfile([0.0, 0.1, math.pi - 0.05],
                          s_curve([0, 0, 1000.0], 0.005, 0.1, 0.2))
    stamps = jittered_stamps(rng, 0.001, profile.duration)
    found = []
    for s in stamps:
        q = profile.at((s - stamps[0]) * 1e-9)
        q[2] = (q[2] + math.pi) % (2 * math.pi) - math.pi     # published wrapped
        found += w.check(NAMES, q.tolist(), stamp_ns=int(s))
    assert found == [] and profile.at(profile.duration)[2] > math.pi


def test_a_jump_a_reset_or_a_repeated_stamp_starts_the_differences_afresh():
    w = derivative_watcher(period=0.01)
    w.check(NAMES, [0.5, 0.2, 0.0], stamp_ns=EPOCH_NS)
    w.check(NAMES, [0.5, 0.2, 0.0], stamp_ns=EPOCH_NS + 10_000_000)
    w.observe_arm(NAMES, [0.0, 0.1, 0.0])
    # Back to the measured arm (a resync), then on from there: no acceleration from the jump.
    assert w.check(NAMES, [0.0, 0.1, 0.0], stamp_ns=EPOCH_NS + 20_000_000) == []
    assert w.check(NAMES, [0.0, 0.1, 0.0], stamp_ns=EPOCH_NS + 30_000_000) == []
    assert w.resyncs == 1 and w.total_violations == 0
    w.reset([1.0, 0.3, 0.0])
    assert w.check(NAMES, [1.0, 0.3, 0.0], stamp_ns=EPOCH_NS + 40_000_000) == []
    w.check(NAMES, [1.0, 0.3, 0.0], stamp_ns=EPOCH_NS + 40_000_000)   # same stamp: skipped
    assert w.check(NAMES, [1.0, 0.3, 0.0], stamp_ns=EPOCH_NS + 50_000_000) == []
    assert w.total_violations == 0


def test_the_stamp_noise_allowance_covers_sampling_off_by_a_nanosecond(rng):
    # Sampled at float times and stamped with the nearest ns: up to 0.5 ns x 1.9 rad/s off,
    # which the third difference at 10 kHz multiplies by 8 / h^3 (~8000 rad/s^3): allowed by
    # stamp_resolution (1 ns x v_max), refused without it.
    profile = JerkProfile([0.0, 0.1, 0.0], s_curve([0, 0, 1000.0], 0.01, 0.18, 0.0))
    period = 0.0001
    times = np.cumsum(period * (1.0 + 0.3 * rng.uniform(-1, 1, 5000)))
    times = times[times < profile.duration]
    exact = derivative_watcher(period=period)
    strict = derivative_watcher(period=period, stamp_resolution=0.0)
    for t in times:
        q = profile.at(t).tolist()
        exact.check(NAMES, q, stamp_ns=EPOCH_NS + int(round(t * 1e9)))
        strict.check(NAMES, q, stamp_ns=EPOCH_NS + int(round(t * 1e9)))
    assert exact.total_violations == 0, exact.summary()
    assert strict.counts['jerk'] > 0


def test_stamped_log_replays_stamps_in_nanoseconds_into_the_derivative_checks(rng):
    profile = full_profile()
    stamps = jittered_stamps(rng, 0.001, profile.duration)
    log = StampedLog()
    order = rng.permutation(len(stamps))          # arrival order is not publish order
    for k in order:
        log.command(int(stamps[k]), NAMES, profile.at((stamps[k] - stamps[0]) * 1e-9))
    w = log.replay(derivative_watcher())
    assert w.total_violations == 0 and w.max_jerk_ratio > 0.99, w.summary()
    s = w.summary()
    assert {'max_velocity_ratio', 'max_acceleration_ratio', 'max_jerk_ratio'} <= set(s)


def test_a_watcher_for_joint_limits_takes_them_by_name():
    from ik_node.motion.limits import JointLimits
    chain = load('ur5')
    names = tuple(reversed(chain.joint_names))
    limits = JointLimits(names, np.full(6, 2.0), np.arange(1.0, 7.0), np.arange(10.0, 70.0, 10))
    w = CommandWatcher.for_limits(chain, limits, 0.001)
    np.testing.assert_array_equal(w.a_max, np.arange(6.0, 0.0, -1.0))
    np.testing.assert_array_equal(w.j_max, np.arange(60.0, 0.0, -10.0))
    np.testing.assert_array_equal(w.v_max, np.full(6, 2.0))
    with pytest.raises(IKInputError, match='no limits for joints'):
        CommandWatcher.for_limits(chain, limits.select(names[:5]), 0.001)


def test_invalid_derivative_limits_are_refused():
    for kwargs in ({'a_max': [1.0, 0.0, 1.0]}, {'j_max': [1.0, math.nan, 1.0]},
                   {'a_max': [1.0, 1.0]}, {'tolerance': -1.0}, {'max_gap': 0.0001}):
        with pytest.raises(ValueError):
            CommandWatcher(NAMES, LOWER, UPPER, V_MAX, PERIOD, **kwargs)
