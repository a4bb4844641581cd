# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Point-chain FABRIK: lengths kept, targets reached, out-of-reach stretch, stopping rules."""

from ik_node import IKInputError
from ik_node.pointchain.ccd import ccd
from ik_node.pointchain.point_fabrik import fabrik
from ik_node.pointchain.two_bone import two_bone
import numpy as np
from numpy.testing import assert_allclose
import pytest


def zigzag(n: int, length: float = 0.3) -> np.ndarray:
    """Return an (n + 1, 3) bent start pose with links of ``length``."""
    ang = np.where(np.arange(n) % 2 == 0, 0.3, -0.3)
    d = np.stack([np.sin(ang), np.zeros(n), np.cos(ang)], axis=1) * length
    return np.vstack([np.zeros(3), np.cumsum(d, axis=0)])


def lengths(points: np.ndarray) -> np.ndarray:
    return np.linalg.norm(np.diff(points, axis=0), axis=1)


def random_reachable(rng, reach):
    v = rng.normal(size=3)
    return v / np.linalg.norm(v) * rng.uniform(0.05, 0.95) * reach


@pytest.mark.parametrize('n', [2, 5, 12])
def test_reachable_targets_reached_and_lengths_kept(n, rng):
    pts = zigzag(n)
    reach = lengths(pts).sum()
    for _ in range(30):
        t = random_reachable(rng, reach)
        sol = fabrik(pts, t, tolerance=1e-4, max_iterations=500)
        assert sol.success and sol.status == 'reached'
        assert np.linalg.norm(sol.points[-1] - t) <= 1e-4
        assert sol.distance == pytest.approx(np.linalg.norm(sol.points[-1] - t))
        assert_allclose(lengths(sol.points), lengths(pts), rtol=0, atol=1e-12)
        assert_allclose(sol.points[0], pts[0])


def test_unreachable_target_gives_straight_chain_and_no_success():
    pts = zigzag(6)
    t = np.array([3.0, 1.0, -2.0])
    sol = fabrik(pts, t)
    assert not sol.success and sol.status == 'unreachable' and sol.iterations == 0
    u = t / np.linalg.norm(t)
    d = np.diff(sol.points, axis=0)
    assert_allclose(d / np.linalg.norm(d, axis=1)[:, None], np.tile(u, (6, 1)), atol=1e-12)
    assert_allclose(lengths(sol.points), lengths(pts), atol=1e-12)
    assert sol.distance == pytest.approx(np.linalg.norm(t) - lengths(pts).sum())


def test_moved_root_is_used_as_anchor(rng):
    pts = zigzag(5)
    root = np.array([0.2, -0.1, 0.3])
    t = root + np.array([0.5, 0.4, 0.6])
    sol = fabrik(pts, t, root=root)
    assert sol.success
    assert_allclose(sol.points[0], root)
    assert_allclose(lengths(sol.points), lengths(pts), atol=1e-12)


def test_target_already_reached_takes_no_iteration():
    pts = zigzag(4)
    sol = fabrik(pts, pts[-1] + 1e-5)
    assert sol.success and sol.iterations == 0
    assert_allclose(sol.points, pts)


def test_iteration_cap_returns_best_pose_with_its_distance(rng):
    pts = zigzag(8)
    t = np.array([0.1, 0.05, 0.2])   # deep inside: slow for FABRIK from this start
    sol = fabrik(pts, t, tolerance=1e-12, max_iterations=3, min_change=0.0)
    assert not sol.success and sol.status == 'max_iterations' and sol.iterations == 3
    assert sol.distance == pytest.approx(np.linalg.norm(sol.points[-1] - t))
    # the best of the three is no worse than any single iteration count below it
    for k in (1, 2):
        assert sol.distance <= fabrik(pts, t, tolerance=1e-12, max_iterations=k,
                                      min_change=0.0).distance + 1e-15


def test_stall_rule_stops_early():
    # a target on the root with an odd chain that cannot fold onto it
    pts = np.array([[0.0, 0, 0], [0, 0, 1.0], [0, 0, 1.2]])
    sol = fabrik(pts, [0.0, 0.0, 0.0], tolerance=1e-6, max_iterations=1000, min_change=1e-9)
    assert not sol.success and sol.status == 'stalled' and sol.iterations < 1000
    assert sol.distance == pytest.approx(0.8, abs=1e-6)


def test_two_dimensional_chain_stays_in_the_plane(rng):
    pts = zigzag(5)[:, [0, 2]]
    for _ in range(10):
        t = random_reachable(rng, 1.4)[:2]
        sol = fabrik(pts, t)
        assert sol.points.shape == pts.shape and sol.success
        assert_allclose(lengths(sol.points), lengths(pts), atol=1e-12)


def test_inputs_not_changed():
    pts = zigzag(4)
    keep = pts.copy()
    t = np.array([0.3, 0.2, 0.5])
    fabrik(pts, t)
    ccd(pts, t)
    assert_allclose(pts, keep)


@pytest.mark.parametrize('bad', [
    {'points': np.zeros((1, 3)), 'target': np.zeros(3)},
    {'points': np.zeros((3, 4)), 'target': np.zeros(4)},
    {'points': np.zeros((3, 3)), 'target': np.zeros(2)},
    {'points': np.zeros((3, 3)), 'target': [np.nan, 0, 0]},
    {'points': zigzag(3), 'target': np.ones(3), 'restarts': -1},
    {'points': zigzag(3), 'target': np.ones(3), 'patience': 0},
])
def test_bad_input_raises(bad):
    with pytest.raises(IKInputError):
        fabrik(**bad)


@pytest.mark.parametrize('solver', [fabrik, ccd])
def test_two_links_match_the_closed_form(solver, rng):
    """On two links the elbow of an iterative answer is one of the analytic branches."""
    d1, d2 = 0.7, 0.4
    for _ in range(25):
        ang = rng.uniform(-np.pi, np.pi)
        r = rng.uniform(abs(d1 - d2) + 0.05, d1 + d2 - 0.05)
        t = r * np.array([np.cos(ang), np.sin(ang)])
        bend = rng.uniform(0.3, 2.5)
        start = np.array([[0.0, 0.0], [d1, 0.0], [d1 + d2 * np.cos(bend), d2 * np.sin(bend)]])
        sol = solver(start, t, tolerance=1e-9, max_iterations=5000)
        assert sol.success
        exact = two_bone([0.0, 0.0], t, d1, d2)
        gap = min(np.linalg.norm(sol.points[1] - e) for e in exact.elbows)
        # the elbow error is of the order of the end error over sin of the elbow angle
        assert gap < 1e-6


def test_fabrik_reaches_out_of_annulus_as_closed_form_says():
    d1, d2 = 0.7, 0.4
    start = np.array([[0.0, 0, 0], [0, 0, d1], [0, d2, d1]])
    t = np.array([0.0, 0.05, 0.05])        # inside the inner circle |d1 - d2| = 0.3
    sol = fabrik(start, t, tolerance=1e-9, max_iterations=2000, min_change=1e-14)
    exact = two_bone(start[0], t, d1, d2)
    assert not exact.reachable and not sol.success
    assert sol.distance == pytest.approx(exact.distance, abs=1e-6)
