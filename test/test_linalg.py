# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The small dense kernels of the solver loop against numpy's own routines."""

from ik_node.spatial.linalg import (cholesky_solve, column_gram_into, damped_least_squares,
                                    damped_least_squares_wide, ldl_in_place,
                                    ldl_substitute_in_place, shifted_into, sqrt_det_gram,
                                    tall_system_into, weighted_gram_into)
import numpy as np
from numpy.testing import assert_allclose
import pytest


@pytest.mark.parametrize('rows, n', [(6, 7), (6, 6), (3, 7), (6, 4), (3, 2)])
def test_sqrt_det_gram_is_the_manipulability(rng, rows, n):
    for _ in range(20):
        J = rng.normal(size=(6, n))
        Jr = J[:rows]
        G = Jr @ Jr.T if n >= rows else Jr.T @ Jr
        assert sqrt_det_gram(J, rows) == pytest.approx(np.sqrt(np.linalg.det(G)), rel=1e-9)


def test_sqrt_det_gram_of_a_rank_deficient_jacobian_is_zero(rng):
    J = rng.normal(size=(6, 7))
    J[5] = J[4]                         # two equal task rows: J Jᵀ is singular
    assert sqrt_det_gram(J, 6) == pytest.approx(0.0, abs=1e-6)
    assert sqrt_det_gram(np.zeros((6, 7)), 6) == 0.0


def test_damped_least_squares_matches_the_normal_equations(rng):
    for r, n in [(6, 7), (6, 4), (3, 7)]:
        J, e = rng.normal(size=(r, n)), rng.normal(size=r)
        w_inv = rng.uniform(0.5, 2.0, n)
        dq, ok = damped_least_squares(J, e, w_inv, 0.01)
        W = np.diag(1.0 / w_inv)
        assert ok
        assert_allclose(dq, np.linalg.solve(J.T @ J + 0.01 * W, J.T @ e), atol=1e-10)
    A = rng.normal(size=(5, 5))
    x, ok = cholesky_solve(A @ A.T + np.eye(5), np.ones(5))
    assert ok and np.allclose((A @ A.T + np.eye(5)) @ x, 1.0)
    assert not cholesky_solve(-np.eye(3), np.ones(3))[1]


def test_ldl_solves_and_gives_the_determinant(rng):
    for k in (1, 3, 6):
        B = rng.normal(size=(k, k))
        A = B @ B.T + 0.1 * np.eye(k)
        F = np.tril(A) + np.triu(rng.normal(size=(k, k)), 1)   # only the lower part is read
        ok, det = ldl_in_place(F)
        assert ok and det == pytest.approx(np.linalg.det(A), rel=1e-9)
        x = np.append(rng.normal(size=k), 99.0)                 # a longer b: k entries used
        b = x.copy()
        ldl_substitute_in_place(F, x)
        assert_allclose(A @ x[:k], b[:k], atol=1e-9)
        assert x[k] == 99.0
    assert ldl_in_place(-np.eye(3)) == (False, 0.0)
    assert not ldl_in_place(np.zeros((2, 2)))[0]


def test_gram_kernels_match_numpy(rng):
    J = rng.normal(size=(6, 7))
    w = rng.uniform(0.5, 2.0, 7)
    for rows in (3, 6):
        G = np.zeros((rows, rows))
        weighted_gram_into(J, np.ones(7), G)
        assert_allclose(np.tril(G), np.tril(J[:rows] @ J[:rows].T), atol=1e-12)
        weighted_gram_into(J, w, G)
        assert_allclose(np.tril(G), np.tril(J[:rows] @ np.diag(w) @ J[:rows].T), atol=1e-12)
        shifted_into(G, 0.5, G)
        assert_allclose(np.diag(G), np.diag(J[:rows] @ np.diag(w) @ J[:rows].T) + 0.5)
    Jt = rng.normal(size=(6, 3))
    Gt = np.zeros((3, 3))
    column_gram_into(Jt, 6, Gt)
    assert_allclose(np.tril(Gt), np.tril(Jt.T @ Jt), atol=1e-12)


