# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Checks of a solve's target and seed, with the error each problem raises.

The checks are compiled, and return a problem code: ``solve`` runs them in one call before
a solve through the restart driver, and the compiled solve's kernel runs them itself at its
start (one call instead of two; :mod:`ik_node.solvers.compiled_driver` raises the error of
the code it returns).
"""

import math
from typing import Optional

from ik_node._jit import njit
from ik_node.errors import IKInputError
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['check_target', 'target_array', 'target_and_seed', 'target_and_seed_arrays',
           'pose_matrix', 'raise_for', 'not_finite_error', 'inputs_problem', 'MAX_TARGET_DISTANCE',
           'TARGET_OK']

# Coordinates beyond this [m] are refused: no arm reaches them, and squares of such numbers
# overflow in the solvers' error norms.
MAX_TARGET_DISTANCE = 1e6

# Problem codes of the checks.
TARGET_OK = 0
_NOT_FINITE = 1
_BAD_LAST_ROW = 2
_NOT_A_ROTATION = 3
_TOO_FAR = 4
_SEED_NOT_FINITE = 5


def check_target(target: ArrayLike) -> np.ndarray:
    """
    Return the target as a float (4, 4) pose or (3,) position; IKInputError otherwise.

    A pose must be finite, with a last row (0, 0, 0, 1) and a rotation block that is
    orthonormal with determinant +1 to 1e-6.
    """
    t = target_array(target)
    raise_for(_pose_problem(t) if t.shape == (4, 4) else
              _position_problem(t[0], t[1], t[2]), t)
    return t


def target_array(target: ArrayLike) -> np.ndarray:
    """Return the target as a new float array of shape (4, 4) or (3,), not yet checked."""
    try:
        t = np.array(target, dtype=float)
    except (TypeError, ValueError) as exc:
        raise IKInputError(f'target must be a (4, 4) pose or a (3,) position: {exc}') from exc
    if t.shape not in ((4, 4), (3,)):
        raise IKInputError(f'target must be a (4, 4) pose or a (3,) position, got shape '
                           f'{t.shape}')
    return t


def raise_for(problem: int, t: np.ndarray, q: Optional[np.ndarray] = None) -> None:
    """
    Raise the IKInputError of a problem code (nothing for TARGET_OK).

    t: the target as :func:`target_array` returns it; q: the seed (named ``q0``).
    """
    if problem == _SEED_NOT_FINITE:
        raise not_finite_error(np.asarray(q), 'q0')
    if problem == _NOT_FINITE:
        raise IKInputError('target contains NaN or Inf')
    if problem == _BAD_LAST_ROW:
        raise IKInputError(f'target pose last row must be (0, 0, 0, 1), got {t[3].tolist()}')
    if problem == _NOT_A_ROTATION:
        raise IKInputError('target rotation is not orthonormal with det +1 '
                           '(normalise the quaternion it came from)')
    if problem == _TOO_FAR:
        p = t[:3, 3] if t.shape == (4, 4) else t
        raise IKInputError(f'target position {p.tolist()} is more than {MAX_TARGET_DISTANCE:g} m '
                           'from the base: not a target for an arm (units or frame mix-up?)')


def not_finite_error(q: np.ndarray, name: str = 'q') -> IKInputError:
    """Return the error of joint values ``q`` with a NaN or Inf (``name``: the argument)."""
    return IKInputError(f'{name} is not finite: {q.tolist()}')


def target_and_seed(chain, target: ArrayLike, q0: Optional[ArrayLike]) -> tuple:
    """
    Return (target, seed) checked: the target as :func:`check_target` does, q0 finite.

    The seed is clamped into the limits (chain.mid for None); both are new arrays.
    """
    t, seed = target_and_seed_arrays(chain, target, q0)
    T, pose = pose_matrix(t)
    raise_for(inputs_problem(T, pose, seed, chain.lower, chain.upper), t, seed)
    return t, seed


def target_and_seed_arrays(chain, target: ArrayLike, q0: Optional[ArrayLike]) -> tuple:
    """
    Return (target, seed) as new float arrays of the right shapes, not yet checked.

    :func:`inputs_problem` checks them (the compiled solve runs it in its kernel).
    """
    t = target_array(target)
    return t, (chain.mid.copy() if q0 is None else chain.q_array(q0, 'q0'))


def pose_matrix(t: np.ndarray) -> tuple:
    """Return (T (4, 4), pose) of a target array: a position goes in T[:3, 3] (pose False)."""
    if t.shape == (4, 4):
        return t, True
    T = np.eye(4)
    T[:3, 3] = t
    return T, False


@njit
def inputs_problem(T, pose, q, lower, upper):
    """
    Return the problem code of a target and a seed; clamp the seed into the limits.

    T (4, 4): the pose, or (pose False) a position in T[:3, 3]; q (n,): the seed, clamped in
    place when the target and the seed are both valid.
    """
    if pose:
        problem = _pose_problem(T)
    else:
        problem = _position_problem(T[0, 3], T[1, 3], T[2, 3])
    if problem != TARGET_OK:
        return problem
    for i in range(q.shape[0]):
        if not math.isfinite(q[i]):
            return _SEED_NOT_FINITE
    for i in range(q.shape[0]):
        q[i] = min(max(q[i], lower[i]), upper[i])
    return TARGET_OK


@njit
def _position_problem(x, y, z):
    """Return the problem code of a position (x, y, z) (TARGET_OK for a valid one)."""
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
        return _NOT_FINITE
    if abs(x) > MAX_TARGET_DISTANCE or abs(y) > MAX_TARGET_DISTANCE \
            or abs(z) > MAX_TARGET_DISTANCE:
        return _TOO_FAR
    return TARGET_OK


@njit
def _pose_problem(t):
    """Return the problem code of a (4, 4) pose (TARGET_OK for a valid one)."""
    for i in range(4):
        for j in range(4):
            if not math.isfinite(t[i, j]):
                return _NOT_FINITE
    if abs(t[3, 0]) > 1e-9 or abs(t[3, 1]) > 1e-9 or abs(t[3, 2]) > 1e-9 \
            or abs(t[3, 3] - 1.0) > 1e-9:
        return _BAD_LAST_ROW
    for i in range(3):
        for j in range(3):
            d = t[i, 0] * t[j, 0] + t[i, 1] * t[j, 1] + t[i, 2] * t[j, 2]
            if abs(d - (1.0 if i == j else 0.0)) > 1e-6:
                return _NOT_A_ROTATION
    det = (t[0, 0] * (t[1, 1] * t[2, 2] - t[1, 2] * t[2, 1])
           - t[0, 1] * (t[1, 0] * t[2, 2] - t[1, 2] * t[2, 0])
           + t[0, 2] * (t[1, 0] * t[2, 1] - t[1, 1] * t[2, 0]))
    if abs(det - 1.0) > 1e-6:
        return _NOT_A_ROTATION
    for i in range(3):
        if abs(t[i, 3]) > MAX_TARGET_DISTANCE:
            return _TOO_FAR
    return TARGET_OK
