# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Analytic two-bone IK: both branches, the annulus, nearest answers outside it."""

import math

from ik_node import IKInputError
from ik_node.pointchain.two_bone import two_bone, two_bone_angles
import numpy as np
from numpy.testing import assert_allclose
import pytest


def planar_fk(d1, d2, q1, q2):
    return np.array([d1 * math.cos(q1) + d2 * math.cos(q1 + q2),
                     d1 * math.sin(q1) + d2 * math.sin(q1 + q2)])


@pytest.mark.parametrize('d1,d2', [(1.0, 0.8), (0.4, 0.9), (0.5, 0.5)])
def test_angles_reach_every_point_of_the_annulus_with_both_branches(d1, d2, rng):
    for _ in range(50):
        r = rng.uniform(abs(d1 - d2), d1 + d2)
        a = rng.uniform(-math.pi, math.pi)
        t = r * np.array([math.cos(a), math.sin(a)])
        angles, ok = two_bone_angles(d1, d2, t)
        assert ok
        for q1, q2 in angles:
            assert_allclose(planar_fk(d1, d2, q1, q2), t, atol=1e-9)
        assert angles[0, 1] == pytest.approx(-angles[1, 1])


def test_angles_match_a_hand_case():
    # d1 = d2 = 1, target (1, 1): right angle at the elbow
    angles, ok = two_bone_angles(1.0, 1.0, [1.0, 1.0])
    assert ok
    assert_allclose(angles, [[math.pi / 2, -math.pi / 2], [0.0, math.pi / 2]], atol=1e-12)


def test_points_branches_and_lengths(rng):
    d1, d2 = 0.7, 0.5
    for dim in (2, 3):
        for _ in range(30):
            o = rng.normal(size=dim)
            v = rng.normal(size=dim)
            t = o + v / np.linalg.norm(v) * rng.uniform(0.25, 1.15)
            pole = None if dim == 2 else o + rng.normal(size=3)
            s = two_bone(o, t, d1, d2, pole=pole)
            assert s.reachable and s.distance < 1e-12
            assert_allclose(s.end, t, atol=1e-12)
            for e in s.elbows:
                assert np.linalg.norm(e - o) == pytest.approx(d1)
                assert np.linalg.norm(t - e) == pytest.approx(d2)
            if dim == 3:
                # the +n elbow is on the pole's side of the line o-t
                u = (t - o) / np.linalg.norm(t - o)
                side = lambda x: (x - o) - ((x - o) @ u) * u   # noqa: E731
                assert side(s.elbows[0]) @ side(pole) > 0 > side(s.elbows[1]) @ side(pole)


def test_two_dimensional_elbow_agrees_with_the_angles(rng):
    d1, d2 = 0.9, 0.6
    for _ in range(20):
        t = rng.uniform(-1.0, 1.0, 2)
        if not abs(d1 - d2) < np.linalg.norm(t) < d1 + d2:
            continue
        s = two_bone([0.0, 0.0], t, d1, d2)
        angles, _ = two_bone_angles(d1, d2, t)
        for e, (q1, _) in zip(s.elbows, angles):
            assert_allclose(e, d1 * np.array([math.cos(q1), math.sin(q1)]), atol=1e-9)


def test_outside_the_annulus_gives_nearest_answer_flagged():
    d1, d2 = 1.0, 0.4
    far = two_bone([0.0, 0.0, 0.0], [3.0, 0.0, 0.0], d1, d2)
    assert not far.reachable
    assert_allclose(far.end, [1.4, 0.0, 0.0])
    assert_allclose(far.elbows, [[1.0, 0, 0], [1.0, 0, 0]], atol=1e-12)
    assert far.distance == pytest.approx(1.6)
    near = two_bone([0.0, 0.0, 0.0], [0.1, 0.0, 0.0], d1, d2)
    assert not near.reachable
    assert_allclose(near.end, [0.6, 0.0, 0.0])
    assert near.distance == pytest.approx(0.5)
    angles, ok = two_bone_angles(d1, d2, [3.0, 0.0])
    assert not ok
    assert_allclose(angles[:, 1], 0.0, atol=1e-12)
    angles, ok = two_bone_angles(d1, d2, [0.0, 0.1])
    assert not ok
    assert_allclose(planar_fk(d1, d2, *angles[0]), [0.0, 0.6], atol=1e-12)


def test_equal_links_folded_on_the_root():
    s = two_bone([0.0, 0.0], [0.0, 0.0], 0.5, 0.5)
    assert s.reachable and s.distance == 0.0
    for e in s.elbows:
        assert np.linalg.norm(e) == pytest.approx(0.5)


@pytest.mark.parametrize('args', [
    ([0, 0], [1, 0], 0.0, 1.0), ([0, 0], [1, 0], 1.0, -1.0), ([0, 0], [1, 0, 0], 1.0, 1.0),
    ([0, 0], [np.inf, 0], 1.0, 1.0),
])
def test_bad_input_raises(args):
    with pytest.raises(IKInputError):
        two_bone(*args)
