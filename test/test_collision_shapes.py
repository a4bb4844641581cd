# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Obstacle shapes: validation, and the kernels' signed distances against brute force."""

import math

from ik_node import Box, Cylinder, HalfSpace, IKInputError, Sphere
from ik_node.collision import kernels
from ik_node.spatial.rpy import matrix_from_rpy
import numpy as np
import pytest


def _pose(rng):
    T = np.eye(4)
    T[:3, :3] = matrix_from_rpy(*rng.uniform(-math.pi, math.pi, 3))
    T[:3, 3] = rng.uniform(-0.3, 0.3, 3)
    return T


@pytest.mark.parametrize('make', [
    lambda: Sphere((0, 0, 0), -0.1),
    lambda: Sphere((0, math.nan, 0), 0.1),
    lambda: Sphere((0, 0, 0), math.nan),
    lambda: Box(np.eye(4), (0.1, -0.2, 0.1)),
    lambda: Box(np.eye(4), (0.1, 0.2)),
    lambda: Box(np.diag([2.0, 1.0, 1.0, 1.0]), (0.1, 0.1, 0.1)),
    lambda: Cylinder(np.eye(4), 0.1, math.inf),
    lambda: Cylinder(np.eye(4), -0.1, 0.2),
    lambda: HalfSpace((0, 0, 0), 0.0),
    lambda: HalfSpace((0, 0, 1), math.nan),
])
def test_bad_sizes_and_poses_are_refused(make):
    with pytest.raises(IKInputError):
        make()


def test_half_space_normal_is_normalised_and_shapes_are_immutable():
    floor = HalfSpace((0, 0, 2.0), 0.1)
    assert floor.normal == pytest.approx((0.0, 0.0, 1.0))
    with pytest.raises(AttributeError):
        floor.offset = 0.0
    assert not floor.row.flags.writeable


def _random_shapes(rng):
    return [HalfSpace(rng.normal(size=3), rng.uniform(-0.2, 0.2)),
            Sphere(rng.uniform(-0.3, 0.3, 3), rng.uniform(0.01, 0.2)),
            Box(_pose(rng), rng.uniform(0.01, 0.4, 3)),
            Cylinder(_pose(rng), rng.uniform(0.01, 0.2), rng.uniform(0.01, 0.4))]


def _brute_sdf(shape, x):
    """Signed distance by definition, from the shape's own parameters."""
    if isinstance(shape, HalfSpace):
        return float(np.dot(shape.normal, x) - shape.offset)
    if isinstance(shape, Sphere):
        return float(np.linalg.norm(x - np.array(shape.center)) - shape.radius)
    T = shape.pose
    local = T[:3, :3].T @ (x - T[:3, 3])
    if isinstance(shape, Box):
        q = np.abs(local) - 0.5 * np.array(shape.size)
    else:
        q = np.array([math.hypot(local[0], local[1]) - shape.radius,
                      abs(local[2]) - 0.5 * shape.length])
    return float(np.linalg.norm(np.maximum(q, 0.0)) + min(q.max(), 0.0))


def test_point_sdf_matches_the_definition():
    rng = np.random.default_rng(1)
    for _ in range(30):
        for shape in _random_shapes(rng):
            x = rng.uniform(-0.5, 0.5, 3)
            assert kernels.shape_sdf(shape.row, *x) == pytest.approx(_brute_sdf(shape, x),
                                                                     abs=1e-12)


def test_segment_distance_is_a_tight_lower_bound():
    rng = np.random.default_rng(2)
    ts = np.linspace(0.0, 1.0, 401)
    for _ in range(20):
        W = rng.uniform(-0.5, 0.5, (1, 2, 3))
        for shape in _random_shapes(rng):
            d, _ = kernels.segment_obstacle(W, 0, shape.row, math.inf)
            sampled = min(_brute_sdf(shape, W[0, 0] + t * (W[0, 1] - W[0, 0])) for t in ts)
            step = np.linalg.norm(W[0, 1] - W[0, 0]) / 400
            assert d <= sampled + 1e-12
            assert d >= sampled - step - 1e-6
