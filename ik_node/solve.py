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
_SEED_NOT_FINITE = 5
# The built-in Jacobian methods, whose solves the compiled driver can run (a method of the
# same name registered later replaces the entry in METHODS, and runs through the driver).
_COMPILED = {name: METHODS[name] for name in METHOD_CODES} if JIT_ENABLED else {}


# The compiled solves of recent (chain, method, options as given, with their types): the
# chain and what compiled_driver.kept_for keeps for pose and for point targets, found with
# one lookup (building the options and finding those records cost more than a short
# solve's iterations). Holding the chain keeps its id from being reused meanwhile.
_FAST: dict = {}
_FAST_SIZE = 64


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
    _FAST.clear()       # the name may have been a compiled method's


def methods() -> tuple[str, ...]:
    """Return the names accepted by ``solve(method=...)``."""
    return tuple(sorted(METHODS))


def check_target(target: ArrayLike) -> np.ndarray:
    """
    Return the target as a float (4, 4) pose or (3,) position; IKInputError otherwise.

    A pose must be finite, with a last row (0, 0, 0, 1) and a rotation block that is
    orthonormal with determinant +1 to 1e-6.
    """
    t = _target_array(target)
    _raise_for(_target_problem(t) if t.shape == (4, 4) else _position_problem(t), t)
    return t


def _target_array(target: ArrayLike) -> np.ndarray:
    """Return the target as a new float array of shape (4, 4) or (3,), not yet checked."""
    try:
        t = np.array(target, dtype=float)
    except (TypeError, ValueError) as exc:
        raise IKInputError(f'target must be a (4, 4) pose or a (3,) position: {exc}') from exc
    if t.shape not in ((4, 4), (3,)):
        raise IKInputError(f'target must be a (4, 4) pose or a (3,) position, got shape '
                           f'{t.shape}')
    return t


def _raise_for(problem: int, t: np.ndarray) -> None:
    """Raise the IKInputError of a target problem code (nothing for _TARGET_OK)."""
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


def _target_and_seed(chain, target: ArrayLike, q0: Optional[ArrayLike]) -> tuple:
    """
    Return (target, seed) checked: the target as :func:`check_target` does, q0 finite.

    The seed is clamped into the limits (chain.mid for None). One compiled call checks both
    and clamps: three of them, and two numpy calls, cost more than a short solve's
    iterations.
    """
    t = _target_array(target)
    seed = chain.mid.copy() if q0 is None else chain.q_array(q0, 'q0')
    check = _pose_and_seed_problem if t.shape == (4, 4) else _point_and_seed_problem
    problem = check(t, seed, chain.lower, chain.upper)
    if problem == _SEED_NOT_FINITE:
        raise chain.not_finite(seed, 'q0')
    _raise_for(problem, t)
    return t, seed


@njit
def _pose_and_seed_problem(t, q, lower, upper):
    """Return the problem code of pose ``t`` or else seed ``q``; clamp ``q`` into the limits."""
    problem = _target_problem(t)
    return problem if problem != _TARGET_OK else _clamped_seed_problem(q, lower, upper)


@njit
def _point_and_seed_problem(t, q, lower, upper):
    """:func:`_pose_and_seed_problem` of a (3,) position."""
    problem = _position_problem(t)
    return problem if problem != _TARGET_OK else _clamped_seed_problem(q, lower, upper)


@njit
def _clamped_seed_problem(q, lower, upper):
    """Return _SEED_NOT_FINITE for a seed with NaN or Inf; else clamp it, return _TARGET_OK."""
    for i in range(q.shape[0]):
        if not math.isfinite(q[i]):
            return _SEED_NOT_FINITE
    for i in range(q.shape[0]):
        q[i] = min(max(q[i], lower[i]), upper[i])
    return _TARGET_OK


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
    try:
        key: Optional[tuple] = (id(chain), method, tuple(options.items()),
                                tuple(map(type, options.values())))
        fast = _FAST.get(key)
    except TypeError:       # an option that cannot be hashed (a list of joint weights)
        key = fast = None
    if fast is not None and fast[0] is chain:
        t, seed = _target_and_seed(chain, target, q0)
        return compiled_driver.solve_kept(fast[1] if t.shape == (4, 4) else fast[2], t, seed,
                                          method)
    spec = METHODS.get(method) if isinstance(method, str) else None
    if spec is None:
        raise IKInputError(f'unknown method {method!r}; available: {list(methods())}')
    t, seed = _target_and_seed(chain, target, q0)
    opts = SolveOptions.from_mapping(options, spec.options, method)
    if spec is _COMPILED.get(method) and compiled_driver.applies(opts):
        # The driver's steps in one compiled call (the same answer, less Python).
        code = METHOD_CODES[method]
        pose_kept = compiled_driver.kept_for(chain, code, opts, True)
        if key is not None and pose_kept is not None:
            if len(_FAST) >= _FAST_SIZE:
                _FAST.clear()
            _FAST[key] = (chain, pose_kept, compiled_driver.kept_for(chain, code, opts, False))
        return compiled_driver.solve_one(chain, t, seed, opts, code, method)
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
