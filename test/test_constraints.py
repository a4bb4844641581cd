# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Joint constraints: the cone and hinge geometry, and constrained FABRIK never breaking them."""

import math

from hypothesis import given, settings, strategies as st
from ik_node import IKInputError
from ik_node.rotations import rotation_about_axis as axis_angle
from ik_node.solvers.constraints import (BallJoint, clamp_to_cone,
                                         constraint_violation, HingeJoint, nearest_on_ellipse,
                                         pack_constraints, rot_z, swing_from_z)
from ik_node.solvers.fabrik_points import fabrik
import numpy as np
from numpy.testing import assert_allclose
import pytest

N = 6
LINK = 0.2
START = np.column_stack([np.zeros(N + 1), np.zeros(N + 1), LINK * np.arange(N + 1)])
# An arm-like chain: shoulder ball (ellipse, twist), elbow hinge, wrist ball (four different
# half-angles), a free joint, a second hinge, and a narrow ball.
CHAIN = [
    BallJoint((1.0, 0.6), twist=(-0.5, 0.5)),
    HingeJoint((1.0, 0.0, 0.0), -0.2, 2.3),
    BallJoint((0.7, 0.3, 0.5, 0.2), twist=(-1.0, 0.4)),
    None,
    HingeJoint((0.0, 1.0, 0.0), -1.0, 1.0),
    BallJoint(0.25),
]


def random_valid_pose(rng, constraints=CHAIN):
    """Draw joint values inside every constraint; return (points, frames)."""
    pc = pack_constraints(constraints, N)
    P = np.eye(3)
    p = np.zeros(3)
    pts, frames = [p], []
    for j in range(N):
        B = P @ pc.rest[j]
        if pc.kind[j] == 2:
            R = B @ axis_angle(pc.axis[j], rng.uniform(pc.limits[j, 0], pc.limits[j, 1]))
        else:
            while True:
                u = rng.normal(size=3)
                u /= np.linalg.norm(u)
                if pc.kind[j] == 0 or np.allclose(clamp_to_cone(u, pc.limits[j]), u):
                    break
            R = B @ swing_from_z(u) @ rot_z(rng.uniform(*pc.twist[j]))
        p = p + LINK * R[:, 2]
        pts.append(p)
        frames.append(R)
        P = R
    return np.array(pts), np.array(frames)


def test_nearest_point_on_ellipse_matches_brute_force(rng):
    s = np.linspace(0.0, 0.5 * np.pi, 200001)
    for _ in range(20):
        e0, e1 = rng.uniform(0.05, 2.0, size=2)
        x0, y0 = rng.uniform(0.0, 3.0, size=2) + np.array([e0, e1])
        x, y = nearest_on_ellipse(x0, y0, e0, e1)
        assert (x / e0) ** 2 + (y / e1) ** 2 == pytest.approx(1.0, abs=1e-12)
        brute = np.min(np.hypot(e0 * np.cos(s) - x0, e1 * np.sin(s) - y0))
        assert math.hypot(x - x0, y - y0) <= brute + 1e-9


def test_cone_clamp_keeps_inside_and_moves_outside_onto_the_boundary(rng):
    lim = np.tan([0.6, 0.3, 0.8, 0.2])
    for _ in range(200):
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        c = clamp_to_cone(u, lim)
        assert np.linalg.norm(c) == pytest.approx(1.0)
        X, Y = c[0] / c[2], c[1] / c[2]
        ex = lim[0] if X >= 0 else lim[1]
        ey = lim[2] if Y >= 0 else lim[3]
        inside = (u[2] > 0 and (u[0] / u[2] / (lim[0] if u[0] >= 0 else lim[1])) ** 2
                  + (u[1] / u[2] / (lim[2] if u[1] >= 0 else lim[3])) ** 2 <= 1.0)
        if inside:
            assert_allclose(c, u)
        else:
            assert (X / ex) ** 2 + (Y / ey) ** 2 == pytest.approx(1.0, abs=1e-9)
    # the half-angles are where they should be along each axis
    for k, v in enumerate(([1, 0, 0.01], [-1, 0, 0.01], [0, 1, 0.01], [0, -1, 0.01])):
        c = clamp_to_cone(np.array(v, dtype=float) / np.linalg.norm(v), lim)
        assert math.atan2(math.hypot(c[0], c[1]), c[2]) == pytest.approx(
            math.atan(lim[k]), abs=1e-9)


