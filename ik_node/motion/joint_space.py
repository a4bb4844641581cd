# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Differences of joint positions: continuous joints are compared the short way round."""

import math

import numpy as np
from numpy.typing import ArrayLike

__all__ = ['wrap_angle', 'joint_distance']


def wrap_angle(a: ArrayLike) -> np.ndarray:
    """Return ``a`` [rad] wrapped into [-pi, pi)."""
    return (np.asarray(a, dtype=float) + math.pi) % (2.0 * math.pi) - math.pi


def joint_distance(continuous: np.ndarray, diff: np.ndarray) -> np.ndarray:
    """Return |diff| (n,) [rad or m], wrapped into [0, pi] on the ``continuous`` joints."""
    if not continuous.any():
        return np.abs(diff)     # (most arms, and every cycle: no wrapping to pay for)
    return np.abs(np.where(continuous, wrap_angle(diff), diff))
