# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Records the solver kernels take: the target and the joint limits (numba NamedTuples).

The chain itself travels as :class:`ik_node.model.kinematics.ChainModel`; each method family adds
its own parameter record (:class:`ik_node.solvers.dls.DlsParams`,
:class:`ik_node.solvers.arm_fabrik.ArmParams`). Fields keep one type each (float arrays,
float, int, bool), so each kernel compiles once.
"""

from typing import NamedTuple

import numpy as np

__all__ = ['Target', 'Limits', 'make_target']


class Target(NamedTuple):
    """A tip target: position (3,) [m], rotation (3, 3) (identity, unused, when not pose)."""

    position: np.ndarray
    rotation: np.ndarray
    pose: bool


class Limits(NamedTuple):
    """Joint limits (n,) [rad or m] and the continuous-joint mask (n,) bool."""

    lower: np.ndarray
    upper: np.ndarray
    continuous: np.ndarray


def make_target(target: np.ndarray) -> Target:
    """
    Return the record of a validated (4, 4) pose or (3,) position.

    The arrays are always fresh writable copies: a read-only array has another numba type,
    and would compile every kernel a second time.
    """
    if target.shape == (4, 4):
        return Target(np.array(target[:3, 3], dtype=float),
                      np.array(target[:3, :3], dtype=float), True)
    return Target(np.array(target, dtype=float), np.eye(3), False)
