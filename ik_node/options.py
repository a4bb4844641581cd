# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Solver options: defaults, validation, and the clear error for a bad or unknown option."""

from dataclasses import dataclass, field, fields, replace
import math
from typing import Any, Optional, Sequence

from ik_node.errors import IKInputError
import numpy as np

__all__ = ['SolveOptions']

_MAX_OPTION = 1e6


@dataclass(frozen=True)
class SolveOptions:
    """
    Options shared by the Jacobian solvers (units in brackets).

    position_tolerance [m], orientation_tolerance [rad]: success thresholds.
    max_iterations: per attempt. max_attempts, timeout [s]: budget over restarts.
    position_weight, orientation_weight [1/m, 1/rad]: task weights of the error rows.
    joint_weights (n,): larger means the joint moves less (W in Δq = W⁻¹Jᵀ(...)).
    damping λ₀, max_damping λ_max, manipulability_threshold w₀: DLS damping terms.
    objectives: secondary objectives (ik_node.objectives); null_space_gain k;
    secondary_iterations: extra null-space iterations once the target is reached.
    max_step [rad or m]: step cap of jt/pinv and of the null-space step.
    restarts: try random starts when the first attempt fails; solutions: how many solutions
    to collect among restarts before returning the one nearest the seed; rng_seed: seed of
    the restart sampler (None: fresh entropy).
    avoid_collisions: a successful answer must be collision-free (self, ``obstacles``);
    collision_margin [m], collision_weight: the clearance objective's margin and weight.
    """

    position_tolerance: float = 1e-3
    orientation_tolerance: float = 1e-2
    max_iterations: int = 100
    max_attempts: int = 200
    timeout: float = 0.05
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
    restarts: bool = True
    solutions: int = 1
    rng_seed: Optional[int] = 20260917
    # ik_node.collision: keep clear of self-contact and ``obstacles``; see solver_hook.
    avoid_collisions: bool = False
    obstacles: Sequence[Any] = field(default_factory=tuple)
    collision_margin: float = 0.02
    collision_weight: float = 1.0

    @classmethod
    def from_kwargs(cls, **kwargs) -> 'SolveOptions':
        """Build validated options; IKInputError names an unknown or invalid option."""
        if not kwargs:
            return _DEFAULTS
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise IKInputError(f'unknown option(s) {unknown}; valid options: {sorted(known)}')
        opts = replace(cls(), **kwargs)
        opts.validate()
        return opts

    def validate(self) -> None:
        """Raise IKInputError naming the first invalid option."""
        def positive(name, allow_zero=False):
            v = getattr(self, name)
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

        for name in ('position_tolerance', 'orientation_tolerance', 'timeout', 'max_step',
                     'collision_margin'):
            positive(name)
        for name in ('position_weight', 'orientation_weight', 'damping', 'max_damping',
                     'manipulability_threshold', 'null_space_gain', 'collision_weight'):
            positive(name, allow_zero=True)
        if self.position_weight == 0.0:
            raise IKInputError('option position_weight must be > 0')
        for name, lo in (('max_iterations', 1), ('max_attempts', 1), ('solutions', 1),
                         ('secondary_iterations', 0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise IKInputError(f'option {name} must be an integer >= {lo}, got {v!r}')
        if not isinstance(self.avoid_collisions, (bool, np.bool_)):
            raise IKInputError(f'option avoid_collisions must be True or False, '
                               f'got {self.avoid_collisions!r}')
        if self.rng_seed is not None and (isinstance(self.rng_seed, bool)
                                          or not isinstance(self.rng_seed, (int, np.integer))):
            raise IKInputError(f'option rng_seed must be an integer or None, '
                               f'got {self.rng_seed!r}')

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


# Validated once: the default options are immutable and shared by every plain solve() call.
_DEFAULTS = SolveOptions()
_DEFAULTS.validate()
