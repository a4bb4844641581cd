# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Null-space objectives: gradients, the null-space property, and their effect on solves."""

from conftest import load
from ik_node import (IKInputError, JointLimitAvoidance, Manipulability, ObstacleClearance,
                     RestPosture, solve)
import numpy as np
import pytest


def numeric_gradient(obj, chain, q, h=1e-6):
    g = np.zeros(chain.n)
    for i in range(chain.n):
        dq = np.zeros(chain.n)
        dq[i] = h
        g[i] = (obj.cost(chain, q + dq) - obj.cost(chain, q - dq)) / (2 * h)
    return g


def objectives_for(chain):
    return [
        JointLimitAvoidance(2.0),
        RestPosture(chain.mid + 0.1, 0.5),
        Manipulability(1.0),
        ObstacleClearance([[0.3, 0.0, 0.5, 0.2], [0.0, 0.3, 0.3, 0.1]], margin=0.3,
                          weight=3.0),
    ]


@pytest.mark.parametrize('name', ['panda', 'ur5', 'prismatic'])
def test_gradients_match_finite_differences(name, rng):
    chain = load(name)
    for obj in objectives_for(chain):
        for _ in range(5):
            q = chain.random_q(rng) * 0.8
            np.testing.assert_allclose(obj.gradient(chain, q), numeric_gradient(obj, chain, q),
                                       rtol=1e-4, atol=1e-6, err_msg=repr(obj))


def test_obstacle_cost_is_zero_when_clear_and_positive_when_close():
    chain = load('panda')
    q = chain.mid.copy()
    tip = chain.fk(q)[:3, 3]
    far = ObstacleClearance([[5.0, 5.0, 5.0, 0.1]], margin=0.1)
    near = ObstacleClearance([[*tip, 0.05]], margin=0.1)
    assert far.cost(chain, q) == 0.0
    np.testing.assert_array_equal(far.gradient(chain, q), 0.0)
    assert near.cost(chain, q) > 0.0


def test_null_space_motion_keeps_the_pose_while_the_objective_improves(rng):
    # Seeded exactly on a solution of a full pose, a 7-joint arm can still move in the null
    # space of its task: the posture objective moves it toward rest, the pose stays met.
    chain = load('panda')
    rest = RestPosture(chain.mid, 1.0)
    moved = 0
    for _ in range(10):
        q_true = chain.random_q(rng) * 0.8
        T = chain.fk(q_true)
        res = solve(chain, T, q0=q_true, restarts=False, objectives=[rest],
                    secondary_iterations=50)
        assert res.success, res.message
        assert res.position_error <= 1e-5 and res.orientation_error <= 1e-4
        assert rest.cost(chain, res.q) <= rest.cost(chain, q_true) + 1e-12
        moved += np.linalg.norm(res.q - q_true) > 1e-3
    assert moved >= 8


def test_objectives_improve_their_cost_without_losing_the_target(rng):
    chain = load('panda')
    jl = JointLimitAvoidance(1.0)
    better = 0
    for _ in range(30):
        T = chain.fk(chain.random_q(rng))
        q0 = chain.random_q(rng)
        target = T[:3, 3]  # position-only leaves 4 redundant joints for the objective
        plain = solve(chain, target, q0=q0, restarts=False)
        shaped = solve(chain, target, q0=q0, restarts=False, objectives=[jl],
                       secondary_iterations=30)
        assert shaped.success == plain.success or shaped.success
        if plain.success and shaped.success:
            better += jl.cost(chain, shaped.q) < jl.cost(chain, plain.q)
    assert better >= 20


def test_rest_posture_pulls_toward_rest_and_keeps_the_pose(rng):
    chain = load('panda')
    rest = chain.mid.copy()
    for _ in range(10):
        q_true = chain.random_q(rng)
        target = chain.fk(q_true)[:3, 3]
        res = solve(chain, target, q0=q_true, objectives=[RestPosture(rest, 1.0)],
                    secondary_iterations=50)
        assert res.success
        assert np.linalg.norm(res.q - rest) < np.linalg.norm(q_true - rest)


def test_obstacle_clearance_moves_links_away(rng):
    chain = load('panda')
    q = np.array([0.0, 0.3, 0.0, -1.8, 0.0, 2.0, 0.8])
    target = chain.fk(q)[:3, 3]
    # A sphere right next to the elbow.
    elbow = chain.frames(q)[3, :3, 3]
    sphere = ObstacleClearance([[*(elbow + [0.0, 0.08, 0.0]), 0.03]], margin=0.1, weight=1.0)
    res = solve(chain, target, q0=q, objectives=[sphere], secondary_iterations=50)
    assert res.success
    assert sphere.cost(chain, res.q) < 0.5 * sphere.cost(chain, q)


def test_objectives_do_not_lower_the_solve_rate(rng):
    chain = load('ur5')
    objs = [JointLimitAvoidance(1.0), Manipulability(0.5)]
    plain = shaped = 0
    for _ in range(60):
        T = chain.fk(chain.random_q(rng))
        # The same attempt budget for both (not the default 50 ms, which a loaded machine
        # spends in fewer attempts on the slower shaped solve).
        plain += solve(chain, T, timeout=10.0).success
        shaped += solve(chain, T, objectives=objs, timeout=10.0).success
    assert shaped >= plain >= 59


@pytest.mark.parametrize('obj, words', [
    (lambda c: JointLimitAvoidance(-1.0), 'weight'),
    (lambda c: RestPosture([0.0, 0.0], 1.0), 'q_rest'),
    (lambda c: ObstacleClearance([[0, 0, 0, -1]]), 'radius'),
    (lambda c: ObstacleClearance([[0, 0, 0, 1]], margin=0.0), 'margin'),
    (lambda c: 'not an objective', 'Objective'),
])
def test_bad_objectives_raise_clear_errors(obj, words):
    chain = load('panda')
    with pytest.raises(IKInputError, match=words):
        solve(chain, [0.4, 0.0, 0.4], objectives=[obj(chain)])
