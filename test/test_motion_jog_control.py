# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""JogControl without ROS: the latest input wins, and every hand-over is without a jump."""

from ik_node import Chain, share_path
from ik_node.errors import IKInputError
from ik_node.motion.jog import Jogger, MODE_JOINT, MODE_TWIST
from ik_node.motion.jog_control import (CONTROL_GOAL, CONTROL_JOG_JOINT, CONTROL_JOG_TWIST,
                                        JogControl)
from ik_node.motion.tracker import IKTracker
import numpy as np
import pytest

PERIOD = 0.01
START = np.array([0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0])


@pytest.fixture(scope='module')
def demo() -> Chain:
    return Chain.from_urdf(share_path(), 'base_link', 'tool0')


def make(demo: Chain) -> JogControl:
    tracker = IKTracker(demo, 'dls', {}, np.full(demo.n, 3.0), PERIOD, 0.5)
    tracker.start_at(START, 0.0)
    tracker.step(0.0)
    return JogControl(tracker, Jogger(demo, tracker.limits))


def joints(control: JogControl, names, v, now: float) -> bool:
    """Command joint velocities ``v`` of ``names`` at ``now``; True if the jog is in control."""
    return control.command(MODE_JOINT, lambda jog: jog.joint_velocities(names, v, now),
                           not np.any(v), now)


def run(control: JogControl, t0: float, t1: float, feed=None):
    """Step the jog (or the tracker when the jog is not in control) from t0 to t1."""
    out = []
    for t in np.arange(t0, t1, PERIOD):
        if feed is not None:
            feed(t)
        tick = control.step(t)
        if tick is None:
            report = control.tracker.step(t)
            out.append((t, report.q, 'goal'))
        else:
            out.append((t, tick.q, control.control))
            if tick.goal_due:
                out.append((t, tick.q, 'goal due'))
    return out


def accelerations(samples) -> np.ndarray:
    q = np.array([s[1] for s in samples])
    return np.diff(q, 2, axis=0) / PERIOD ** 2


def goal_under_way(demo: Chain, until: float):
    """Return (a JogControl whose tracker moves to a goal, its commands from 0 to until)."""
    control = make(demo)
    control.tracker.move_to(START + 0.8, 0.0)
    before = run(control, 0.0, until)
    assert control.tracker.moving
    return control, before


def test_a_jog_takes_over_a_moving_goal_motion_without_a_jump(demo):
    control, before = goal_under_way(demo, 0.5)
    tracker = control.tracker
    names = [demo.joint_names[0]]
    assert joints(control, names, [-0.5], 0.5)
    assert control.control == CONTROL_JOG_JOINT and control.dropped_goal
    after = run(control, 0.5, 1.5, feed=lambda t: joints(control, names, [-0.5], t))
    a = accelerations(before[-3:] + after[:5])
    limit = tracker.limits.acceleration
    assert np.all(np.abs(a) <= limit * 1.05 + 1e-9), (a, limit)
    assert tracker.goal is None and not tracker.moving
    # The jog's commands are the tracker's (its feedback is judged against them).
    np.testing.assert_array_equal(tracker.command, after[-1][1])


def test_a_jog_that_comes_during_a_gap_in_the_steps_starts_from_the_held_command(demo):
    control, before = goal_under_way(demo, 0.3)
    tracker = control.tracker
    # The steps stop for 80 ms (a late timer: the arm holds the last command); a jog
    # command comes in the middle of the gap, when the goal motion would be 40 ms further.
    t_last, q_last = before[-1][0], before[-1][1]
    names = [demo.joint_names[0]]
    assert joints(control, names, [-0.5], t_last + 0.04)
    tick = control.step(t_last + 0.08)
    # From rest at the held command, one period before this step: a period of the blend,
    # never the goal motion's 80 ms ahead.
    moved = np.abs(tick.q - q_last)
    assert np.all(moved <= tracker.limits.jerk * PERIOD ** 3 / 6 + 1e-12), moved
    assert moved[0] > 0.0
    # The jog goes on smoothly from there.
    after = [(t_last + 0.08, tick.q)] + run(
        control, t_last + 0.09, t_last + 0.5, feed=lambda t: joints(control, names, [-0.5], t))
    a = accelerations(after)
    assert np.all(np.abs(a) <= tracker.limits.acceleration * 1.05 + 1e-9)


