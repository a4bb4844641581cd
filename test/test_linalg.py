# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The small dense kernels of the solver loop against numpy's own routines."""

from ik_node.linalg import cholesky_solve, damped_least_squares, sqrt_det_gram
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
