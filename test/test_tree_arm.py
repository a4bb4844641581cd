# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""TreeArm: a tree of several tips through the tracker's goal motion, without ROS."""

from conftest import URDF_DIR
from ik_node.errors import IKInputError
from ik_node.motion.streams import is_stream_step
from ik_node.motion.tracker import IKTracker
from ik_node.motion.tree_arm import check_arm_target, target_error, TreeArm
from ik_node.tree import TreeChain
import numpy as np
from numpy.testing import assert_allclose
import pytest

URDF = URDF_DIR / 'torso_two_arms.urdf'
Q_START = np.array([0.1, 0.0, 0.3, 0.5, -0.8, 0.2, -0.3, 0.5, -0.8, -0.2])
DQ_LEFT = np.array([0.0, 0.0, 0.4, -0.3, 0.5, 0.3, 0.0, 0.0, 0.0, 0.0])
OPTIONS = {'position_tolerance': 1e-5, 'orientation_tolerance': 1e-4, 'max_iterations': 100,
           'max_attempts': 20, 'timeout': 0.5}


@pytest.fixture(scope='module')
def arm() -> TreeArm:
    return TreeArm(TreeChain.from_urdf(URDF, 'base_link', ['left_hand', 'right_hand']))


def tracker(arm: TreeArm, method: str = 'dls') -> IKTracker:
    t = IKTracker(arm, method, OPTIONS, arm.velocity, 0.01, 0.5, goal_budget=0.5)
    t.start_at(Q_START, 0.0)
    return t


def run(t: IKTracker, now: float, limit: float = 30.0) -> tuple[float, list]:
    """Step ``t`` until it rests; return (the time, the commands)."""
    commands = []
    while t.moving and now < limit:
        now += 0.01
        commands.append(t.step(now).q)
    return now, commands


def test_the_whole_joint_vector_and_stacked_poses(arm):
    assert arm.n == 10 and arm.joint_names[:2] == ('torso_lift', 'torso_yaw')
    T = arm.fk(Q_START)
    assert T.shape == (2, 4, 4) and arm.jacobian(Q_START).shape == (12, 10)
    assert arm.collisions(Q_START) == [] and not arm.path_collides(Q_START, arm.mid)


def test_a_tip_target_holds_the_other_tips_where_given(arm):
    goal = arm.fk(Q_START + DQ_LEFT)[0]
    target = arm.target_for(0, goal, Q_START)
    assert_allclose(target[0], goal)
    assert_allclose(target[1], arm.fk(Q_START)[1])
    assert not target.flags.writeable


@pytest.mark.parametrize('method', ['dls', 'fabrik'])
def test_a_goal_for_one_tip_moves_the_tree_smoothly_and_the_other_holds(arm, method):
    t = tracker(arm, method)
    target = arm.target_for(0, arm.fk(Q_START + DQ_LEFT)[0], Q_START)
    outcome = t.solve(target, 0.0)
    assert outcome is not None and outcome.motion == 'direct', outcome.reason
    assert outcome.result.success and [r.tip_link for r in outcome.result.tips] == [
        'left_hand', 'right_hand']
    assert outcome.result.method == method
    now, commands = run(t, 0.0)
    assert not t.moving and len(commands) > 10
    pe, oe = target_error(arm, target, t.command)
    assert pe < 1e-5 and oe < 1e-4
    held = arm.fk(Q_START)[1]
    assert max(np.linalg.norm(arm.fk(q)[1][:3, 3] - held[:3, 3]) for q in commands) < 1e-4
    v = np.diff(np.array(commands), axis=0) / 0.01
    assert np.all(np.abs(v) <= t.limits.velocity * (1 + 1e-6) + 1e-9)
    assert t.arrived(now, 1e-3, 1e-2) is False      # no measured arm: not arrived


def test_an_unreachable_tip_is_refused_before_moving_with_each_tips_errors(arm):
    t = tracker(arm)
    far = arm.fk(Q_START)
    far = far.copy()
    far[1][:3, 3] = [2.5, -2.0, 1.0]
    outcome = t.solve(far, 0.0)
    assert outcome.refused and not t.moving
    tips = {r.tip_link: r for r in outcome.result.tips}
    assert tips['left_hand'].success and not tips['right_hand'].success
    assert tips['right_hand'].position_error > 1.0
    assert_allclose(t.command, Q_START)


def test_malformed_tree_targets_are_refused_naming_the_tip(arm):
    with pytest.raises(IKInputError, match=r'\(2, 4, 4\)'):
        check_arm_target(arm, np.eye(4))
    bad = arm.fk(Q_START)
    bad[1, 0, 3] = np.nan
    with pytest.raises(IKInputError, match='right_hand'):
        check_arm_target(arm, bad)
    t = tracker(arm)
    with pytest.raises(IKInputError):
        t.solve(bad, 0.0)
    assert not t.moving


def test_the_tree_solve_refuses_what_it_cannot_take(arm):
    target = arm.fk(Q_START)
    with pytest.raises(IKInputError, match='damping'):
        arm.solve(target, Q_START, damping=0.1)
    with pytest.raises(IKInputError, match='obstacles needs avoid_collisions'):
        arm.solve(target, Q_START, obstacles=[object()])
    with pytest.raises(IKInputError, match="'ccd'"):
        arm.solve(target, Q_START, method='ccd')


def test_a_tree_stream_step_is_small_for_every_tip(arm):
    a = arm.fk(Q_START)
    b = arm.fk(Q_START + 0.01 * DQ_LEFT)
    c = arm.fk(Q_START + DQ_LEFT)
    assert is_stream_step(a, b, False, True)
    assert not is_stream_step(a, c, False, True)
