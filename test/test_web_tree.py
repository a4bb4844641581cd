# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The tree view of ik-web (--tips) without a browser: a gizmo per tip, the sub-bases."""

from conftest import URDF_DIR
from ik_node.errors import URDFError
from ik_node.model.link_tree import RobotTree
from ik_node.web.app import start
from ik_node.web.robot import load_robot
from ik_node.web.tree_view import sub_bases
from numpy.testing import assert_allclose
import pytest
from web_helpers import free_port

URDF = URDF_DIR / 'torso_two_arms.urdf'
TIPS = ['left_hand', 'right_hand']


@pytest.fixture(scope='module')
def tree_app():
    app = start(str(URDF), 'base_link', port=free_port(), tips=TIPS)
    assert app.error is None
    yield app
    app.close()


def test_a_gizmo_per_tip_moves_that_tip_and_the_other_holds(tree_app):
    view = tree_app.view
    arm = view.arm
    assert len(view.gizmos) == 2 and len(view.reached) == 2
    for tip in (0, 1):
        q = view.q.copy()
        joints = [2, 3, 4, 5] if tip == 0 else [6, 7, 8, 9]
        goal_q = q.copy()
        goal_q[joints] += 0.25
        goal = arm.fk(arm.clip(goal_q))[tip]
        held = arm.fk(q)[1 - tip]
        result = view.wait_for(view.set_target(tip, goal))
        assert result is not None and result.success, view.readout.content
        T = arm.fk(view.q)
        assert_allclose(T[tip], goal, atol=1e-4)
        assert_allclose(T[1 - tip], held, atol=1e-4)
        assert_allclose(view.reached[tip].position, goal[:3, 3], atol=1e-4)
        assert f'`{TIPS[tip]}` (target): ok' in view.readout.content
        assert f'`{TIPS[1 - tip]}` (hold): ok' in view.readout.content


def test_an_unreachable_tip_shows_the_best_attempt_and_says_which_tip(tree_app):
    view = tree_app.view
    far = view.arm.fk(view.q)[1]
    far[:3, 3] = [2.5, -2.0, 1.0]
    result = view.wait_for(view.set_target(1, far))
    assert result is not None and not result.success
    assert 'NOT REACHED' in view.readout.content
    assert '`right_hand` (target): off' in view.readout.content
    assert '`left_hand` (hold): ok' in view.readout.content


def test_the_sub_base_of_the_two_arms_is_the_torso_and_is_drawn_there(tree_app):
    view = tree_app.view
    assert view.sub_bases == ['torso_link']
    positions = view.arm.tree.positions(view.q)
    T = RobotTree.from_urdf(str(URDF)).link_pose('base_link', 'torso_link', positions)
    assert_allclose(view.spheres[0].position, T[:3, 3], atol=1e-5)   # viser: float32
    robot = RobotTree.from_urdf(str(URDF))
    # A finger tip below a hand: the hand's link parts the two fingers, the torso the arms.
    assert set(sub_bases(robot, 'base_link', ['l_finger_a_tip', 'l_finger_b_tip',
                                              'right_hand'])) == {'torso_link', 'left_hand'}


def test_an_unknown_tip_is_refused_naming_it():
    with pytest.raises(URDFError, match='nowhere'):
        load_robot(URDF, 'base_link', tips=['left_hand', 'nowhere'])
