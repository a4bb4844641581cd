# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
CollisionClearance: the null-space objective that keeps links away from contact.

h(q) = ½ Σ max(0, margin - d_i(q))² over the checked link pairs and the moving links against
each obstacle, d_i the conservative signed distance of :mod:`ik_node.collision.kernels`
(capsules, tightened by their hulls). Its gradient moves the closest points apart along
their separating direction (held fixed where a hull gap sets d, so there it is a descent
direction rather than the exact gradient); the solver projects it into the null space of
the task, so it uses redundancy only and never pulls the tip off the target.
"""

from dataclasses import dataclass, field
import math
from typing import Sequence

from ik_node.collision.shapes import pack_obstacles
from ik_node.errors import IKInputError
from ik_node.solvers.objectives import ClearanceTerms, Objective

__all__ = ['CollisionClearance']


@dataclass(frozen=True)
class CollisionClearance(Objective):
    """Keep checked pairs and obstacles ``margin`` [m] apart (chain from Chain.from_urdf)."""

    obstacles: Sequence = field(default_factory=tuple)
    margin: float = 0.02
    weight: float = 1.0

    def _fill(self, chain, packed: dict) -> None:
        w = float(self.weight)
        if not math.isfinite(w) or w < 0.0:
            raise IKInputError(f'objective weight must be finite and >= 0, got {self.weight!r}')
        margin = float(self.margin)
        if not math.isfinite(margin) or margin <= 0.0:
            raise IKInputError(f'collision margin must be > 0 [m], got {self.margin!r}')
        if packed['collision'].weight > 0.0:
            raise IKInputError('a solve takes one CollisionClearance objective')
        F, K = chain.collision_setup.model.flat
        packed['collision'] = ClearanceTerms(w, margin, F, K, pack_obstacles(self.obstacles))
