# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""CCD on point chains (the URDF method is covered by test_driver and test_fabrik_chain)."""

from ik_node.pointchain.ccd import ccd
import numpy as np
from numpy.testing import assert_allclose


def test_point_ccd_reaches_and_keeps_lengths(rng):
    pts = np.column_stack([np.zeros(9), np.zeros(9), 0.25 * np.arange(9)])
    for _ in range(20):
        v = rng.normal(size=3)
        t = v / np.linalg.norm(v) * rng.uniform(0.3, 1.8)
        sol = ccd(pts, t, tolerance=1e-4, max_iterations=2000)
        assert sol.success and np.linalg.norm(sol.points[-1] - t) <= 1e-4
        assert_allclose(np.linalg.norm(np.diff(sol.points, axis=0), axis=1), 0.25, atol=1e-12)
        assert_allclose(sol.points[0], 0.0)


def test_point_ccd_out_of_reach_points_straight_at_target():
    pts = np.column_stack([np.zeros(4), 0.5 * np.arange(4), np.zeros(4)])
    t = np.array([0.0, 0.0, 4.0])
    sol = ccd(pts, t, max_iterations=200)
    assert not sol.success and sol.status == 'unreachable'
    assert_allclose(sol.points[-1], [0.0, 0.0, 1.5], atol=1e-6)
