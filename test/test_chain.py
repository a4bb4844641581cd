# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Forward kinematics and the Jacobian: hand-derived arms and finite differences."""

from conftest import load
from ik_node import IKInputError
from ik_node.spatial.pose import quat_xyzw_from_matrix
import numpy as np
import pytest


def test_planar2_fk_matches_the_hand_derived_formula(rng):
    chain = load('planar2')
    for _ in range(20):
        q = chain.random_q(rng)
        T = chain.fk(q)
        x = 1.0 * np.cos(q[0]) + 0.8 * np.cos(q[0] + q[1])
        y = 1.0 * np.sin(q[0]) + 0.8 * np.sin(q[0] + q[1])
        np.testing.assert_allclose(T[:3, 3], [x, y, 0.0], atol=1e-12)
        c, s = np.cos(q.sum()), np.sin(q.sum())
        np.testing.assert_allclose(T[:3, :3], [[c, -s, 0], [s, c, 0], [0, 0, 1]], atol=1e-12)


def test_planar2_jacobian_matches_the_hand_derived_formula():
    chain = load('planar2')
    q = np.array([0.3, -1.1])
    s1, c1 = np.sin(q[0]), np.cos(q[0])
    s12, c12 = np.sin(q.sum()), np.cos(q.sum())
    expected = np.zeros((6, 2))
    expected[0] = [-s1 - 0.8 * s12, -0.8 * s12]
    expected[1] = [c1 + 0.8 * c12, 0.8 * c12]
    expected[5] = [1.0, 1.0]
    np.testing.assert_allclose(chain.jacobian(q), expected, atol=1e-12)


def test_known_zero_poses():
    np.testing.assert_allclose(load('panda').fk(np.zeros(7))[:3, 3], [0.088, 0.0, 0.926],
                               atol=1e-12)
    np.testing.assert_allclose(load('ur5').fk(np.zeros(6))[:3, 3],
                               [-0.81725, -0.19145, -0.005491], atol=1e-12)


def numeric_jacobian(chain, q, h=1e-6):
    """Central-difference Jacobian: position rows from FK, rotation rows from the log map."""
    J = np.zeros((6, chain.n))
    for i in range(chain.n):
        dq = np.zeros(chain.n)
        dq[i] = h
        Tp, Tm = chain.fk(q + dq), chain.fk(q - dq)
        J[:3, i] = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
        dR = Tp[:3, :3] @ Tm[:3, :3].T
        # For a small rotation, dR ~ I + [w]x with w = 2h * angular velocity.
        J[3:, i] = np.array([dR[2, 1] - dR[1, 2], dR[0, 2] - dR[2, 0],
                             dR[1, 0] - dR[0, 1]]) / 2 / (2 * h)
    return J


def test_jacobian_matches_finite_differences(any_chain, rng):
    for _ in range(10):
        q = any_chain.random_q(rng)
        np.testing.assert_allclose(any_chain.jacobian(q), numeric_jacobian(any_chain, q),
                                   atol=1e-7)


def test_frames_end_at_the_tip_and_are_rigid_transforms(any_chain, rng):
    q = any_chain.random_q(rng)
    F = any_chain.frames(q)
    assert F.shape == (len(any_chain.moving_joint_names) + 1, 4, 4)
    np.testing.assert_allclose(F[-1], any_chain.fk(q), atol=1e-12)
    for T in F:
        np.testing.assert_allclose(T[:3, :3] @ T[:3, :3].T, np.eye(3), atol=1e-12)


def test_prismatic_joint_moves_the_tip_along_its_axis():
    chain = load('prismatic')
    q = np.array([0.0, 0.1, 0.2, -0.3])
    lift = chain.joint_names.index('lift')
    dq = np.zeros(4)
    dq[lift] = 0.25
    np.testing.assert_allclose(chain.fk(q + dq)[:3, 3] - chain.fk(q)[:3, 3], [0, 0, 0.25],
                               atol=1e-12)


def test_mimic_chain_fk_equals_the_full_chain_with_the_mimic_value(rng):
    from ik_node import Chain
    from conftest import URDF_DIR
    full = (URDF_DIR / 'mimic.urdf').read_text().replace('<mimic', '<!--').replace(
        'offset="0.1"/>', '-->')
    unmimicked = Chain.from_urdf(full, 'base_link', 'tip')
    chain = load('mimic')
    assert unmimicked.n == 3
    for _ in range(5):
        q = chain.random_q(rng)
        q3 = np.append(q, 0.5 * q[1] + 0.1)
        np.testing.assert_allclose(chain.fk(q), unmimicked.fk(q3), atol=1e-12)


def test_fk_rejects_bad_shapes_and_nan_and_leaves_input_unchanged():
    chain = load('panda')
    with pytest.raises(IKInputError, match=r'shape \(7,\)'):
        chain.fk(np.zeros(6))
    with pytest.raises(IKInputError, match='not finite'):
        chain.fk([0, 0, 0, np.nan, 0, 0, 0])
    q = np.linspace(-0.5, 0.5, 7)
    before = q.copy()
    chain.fk(q)
    chain.jacobian(q)
    np.testing.assert_array_equal(q, before)


def test_clip_random_q_and_within_limits(any_chain, rng):
    for _ in range(20):
        q = any_chain.random_q(rng)
        assert any_chain.within_limits(q)
        far = q + 100.0
        clipped = any_chain.clip(far)
        assert any_chain.within_limits(clipped)
    assert not any_chain.within_limits(np.full(any_chain.n, np.nan))


def test_quaternion_of_fk_is_unit(rng):
    chain = load('ur5')
    q = chain.random_q(rng)
    np.testing.assert_allclose(np.linalg.norm(quat_xyzw_from_matrix(chain.fk(q))), 1.0)
