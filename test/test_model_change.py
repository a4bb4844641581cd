# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A new robot model mid-motion, without ROS: the command stream goes on without a jump.

The node replaces its tracker when ``robot_description`` or a model parameter
(``avoid_collisions``, ``tip_link``, ...) changes. A model of the same joints takes the
command over (:func:`ik_node.ros.robot_setup.continue_command`): a goal motion brakes on its
path, a jog from its jogger's state, within the acceleration and jerk limits; a model whose
limits exclude that stop, or one of other joints while the arm moves, is refused
(:func:`ik_node.ros.robot_setup.check_carry_over`). Before, the new tracker stood still at
the last command at once: a velocity step of 2 rad/s in one 10 ms period on the arm below.
"""

from pathlib import Path

from ik_node import Chain
from ik_node.motion.jog import Jogger, MODE_JOINT
from ik_node.motion.jog_control import JogControl
from ik_node.motion.tracker import IKTracker
from ik_node.motion.watcher import CommandWatcher
from ik_node.ros.robot_setup import check_carry_over, continue_command
import numpy as np
import pytest

PERIOD = 0.01
URDF = (Path(__file__).resolve().parent / 'urdf' / 'ur5.urdf').read_text()
FULL_TURN = 'lower="-6.283185307179586" upper="6.283185307179586"'
START = np.array([0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0])
GOAL_STEP = 1.5       # [rad] each joint's way to the goal: well under way at CHANGE
CHANGE = 0.2         # [s] the model changes


def tracker_of(urdf: str = URDF, tip: str = 'tool0') -> IKTracker:
    chain = Chain.from_urdf(urdf, 'base_link', tip)
    return IKTracker(chain, 'dls', {}, np.full(chain.n, 3.0), PERIOD, 0.5)


def narrowed(limit: float) -> str:
    """Return the UR5 with its full-turn joints limited to [-limit, limit] [rad]."""
    return URDF.replace(FULL_TURN, f'lower="{-limit}" upper="{limit}"')


def moving_tracker(until: float) -> tuple[IKTracker, list]:
    """Return a tracker under way to a far goal, and its commands (t, q) until ``until``."""
    tracker = tracker_of()
    tracker.start_at(START, 0.0)
    tracker.move_to(START + GOAL_STEP, 0.0)
    commands = [(t, tracker.step(t).q) for t in np.arange(PERIOD, until + 1e-9, PERIOD)]
    assert tracker.moving
    return tracker, commands


def violations(chain: Chain, limits, commands: list) -> list:
    """Return the velocity, acceleration and jerk violations of ``commands`` (by stamps)."""
    watcher = CommandWatcher.for_chain(chain, limits.velocity, PERIOD,
                                       a_max=limits.acceleration, j_max=limits.jerk)
    found = []
    for t, q in commands:
        found += watcher.check(chain.joint_names, q, stamp_ns=int(round(t * 1e9)))
    return found


def test_a_model_of_the_same_joints_brakes_a_goal_motion_on_its_path():
    old, commands = moving_tracker(CHANGE)
    new = tracker_of(URDF.replace('<robot name="ur5"', '<robot name="ur5_v2"'))
    now = CHANGE + 0.3 * PERIOD         # between two ticks, as a message comes
    check_carry_over(old, new, True, now)
    assert continue_command(old, new, {}, now)
    after = [(t, new.step(t).q) for t in np.arange(CHANGE + PERIOD, 1.5, PERIOD)]
    assert not violations(new.chain, old.limits, commands + after)
    # It came to rest on the old path (the line START -> START + GOAL_STEP), short of it,
    # and the goal is dropped.
    rest = after[-1][1]
    assert not new.moving and new.goal is None
    np.testing.assert_allclose(rest - START, np.full(6, rest[0] - START[0]), atol=1e-9)
    assert commands[-1][1][0] - START[0] < rest[0] - START[0] < GOAL_STEP - 0.1
    # The new model serves the next goal from there, within the limits too.
    new.move_to(START, 1.5)
    back = [(t, new.step(t).q) for t in np.arange(1.5, 4.0, PERIOD)]
    np.testing.assert_allclose(back[-1][1], START, atol=1e-9)
    assert not violations(new.chain, new.limits, after + back)


def test_a_model_of_the_same_joints_at_rest_starts_at_the_command():
    old = tracker_of()
    old.start_at(START, 0.0)
    old.step(0.01)
    new = tracker_of()
    check_carry_over(old, new, False, 0.015)
    assert not continue_command(old, new, {}, 0.015)
    np.testing.assert_array_equal(new.step(0.02).q, START)
    assert not new.moving


def test_limits_that_exclude_the_stop_or_other_joints_in_motion_are_refused():
    old, commands = moving_tracker(CHANGE)
    q = commands[-1][1]
    # The command itself inside the narrowed limits, the rest point of the stop beyond them.
    limit = float(np.max(np.abs(q))) + 0.01
    stop_end = old.commander.stopping(CHANGE).samples(CHANGE, 0.01)[-1]
    assert np.max(np.abs(stop_end)) > limit
    with pytest.raises(ValueError, match='on the way to rest'):
        check_carry_over(old, tracker_of(narrowed(limit)), True, CHANGE)
    # A model of other joints (a shorter chain) only with the arm at rest.
    shorter = tracker_of(tip='wrist_2_link')
    with pytest.raises(ValueError, match='the arm is moving and the new model commands other'):
        check_carry_over(old, shorter, True, CHANGE)
    check_carry_over(old, shorter, False, CHANGE)


def test_a_jog_under_a_new_model_of_the_same_joints_brakes_from_its_state():
    old = tracker_of()
    old.start_at(START, 0.0)
    old.step(0.0)
    control = JogControl(old, Jogger(old.chain, old.limits))
    names = [old.chain.joint_names[0]]
    commands = []
    for t in np.arange(0.0, 0.5, PERIOD):
        control.command(MODE_JOINT, lambda jog, t=t: jog.joint_velocities(names, [1.0], t),
                        False, t)
        commands.append((t, control.step(t).q))
    # The model changes (continue_command: the tracker stood at the jog's command).
    new = tracker_of()
    check_carry_over(old, new, True, 0.495)
    assert not continue_command(old, new, {}, 0.495)
    taken = JogControl(new, Jogger(new.chain, new.limits))
    taken.carry_on(control)
    assert taken.in_control
    for t in np.arange(0.5, 1.5, PERIOD):
        tick = taken.step(t)
        commands.append((t, tick.q if tick is not None else new.step(t).q))
    assert not violations(new.chain, old.limits, commands)
    assert not taken.in_control and np.all(commands[-1][1] == commands[-2][1])
    # A jog of other joints is not taken over.
    shorter = tracker_of(tip='wrist_2_link')
    other = JogControl(shorter, Jogger(shorter.chain, shorter.limits))
    assert control.in_control           # (never released: the new control took it over)
    other.carry_on(control)
    assert not other.in_control
