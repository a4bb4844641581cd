# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The options of :func:`ik_node.tree.solve.solve_tree`: :class:`TreeSolveOptions`."""

from dataclasses import dataclass, field
import math
from typing import Any, Sequence

from ik_node.errors import IKInputError
from ik_node.options import DEFAULT_ORIENTATION_TOLERANCE, DEFAULT_POSITION_TOLERANCE
from ik_node.tree.targets import MODE_FREE, MODE_HOLD

__all__ = ['TreeSolveOptions']


@dataclass(frozen=True)
class TreeSolveOptions:
    """
    Options of :func:`ik_node.tree.solve.solve_tree`.

    Every method: tolerances [m], [rad] as :class:`ik_node.SolveOptions`; ``max_iterations``
    per attempt; ``max_attempts`` starts (the seed, then random joint values drawn with
    ``seed``); ``timeout`` [s]: the budget over the attempts (the first always runs, an
    attempt stops at it); ``untargeted``: 'hold' keeps a tip without a target at its pose
    at the seed (a task at the last priority level of the targets), 'free' lets it move.

    dls (and the polish of fabrik): ``damping`` λ₀ (dimensionless: errors are in units of
    ``length_scale``); ``objectives`` (:mod:`ik_node.solvers.objectives`: JointLimitAvoidance,
    RestPosture, Manipulability, ObstacleClearance), ``null_space_gain`` k,
    ``secondary_iterations`` and ``max_step`` [rad or m] as for one chain.

    fabrik: ``fabrik_iterations`` FABRIK iterations per attempt before the DLS polish.
    """

    position_tolerance: float = DEFAULT_POSITION_TOLERANCE
    orientation_tolerance: float = DEFAULT_ORIENTATION_TOLERANCE
    max_iterations: int = 100
    max_attempts: int = 200
    timeout: float = 0.05
    untargeted: str = MODE_HOLD
    damping: float = 1e-3
    seed: int = 0
    objectives: Sequence[Any] = field(default_factory=tuple)
    null_space_gain: float = 1.0
    secondary_iterations: int = 5
    max_step: float = 0.5
    fabrik_iterations: int = 20

    def __post_init__(self):
        """Raise IKInputError naming the option for a value out of range."""
        for name in ('position_tolerance', 'orientation_tolerance', 'damping', 'timeout',
                     'max_step'):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0.0):
                raise IKInputError(f'option {name} must be a finite number > 0, got {v!r}')
        v = self.null_space_gain
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0.0):
            raise IKInputError(f'option null_space_gain must be a finite number >= 0, got {v!r}')
        for name, low in (('max_iterations', 1), ('max_attempts', 1), ('seed', 0),
                          ('secondary_iterations', 0), ('fabrik_iterations', 1)):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < low:
                raise IKInputError(f'option {name} must be an int >= {low}, got {v!r}')
        if self.untargeted not in (MODE_HOLD, MODE_FREE):
            raise IKInputError(f"option untargeted must be 'hold' or 'free', "
                               f'got {self.untargeted!r}')
        if isinstance(self.objectives, (str, bytes)) or not isinstance(self.objectives,
                                                                       Sequence):
            raise IKInputError('option objectives must be a list of Objective instances')
