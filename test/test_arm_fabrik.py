# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""FABRIK on URDF arms: ik_node.solve(method='fabrik' / 'hybrid'), q checked by FK."""

import math

from conftest import load
from ik_node.pointchain.two_bone import two_bone_angles
from ik_node.solve_ik import solve
from ik_node.solvers.arm_fabrik import arm_attempt, ArmParams, MODE_FABRIK
from ik_node.solvers.target_records import make_target
import numpy as np
from numpy.testing import assert_allclose
import pytest

ROBOTS = ['panda', 'ur5', 'planar2', 'planar3', 'arm4', 'prismatic', 'continuous', 'mimic']


def fk_error(chain, target, q):
    T = chain.fk(q)
    if np.shape(target) == (3,):
        return float(np.linalg.norm(T[:3, 3] - target)), 0.0
    M = target[:3, :3].T @ T[:3, :3]
    s = np.array([M[2, 1] - M[1, 2], M[0, 2] - M[2, 0], M[1, 0] - M[0, 1]])
    return (float(np.linalg.norm(T[:3, 3] - target[:3, 3])),
            math.atan2(np.linalg.norm(s), np.trace(M) - 1.0))


@pytest.mark.parametrize('name', ROBOTS)
def test_position_targets_solved_and_checked_by_fk(name, rng):
    chain = load(name)
    for _ in range(25):
        T = chain.fk(chain.random_q(rng))
        # Attempts (max_attempts), not the machine's load, decide: the default 50 ms budget
        # ran 11 FABRIK pose attempts on Panda beside a busy process, too few.
        res = solve(chain, T[:3, 3], method='fabrik', timeout=10.0)
        pe, _ = fk_error(chain, T[:3, 3], res.q)
        assert res.success and pe <= 1e-3, (name, res)
        assert res.position_error == pytest.approx(pe, abs=1e-12)
        assert math.isnan(res.orientation_error) and res.method == 'fabrik'
        assert chain.within_limits(res.q)


def test_pure_fabrik_without_polish_still_solves_panda(rng):
    chain = load('panda')
    for _ in range(25):
        T = chain.fk(chain.random_q(rng))
        res = solve(chain, T[:3, 3], method='fabrik', polish_iterations=0, timeout=1.0)
        assert res.success and chain.within_limits(res.q)


def test_spherical_wrist_and_offsets_first_attempt(rng):
    """Panda (offset elbow, coincident joint pairs): most cold solves need one attempt."""
    chain = load('panda')
    first = 0
    for _ in range(40):
        T = chain.fk(chain.random_q(rng))
        res = solve(chain, T[:3, 3], method='fabrik', restarts=False)
        first += res.success
    assert first >= 38


@pytest.mark.parametrize('name', ['panda', 'ur5'])
@pytest.mark.parametrize('method', ['hybrid', 'fabrik'])
def test_pose_targets(name, method, rng):
    chain = load(name)
    for _ in range(15):
        T = chain.fk(chain.random_q(rng))
        res = solve(chain, T, method=method, timeout=10.0)      # (as above)
        pe, oe = fk_error(chain, T, res.q)
        assert res.success and pe <= 1e-3 and oe <= 1e-2
        assert res.orientation_error == pytest.approx(oe, abs=1e-9)
        assert chain.within_limits(res.q)


def test_warm_start_near_solution_stays_near(rng):
    chain = load('panda')
    q = chain.random_q(rng)
    T = chain.fk(q)
    res = solve(chain, T[:3, 3], q0=np.clip(q + 0.01, chain.lower, chain.upper),
                method='fabrik')
    assert res.success and res.iterations <= 10
    assert np.max(np.abs(res.q - q)) < 0.1


def test_out_of_reach_target_stretches_and_fails():
    chain = load('planar3')
    res = solve(chain, [10.0, 0.0, 0.0], method='fabrik')
    assert not res.success and res.attempts == 1
    T = chain.fk(res.q)
    reach = np.linalg.norm(T[:3, 3])
    assert T[0, 3] > 0.99 * reach and 'out of reach' in res.message


def test_two_link_arm_matches_the_closed_form(rng):
    """planar2 (links 1.0 and 0.8): FABRIK's q is one of the two analytic branches."""
    chain = load('planar2')
    for _ in range(20):
        q = chain.random_q(rng)
        t = chain.fk(q)[:3, 3]
        res = solve(chain, t, method='fabrik', position_tolerance=1e-8)
        assert res.success
        angles, ok = two_bone_angles(1.0, 0.8, t[:2])
        assert ok
        gap = min(np.max(np.abs((res.q - a + np.pi) % (2 * np.pi) - np.pi)) for a in angles)
        assert gap < 1e-5


def test_kernel_reports_best_q_and_respects_limits(rng):
    chain = load('panda')
    T = chain.fk(chain.random_q(rng))
    params = ArmParams(mode=MODE_FABRIK, tol_p=1e-6, tol_o=1e-2, max_iter=3, min_change=0.0,
                       s_virtual=0.1, tip_weight=3.0, next_only=True, window=0, progress=0.5,
                       polish_iter=0)
    q, it, pe, oe, ok, polish = arm_attempt(chain.model, chain.limits, make_target(T[:3, 3]),
                                            params, chain.mid.copy())
    assert it == 3 and chain.within_limits(q)
    assert pe == pytest.approx(np.linalg.norm(chain.fk(q)[:3, 3] - T[:3, 3]), abs=1e-12)


def test_seed_is_not_changed(rng):
    chain = load('ur5')
    q0 = chain.random_q(rng)
    keep = q0.copy()
    solve(chain, chain.fk(chain.random_q(rng))[:3, 3], q0=q0, method='fabrik')
    assert_allclose(q0, keep)