@pytest.mark.parametrize('frozen', [(), (1,)])
def test_tall_normal_equations_match_numpy_with_frozen_joints_removed(rng, frozen):
    J, e = rng.normal(size=(6, 4)), rng.normal(size=6)
    w_inv = rng.uniform(0.5, 2.0, 4)
    w_inv[list(frozen)] = 0.0
    G = np.zeros((4, 4))
    column_gram_into(J, 6, G)
    A, g = np.zeros((4, 4)), np.zeros(4)
    tall_system_into(G, J, e, 6, w_inv, 0.01, A, g)
    assert ldl_in_place(A)[0]
    ldl_substitute_in_place(A, g)
    free = [i for i in range(4) if i not in frozen]
    Jf = J[:, free]
    expected = np.linalg.solve(Jf.T @ Jf + 0.01 * np.diag(1.0 / w_inv[free]), Jf.T @ e)
    assert_allclose(g[free], expected, atol=1e-10)
    assert all(g[i] == 0.0 for i in frozen)
    assert_allclose(damped_least_squares(J, e, w_inv, 0.01)[0], g, atol=1e-12)


def test_wide_step_into_scratch_uses_the_rows_of_its_scratch(rng):
    J, e = rng.normal(size=(6, 7)), rng.normal(size=6)
    w_inv = rng.uniform(0.5, 2.0, 7)
    dq = np.zeros(7)
    assert damped_least_squares_wide(J, e, w_inv, 0.01, np.zeros((3, 3)), np.zeros(3), dq)
    expected, _ = damped_least_squares(J[:3].copy(), e[:3].copy(), w_inv, 0.01)
    assert_allclose(dq, expected, atol=1e-10)


@pytest.mark.parametrize('n, frozen', [(3, ()), (4, ()), (5, ()), (5, (1,)), (4, (0, 3))])
def test_position_first_step_matches_numpy(rng, n, frozen):
    # The n < 6 step of run_attempt: DLS of the position rows, then the orientation rows
    # in their null space (in the joint weights' metric), against numpy.
    from ik_node.solvers.dls import (_primary_step, _priority_step_into, METHOD_DLS,
                                     PriorityScratch)
    Jw, e = rng.normal(size=(6, n)), rng.normal(size=6)
    w_inv = rng.uniform(0.5, 2.0, n)
    w_inv[list(frozen)] = 0.0
    lam2 = 0.01
    dq = np.full(n, np.nan)
    scratch = PriorityScratch(np.zeros((3, 3)), np.zeros(3), np.zeros((n, n)),
                              np.zeros((3, n)), np.zeros(n))
    status = _priority_step_into(Jw, e, w_inv, lam2, scratch, dq)
    assert status == 1
    W = np.diag(w_inv)
    Jp, Jo = Jw[:3], Jw[3:]
    dq1 = W @ Jp.T @ np.linalg.solve(Jp @ W @ Jp.T + lam2 * np.eye(3), e[:3])
    Np = np.eye(n) - W @ Jp.T @ np.linalg.solve(Jp @ W @ Jp.T, Jp)
    H = Jo @ Np
    dq2 = W @ H.T @ np.linalg.solve(H @ W @ H.T + lam2 * np.eye(3), e[3:] - Jo @ dq1)
    assert_allclose(dq, dq1 + Np @ dq2, atol=1e-9)
    # A frozen joint does not move; the null-space part leaves the position step as it is.
    assert all(dq[i] == 0.0 for i in frozen)
    assert_allclose(Jp @ dq, Jp @ dq1, atol=1e-9)
    # With unit weights it is the allocating form's step.
    ones = np.ones(n)
    status = _priority_step_into(Jw, e, ones, lam2, scratch, dq)
    assert status == 1
    assert_allclose(dq, _primary_step(METHOD_DLS, Jw, 6, e, ones, lam2)[0], atol=1e-12)
