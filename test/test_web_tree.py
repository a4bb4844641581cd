# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The tree view of ik-web (--tips) without a browser: a gizmo per tip, the sub-bases.

With the fabrik solver the page draws what FABRIK's forward pass does at each sub-base: the
centroid of its branches' proposals.
"""

from conftest import URDF_DIR
from ik_node.errors import URDFError
from ik_node.model.link_tree import RobotTree
from ik_node.web.app import start
from ik_node.web.robot import load_robot
from ik_node.web.sub_bases import forward_pass, tree_points
from ik_node.web.tree_view import sub_bases
import numpy as np
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


def test_with_fabrik_each_sub_base_shows_the_centroid_of_its_branches_proposals(tree_app):
    view = tree_app.view
    arm = view.arm
    view.method.value = 'fabrik'
    try:
        q = view.q.copy()
        goal_q = q.copy()
        goal_q[[2, 3, 4]] += [0.3, -0.2, 0.3]     # the left arm's joints
        goal = arm.fk(arm.clip(goal_q))
        # the left hand's gizmo; the right hand holds: both branches propose to the torso
        result = view.wait_for(view.set_target(0, goal[0]))
        assert result is not None and result.success, view.readout.content
        assert '`fabrik`' in view.readout.content
        (torso,) = view.forward
        assert torso.link == 'torso_link' and len(torso.proposals) == 2
        # The centroid rule: the sub-base's new place is the mean of its two branches'.
        assert_allclose(torso.centroid, torso.proposals.mean(axis=0), atol=1e-12)
        assert view.centroids[0].visible
        assert_allclose(view.centroids[0].position, torso.centroid, atol=1e-5)
        assert 'sub-base `torso_link`: centroid of 2 branch proposals' in view.readout.content
    finally:
        view.method.value = 'dls'
    view.wait_for(view.set_target(0, arm.fk(view.q)[0]))
    assert not view.centroids[0].visible and view.forward == []


def test_the_forward_pass_keeps_link_lengths_and_rests_where_the_tips_already_are():
    robot = RobotTree.from_urdf(str(URDF))
    links, parents = tree_points(robot, 'base_link', TIPS)
    assert links[0] == 'base_link' and parents[0] == -1
    assert all(0 <= p < i for i, p in enumerate(parents[1:], 1))
    rng = np.random.default_rng(3)
    points = rng.normal(size=(len(links), 3))
    tips = {links.index(t): rng.normal(size=3) for t in TIPS}
    f, proposals = forward_pass(points, parents, tips)
    torso = links.index('torso_link')
    assert len(proposals[torso]) == 2
    assert_allclose(f[torso], np.mean(proposals[torso], axis=0))
    for i, p in enumerate(parents[1:], 1):
        if p >= 0 and len(proposals.get(p, ())) == 1:
            # one branch: the parent is put at the link's length from the child's place
            assert_allclose(np.linalg.norm(f[p] - f[i]),
                            np.linalg.norm(points[i] - points[p]), rtol=1e-12)
    # Targets where the tips are: every point stays (a fixed point of the pass).
    f, _ = forward_pass(points, parents, {k: points[k] for k in tips})
    assert_allclose(f, points, atol=1e-12)
