# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Single FABRIK passes: one forward and one backward pass make one iteration of ``fabrik``."""

from ik_node import BallJoint, constraint_violation, HingeJoint, IKInputError
from ik_node.pointchain.point_fabrik import fabrik, fabrik_pass
import numpy as np
from numpy.testing import assert_allclose
import pytest


def zigzag(n: int, length: float = 0.3) -> np.ndarray:
    ang = np.where(np.arange(n) % 2 == 0, 0.3, -0.3)
    d = np.stack([np.sin(ang), np.zeros(n), np.cos(ang)], axis=1) * length
    return np.vstack([np.zeros(3), np.cumsum(d, axis=0)])


def lengths(points: np.ndarray) -> np.ndarray:
    return np.linalg.norm(np.diff(points, axis=0), axis=1)


def mixed(n: int) -> list:
    return [HingeJoint(axis=(1.0, 0.0, 0.0), lower=-1.0, upper=1.0) if j % 2 else
            BallJoint(0.6) for j in range(n)]


@pytest.mark.parametrize('n', [2, 4, 7])
def test_free_passes_keep_lengths_and_make_one_iteration(n, rng):
    pts = zigzag(n)
    for _ in range(10):
        t = rng.normal(size=3) * 0.4 + pts[-1] * 0.5
        f = fabrik_pass(pts, t, 'forward')
        assert_allclose(f.points[-1], t)
        assert_allclose(lengths(f.points), lengths(pts), atol=1e-12)
        b = fabrik_pass(f.points, pts[0], 'backward')
        assert_allclose(b.points[0], pts[0])
        assert_allclose(lengths(b.points), lengths(pts), atol=1e-12)
        sol = fabrik(pts, t, max_iterations=1)
        if sol.iterations == 1 and sol.distance < np.linalg.norm(pts[-1] - t):
            assert_allclose(sol.points, b.points, atol=1e-12)


def test_constrained_passes_match_fabrik_and_obey_joints(rng):
    n = 5
    pts, c = zigzag(n), mixed(n)
    checked = 0
    for _ in range(10):
        t = rng.normal(size=3) * 0.3 + np.array([0.2, 0.1, 1.0])
        start = fabrik_pass(pts, pts[0], 'backward', constraints=c)
        assert constraint_violation(start.frames, c).max() < 1e-9
        f = fabrik_pass(start.points, t, 'forward', constraints=c, frames=start.frames)
        assert_allclose(f.points[-1], t)
        b = fabrik_pass(f.points, pts[0], 'backward', constraints=c, frames=f.frames)
        assert constraint_violation(b.frames, c).max() < 1e-9
        assert_allclose(lengths(b.points), lengths(pts), atol=1e-12)
        sol = fabrik(pts, t, constraints=c, max_iterations=1, restarts=0)
        if sol.iterations == 1 and sol.distance < np.linalg.norm(start.points[-1] - t):
            assert_allclose(sol.points, b.points, atol=1e-12)
            assert_allclose(sol.frames, b.frames, atol=1e-12)
            checked += 1
    assert checked >= 5


def test_pass_does_not_change_inputs_and_refuses_bad_direction():
    pts = zigzag(3)
    keep = pts.copy()
    fabrik_pass(pts, [0.1, 0.2, 0.3], 'forward', constraints=mixed(3))
    assert_allclose(pts, keep)
    with pytest.raises(IKInputError, match='direction'):
        fabrik_pass(pts, [0.1, 0.2, 0.3], 'sideways')
    with pytest.raises(IKInputError, match='3-D'):
        fabrik_pass(pts[:, :2], [0.1, 0.2], 'forward')
