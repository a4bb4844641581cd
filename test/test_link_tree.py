# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.model.link_tree: joints of the whole URDF, default chain ends, link poses."""

import math
from pathlib import Path

from conftest import load, ROBOTS, URDF_DIR
from ik_node import URDFError
from ik_node.model.link_tree import RobotTree
import numpy as np
from numpy.testing import assert_allclose
import pytest

DEMO_ARM = Path(__file__).resolve().parents[1] / 'config' / 'urdf' / 'demo_arm.urdf'


@pytest.mark.parametrize('name', sorted(ROBOTS))
def test_link_pose_matches_chain_fk(name, rng):
    fname, base, tip = ROBOTS[name]
    tree = RobotTree.from_urdf(URDF_DIR / fname)
    chain = load(name)
    for _ in range(5):
        q = chain.random_q(rng)
        positions = dict(zip(chain.joint_names, q))
        assert_allclose(tree.link_pose(base, tip, positions), chain.fk(q), atol=1e-12)


def test_link_pose_of_an_ancestor_is_the_inverse(rng):
    tree = RobotTree.from_urdf(URDF_DIR / 'ur5.urdf')
    chain = load('ur5')
    q = chain.random_q(rng)
    positions = dict(zip(chain.joint_names, q))
    T = tree.link_pose('tool0', 'base_link', positions)
    assert_allclose(T @ chain.fk(q), np.eye(4), atol=1e-12)


def test_default_chain_and_actuated_joints():
    ur5 = RobotTree.from_urdf(URDF_DIR / 'ur5.urdf')
    assert ur5.default_chain() == ('base_link', 'tool0')
    assert [j.name for j in ur5.actuated_joints] == list(load('ur5').joint_names)
    panda = RobotTree.from_urdf((URDF_DIR / 'panda.urdf').read_text())
    assert panda.default_chain() == ('panda_link0', 'panda_link8')
    if DEMO_ARM.exists():
        demo = RobotTree.from_urdf(DEMO_ARM)
        assert demo.default_chain() == ('base_link', 'tool0')
        assert all(j.velocity == pytest.approx(3.15) for j in demo.actuated_joints)


def test_mimic_joints_follow_their_leader():
    tree = RobotTree.from_urdf(URDF_DIR / 'mimic.urdf')
    assert [j.name for j in tree.actuated_joints] == ['joint1', 'joint2']
    assert [j.name for j in tree.moving_joints] == ['joint1', 'joint2', 'joint3']
    full = tree.complete_positions({'joint1': 0.3, 'joint2': 0.4, 'unknown': 9.0})
    assert full == pytest.approx({'joint1': 0.3, 'joint2': 0.4, 'joint3': 0.3})
    # Planar arm: tip angle 0.3 + 0.4 + 0.3, links 1.0, 0.8, 0.5 m.
    T = tree.link_pose('base_link', 'tip', {'joint1': 0.3, 'joint2': 0.4})
    a1, a2, a3 = 0.3, 0.7, 1.0
    assert_allclose(T[:2, 3], [math.cos(a1) + 0.8 * math.cos(a2) + 0.5 * math.cos(a3),
                               math.sin(a1) + 0.8 * math.sin(a2) + 0.5 * math.sin(a3)],
                    atol=1e-12)


def test_continuous_joints_have_no_position_limits():
    tree = RobotTree.from_urdf(URDF_DIR / 'continuous.urdf')
    kinds = {j.name: (j.joint_type, j.lower, j.upper) for j in tree.actuated_joints}
    assert any(t == 'continuous' and lo == -math.inf and hi == math.inf
               for t, lo, hi in kinds.values())


@pytest.mark.parametrize('fname', ['not_xml.urdf', 'missing_parent.urdf', 'cyclic.urdf'])
def test_malformed_urdf_raises(fname):
    with pytest.raises(URDFError):
        RobotTree.from_urdf(URDF_DIR / 'bad' / fname)


def test_unknown_link_raises_key_error():
    tree = RobotTree.from_urdf(URDF_DIR / 'planar2.urdf')
    with pytest.raises(KeyError):
        tree.link_pose('base_link', 'nope', {})
