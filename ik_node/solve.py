# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""``solve``: one call shape for every IK method, with input checks done once, here."""

import math
from typing import Callable, Optional, Sequence

from ik_node._jit import njit
from ik_node.errors import IKInputError
from ik_node.result import IKResult
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['solve', 'register_method', 'methods', 'check_target', 'warm_up']

_METHODS: dict[str, Callable[..., IKResult]] = {}

# Coordinates beyond this [m] are refused: no arm reaches them, and squares of such numbers
# overflow in the solvers' error norms.
MAX_TARGET_DISTANCE = 1e6


def register_method(name: str, fn: Callable[..., IKResult]) -> None:
    """
    Make ``fn(chain, target, q0, **options) -> IKResult`` available as ``method=name``.

    ``fn`` receives a validated target, (4, 4) or (3,), and a seed q0 (n,) inside the limits.
    """
    _METHODS[name] = fn


def methods() -> tuple[str, ...]:
    """Return the names accepted by ``solve(method=...)``."""
    return tuple(sorted(_METHODS))


def check_target(target: ArrayLike) -> np.ndarray:
    """
    Return the target as a float (4, 4) pose or (3,) position; IKInputError otherwise.

    A pose must be finite, with a last row (0, 0, 0, 1) and a rotation block that is
    orthonormal with determinant +1 to 1e-6.
    """
    try:
        t = np.array(target, dtype=float)
    except (TypeError, ValueError) as exc:
        raise IKInputError(f'target must be a (4, 4) pose or a (3,) position: {exc}') from exc
    if t.shape not in ((4, 4), (3,)):
        raise IKInputError(f'target must be a (4, 4) pose or a (3,) position, got shape '
                           f'{t.shape}')
    problem = _target_problem(t) if t.shape == (4, 4) else _position_problem(t)
    if problem == 1:
        raise IKInputError('target contains NaN or Inf')
    if problem == 2:
        raise IKInputError(f'target pose last row must be (0, 0, 0, 1), got {t[3].tolist()}')
    if problem == 3:
        raise IKInputError('target rotation is not orthonormal with det +1 '
                           '(normalise the quaternion it came from)')
    p = t[:3, 3] if t.shape == (4, 4) else t
    if np.max(np.abs(p)) > MAX_TARGET_DISTANCE:
        raise IKInputError(f'target position {p.tolist()} is more than {MAX_TARGET_DISTANCE:g} m '
                           'from the base: not a target for an arm (units or frame mix-up?)')
    return t


@njit
def _position_problem(t):
    for i in range(3):
        if not math.isfinite(t[i]):
            return 1
    return 0


@njit
def _target_problem(t):
    """Return 0 for a valid pose, 1 non-finite, 2 bad last row, 3 bad rotation."""
    for i in range(4):
        for j in range(4):
            if not math.isfinite(t[i, j]):
                return 1
    if abs(t[3, 0]) > 1e-9 or abs(t[3, 1]) > 1e-9 or abs(t[3, 2]) > 1e-9 \
            or abs(t[3, 3] - 1.0) > 1e-9:
        return 2
    for i in range(3):
        for j in range(3):
            d = t[i, 0] * t[j, 0] + t[i, 1] * t[j, 1] + t[i, 2] * t[j, 2]
            if abs(d - (1.0 if i == j else 0.0)) > 1e-6:
                return 3
    det = (t[0, 0] * (t[1, 1] * t[2, 2] - t[1, 2] * t[2, 1])
           - t[0, 1] * (t[1, 0] * t[2, 2] - t[1, 2] * t[2, 0])
           + t[0, 2] * (t[1, 0] * t[2, 1] - t[1, 1] * t[2, 0]))
    if abs(det - 1.0) > 1e-6:
        return 3
    return 0


def solve(chain, target: ArrayLike, q0: Optional[ArrayLike] = None, method: str = 'dls',
          **options) -> IKResult:
    """
    Solve IK for ``chain``: joint values that bring the tip to ``target``.

    target: (4, 4) pose or (3,) position [m] of the tip, in the base_link frame.
    q0: (n,) seed [rad or m]; None starts at mid-range (a cold solve). A seed outside the
    limits is clamped into them first (a warning-free convenience: the returned q is what
    counts).
    method: one of :func:`methods` ('dls', 'pinv', 'jt', and the FABRIK family).
    options: see :class:`ik_node.options.SolveOptions` (and each method's own).

    Returns an IKResult; an unreachable target gives success=False and the best attempt.
    Raises IKInputError for a bad target, seed, method or option.
    """
    fn = _METHODS.get(method) if isinstance(method, str) else None
    if fn is None:
        raise IKInputError(f'unknown method {method!r}; available: {list(methods())}')
    t = check_target(target)
    if q0 is None:
        seed = chain.mid.copy()
    else:
        seed = np.clip(chain.check_q(q0, 'q0'), chain.lower, chain.upper)
    return fn(chain, t, seed, **options)


def warm_up(chain, method_names: Optional[Sequence[str]] = None) -> None:
    """
    Load (or compile) the kernels of ``method_names`` (default: all) for ``chain`` now.

    The first call of a compiled kernel in a process loads it from numba's disk cache (about
    0.25 s; compiling on a fresh install takes longer). Call this before timing-sensitive
    work, so that the first real solve's ``timeout`` is not spent on loading.
    """
    target = chain.fk(chain.mid)
    for name in method_names or methods():
        for t in (target, target[:3, 3]):
            solve(chain, t, q0=chain.mid, method=name, restarts=False, max_iterations=2)
