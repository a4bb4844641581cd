# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
What a tree solve is asked and what it answers.

:class:`TipTarget` (one tip's goal), :class:`TipResult` (one tip's outcome),
:class:`TreeIKResult` (the solve's).
"""

from dataclasses import dataclass
import math

from ik_node.errors import IKInputError
import numpy as np

__all__ = ['TipTarget', 'TipResult', 'TreeIKResult', 'MODE_TARGET', 'MODE_HOLD', 'MODE_FREE']

# TipResult.mode: what a tip was asked to do.
MODE_TARGET = 'target'
MODE_HOLD = 'hold'
MODE_FREE = 'free'


@dataclass(frozen=True)
class TipTarget:
    """
    What one tip should reach: a (4, 4) pose or a (3,) position [m] in the base_link frame.

    ``position_weight`` and ``orientation_weight`` (>= 0, not both 0) scale the tip's rows;
    ``priority`` 0 is solved first, 1 in the null space of 0, and so on.
    """

    pose: np.ndarray
    position_weight: float = 1.0
    orientation_weight: float = 1.0
    priority: int = 0

    def __post_init__(self):
        """Check and freeze the target: IKInputError for a bad shape, NaN or weight."""
        a = np.array(self.pose, dtype=float)
        if a.shape not in ((4, 4), (3,)) or not np.all(np.isfinite(a)):
            raise IKInputError(f'a tip target must be a finite (4, 4) pose or (3,) position, '
                               f'got shape {a.shape}')
        a.setflags(write=False)
        object.__setattr__(self, 'pose', a)
        for name in ('position_weight', 'orientation_weight'):
            w = getattr(self, name)
            if not (isinstance(w, (int, float)) and math.isfinite(w) and w >= 0.0):
                raise IKInputError(f'{name} must be a finite number >= 0, got {w!r}')
        if self.position_weight == 0.0 and (a.shape == (3,) or self.orientation_weight == 0.0):
            raise IKInputError('a tip target with every weight 0 asks for nothing')
        if not isinstance(self.priority, int) or self.priority < 0:
            raise IKInputError(f'priority must be an int >= 0, got {self.priority!r}')

    @property
    def position_only(self) -> bool:
        """Return True for a (3,) position target (no orientation rows)."""
        return self.pose.shape == (3,)


@dataclass(frozen=True)
class TipResult:
    """
    One tip's outcome: errors by FK of the result's ``q`` against its task.

    ``mode`` is 'target', 'hold' (the pose at the seed) or 'free' (no task: errors nan,
    success True). ``orientation_error`` is nan for a position-only target.
    """

    tip_link: str
    mode: str
    success: bool
    position_error: float
    orientation_error: float


@dataclass(frozen=True)
class TreeIKResult:
    """
    Outcome of :func:`solve_tree`.

    ``q`` (n,) the best joint vector found (inside the limits, read-only); ``success`` when
    every tip with a task (targets and holds) is within both tolerances; ``tips`` one
    :class:`TipResult` per tip in ``tip_links`` order; ``position_error`` and
    ``orientation_error`` the largest over the tips with a task (nan when none has one).
    With ``avoid_collisions``: success also needs ``q`` free of contact; ``clearance`` [m]
    is the smallest signed distance over the checked pairs and obstacles at ``q`` (< 0:
    contact) and ``closest_pair`` names it (nan and () without a collision check).
    """

    q: np.ndarray
    success: bool
    tips: tuple
    iterations: int
    attempts: int
    status: str
    message: str = ''
    method: str = 'dls'
    clearance: float = math.nan
    closest_pair: tuple = ()

    def __post_init__(self):
        """Freeze ``q``."""
        q = np.array(self.q, dtype=float)
        q.setflags(write=False)
        object.__setattr__(self, 'q', q)

    def tip(self, tip_link: str) -> TipResult:
        """Return the result of the tip named ``tip_link``."""
        for r in self.tips:
            if r.tip_link == tip_link:
                return r
        raise IKInputError(f'{tip_link!r} is not a tip of this result '
                           f'(tips: {[r.tip_link for r in self.tips]})')

    @property
    def position_error(self) -> float:
        """Return the largest position error [m] over the tips with a task."""
        values = [r.position_error for r in self.tips if r.mode != MODE_FREE]
        return max(values) if values else math.nan

    @property
    def orientation_error(self) -> float:
        """Return the largest orientation error [rad] over the tips with an orientation."""
        values = [r.orientation_error for r in self.tips
                  if r.mode != MODE_FREE and not math.isnan(r.orientation_error)]
        return max(values) if values else math.nan
