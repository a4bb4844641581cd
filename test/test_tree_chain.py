# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The tree model: per-tip FK against single chains, the stacked Jacobian, bad input."""

from conftest import ROBOTS, URDF_DIR
from ik_node import Chain, IKInputError, URDFError
from ik_node.model.link_tree import RobotTree
from ik_node.tree.chain import TreeChain
import numpy as np
import pytest

URDF = URDF_DIR / 'torso_two_arms.urdf'
HANDS = ['left_hand', 'right_hand']
ALL_TIPS = ['left_hand', 'right_hand', 'l_finger_a_tip', 'l_finger_b_tip']


def tree(tips=HANDS, **kwargs) -> TreeChain:
    return TreeChain.from_urdf(URDF, 'base_link', tips, **kwargs)


def numeric_jacobian(t: TreeChain, q, h=1e-6):
    """Central differences of every tip: position rows from FK, rotation rows from dR."""
    J = np.zeros((6 * len(t.tip_links), t.n))
    for i in range(t.n):
        dq = np.zeros(t.n)
        dq[i] = h
        Tp, Tm = t.fk(q + dq), t.fk(q - dq)
        for k in range(len(t.tip_links)):
            J[6 * k:6 * k + 3, i] = (Tp[k, :3, 3] - Tm[k, :3, 3]) / (2 * h)
            dR = Tp[k, :3, :3] @ Tm[k, :3, :3].T
            J[6 * k + 3:6 * k + 6, i] = np.array([dR[2, 1] - dR[1, 2], dR[0, 2] - dR[2, 0],
                                                  dR[1, 0] - dR[0, 1]]) / 2 / (2 * h)
    return J


def test_joint_vector_is_the_union_of_the_tips_joints_each_once_in_documented_order():
    t = tree()
    assert t.joint_names == ('torso_lift', 'torso_yaw',
                             'l_shoulder_yaw', 'l_shoulder_pitch', 'l_elbow', 'l_wrist',
                             'r_shoulder_yaw', 'r_shoulder_pitch', 'r_elbow', 'r_wrist')
    assert t.n == 10
    np.testing.assert_array_equal(t.tip_joints[0], [0, 1, 2, 3, 4, 5])
    np.testing.assert_array_equal(t.tip_joints[1], [0, 1, 6, 7, 8, 9])
    np.testing.assert_array_equal(t.shared_joints, [0, 1])
    # Joints off the tree are held: 0 clipped into the limits (finger a: [0, 0.8]).
    assert dict(t.held) == {'head_pan': 0.0, 'l_finger_a_joint': 0.0, 'l_finger_b_joint': 0.0}
    np.testing.assert_array_equal(t.prismatic, [True] + [False] * 9)
    np.testing.assert_array_equal(t.continuous, [False] * 9 + [True])
    assert t.lower[0] == 0.0 and t.upper[0] == 0.3 and t.upper[9] == np.inf


def test_each_tips_fk_equals_its_single_chain(rng):
    t = tree(ALL_TIPS)
    for i, tip in enumerate(ALL_TIPS[:3]):
        chain = Chain.from_urdf(URDF, 'base_link', tip)
        cols = [t.joint_names.index(name) for name in chain.joint_names]
        np.testing.assert_array_equal(sorted(cols), t.tip_joints[i])
        for _ in range(10):
            q = t.random_q(rng)
            np.testing.assert_allclose(t.fk(q)[i], chain.fk(q[cols]), atol=1e-12)
            np.testing.assert_allclose(t.tip_pose(q, tip), chain.fk(q[cols]), atol=1e-12)
            J = t.tip_jacobian(q, tip)
            np.testing.assert_allclose(J[:, cols], chain.jacobian(q[cols]), atol=1e-12)
            others = np.setdiff1d(np.arange(t.n), cols)
            assert not np.any(J[:, others])


def test_every_tips_fk_equals_the_robot_trees_link_pose(rng):
    t = tree(ALL_TIPS, held_joints={'head_pan': 0.4})
    robot = RobotTree.from_urdf(URDF)
    for _ in range(10):
        q = t.random_q(rng)
        positions = t.positions(q)
        assert positions['head_pan'] == 0.4
        assert positions['l_finger_b_joint'] == -positions['l_finger_a_joint']
        for i, tip in enumerate(ALL_TIPS):
            np.testing.assert_allclose(t.fk(q)[i], robot.link_pose('base_link', tip, positions),
                                       atol=1e-12)


@pytest.mark.parametrize('name', sorted(ROBOTS))
def test_a_one_tip_tree_is_the_chain(name, rng):
    fname, base, tip = ROBOTS[name]
    chain = Chain.from_urdf(URDF_DIR / fname, base, tip)
    t = TreeChain.from_urdf(URDF_DIR / fname, base, [tip])
    assert t.joint_names == chain.joint_names
    for field in ('lower', 'upper', 'velocity', 'continuous', 'prismatic', 'mid'):
        np.testing.assert_array_equal(getattr(t, field), getattr(chain, field), err_msg=field)
    assert t.length_scale == chain.length_scale
    for q in chain.random_q(rng, 5):
        np.testing.assert_allclose(t.fk(q)[0], chain.fk(q), atol=1e-15)
        np.testing.assert_allclose(t.jacobian(q), chain.jacobian(q), atol=1e-15)


