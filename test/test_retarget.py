# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Retargeting local rotations between reference poses (T-pose <-> A-pose)."""

from ik_node import IKInputError
from ik_node.pointchain.retarget import (global_rotations, inverse_offsets, local_rotations,
                                         reference_offsets, retarget_rotations)
import numpy as np
from numpy.testing import assert_allclose
import pytest
from scipy.spatial.transform import Rotation

# spine 0 -> chest 1 -> {left shoulder 2 -> upper arm 3 -> forearm 4,
#                        right shoulder 5 -> upper arm 6 -> forearm 7}
PARENTS = [-1, 0, 1, 2, 3, 1, 5, 6]


def t_pose():
    """World orientations of the bones in the T-pose (arms horizontal)."""
    return np.tile(np.eye(3), (8, 1, 1))


def a_pose():
    """World orientations in the A-pose: arms turned 45 degrees down about the forward axis."""
    ref = t_pose()
    ref[2:5] = Rotation.from_euler('y', 45, degrees=True).as_matrix()
    ref[5:8] = Rotation.from_euler('y', -45, degrees=True).as_matrix()
    return ref


def random_motion(rng, frames=5):
    return Rotation.random(frames * 8, random_state=rng.integers(1 << 31)).as_matrix().reshape(
        frames, 8, 3, 3)


def test_identity_offsets_change_nothing(rng):
    R = random_motion(rng)
    out = retarget_rotations(R, PARENTS, np.tile(np.eye(3), (8, 1, 1)))
    assert_allclose(out, R, atol=1e-15)


def test_there_and_back_returns_the_input(rng):
    R = random_motion(rng)
    Q = reference_offsets(t_pose(), a_pose())
    back = retarget_rotations(retarget_rotations(R, PARENTS, Q), PARENTS, inverse_offsets(Q))
    assert_allclose(back, R, atol=1e-12)
    # and with arbitrary reference poses
    OA = Rotation.random(8, random_state=1).as_matrix()
    OB = Rotation.random(8, random_state=2).as_matrix()
    Q = reference_offsets(OA, OB)
    back = retarget_rotations(retarget_rotations(R, PARENTS, Q), PARENTS,
                              reference_offsets(OB, OA))
    assert_allclose(back, R, atol=1e-12)


@pytest.mark.parametrize('seed', [0, 1, 2])
def test_every_bone_keeps_its_world_orientation(seed):
    rng = np.random.default_rng(seed)
    R_a = random_motion(rng)
    OA = t_pose() if seed == 0 else Rotation.random(8, random_state=seed).as_matrix()
    OB = a_pose() if seed == 0 else Rotation.random(8, random_state=seed + 10).as_matrix()
    R_b = retarget_rotations(R_a, PARENTS, reference_offsets(OA, OB))
    world_a = global_rotations(R_a, PARENTS) @ OA
    world_b = global_rotations(R_b, PARENTS) @ OB
    assert_allclose(world_b, world_a, atol=1e-12)
    # results are rotations
    assert_allclose(np.linalg.det(R_b), 1.0, atol=1e-12)


def test_rest_pose_of_a_maps_to_the_offsets_of_b():
    """Standing in reference pose A (identity locals) is, seen from B, the way back to A."""
    Q = reference_offsets(t_pose(), a_pose())
    R_b = retarget_rotations(np.tile(np.eye(3), (8, 1, 1)), PARENTS, Q)
    G_b = global_rotations(R_b, PARENTS)
    assert_allclose(G_b @ a_pose(), t_pose(), atol=1e-12)


def test_global_and_local_are_inverse(rng):
    R = random_motion(rng)
    assert_allclose(local_rotations(global_rotations(R, PARENTS), PARENTS), R, atol=1e-12)


def test_input_not_changed(rng):
    R = random_motion(rng)
    keep = R.copy()
    retarget_rotations(R, PARENTS, reference_offsets(t_pose(), a_pose()))
    assert_allclose(R, keep)


@pytest.mark.parametrize('parents,offsets', [
    ([-1, 0, 1, 2, 3, 1, 5, 8], np.tile(np.eye(3), (8, 1, 1))),
    (PARENTS, np.tile(np.eye(3), (7, 1, 1))),
    (PARENTS, np.full((8, 3, 3), np.nan)),
])
def test_bad_input_raises(parents, offsets):
    with pytest.raises(IKInputError):
        retarget_rotations(np.tile(np.eye(3), (8, 1, 1)), parents, offsets)
