# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Solver options: defaults, validation, and the clear error for a bad or unknown option."""

from dataclasses import dataclass, field, fields, replace
import math
from typing import Any, Callable, Optional, Sequence

from ik_node.errors import IKInputError
import numpy as np

__all__ = ['SolveOptions', 'COMMON_OPTIONS', 'kwargs_key', 'DEFAULT_POSITION_TOLERANCE',
           'DEFAULT_ORIENTATION_TOLERANCE']

_MAX_OPTION = 1e6

# Library defaults: 10 µm and 1e-4 rad (0.006°). A real arm repeats to about ±20-100 µm
# (UR3 ±30 µm, Panda ±100 µm, KR210 ±60 µm), so the solver's own error stays well below the
# arm's repeatability: the command is as exact as the arm can use, and tightening further
# only costs time. 1e-4 rad at a 0.2 m tool arm is 20 µm at the tool point, the same order.
DEFAULT_POSITION_TOLERANCE = 1e-5
DEFAULT_ORIENTATION_TOLERANCE = 1e-4


@dataclass(frozen=True)
class SolveOptions:
    """
    Options of :func:`ik_node.solve` (units in brackets); each method uses a subset.

    Every method: position_tolerance [m], orientation_tolerance [rad] (success thresholds);
    max_iterations (per attempt); max_attempts, timeout [s] (budget over restarts);
    restarts (try random starts after a failed first attempt); solutions (how many restart
    solutions to collect before returning the one nearest the seed); rng_seed (the restart
    sampler's seed, None: fresh entropy); max_joint_change [rad or m] (None: any): no joint of
    an answer, successful or not, is farther than this from the seed; restarts then start
    within that distance of the seed, and a target whose only answers are farther gets
    ``success=False`` and status ``beyond_max_joint_change`` (tracking a moving target: an
    answer on another branch of the arm would swing it round instead of following).

    Jacobian methods (dls, pinv, jt, and hybrid's DLS phase): position_weight,
    orientation_weight [1/m, 1/rad]: task weights of the error rows; joint_weights (n,):
    larger means the joint moves less (W in Δq = W⁻¹Jᵀ(...)), also used to pick the solution
    nearest the seed; damping λ₀ [m], max_damping λ_max, manipulability_threshold w₀ (relative
    to the arm's size, see :mod:`ik_node.solvers.dls`); objectives, null_space_gain k,
    secondary_iterations (null-space objectives, dls/pinv/jt only); max_step [rad or m]
    (step cap of jt/pinv and of the null-space step).

    FABRIK family (fabrik, ccd, hybrid's first phase): tip_weight, fabrik_points,
    min_change [m], orientation_points_offset [m], progress_window, polish_iterations
    (fabrik, ccd), fabrik_iterations (hybrid); see :mod:`ik_node.solvers.fabrik_method`.
    ``None`` means the method's own default.

    Collisions (every method): avoid_collisions (a successful answer must be collision-free:
    self-collision and ``obstacles``); collision_margin [m], collision_weight: the clearance
    objective's margin and weight (dls, pinv, jt, hybrid).
    """

    position_tolerance: float = DEFAULT_POSITION_TOLERANCE
    orientation_tolerance: float = DEFAULT_ORIENTATION_TOLERANCE
    max_iterations: int = 100
    max_attempts: int = 200
    timeout: float = 0.05
    restarts: bool = True
    solutions: int = 1
    rng_seed: Optional[int] = 20260917
    max_joint_change: Optional[float] = None
    position_weight: float = 1.0
    orientation_weight: float = 1.0
    joint_weights: Optional[Sequence[float]] = None
    damping: float = 1e-3
    max_damping: float = 0.1
    manipulability_threshold: float = 1e-3
    objectives: Sequence[Any] = field(default_factory=tuple)
    null_space_gain: float = 1.0
    secondary_iterations: int = 5
    max_step: float = 0.5
    tip_weight: Optional[float] = None
    fabrik_points: str = 'next'
    min_change: Optional[float] = None
    orientation_points_offset: float = 0.1
    progress_window: int = 10
    polish_iterations: Optional[int] = None
    fabrik_iterations: int = 10
    # ik_node.collision: keep clear of self-contact and ``obstacles``; see solver_hook.
    avoid_collisions: bool = False
    obstacles: Sequence[Any] = field(default_factory=tuple)
    collision_margin: float = 0.02
    collision_weight: float = 1.0

    @classmethod
    def from_kwargs(cls, used: frozenset = frozenset(), method: str = '',
                    defaults: Optional['SolveOptions'] = None, **kwargs) -> 'SolveOptions':
        """
        Build validated options; IKInputError names an unknown, unused or invalid option.

        used: the option names ``method`` uses (empty: every option). defaults: the method's
        defaults (the shared defaults when None). Only the given options are validated: the
        defaults are valid, so a call with few options costs a few microseconds (an
        :class:`ik_node.Solver` validates its options once).
        """
        return cls.from_mapping(kwargs, used, method, defaults)

    @classmethod
    def from_mapping(cls, kwargs: dict, used: frozenset = frozenset(), method: str = '',
                     defaults: Optional['SolveOptions'] = None) -> 'SolveOptions':
        """:meth:`from_kwargs` of a dict of options (``solve`` passes its own ``**options``)."""
        base = _DEFAULTS if defaults is None else defaults
        if not kwargs:
            return base
        for name in kwargs:
            if name not in _CHECKS:
                raise IKInputError(f'unknown option {name!r}; valid options: '
                                   f'{sorted(_CHECKS)}')
            if used and name not in used:
                raise IKInputError(f'option {name!r} is not used by method {method!r}; '
                                   f'it uses {sorted(used)}')
        for name, value in kwargs.items():
            _CHECKS[name](name, value)
        opts = replace(base, **kwargs)
        if opts.position_weight == 0.0:
            raise IKInputError('option position_weight must be > 0')
        return opts

    def validate(self) -> None:
        """Raise IKInputError naming the first invalid option."""
        for f in fields(self):
            _CHECKS[f.name](f.name, getattr(self, f.name))
        if self.position_weight == 0.0:
            raise IKInputError('option position_weight must be > 0')

    def solution_weights(self, n: int) -> Optional[np.ndarray]:
        """Return the (n,) joint weights of the choice among solutions, None when equal."""
        return None if self.joint_weights is None else 1.0 / self.joint_weights_inverse(n)

    def joint_weights_inverse(self, n: int) -> np.ndarray:
        """Return W⁻¹ as an (n,) array (ones when no joint weights are given)."""
        if self.joint_weights is None:
            return np.ones(n)
        try:
            w = np.array(self.joint_weights, dtype=float)
        except (TypeError, ValueError) as exc:
            raise IKInputError(f'option joint_weights must be {n} numbers: {exc}') from exc
        if (w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 1.0 / _MAX_OPTION)
                or np.any(w > _MAX_OPTION)):
            raise IKInputError(f'option joint_weights must be {n} numbers in '
                               f'[{1.0 / _MAX_OPTION:g}, {_MAX_OPTION:g}], got {w.tolist()}')
        return 1.0 / w