def test_stacked_jacobian_matches_finite_differences(rng):
    t = tree(ALL_TIPS)
    for _ in range(10):
        q = t.random_q(rng)
        # Keep the lift and the fingers off their limits' edge for the central difference.
        q = np.clip(q, t.lower + 1e-5, t.upper - 1e-5)
        T, J = t.fk_and_jacobian(q)
        assert J.shape == (6 * len(ALL_TIPS), t.n)
        np.testing.assert_allclose(J, numeric_jacobian(t, q), atol=1e-7)
        np.testing.assert_allclose(T, t.fk(q), atol=1e-15)
        np.testing.assert_allclose(J, t.jacobian(q), atol=1e-15)


def test_shared_joints_move_both_tips_and_an_arms_own_joints_only_its_tip(rng):
    t = tree()
    q = np.clip(t.random_q(rng), t.lower + 0.05, t.upper - 0.05)
    J = t.jacobian(q)
    for k in t.shared_joints:
        assert np.linalg.norm(J[:6, k]) > 1e-3 and np.linalg.norm(J[6:, k]) > 1e-3
        dq = np.zeros(t.n)
        dq[k] = 0.05
        moved = np.linalg.norm(t.fk(q + dq)[:, :3, 3] - t.fk(q)[:, :3, 3], axis=1)
        assert np.all(moved > 1e-3)
    left_only = [t.joint_names.index('l_shoulder_yaw'), t.joint_names.index('l_elbow')]
    assert not np.any(J[6:, left_only])
    dq = np.zeros(t.n)
    dq[left_only] = 0.3
    np.testing.assert_allclose(t.fk(q + dq)[1], t.fk(q)[1], atol=1e-15)


def test_a_mimic_across_branches_brings_its_master_into_the_vector(rng):
    t = tree(['right_hand', 'l_finger_b_tip'])
    # The finger b tip depends on finger a's joint, which no tip's path holds.
    assert t.joint_names[-1] == 'l_finger_a_joint'
    assert t.n - 1 in t.tip_joints[1]
    # Its limits are narrowed by the mimic's: q_b = -q_a in [-0.8, 0] -> q_a in [0, 0.8].
    assert (t.lower[-1], t.upper[-1]) == (0.0, 0.8)
    with pytest.raises(URDFError, match='l_finger_a_joint'):
        t.tip_chain('l_finger_b_tip')     # a single Chain cannot hold it
    q = np.clip(t.random_q(rng), t.lower + 1e-5, t.upper - 1e-5)
    np.testing.assert_allclose(t.jacobian(q), numeric_jacobian(t, q), atol=1e-7)


def test_a_tip_below_another_tip_keeps_its_own_rows(rng):
    t = tree(['left_hand', 'l_finger_a_tip'])
    finger = t.joint_names.index('l_finger_a_joint')
    np.testing.assert_array_equal(t.tip_joints[0], [0, 1, 2, 3, 4, 5])
    np.testing.assert_array_equal(t.tip_joints[1], [0, 1, 2, 3, 4, 5, finger])
    J = t.jacobian(t.random_q(rng))
    assert not np.any(J[:6, finger]) and np.any(J[6:, finger])


def test_tip_chain_is_the_single_chain(rng):
    t = tree()
    chain = t.tip_chain('right_hand')
    assert chain.joint_names == tuple(t.joint_names[i] for i in t.tip_joints[1])
    q = t.random_q(rng)
    np.testing.assert_allclose(chain.fk(q[t.tip_joints[1]]), t.fk(q)[1], atol=1e-12)


@pytest.mark.parametrize('tips, message', [
    ([], 'tip_links is empty'),
    ('left_hand', 'must be a list'),
    (['left_hand', 'no_such_link'], r"tip_links\[1\] 'no_such_link' is not a link"),
    (['left_hand', 'right_hand', 'left_hand'], r"tip_links\[2\] 'left_hand' repeats "
                                               r'tip_links\[0\]'),
    (['base_link'], 'is base_link itself'),
    ([0], r'tip_links\[0\] 0 is not a link'),
])
def test_bad_tip_lists_are_refused_naming_the_problem(tips, message):
    with pytest.raises(URDFError, match=message):
        tree(tips)


def test_a_tip_off_the_base_subtree_is_refused_naming_the_common_ancestor():
    with pytest.raises(URDFError, match=r"tip_links\[1\] 'right_hand' is not below base_link "
                                        r"'l_shoulder_link'.*'torso_link'"):
        TreeChain.from_urdf(URDF, 'l_shoulder_link', ['left_hand', 'right_hand'])
    with pytest.raises(URDFError, match="base_link 'nowhere' is not a link"):
        TreeChain.from_urdf(URDF, 'nowhere', HANDS)
    # A tip rigid with the base (fixed joints only between them).
    with pytest.raises(URDFError, match='no actuated joint'):
        TreeChain.from_urdf(URDF, 'head_link', ['head_camera'])


def test_held_joints_must_lie_outside_the_tree():
    with pytest.raises(URDFError, match='belong to the chain'):
        tree(held_joints={'torso_yaw': 0.1})
    with pytest.raises(URDFError, match='not joints of robot'):
        tree(held_joints={'no_joint': 0.1})
    assert tree(held_joints={'head_pan': 9.0}).held['head_pan'] == 1.5   # clipped


def test_bad_q_and_unknown_tips_are_refused():
    t = tree()
    with pytest.raises(IKInputError, match=r'shape \(10,\)'):
        t.fk(np.zeros(9))
    with pytest.raises(IKInputError, match='not finite|NaN'):
        t.jacobian(np.full(10, np.nan))
    with pytest.raises(IKInputError, match="'head_camera' is not a tip"):
        t.tip_pose(np.zeros(10), 'head_camera')
    q = np.zeros(10)
    t.fk(q)
    assert not q.any()