def test_a_goal_while_jogging_waits_for_rest_then_starts_there(demo):
    control = make(demo)
    twist = np.array([0.0, 0.05, 0.0, 0.0, 0.0, 0.0])

    def jog_twist(t: float) -> bool:
        return control.command(MODE_TWIST, lambda jog: jog.twist(twist, t), False, t)

    assert jog_twist(0.0)
    out = run(control, 0.0, 0.3, feed=jog_twist)
    assert control.control == CONTROL_JOG_TWIST
    assert control.goal(0.3)
    out += run(control, 0.3, 2.0)
    due = [s for s in out if s[2] == 'goal due']
    assert len(due) == 1 and not control.in_control and control.control == CONTROL_GOAL
    t_due, q_due = due[0][0], due[0][1]
    # At rest there: the last commands before it stand still, the tracker holds it.
    moving = [s for s in out if s[2] == CONTROL_JOG_TWIST]
    assert np.max(np.abs(moving[-1][1] - q_due)) < 1e-9
    np.testing.assert_allclose(control.tracker.commander.sample(t_due).q, q_due)
    assert np.all(np.abs(accelerations(moving)) <= control.tracker.limits.acceleration * 1.05)


def test_a_jog_command_after_a_goal_drops_the_goal_held(demo):
    control = make(demo)
    names = [demo.joint_names[1]]
    joints(control, names, [0.3], 0.0)
    run(control, 0.0, 0.2)
    assert control.goal(0.2) and control.goal_held
    joints(control, names, [0.3], 0.21)
    assert not control.goal_held and control.in_control


def test_a_zero_command_never_takes_control_and_brakes_a_jog(demo):
    control = make(demo)
    names = [demo.joint_names[2]]
    assert not joints(control, names, [0.0], 0.0)
    assert control.step(0.01) is None
    joints(control, names, [0.4], 0.01)
    run(control, 0.01, 0.3, feed=lambda t: joints(control, names, [0.4], t))
    assert joints(control, names, [0.0], 0.3)
    out = run(control, 0.3, 1.5, feed=lambda t: joints(control, names, [0.0], t))
    assert not control.in_control and out[-1][2] == 'goal'


def test_bad_input_brakes_the_jog_and_is_raised(demo):
    control = make(demo)
    names = [demo.joint_names[0]]
    joints(control, names, [0.4], 0.0)
    run(control, 0.0, 0.3, feed=lambda t: joints(control, names, [0.4], t))
    with pytest.raises(IKInputError, match='unknown joint'):
        joints(control, ['nope'], [0.4], 0.3)
    out = run(control, 0.3, 1.5)
    assert not control.in_control
    q = np.array([s[1] for s in out])
    assert np.max(np.abs(q[-1] - q[-20])) < 1e-12


def test_a_restarted_tracker_command_ends_the_jog(demo):
    control = make(demo)
    names = [demo.joint_names[0]]
    joints(control, names, [0.4], 0.0)
    run(control, 0.0, 0.2)
    control.tracker.start_at(START, 0.2)        # a resync, say
    assert control.step(0.21) is None and not control.in_control


def test_no_jog_before_the_arm_position_is_known(demo):
    tracker = IKTracker(demo, 'dls', {}, np.full(demo.n, 3.0), PERIOD, 0.5)
    control = JogControl(tracker, Jogger(demo, tracker.limits))
    with pytest.raises(IKInputError, match='arm position unknown'):
        joints(control, [demo.joint_names[0]], [0.4], 0.0)


def test_a_gap_in_the_commands_goes_on_from_the_commanded_state_never_from_rest(demo):
    control = make(demo)
    names = [demo.joint_names[0]]
    run(control, 0.0, 0.5, feed=lambda t: joints(control, names, [1.0], t))
    state = control.jogger.state
    assert abs(state.v[0] - 1.0) < 1e-9 and abs(state.a[0]) < 1e-9
    t_last = control.jogger.t
    # No step for 0.04 s (a late timer): the next command is the jog's state at its time,
    # on at the velocity it had, not a restart from rest (a velocity step in the stream).
    joints(control, names, [1.0], t_last + 0.04)
    tick = control.step(t_last + 0.04)
    assert tick is not None
    assert abs(tick.step.sample.v[0] - 1.0) < 1e-9
    assert abs(tick.q[0] - (state.q[0] + 0.04)) < 1e-9