def _number(allow_zero: bool, optional: bool = False) -> Callable:
    def check(name, v):
        if optional and v is None:
            return
        # Real numbers only (a numeric string would reach the kernels as a str), bounded so
        # that squares and products in the solver cannot overflow.
        ok = (isinstance(v, (int, float, np.integer, np.floating))
              and not isinstance(v, bool) and math.isfinite(float(v))
              and (float(v) >= 0.0 if allow_zero else float(v) > 0.0)
              and float(v) <= _MAX_OPTION)
        if not ok:
            bound = '>= 0' if allow_zero else '> 0'
            raise IKInputError(f'option {name} must be a number {bound} and <= '
                               f'{_MAX_OPTION:g}, got {v!r}')
    return check


def _integer(lo: int, optional: bool = False) -> Callable:
    def check(name, v):
        if optional and v is None:
            return
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo \
                or v > _MAX_OPTION:
            raise IKInputError(f'option {name} must be an integer >= {lo} and <= '
                               f'{_MAX_OPTION:g}, got {v!r}')
    return check


def _rng_seed(name, v):
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer))):
        raise IKInputError(f'option rng_seed must be an integer or None, got {v!r}')


def _boolean(name, v):
    if not isinstance(v, (bool, np.bool_)):
        raise IKInputError(f'option {name} must be True or False, got {v!r}')


