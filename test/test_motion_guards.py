# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.motion.guards, feedback and streams: the tracker's decisions, without ROS."""

import math
from pathlib import Path

from conftest import load
from ik_node.model.chain import Chain
from ik_node.motion import feedback, guards
from ik_node.motion.joint_space import joint_distance, wrap_angle
from ik_node.motion.outcome import FeedbackProblem
from ik_node.motion.streams import is_repeat, is_stream_step, STREAM_ANGLE, STREAM_DISTANCE
from ik_node.motion.timed_ring import TimedRing
from ik_node.spatial.rotations import rotation_about_axis
import numpy as np
from numpy.testing import assert_allclose
import pytest

CONTINUOUS = np.array([False, True])


def ring(pairs=()) -> TimedRing:
    """Return a TimedRing (the tracker's capacity) holding the (time, q) pairs."""
    out = TimedRing(256)
    for t, q in pairs:
        out.append(t, q)
    return out


ROOT = Path(__file__).resolve().parent.parent


def test_joint_distance_takes_continuous_joints_the_short_way_round():
    diff = np.array([2 * math.pi - 0.1, 2 * math.pi - 0.1])
    assert_allclose(joint_distance(CONTINUOUS, diff), [2 * math.pi - 0.1, 0.1], atol=1e-12)
    assert_allclose(wrap_angle([math.pi, -math.pi, 3.0 * math.pi]), [-math.pi] * 3)


def test_singularity_scale_falls_linearly_and_only_toward_the_singularity():
    guard = guards.SingularityGuard(17.0, 30.0, 0.1)
    assert guard.scale(10.0, 16.0) == 1.0               # clear of it
    assert guard.scale(25.0, 20.0) == 1.0               # moving away
    assert guard.scale(18.0, 23.5) == pytest.approx(0.5)
    assert guard.scale(29.0, 40.0) == pytest.approx(0.1)    # never below min_scale
    assert guards.SingularityGuard(math.inf, math.inf).off
    with pytest.raises(ValueError, match='slow < stop'):
        guards.SingularityGuard(30.0, 17.0)
    with pytest.raises(ValueError, match='min_scale'):
        guards.SingularityGuard(17.0, 30.0, 1.5)


def test_condition_number_is_infinite_at_a_stretched_arm():
    chain = load('planar3')
    assert guards.SingularityGuard.condition(chain, np.zeros(chain.n)) > 1e6
    assert guards.SingularityGuard.condition(chain, np.array([0.3, 0.8, 0.9])) < 100.0


def test_an_arm_stood_still_only_with_a_full_latency_of_quiet_readings():
    t0 = 10.0
    quiet = ring((t0 + 0.01 * k, np.zeros(2)) for k in range(30))
    assert guards.stood_still(quiet, t0 + 0.29)
    assert not guards.stood_still(quiet, t0 + 0.1)       # too little history to tell
    moving = ring((t0 + 0.01 * k, np.full(2, 0.01 * k)) for k in range(30))
    assert not guards.stood_still(moving, t0 + 0.29)


def test_following_lag_is_the_distance_to_the_nearest_command_in_force():
    history = ring([(0.0, np.array([0.0, 0.0])), (0.1, np.array([0.5, 0.0])),
                    (0.2, np.array([1.0, 0.0])), (0.5, np.array([9.0, 9.0]))])
    # Commands after the reading do not count; the nearest of the ARM_LATENCY before does.
    assert_allclose(guards.following_lag(history, CONTINUOUS, np.array([0.45, 0.0]), 0.25),
                    [0.05, 0.0])
    assert_allclose(guards.following_lag(ring(), CONTINUOUS, np.ones(2), 0.25), [0.0, 0.0])


def test_stall_text_names_the_joints_over_their_limit():
    text = guards.stall_text(('a', 'b'), np.array([0.3, 0.01]), np.array([0.2, 0.2]),
                             np.array([True, False]))
    assert 'a 0.3 from its command (limit 0.2)' in text and 'b ' not in text


def test_a_step_into_contact_is_refused_and_one_out_of_contact_allowed():
    from ik_node.collision import HalfSpace
    chain = Chain.from_urdf(ROOT / 'config' / 'urdf' / 'demo_arm.urdf', 'base_link', 'tool0')
    floor = [HalfSpace(normal=(0, 0, 1), offset=0.0, name='floor')]
    clear = np.array([0.0, -1.2, 1.3, -1.6, -1.57, 0.0])       # the demo's start pose
    low = clear + [0.0, 0.5, 0.0, 0.0, 0.0, 0.0]                # the wrist in the floor
    assert 'wrist_3_link would touch floor' in guards.step_blocked(chain, floor, clear, low)
    assert guards.step_blocked(chain, floor, low, clear) == ''  # out of contact: allowed
    assert guards.step_blocked(chain, floor, low, low + 0.01) == ''   # already in contact
    assert guards.step_blocked(chain, None, clear, low) == ''   # no guard


