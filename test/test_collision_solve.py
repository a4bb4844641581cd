# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""solve(..., avoid_collisions=True) and the CollisionClearance objective."""

from pathlib import Path

import ik_node
from ik_node import Chain, CollisionClearance, HalfSpace, IKInputError, Sphere
import numpy as np
import pytest

URDF = Path(__file__).parent / 'urdf' / 'collision_arm.urdf'
FLOOR = HalfSpace((0, 0, 1), 0.0, name='floor')


@pytest.fixture(scope='module')
def chain():
    return Chain.from_urdf(URDF, 'base_link', 'tip')


def _free_targets(chain, obstacles, k, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < k:
        q = chain.random_q(rng)
        if not chain.collisions(q, obstacles):
            out.append(chain.fk(q)[:3, 3])
    return out


@pytest.mark.parametrize('method', ['dls', 'fabrik'])
def test_successful_answers_are_collision_free(chain, method):
    ball = Sphere((0.25, 0.0, 0.35), 0.08, name='ball')
    obstacles = [FLOOR, ball]
    solved = 0
    for target in _free_targets(chain, obstacles, 40, 6):
        # Seeds in contact with the ball: the plain answer is often the colliding one.
        r = ik_node.solve(chain, target, np.array([0.0, 0.9, 0.9, 0.0]), method=method,
                          avoid_collisions=True, obstacles=obstacles)
        if r.success:
            solved += 1
            assert chain.collisions(r.q, obstacles) == []
            assert chain.within_limits(r.q)
            assert np.linalg.norm(chain.fk(r.q)[:3, 3] - target) <= 1e-3
    assert solved >= 36


def test_plain_solve_would_collide_where_avoiding_does_not(chain):
    # Straight down in front of the base: the direct answer drives the tool into the floor
    # unless the solver keeps clear.
    target = np.array([0.35, 0.0, 0.06])
    plain = ik_node.solve(chain, target, np.zeros(4), restarts=False)
    safe = ik_node.solve(chain, target, np.zeros(4), avoid_collisions=True, obstacles=[FLOOR])
    assert plain.success and chain.collisions(plain.q, [FLOOR])
    assert safe.success and chain.collisions(safe.q, [FLOOR]) == []


def test_a_first_answer_clear_of_contact_costs_one_check_and_a_colliding_one_a_retry(chain):
    # A Jacobian method's attempt leaves the clearance out first: where the seed's answer is
    # clear it is the answer (the plain one, bit for bit); where it collides the seed is
    # tried again, keeping clear.
    clear = retried = 0
    for target in _free_targets(chain, [FLOOR], 40, 11):
        plain = ik_node.solve(chain, target, chain.mid, restarts=False)
        safe = ik_node.solve(chain, target, chain.mid, avoid_collisions=True,
                             obstacles=[FLOOR], timeout=10.0)     # attempts decide
        if not plain.success:
            continue
        if not chain.collisions(plain.q, [FLOOR]):
            np.testing.assert_array_equal(safe.q, plain.q)
            assert safe.attempts == 1
            clear += 1
        else:
            assert safe.attempts >= 2
            assert not safe.success or chain.collisions(safe.q, [FLOOR]) == []
            retried += 1
    assert clear >= 20 and retried >= 1, (clear, retried)


def test_obstructed_target_names_the_blocking_pair(chain):
    target = chain.fk([0.3, 0.6, 0.9, 0.0])[:3, 3]
    ball = Sphere(target, 0.05, name='target ball')
    r = ik_node.solve(chain, target, avoid_collisions=True, obstacles=[FLOOR, ball],
                      timeout=0.02)
    assert not r.success
    assert 'target ball' in r.message and 'collides' in r.message


def test_options_are_checked(chain):
    with pytest.raises(IKInputError, match='avoid_collisions'):
        ik_node.solve(chain, [0.3, 0.0, 0.4], obstacles=[FLOOR])
    with pytest.raises(IKInputError):
        ik_node.solve(chain, [0.3, 0.0, 0.4], avoid_collisions=True, obstacles=['floor'])
    with pytest.raises(IKInputError, match='collision_margin'):
        ik_node.solve(chain, [0.3, 0.0, 0.4], avoid_collisions=True, collision_margin=-1.0)
    with pytest.raises(IKInputError, match='avoid_collisions'):
        ik_node.solve(chain, [0.3, 0.0, 0.4], avoid_collisions='yes')


def test_clearance_gradient_matches_finite_differences(chain):
    # Against the floor the separating direction is constant, so the gradient is exact;
    # configurations where self pairs add to the cost are skipped (their refined gap holds
    # the separating direction fixed: a descent direction, tested below).
    obj = CollisionClearance([FLOOR], margin=0.05)
    self_only = CollisionClearance([], margin=0.05)
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 8:
        q = chain.random_q(rng)
        if obj.cost(chain, q) <= 1e-6 or self_only.cost(chain, q) > 0.0:
            continue
        g = obj.gradient(chain, q)
        h = 1e-6
        fd = np.array([(obj.cost(chain, q + h * e) - obj.cost(chain, q - h * e)) / (2 * h)
                       for e in np.eye(4)])
        np.testing.assert_allclose(g, fd, rtol=1e-4, atol=1e-7)
        checked += 1


def test_clearance_gradient_is_a_descent_direction(chain):
    obj = CollisionClearance([FLOOR, Sphere((0.25, 0.0, 0.35), 0.08)], margin=0.05)
    rng = np.random.default_rng(8)
    checked = 0
    while checked < 20:
        q = chain.random_q(rng)
        cost = obj.cost(chain, q)
        if cost <= 1e-6:
            continue
        g = obj.gradient(chain, q)
        assert obj.cost(chain, q - 1e-4 * g / np.linalg.norm(g)) < cost
        checked += 1
