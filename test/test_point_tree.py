# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""FABRIK with several end effectors: the centroid rule, nested sub-bases, lengths kept."""

from ik_node import IKInputError
from ik_node.pointchain.point_tree import fabrik_tree
import numpy as np
from numpy.testing import assert_allclose
import pytest

# A torso (0 -> 1 -> 2) with two arms of three links each from the sub-base 2.
TORSO = np.array([[0, 0, 0], [0, 0, 0.5], [0, 0, 1.0], [0.3, 0, 1.0], [0.6, 0, 1.0],
                  [0.9, 0, 1.0], [-0.3, 0, 1.0], [-0.6, 0, 1.0], [-0.9, 0, 1.0]], dtype=float)
PARENTS = [-1, 0, 1, 2, 3, 4, 2, 6, 7]


def link_lengths(points, parents):
    par = np.asarray(parents)
    return np.linalg.norm(points[1:] - points[par[1:]], axis=1)


def unit(v):
    return v / np.linalg.norm(v)


def test_one_iteration_follows_the_centroid_rule():
    """Each arm's forward pass proposes a sub-base; the sub-base takes their centroid."""
    tl = np.array([0.8, 0.4, 1.3])
    tr = np.array([-0.7, 0.3, 0.6])
    sol = fabrik_tree(TORSO, PARENTS, {5: tl, 8: tr}, max_iterations=1, tolerance=0.0)
    p = TORSO

    def forward_arm(tip_target, idx):
        # idx: arm nodes from the tip inwards, ending with the sub-base's child
        f = {idx[0]: tip_target}
        for a, b in zip(idx, idx[1:]):
            f[b] = f[a] + 0.3 * unit(p[b] - f[a])
        return f, f[idx[-1]] + 0.3 * unit(p[2] - f[idx[-1]])

    f_left, prop_left = forward_arm(tl, [5, 4, 3])
    f_right, prop_right = forward_arm(tr, [8, 7, 6])
    sub = 0.5 * (prop_left + prop_right)
    f1 = sub + 0.5 * unit(p[1] - sub)
    # backward pass from the fixed root
    q1 = p[0] + 0.5 * unit(f1 - p[0])
    q2 = q1 + 0.5 * unit(sub - q1)
    assert_allclose(sol.points[1], q1, atol=1e-12)
    assert_allclose(sol.points[2], q2, atol=1e-12)
    prev = q2
    for k in (3, 4, 5):
        prev = prev + 0.3 * unit(f_left[k] - prev)
        assert_allclose(sol.points[k], prev, atol=1e-12)


def test_both_hands_reach_their_targets_and_lengths_are_kept(rng):
    L0 = link_lengths(TORSO, PARENTS)
    for _ in range(20):
        tl = np.array([0.5, 0.0, 1.0]) + rng.uniform(-0.3, 0.3, 3)
        tr = np.array([-0.5, 0.0, 1.0]) + rng.uniform(-0.3, 0.3, 3)
        sol = fabrik_tree(TORSO, PARENTS, {5: tl, 8: tr}, max_iterations=300)
        assert sol.success, sol
        assert max(sol.distances.values()) <= 1e-3
        assert_allclose(link_lengths(sol.points, PARENTS), L0, atol=1e-12)
        assert_allclose(sol.points[0], TORSO[0])


def test_nested_sub_bases_and_untargeted_branch():
    # root 0 -> 1 (sub-base) -> {2 -> 3 (sub-base) -> {4, 5}, 6 (no target)}
    pts = np.array([[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3], [0.5, 0, 3.5],
                    [-0.5, 0, 3.5], [1, 0, 1]], dtype=float)
    par = [-1, 0, 1, 2, 3, 3, 1]
    t4 = np.array([1.0, 1.0, 3.0])
    t5 = np.array([0.4, 1.5, 2.6])
    sol = fabrik_tree(pts, par, {4: t4, 5: t5}, max_iterations=500)
    assert sol.success
    assert_allclose(link_lengths(sol.points, par), link_lengths(pts, par), atol=1e-12)
    # the idle branch hangs from its parent with its length
    assert np.linalg.norm(sol.points[6] - sol.points[1]) == pytest.approx(1.0)


def test_conflicting_targets_compromise_and_fail():
    sol = fabrik_tree(TORSO, PARENTS, {5: [3.0, 0, 1.0], 8: [-3.0, 0, 1.0]})
    assert not sol.success
    # symmetric pull: the torso stays upright, each hand as far as it can go
    assert_allclose(sol.points[2], [0.0, 0.0, 1.0], atol=1e-9)
    assert sol.distances[5] == pytest.approx(2.1, abs=1e-9)


def test_moved_root_and_2d_input():
    pts2 = TORSO[:, [0, 2]]
    sol = fabrik_tree(pts2, PARENTS, {5: [0.5, 1.3], 8: [-0.6, 0.9]}, root=[0.05, 0.0])
    assert sol.points.shape == pts2.shape and sol.success
    assert_allclose(sol.points[0], [0.05, 0.0])


@pytest.mark.parametrize('parents,targets', [
    ([0, 0, 1, 2, 3, 4, 2, 6, 7], {5: [0, 0, 1]}),          # root without -1
    ([-1, 0, 1, 2, 3, 6, 2, 6, 7], {5: [0, 0, 1]}),         # parent after child
    (PARENTS, {2: [0, 0, 1]}),                               # target not on a leaf
    (PARENTS, {}),                                           # no target
    (PARENTS, {5: [0, 0]}),                                  # wrong dimension
])
def test_bad_trees_raise(parents, targets):
    with pytest.raises(IKInputError):
        fabrik_tree(TORSO, parents, targets)
