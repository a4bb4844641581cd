# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Differential IK for a twist: exact away from singularities, priorities, null space."""

from conftest import ROBOTS, URDF_DIR
import ik_node
from ik_node.motion.twist_ik import condition_number, joint_velocity_for_twist, twist_velocity
from ik_node.solvers.objectives import JointLimitAvoidance, objective_gradient, pack_objectives
import numpy as np
import pytest


def chain(name: str) -> ik_node.Chain:
    file, base, tip = ROBOTS[name]
    return ik_node.Chain.from_urdf(URDF_DIR / file, base, tip)


@pytest.mark.parametrize('name', ['ur5', 'panda'])
def test_the_twist_is_met_exactly_away_from_singularities(name, rng):
    c = chain(name)
    for _ in range(20):
        q = c.random_q(rng)
        J = c.jacobian(q)
        if condition_number(J) > 15.0:
            continue
        twist = rng.normal(size=6) * 0.1
        sol = joint_velocity_for_twist(J, twist, 0.05, 0.05)
        np.testing.assert_allclose(J @ sol.v, twist, atol=1e-10)
        np.testing.assert_allclose(sol.twist, twist, atol=1e-10)
        # The one-SVD shortcut gives what the three levels give (a zero gradient takes them).
        levels = joint_velocity_for_twist(J, twist, 0.05, 0.05, np.zeros(c.n), 1.0)
        np.testing.assert_allclose(sol.v, levels.v, atol=1e-10)


def test_a_four_joint_arm_keeps_the_position_and_gives_up_what_it_cannot(rng):
    c = chain('arm4')
    q = np.array([0.2, 0.3, 0.6, -0.4])
    J = c.jacobian(q)
    twist = np.concatenate([rng.normal(size=3) * 0.1, rng.normal(size=3)])
    sol = joint_velocity_for_twist(J, twist, 0.05, 0.05)
    np.testing.assert_allclose(sol.twist[:3], twist[:3], atol=1e-10)
    # The orientation part is the best the null space of the position offers.
    plain = joint_velocity_for_twist(J, np.concatenate([twist[:3], np.zeros(3)]), 0.05, 0.05)
    assert (np.linalg.norm(sol.twist[3:] - twist[3:])
            <= np.linalg.norm(plain.twist[3:] - twist[3:]) + 1e-12)


def test_the_null_space_step_leaves_the_tool_twist_alone(rng):
    c = chain('panda')
    q = c.random_q(rng)
    J = c.jacobian(q)
    twist = rng.normal(size=6) * 0.1
    packed = pack_objectives(c, [JointLimitAvoidance()])
    g = objective_gradient(c.model, c.n, q, c.lower, c.upper, packed)
    with_null = joint_velocity_for_twist(J, twist, 0.05, 0.05, g, 1.0)
    without = joint_velocity_for_twist(J, twist, 0.05, 0.05)
    assert np.linalg.norm(with_null.v - without.v) > 1e-3
    np.testing.assert_allclose(J @ (with_null.v - without.v), np.zeros(6), atol=1e-10)
    assert g @ (with_null.v - without.v) < 0.0          # it descends the objective


def test_at_a_singularity_the_velocity_stays_bounded():
    c = chain('ur5')
    q = np.array([0.0, -1.3, 1.6, -1.9, 0.0, 0.0])       # wrist_2 = 0: wrist axes aligned
    J = c.jacobian(q)
    assert condition_number(J) > 1e6
    eps = 0.05
    for twist in np.eye(6) * 0.1:
        v = joint_velocity_for_twist(J, twist, eps, eps).v
        assert np.all(np.isfinite(v)) and np.linalg.norm(v) < 0.1 / eps * 10


def test_the_kernel_has_one_specialisation_whatever_the_inputs_are(rng):
    # Read-only arrays, lists, no gradient or one: each other array type would be a kernel
    # compiled again (ik-compile's time) and loaded again in the node's control cycle.
    c = chain('panda')
    J = c.jacobian(c.random_q(rng))
    J_ro, x_ro, g_ro = J.copy(), rng.normal(size=6) * 0.1, rng.normal(size=c.n)
    for a in (J_ro, x_ro, g_ro):
        a.flags.writeable = False
    for args in ((J, x_ro.copy()), (J_ro, x_ro), (J.tolist(), x_ro.tolist())):
        for gradient in (None, g_ro, g_ro.tolist()):
            sol = joint_velocity_for_twist(*args, 0.05, 0.05, gradient, 0.5)
            assert np.all(np.isfinite(sol.v))
    signatures = getattr(twist_velocity, 'signatures', None)
    if signatures is None:
        pytest.skip('compiled kernels disabled (IK_NODE_DISABLE_JIT)')
    assert len(signatures) == 1, signatures
