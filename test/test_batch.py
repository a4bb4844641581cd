# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""solve_batch: row i is what solve gives target i; bad rows fail alone, with a reason."""

from conftest import load, URDF_DIR
from ik_node import Chain, HalfSpace, IKInputError, register_method, solve, solve_batch, Sphere
from ik_node.solvers.stretched_reach import REACH_MARGIN, stretched_reach
from ik_node.solvers.table import METHODS
import numpy as np
import pytest

# Generous: no solve here may be cut short by its timeout (the batch has none).
SLOW_OK = {'timeout': 5.0}


def _targets(chain, rng, k):
    """
    Return (k, 4, 4) poses: reachable ones (FK of samples), and some beyond reach.

    The third from last lies between the arm's stretched reach and its (looser) reach bound
    where the two differ: out of reach, but only the stretched-reach test can tell early.
    """
    T = np.array([chain.fk(chain.random_q(rng)) for _ in range(k)])
    T[-2:, :3, 3] += rng.normal(size=(2, 3)) * chain.reach     # mostly out of reach
    between = (1.0 + REACH_MARGIN) * stretched_reach(chain) + 0.01
    if between < chain.reach:
        u = rng.normal(size=3)
        T[-3, :3, 3] = chain.reach_origin + u / np.linalg.norm(u) * between
    return T


@pytest.mark.parametrize('name', ['panda', 'arm4', 'continuous', 'ur5'])
def test_each_row_equals_solve(name, rng):
    chain = load(name)
    T = _targets(chain, rng, 8)
    q0 = chain.random_q(rng)
    for targets in (T, T[:, :3, 3]):
        batch = solve_batch(chain, targets, q0=q0, max_attempts=30)
        for i, t in enumerate(targets):
            r = solve(chain, t, q0=q0, max_attempts=30, **SLOW_OK)
            b = batch.result(i)
            np.testing.assert_array_equal(b.q, r.q)
            assert (b.success, b.status, b.attempts, b.iterations, b.message) == \
                (r.success, r.status, r.attempts, r.iterations, r.message)
            assert b.position_error == r.position_error
            np.testing.assert_equal(b.orientation_error, r.orientation_error)
            assert chain.within_limits(b.q)


@pytest.mark.parametrize('method', ['fabrik', 'ccd', 'hybrid', 'pinv'])
def test_each_row_of_every_method_equals_solve(method, rng):
    """Every built-in method runs in the batch kernel: the rows are solve's answers."""
    chain = load('ur5')
    q0 = chain.random_q(rng)
    # Targets a small step from the seed's tip too (fabrik and ccd may answer by the rescue).
    near = [chain.fk(np.clip(q0 + d, chain.lower, chain.upper)) for d in (0.002, -0.004)]
    T = np.concatenate([_targets(chain, rng, 6), near])
    for targets in (T, T[:, :3, 3]):
        batch = solve_batch(chain, targets, q0=q0, method=method, max_attempts=10)
        for i, t in enumerate(targets):
            r = solve(chain, t, q0=q0, method=method, max_attempts=10, **SLOW_OK)
            b = batch.result(i)
            np.testing.assert_array_equal(b.q, r.q)
            assert (b.success, b.status, b.attempts, b.iterations, b.message, b.method) == \
                (r.success, r.status, r.attempts, r.iterations, r.message, r.method)


def test_per_target_seeds_and_options_carry_over(rng):
    chain = load('panda')
    T = _targets(chain, rng, 4)[:2]
    seeds = np.array([chain.random_q(rng) for _ in range(2)])
    opts = {'position_tolerance': 1e-3, 'orientation_tolerance': 1e-2, 'solutions': 3,
            'joint_weights': [1, 2, 1, 2, 1, 2, 1]}
    batch = solve_batch(chain, T, q0=seeds, **opts)
    for i in range(2):
        r = solve(chain, T[i], q0=seeds[i], **opts, **SLOW_OK)
        np.testing.assert_array_equal(batch.q[i], r.q)


