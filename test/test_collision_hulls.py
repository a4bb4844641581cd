# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""GJK on the hulls that hold link geometry: a lower bound, and tight, against a QP."""

import math

from ik_node import Box, Cylinder, Sphere
from ik_node._jit import readonly
from ik_node.collision import hulls, kernels
from ik_node.collision.model import Capsules
from ik_node.spatial.rpy import matrix_from_rpy
import numpy as np
import pytest
from scipy.optimize import linprog, minimize


def _capsules(local_a: np.ndarray, world_b: np.ndarray) -> Capsules:
    """
    Capsule 0: points carried by moving joint 0; capsule 1: base points (anchor -1).

    Read-only arrays, as a chain's model holds them: the kernels then run the code
    ik-compile compiled for the chains, instead of compiling their own (minutes under load).
    """
    points = np.vstack([local_a, world_b])
    start = np.array([0, len(local_a), len(points)])
    seg = np.zeros((2, 2, 3))
    return Capsules(*(readonly(a) for a in (seg, np.zeros(2), np.array([0, -1]),
                                            np.array([[0, 1]]), np.array([0]), points, start)))


def _frames(rng):
    R = np.empty((2, 3, 3))
    p = np.zeros((2, 3))
    R[0] = matrix_from_rpy(*rng.uniform(-math.pi, math.pi, 3))
    R[1] = np.eye(3)
    p[0] = rng.uniform(-0.2, 0.2, 3)
    return np.zeros((2, 2, 3)), R, p


def _qp_distance(A: np.ndarray, f) -> float:
    """Return min f(x) over the hull of A (f convex), by SLSQP on the barycentric weights."""
    k = len(A)
    best = math.inf
    for start in (np.full(k, 1.0 / k), np.eye(k)[0]):
        res = minimize(lambda w: f(w @ A), start, method='SLSQP', bounds=[(0.0, 1.0)] * k,
                       constraints=[{'type': 'eq', 'fun': lambda w: np.sum(w) - 1.0}],
                       options={'ftol': 1e-14, 'maxiter': 500})
        best = min(best, float(f(res.x @ A)))
    return best


def _hulls_meet(P: np.ndarray, Q: np.ndarray) -> bool:
    """Return True when the hulls of P and Q share a point (an LP feasibility problem)."""
    n1, n2 = len(P), len(Q)
    A = np.zeros((5, n1 + n2))
    A[:3, :n1], A[:3, n1:], A[3, :n1], A[4, n1:] = P.T, -Q.T, 1.0, 1.0
    res = linprog(np.zeros(n1 + n2), A_eq=A, b_eq=[0, 0, 0, 1, 1], bounds=(0, None),
                  method='highs')
    return res.status == 0


def test_pair_distance_is_a_tight_lower_bound():
    rng = np.random.default_rng(5)
    apart = 0
    for trial in range(40):
        local_a = rng.normal(0.0, 0.05, (9, 3))
        world_b = rng.normal(0.0, 0.05, (8, 3)) + rng.uniform(-0.25, 0.25, 3)
        W, R, p = _frames(rng)
        caps = _capsules(local_a, world_b)
        posed_a = local_a @ R[0].T + p[0]
        u = np.mean(posed_a, axis=0) - np.mean(world_b, axis=0)
        u /= np.linalg.norm(u)
        d = hulls.hull_distance(caps, (W, R, p), 0, 1, caps.radius, (u[0], u[1], u[2]),
                                (-1.0, math.inf))
        if _hulls_meet(posed_a, world_b):
            assert d <= 0.0, trial      # no gap is claimed for hulls that meet
            continue
        apart += 1
        truth = _pair_qp(posed_a, world_b)
        assert d <= truth + 1e-9, trial
        assert d >= truth - 1e-6, trial
    assert apart >= 15


def _pair_qp(P: np.ndarray, Q: np.ndarray) -> float:
    """Return the distance of the hulls of P and Q by SLSQP on both weight vectors."""
    n1 = len(P)
    k = n1 + len(Q)

    def gap(w):
        v = w[:n1] @ P - w[n1:] @ Q
        return float(v @ v)

    best = math.inf
    for _ in range(2):
        start = np.concatenate([np.full(n1, 1.0 / n1), np.full(len(Q), 1.0 / len(Q))])
        res = minimize(gap, start, method='SLSQP', bounds=[(0.0, 1.0)] * k,
                       constraints=[{'type': 'eq', 'fun': lambda w: np.sum(w[:n1]) - 1.0},
                                    {'type': 'eq', 'fun': lambda w: np.sum(w[n1:]) - 1.0}],
                       options={'ftol': 1e-16, 'maxiter': 1000})
        best = min(best, math.sqrt(max(gap(res.x), 0.0)))
    return best


@pytest.mark.parametrize('make', [
    lambda rng, T: Sphere(tuple(T[:3, 3]), 0.08),
    lambda rng, T: Box(T, (0.16, 0.1, 0.04)),
    lambda rng, T: Cylinder(T, 0.05, 0.2),
])
def test_obstacle_distance_is_a_tight_lower_bound(make):
    rng = np.random.default_rng(11)
    for trial in range(25):
        T = np.eye(4)
        T[:3, :3] = matrix_from_rpy(*rng.uniform(-math.pi, math.pi, 3))
        T[:3, 3] = rng.uniform(-0.2, 0.2, 3)
        shape = make(rng, T)
        local_a = rng.normal(0.0, 0.04, (10, 3))
        W, R, p = _frames(rng)
        caps = _capsules(local_a, np.zeros((0, 3)))
        posed_a = local_a @ R[0].T + p[0]
        c = np.mean(posed_a, axis=0)
        n = np.array(kernels.shape_normal(shape.row, *c))
        d = hulls.hull_distance(caps, (W, R, p), 0, -1, shape.row, (n[0], n[1], n[2]),
                                (-1.0, math.inf))
        truth = _qp_distance(posed_a, lambda x: kernels.shape_sdf(shape.row, *x))
        if truth <= 0.0:
            assert d <= 1e-9, trial
            continue
        assert d <= truth + 1e-9, trial
        assert d >= truth - 1e-5, trial


def test_nearest_on_simplex_matches_a_qp():
    rng = np.random.default_rng(3)
    for m in (1, 2, 3, 4):
        for trial in range(30):
            Y = rng.normal(0.0, 1.0, (4, 3)) + rng.uniform(-1.5, 1.5, 3)
            pts = Y[:m].copy()
            v0, v1, v2, k = hulls.nearest_on_simplex(Y, m)
            truth = _qp_distance(pts, lambda x: float(np.linalg.norm(x)))
            assert math.hypot(v0, v1, v2) == pytest.approx(truth, abs=1e-7), (m, trial)
            # The face kept holds the point: it is in the hull of the points kept.
            kept = Y[:k]
            assert _qp_distance(kept, lambda x: float(np.linalg.norm(x - (v0, v1, v2)))) \
                < 1e-6