def test_a_long_gap_in_the_commands_restarts_the_jog_from_rest(demo):
    control = make(demo)
    names = [demo.joint_names[0]]
    run(control, 0.0, 0.5, feed=lambda t: joints(control, names, [1.0], t))
    assert abs(control.jogger.state.v[0]) > 0.5
    # No step for 0.2 s (the timer paused): the arm held the last command.
    q_held = control.tracker.command
    joints(control, names, [1.0], 0.7)
    tick = control.step(0.7)
    assert tick is not None
    limits = control.tracker.limits
    assert abs(tick.step.sample.v[0]) <= limits.acceleration[0] * PERIOD + 1e-9
    assert abs(tick.q[0] - q_held[0]) <= limits.velocity[0] * PERIOD


def test_a_brake_for_lost_feedback_stops_within_the_limits_and_takes_no_command(demo):
    control = make(demo)
    names = [demo.joint_names[0]]
    samples = run(control, 0.0, 0.5, feed=lambda t: joints(control, names, [1.0], t))
    control.brake('joint_states lost', 0.5)
    assert control.braking == 'joint_states lost'
    assert joints(control, names, [1.0], 0.5)      # in control, the command not taken
    samples += run(control, 0.5, 1.5,
                   feed=lambda t: control.braking and joints(control, names, [1.0], t))
    acc = accelerations([s for s in samples if s[2] != 'goal'])
    assert np.all(np.abs(acc) <= control.tracker.limits.acceleration * 1.05 + 1e-9)
    assert not control.in_control and control.braking == ''     # at rest: released
    q = np.array([s[1] for s in samples])
    assert q[-1, 0] == q[-2, 0]


def test_an_arm_that_lags_pauses_the_jog_until_it_caught_up(demo):
    control = make(demo)
    tracker = control.tracker
    tracker.set_following_error(np.full(demo.n, 0.05))
    names = [demo.joint_names[5]]
    arm = START.copy()

    def feed(t: float) -> None:
        # The arm follows at a tenth of the command's 1 rad/s; the jog is asked for on.
        arm[5] = min(arm[5] + 0.1 * PERIOD, tracker.command[5])
        tracker.update_feedback(demo.joint_names, arm, t, t)
        joints(control, names, [1.0], t)

    assert joints(control, names, [1.0], 0.0)
    samples = run(control, 0.0, 1.0, feed)
    assert control.lagging and 'wrist_3_joint' in control.lagging
    q = np.array([s[1] for s in samples])
    # Braked within the limits, then held: the command waits for the arm.
    assert np.all(np.abs(accelerations(samples)) <= tracker.limits.acceleration * 1.05 + 1e-9)
    assert q[-1, 5] - arm[5] < 0.05 + 0.15
    assert q[-1, 5] == q[-2, 5]
    # The arm catches up: the next command is taken again.
    arm[:] = tracker.command
    tracker.update_feedback(demo.joint_names, arm, 1.0, 1.0)
    assert joints(control, names, [1.0], 1.0) and not control.lagging


def test_a_new_jogger_mid_jog_brakes_from_the_old_ones_state(demo):
    control = make(demo)
    tracker = control.tracker
    names = [demo.joint_names[0]]
    assert joints(control, names, [1.0], 0.0)
    before = run(control, 0.0, 0.5, feed=lambda t: joints(control, names, [1.0], t))
    slower = tracker.limits._replace(acceleration=tracker.limits.acceleration * 0.5)
    new = JogControl(tracker, Jogger(demo, slower))
    new.carry_on(control)
    assert new.in_control and new.control == CONTROL_JOG_JOINT
    after = run(new, 0.5, 2.0)
    a = accelerations(before[-3:] + after)
    assert np.all(np.abs(a) <= tracker.limits.acceleration * 1.05 + 1e-9)
    assert np.all(np.abs(accelerations(after)) <= slower.acceleration * 1.05 + 1e-9)
    assert after[-1][2] == CONTROL_GOAL and not new.in_control