def test_bad_rows_fail_alone_with_a_reason(rng):
    chain = load('panda')
    T = _targets(chain, rng, 6)
    T[1, 0, 0] = np.nan
    T[2, :3, :3] *= 2.0                   # not a rotation
    T[3, 3, 0] = 1.0                      # bad last row
    batch = solve_batch(chain, T)
    assert list(batch.status[1:4]) == ['invalid_target'] * 3
    assert 'NaN' in batch.message[1] and 'orthonormal' in batch.message[2]
    assert 'last row' in batch.message[3]
    assert not batch.success[1:4].any()
    good = solve_batch(chain, T[[0, 4]])
    np.testing.assert_array_equal(batch.q[[0, 4]], good.q)
    # A list with a row of the wrong shape or type: that row fails, the others are solved.
    rows = [T[0], T[4][:3], 'pose', T[0]]
    mixed = solve_batch(chain, rows)
    assert list(mixed.status) == ['reached', 'invalid_target', 'invalid_target', 'reached']
    assert 'shape (3, 4)' in mixed.message[1] and 'non-numeric' in mixed.message[2]


def test_misuse_is_refused():
    chain = load('panda')
    with pytest.raises(IKInputError, match='unknown method'):
        solve_batch(chain, np.zeros((1, 3)), method='fabrk')
    register_method('python_for_test', lambda chain, target, opts: lambda q, budget: (q, 1))
    try:
        with pytest.raises(IKInputError, match='registered method'):
            solve_batch(chain, np.zeros((1, 3)), method='python_for_test')
    finally:
        del METHODS['python_for_test']
    with pytest.raises(IKInputError, match='unknown option'):
        solve_batch(chain, np.zeros((1, 3)), tolerance=1.0)
    with pytest.raises(IKInputError, match='q0 must have shape'):
        solve_batch(chain, np.zeros((2, 3)), q0=np.zeros((3, 7)))
    assert len(solve_batch(chain, np.zeros((0, 4, 4)))) == 0


def test_max_joint_change_rows_equal_solve(rng):
    chain = load('ur5')
    T = _targets(chain, rng, 8)
    q0 = chain.random_q(rng)
    # Near targets (answered by the seed's attempt) and far ones (restarts, or too far).
    T[:3] = [chain.fk(np.clip(q0 + rng.uniform(-0.03, 0.03, chain.n), chain.lower,
                              chain.upper)) for _ in range(3)]
    opts = {'max_attempts': 30, 'max_joint_change': 0.1, 'timeout': 5.0}
    batch = solve_batch(chain, T, q0=q0, **opts)
    assert batch.success[:3].all() and not batch.success[3:].all()
    for i, t in enumerate(T):
        r = solve(chain, t, q0=q0, **opts)
        b = batch.result(i)
        np.testing.assert_array_equal(b.q, r.q)
        assert (b.success, b.status, b.message) == (r.success, r.status, r.message)
        assert np.max(np.abs(b.q - q0)) <= 0.1 + 1e-12


def test_avoid_collisions_rows_equal_solve(rng):
    chain = Chain.from_urdf(URDF_DIR / 'collision_arm.urdf', 'base_link', 'tip')
    T = _targets(chain, rng, 8)[:, :3, 3]
    q0 = chain.mid
    plain = solve_batch(chain, T, q0=q0, max_attempts=30)
    # A ball at the plain answer's elbow for the first target: that answer collides.
    elbow = chain.frames(plain.q[0])[2, :3, 3]
    obstacles = [HalfSpace((0, 0, 1), 0.0), Sphere(elbow, 0.04)]
    assert plain.success[0] and chain.collisions(plain.q[0], obstacles)
    opts = {'avoid_collisions': True, 'obstacles': obstacles, 'max_attempts': 30,
            'timeout': 5.0}
    batch = solve_batch(chain, T, q0=q0, **opts)
    assert batch.success[0] and not batch.success[-2:].any()
    for i, t in enumerate(T):
        r = solve(chain, t, q0=q0, **opts)
        b = batch.result(i)
        np.testing.assert_array_equal(b.q, r.q)
        assert (b.success, b.status, b.message) == (r.success, r.status, r.message)
        assert not b.success or chain.collisions(b.q, obstacles) == []


def test_threads_share_a_large_batch_and_agree_with_one_thread(rng):
    # More rows than one chunk per thread: the threads take shares of the rows left.
    chain = load('panda')
    T = np.array([chain.fk(chain.random_q(rng)) for _ in range(300)])
    one = solve_batch(chain, T, threads=1, max_attempts=20)
    two = solve_batch(chain, T, threads=2, max_attempts=20)
    assert np.array_equal(one.q, two.q)
    assert np.array_equal(one.iterations, two.iterations)
    assert one.status.tolist() == two.status.tolist()
    assert np.all(two.success)
