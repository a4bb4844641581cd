# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Reachable IK targets made from joint samples, and the success check that judges them.

Targets are poses of joint vectors drawn uniformly within the joint limits, so every target
is reachable by construction. Success is judged by the benchmark's own FK, never by what a
solver reports: position error <= 1 mm, orientation error <= 0.01 rad, joints within limits.
"""

from typing import Callable

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    'POSITION_TOLERANCE', 'ORIENTATION_TOLERANCE', 'sample_joints', 'sample_targets',
    'pose_error', 'judge',
]

POSITION_TOLERANCE = 1e-3      # [m]
ORIENTATION_TOLERANCE = 1e-2   # [rad]
CONTINUOUS_RANGE = np.pi       # continuous joints are sampled in [-pi, pi] [rad]


def sample_joints(lower: ArrayLike, upper: ArrayLike, n: int, seed: int = 0) -> np.ndarray:
    """
    Draw (n, dof) joint vectors uniformly within [lower, upper].

    Infinite bounds (continuous joints) are replaced by +-pi. The draw is
    ``np.random.default_rng(seed).uniform(lower, upper, size=(n, dof))``, so the same seed
    gives the same targets in every run and for every solver.
    """
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    if lower.shape != upper.shape or lower.ndim != 1:
        raise ValueError('lower and upper must be (dof,) arrays of the same shape')
    lo = np.where(np.isfinite(lower), lower, -CONTINUOUS_RANGE)
    hi = np.where(np.isfinite(upper), upper, CONTINUOUS_RANGE)
    if np.any(hi < lo):
        raise ValueError('a lower limit exceeds its upper limit')
    return np.random.default_rng(seed).uniform(lo, hi, size=(n, lo.size))


def sample_targets(fk: Callable[[np.ndarray], np.ndarray], lower: ArrayLike,
                   upper: ArrayLike, n: int, seed: int = 0) -> tuple:
    """
    Return (q (n, dof), T (n, 4, 4)): joint samples and their tip poses in the base frame.

    ``fk(q)`` maps a (dof,) joint vector [rad or m] to a (4, 4) pose [m]. Position-only
    targets are ``T[:, :3, 3]``.
    """
    q = sample_joints(lower, upper, n, seed)
    poses = np.array([np.asarray(fk(qi), dtype=float) for qi in q]).reshape(n, 4, 4)
    return q, poses


def pose_error(T_target: ArrayLike, T: ArrayLike) -> tuple:
    """
    Return (position error [m], orientation error [rad]) of pose T against T_target.

    The orientation error is the angle of ``R_target^T R``, computed with atan2 of the
    skew part and the trace so that it stays accurate near 0 and near pi.
    """
    T_target = np.asarray(T_target, dtype=float)
    T = np.asarray(T, dtype=float)
    dp = float(np.linalg.norm(T[:3, 3] - T_target[:3, 3]))
    R = T_target[:3, :3].T @ T[:3, :3]
    skew = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    angle = float(np.arctan2(np.linalg.norm(skew), np.trace(R) - 1.0))
    return dp, angle


def judge(chain, target: ArrayLike, q: ArrayLike | None,
          position_tolerance: float = POSITION_TOLERANCE,
          orientation_tolerance: float = ORIENTATION_TOLERANCE,
          limit_tolerance: float = 1e-9) -> tuple:
    """
    Judge a solver's answer with the benchmark's FK.

    ``chain`` offers ``fk``, ``lower``, ``upper`` and ``n``; ``target`` is a (4, 4) pose or a
    (3,) position in the base frame; ``q`` is the solver's (n,) answer or None. Returns
    (success, position error [m], orientation error [rad], nan for a position target).
    """
    if q is None:
        return False, float('nan'), float('nan')
    q = np.asarray(q, dtype=float)
    if q.shape != (chain.n,) or not np.all(np.isfinite(q)):
        return False, float('nan'), float('nan')
    T = chain.fk(q)
    target = np.asarray(target, dtype=float)
    if target.shape == (3,):
        dp = float(np.linalg.norm(T[:3, 3] - target))
        dr = float('nan')
        close = dp <= position_tolerance
    else:
        dp, dr = pose_error(target, T)
        close = dp <= position_tolerance and dr <= orientation_tolerance
    inside = bool(np.all(q >= np.asarray(chain.lower) - limit_tolerance)
                  and np.all(q <= np.asarray(chain.upper) + limit_tolerance))
    return bool(close and inside), dp, dr