def _fabrik_points(name, v):
    if v not in ('next', 'all'):
        raise IKInputError(f"option fabrik_points must be 'next' or 'all', got {v!r}")


def _objectives(name, v):
    if not isinstance(v, (list, tuple)):
        raise IKInputError(f'option objectives must be a sequence of objectives, got {v!r}')


def _obstacles(name, v):
    # The shapes validate themselves (IKInputError for NaN or negative sizes); the hook
    # refuses obstacles given without avoid_collisions.
    if isinstance(v, (str, bytes)) or not hasattr(v, '__iter__'):
        raise IKInputError(f'option {name} must be a sequence of shapes (ik_node.Sphere, '
                           f'Box, Cylinder, HalfSpace), got {v!r}')


def _unchecked_here(name, v):
    # joint_weights need the chain's size: checked by joint_weights_inverse.
    pass


_CHECKS: dict[str, Callable] = {
    'position_tolerance': _number(False), 'orientation_tolerance': _number(False),
    'max_iterations': _integer(1), 'max_attempts': _integer(1), 'timeout': _number(False),
    'restarts': _boolean, 'solutions': _integer(1), 'rng_seed': _rng_seed,
    'max_joint_change': _number(False, optional=True),
    'position_weight': _number(True), 'orientation_weight': _number(True),
    'joint_weights': _unchecked_here, 'damping': _number(True), 'max_damping': _number(True),
    'manipulability_threshold': _number(True), 'objectives': _objectives,
    'null_space_gain': _number(True), 'secondary_iterations': _integer(0),
    'max_step': _number(False), 'tip_weight': _number(False, optional=True),
    'fabrik_points': _fabrik_points, 'min_change': _number(False, optional=True),
    'orientation_points_offset': _number(False), 'progress_window': _integer(0),
    'polish_iterations': _integer(0, optional=True), 'fabrik_iterations': _integer(0),
    'avoid_collisions': _boolean, 'obstacles': _obstacles,
    'collision_margin': _number(False), 'collision_weight': _number(True),
}

# The options every method uses: tolerances, budget, restarts, choice among solutions.
COMMON_OPTIONS = frozenset({'position_tolerance', 'orientation_tolerance', 'max_iterations',
                            'max_attempts', 'timeout', 'restarts', 'solutions', 'rng_seed',
                            'max_joint_change', 'avoid_collisions', 'obstacles'})
# Options of the collision clearance objective (the methods with null-space objectives).
CLEARANCE_OPTIONS = frozenset({'collision_margin', 'collision_weight'})


def kwargs_key(kwargs: dict) -> tuple:
    """
    Return the part of a cache key that stands for keyword options as given.

    In the caller's order (another order is another entry: sorting would cost more than the
    lookup saves); the types keep True apart from 1 and 1.0. Hashing it raises TypeError for
    a value that cannot be hashed (a list of joint weights).
    """
    return tuple(kwargs.items()), tuple(map(type, kwargs.values()))


# Validated once: the default options are immutable and shared by every plain solve() call.
_DEFAULTS = SolveOptions()
_DEFAULTS.validate()
assert set(_CHECKS) == {f.name for f in fields(SolveOptions)}