def test_a_reading_without_every_chain_joint_or_with_one_twice_is_refused():
    names = ('j1', 'j2')
    assert_allclose(feedback.chain_index(('x', 'j2', 'j1'), names), [2, 1])
    missing = feedback.chain_index(('j1',), names)
    assert isinstance(missing, FeedbackProblem) and missing.kind == 'missing'
    assert 'j2' in missing.message
    twice = feedback.chain_index(('j1', 'j2', 'j1'), names)
    assert isinstance(twice, FeedbackProblem) and twice.kind == 'duplicate'


def test_a_jump_is_farther_than_the_arm_can_move_between_two_readings():
    readings = ring([(1.0, np.zeros(2))])
    speed = np.array([1.0, 1.0])
    # 3 steps at 1 rad/s over 10 ms: 0.03 rad
    assert not feedback.jumped(readings, CONTINUOUS, speed, 0.01, np.array([0.029, 0.0]), 1.01)
    assert feedback.jumped(readings, CONTINUOUS, speed, 0.01, np.array([0.031, 0.0]), 1.01)
    # the continuous joint across pi is no jump
    assert not feedback.jumped(ring([(1.0, np.array([0.0, math.pi - 0.001]))]), CONTINUOUS,
                               speed, 0.01, np.array([0.0, -math.pi + 0.001]), 1.01)
    assert not feedback.jumped(ring(), CONTINUOUS, speed, 0.01, np.ones(2), 1.0)


def test_away_from_command_allows_the_larger_of_resync_steps_and_lag():
    v = np.array([1.0, 1.0])
    allowed = max(feedback.RESYNC_STEPS * 0.01, feedback.RESYNC_LAG)
    assert feedback.away_from_command(CONTINUOUS, v, 0.01, np.array([allowed, 0.0]),
                                      np.zeros(2)) == 0.0
    assert feedback.away_from_command(CONTINUOUS, v, 0.01, np.array([allowed + 0.01, 0.0]),
                                      np.zeros(2)) == pytest.approx(allowed + 0.01)
    assert feedback.away_from_command(CONTINUOUS, v, 0.01, np.ones(2), None) == 0.0


def test_outside_limits_names_the_joint_and_its_range():
    text = feedback.outside_limits(('a', 'b'), np.array([-1.0, -1.0]), np.array([1.0, 1.0]),
                                   np.array([1.05, 0.5]), 0.01)
    assert text.startswith('a at 1.05 outside [-1, 1]') and 'b' not in text
    assert feedback.outside_limits(('a',), np.array([-1.0]), np.array([1.0]),
                                   np.array([1.005]), 0.01) == ''


def test_stream_steps_are_small_and_of_the_same_kind_as_the_last_target():
    last = np.eye(4)
    near = np.eye(4)
    near[:3, 3] = [STREAM_DISTANCE * 0.9, 0.0, 0.0]
    far = np.eye(4)
    far[:3, 3] = [STREAM_DISTANCE * 1.1, 0.0, 0.0]
    turned = np.eye(4)
    turned[:3, :3] = rotation_about_axis(np.array([0.0, 0.0, 1.0]), STREAM_ANGLE * 1.1)
    assert is_stream_step(last, near, False, True)
    assert not is_stream_step(last, far, False, True)
    assert not is_stream_step(last, turned, False, True)
    assert is_stream_step(last, far, True, True)          # a dragged marker
    assert not is_stream_step(last, near, False, False)   # the arm position unknown
    assert not is_stream_step(None, near, False, True)
    assert not is_stream_step(last, np.zeros(3), True, True)   # a point after a pose
    assert is_stream_step(np.zeros(3), np.array([0.01, 0.0, 0.0]), False, True)


def test_a_repeat_is_the_target_in_force_sent_again_while_moving():
    target = np.array([0.3, 0.1, 0.4])
    assert is_repeat(target, target.copy(), True)
    assert not is_repeat(target, target.copy(), False)
    assert not is_repeat(target, target + 1e-9, True)
    assert not is_repeat(None, target, True)
