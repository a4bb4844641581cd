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

    Collisions (every method): ``avoid_collisions`` (an answer must be free of contact: every
    link of the tree against every other checked link, across branches too, and against
    ``obstacles``: ik_node.HalfSpace, Sphere, Box, Cylinder in the base_link frame; the tree
    needs its collision geometry, :meth:`ik_node.TreeChain.from_urdf`); ``collision_margin``
    [m] and ``collision_weight``: the clearance objective of the retry of a start whose
    answer collided (:mod:`ik_node.tree.drive`).
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
    avoid_collisions: bool = False
    obstacles: Sequence[Any] = field(default_factory=tuple)
    collision_margin: float = 0.02
    collision_weight: float = 1.0

    def __post_init__(self):
        """Raise IKInputError naming the option for a value out of range."""
        for name in ('position_tolerance', 'orientation_tolerance', 'damping', 'timeout',
                     'max_step', 'collision_margin'):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0.0):
                raise IKInputError(f'option {name} must be a finite number > 0, got {v!r}')
        for name in ('null_space_gain', 'collision_weight'):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0.0):
                raise IKInputError(f'option {name} must be a finite number >= 0, got {v!r}')
        if not isinstance(self.avoid_collisions, bool):
            raise IKInputError(f'option avoid_collisions must be True or False, '
                               f'got {self.avoid_collisions!r}')
        if isinstance(self.obstacles, (str, bytes)) or not isinstance(self.obstacles,
                                                                      Sequence):
            raise IKInputError('option obstacles must be a list of ik_node shapes '
                               '(HalfSpace, Sphere, Box, Cylinder)')
        if self.obstacles and not self.avoid_collisions:
            raise IKInputError('option obstacles needs avoid_collisions=True')
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