def test_violation_measure_detects_broken_joints():
    frames = np.array([np.eye(3)] * N)
    assert np.all(constraint_violation(frames, CHAIN) < 1e-12)
    bent = frames.copy()
    bent[0] = axis_angle(np.array([0.0, 1.0, 0.0]), 1.3)    # beyond the 1.0 rad half-angle
    bent[1:] = bent[0]
    v = constraint_violation(bent, CHAIN)
    assert v[0] == pytest.approx(0.3, abs=1e-9) and np.all(v[1:] < 1e-12)
    twisted = frames.copy()
    twisted[:] = rot_z(0.9)                                   # twist limit 0.5
    assert constraint_violation(twisted, CHAIN)[0] == pytest.approx(0.4, abs=1e-9)
    hinge_off = frames.copy()
    hinge_off[1:] = axis_angle(np.array([1.0, 0.0, 0.0]), -0.5)   # hinge lower limit -0.2
    assert constraint_violation(hinge_off, CHAIN)[1] == pytest.approx(0.3, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.floats(-1.0, 1.0), st.floats(-1.0, 1.0), st.floats(-1.0, 1.0),
       st.floats(0.0, 1.6))
def test_constrained_fabrik_never_violates_constraints(x, y, z, r):
    v = np.array([x, y, z])
    t = v / max(np.linalg.norm(v), 1e-9) * r * N * LINK
    sol = fabrik(START, t, constraints=CHAIN, max_iterations=60)
    assert np.all(constraint_violation(sol.frames, CHAIN) <= 1e-9)
    assert_allclose(np.linalg.norm(np.diff(sol.points, axis=0), axis=1), LINK, atol=1e-12)
    # the points are the frames' bones, laid end to end from the root
    assert_allclose(sol.points[1:], np.cumsum(LINK * sol.frames[:, :, 2], axis=0), atol=1e-12)
    assert sol.distance == pytest.approx(np.linalg.norm(sol.points[-1] - t))


def test_constrained_fabrik_reaches_most_poses_it_could_take(rng):
    """Targets made by valid poses are reachable; constrained FABRIK gets most of them."""
    cones = [BallJoint((1.0, 0.6))] + [BallJoint((0.9, 0.5))] * (N - 1)
    hits = 0
    for _ in range(40):
        pts, _ = random_valid_pose(rng, cones)
        sol = fabrik(START, pts[-1], constraints=cones, max_iterations=300)
        hits += sol.success
        assert np.all(constraint_violation(sol.frames, cones) <= 1e-9)
    assert hits == 40
    hits = 0
    for _ in range(40):
        pts, _ = random_valid_pose(rng)
        sol = fabrik(START, pts[-1], constraints=CHAIN, max_iterations=300)
        hits += sol.success
    assert hits >= 16   # hinge/twist chains are harder for FABRIK (measured: about half)


def test_start_pose_that_breaks_constraints_is_projected_first():
    # from point 1 on the chain runs along +x: out of the elbow hinge's y-z plane
    bent = np.column_stack([LINK * np.maximum(np.arange(N + 1) - 1, 0), np.zeros(N + 1),
                            LINK * np.minimum(np.arange(N + 1), 1)])
    sol = fabrik(bent, bent[-1], constraints=CHAIN, max_iterations=0)
    assert sol.iterations == 0
    assert np.all(constraint_violation(sol.frames, CHAIN) <= 1e-9)
    assert_allclose(np.linalg.norm(np.diff(sol.points, axis=0), axis=1), LINK, atol=1e-12)


def test_hinge_chain_stays_in_its_plane(rng):
    hinges = [HingeJoint((1.0, 0.0, 0.0), -1.5, 1.5)] * N
    for _ in range(20):
        t = np.array([0.0, rng.uniform(-0.8, 0.8), rng.uniform(0.2, 1.0)])
        off_plane = t + np.array([0.3, 0.0, 0.0])
        for target in (t, off_plane):
            sol = fabrik(START, target, constraints=hinges, max_iterations=200)
            assert_allclose(sol.points[:, 0], 0.0, atol=1e-12)


@pytest.mark.parametrize('bad', [
    BallJoint(1.7), BallJoint((0.1, 0.2, 0.3)), BallJoint(0.5, twist=(0.3, -0.3)),
    HingeJoint((0.0, 0.0, 1.0)), HingeJoint((0.0, 0.0, 0.0)), HingeJoint((1, 0, 0), 1.0, 0.0),
])
def test_bad_constraints_raise(bad):
    with pytest.raises(IKInputError):
        pack_constraints([bad] + [None] * (N - 1), N)


def test_wrong_constraint_count_raises():
    with pytest.raises(IKInputError):
        fabrik(START, [0.1, 0.1, 0.5], constraints=CHAIN[:3])
