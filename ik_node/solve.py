# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""``solve``: one call shape for every IK method, with input checks done once, here."""

import math
from typing import Callable, Optional, Sequence

from ik_node._jit import JIT_ENABLED, njit
from ik_node.errors import IKInputError
from ik_node.options import COMMON_OPTIONS, SolveOptions
from ik_node.result import IKResult
from ik_node.solvers import compiled_driver
from ik_node.solvers.dls import METHOD_CODES
from ik_node.solvers.driver import run_restarts
from ik_node.solvers.reach import stretched_reach
from ik_node.solvers.table import Method, METHODS
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['solve', 'register_method', 'methods', 'check_target', 'warm_up']

# Coordinates beyond this [m] are refused: no arm reaches them, and squares of such numbers
# overflow in the solvers' error norms.
MAX_TARGET_DISTANCE = 1e6

# Problem codes of the target checks.
_TARGET_OK = 0
_NOT_FINITE = 1
_BAD_LAST_ROW = 2
_NOT_A_ROTATION = 3
_TOO_FAR = 4
# The built-in Jacobian methods, whose solves the compiled driver can run (a method of the
# same name registered later replaces the entry in METHODS, and runs through the driver).
_COMPILED = {name: METHODS[name] for name in METHOD_CODES} if JIT_ENABLED else {}


def register_method(name: str, prepare: Callable,
                    options: frozenset = COMMON_OPTIONS) -> None:
    """
    Add a method to the table (a user's own; the built-in ones are in ``METHODS``).

    ``prepare(chain, target, opts) -> attempt`` with ``attempt(start, budget) ->
    (q, iterations)``: one attempt from ``start`` (n,). The restart driver runs it like
    every other method. ``options``: the option names it uses (at least the common ones).
    """
    if not isinstance(name, str) or not name:
        raise IKInputError(f'method name must be a non-empty string, got {name!r}')
    METHODS[name] = Method(prepare, frozenset(options) | COMMON_OPTIONS)


def methods() -> tuple[str, ...]:
    """Return the names accepted by ``solve(method=...)``."""
    return tuple(sorted(METHODS))


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
    return t


@njit
def _position_problem(t):
    """Return the problem code of a (3,) position (_TARGET_OK for a valid one)."""
    for i in range(3):
        if not math.isfinite(t[i]):
            return _NOT_FINITE
    for i in range(3):
        if abs(t[i]) > MAX_TARGET_DISTANCE:
            return _TOO_FAR
    return _TARGET_OK


@njit
def _target_problem(t):
    """Return the problem code of a (4, 4) pose (_TARGET_OK for a valid one)."""
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
    return _TARGET_OK


def solve(chain, target: ArrayLike, q0: Optional[ArrayLike] = None, method: str = 'dls',
          **options) -> IKResult:
    """
    Solve IK for ``chain``: joint values that bring the tip to ``target``.

    target: (4, 4) pose or (3,) position [m] of the tip, in the base_link frame.
    q0: (n,) seed [rad or m]; None starts at mid-range (a cold solve). A seed outside the
    limits is clamped into them first (a warning-free convenience: the returned q is what
    counts).
    method: one of :func:`methods` ('dls', 'pinv', 'jt', and the FABRIK family).
    options: see :class:`ik_node.options.SolveOptions`; an option the method does not use
    is refused.

    Returns an IKResult; an unreachable target gives success=False and the best attempt.
    Raises IKInputError for a bad target, seed, method or option.
    """
    spec = METHODS.get(method) if isinstance(method, str) else None
    if spec is None:
        raise IKInputError(f'unknown method {method!r}; available: {list(methods())}')
    t = check_target(target)
    if q0 is None:
        seed = chain.mid.copy()
    else:
        seed = np.minimum(np.maximum(chain.check_q(q0, 'q0'), chain.lower), chain.upper)
    opts = SolveOptions.from_kwargs(spec.options, method, **options)
    if spec is _COMPILED.get(method) and compiled_driver.applies(opts):
        # The driver's steps in one compiled call (the same answer, less Python).
        return compiled_driver.solve_one(chain, t, seed, opts, METHOD_CODES[method], method)
    return run_restarts(chain, t, seed, opts, spec.prepare, method,
                        opts.solution_weights(chain.n), spec.rescue)


def warm_up(chain, method_names: Optional[Sequence[str]] = None, *,
            reach: bool = True) -> None:
    """
    Load (or compile) the kernels of ``method_names`` (default: all) for ``chain`` now.

    The first call of a compiled kernel in a process loads it from numba's disk cache (about
    0.25 s; compiling on a fresh install takes longer). Call this before timing-sensitive
    work, so that the first real solve's ``timeout`` is not spent on loading. ``reach``:
    also estimate the chain's stretched reach now (it runs the dls kernel whatever the
    methods; found on the first far target otherwise).
    """
    target = chain.fk(chain.mid)
    chain.jacobian(chain.mid)     # used by the driver's out-of-reach test
    if reach:
        stretched_reach(chain)
    for name in method_names or methods():
        for t in (target, target[:3, 3]):
            solve(chain, t, q0=chain.mid, method=name, restarts=False, max_iterations=2,
                  position_tolerance=1e-12)
