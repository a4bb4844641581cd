# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The records the tracker answers with: a solved target, one command step, a refused reading.

Plain frozen dataclasses: :class:`SolveOutcome` (how a target was answered and how the arm
goes there), :class:`StepReport` (the command of one step) and :class:`FeedbackProblem` (why a
joint_states message was not used).
"""

from dataclasses import dataclass
from typing import Any

from ik_node.motion.motion_kinds import REFUSED, SUPERSEDED
from ik_node.result import IKResult
import numpy as np

__all__ = ['FeedbackProblem', 'SolveOutcome', 'StepReport']


@dataclass(frozen=True)
class FeedbackProblem:
    """
    Why a joint_states message was ignored.

    kind: 'length', 'missing', 'duplicate', 'nonfinite' or 'limits'; message: the details.
    """

    kind: str
    message: str


@dataclass(frozen=True)
class SolveOutcome:
    """
    One answered target: the result, the seed it started from and the wall time it took.

    path: 'streaming' (a small step of a stream, solved warm) or 'goal' (searched and
    planned); motion: 'direct' (straight joint line or a blend), 'planned' (around obstacles),
    'pending' (a goal mid-motion whose straight path is blocked: the arm brakes on its path
    and the path is planned at rest, answered again then), 'refused' (the arm does not
    move for it; ``reason`` says why) or 'superseded' (dropped before its search ended: a
    newer target came; ``reason`` says what). search_time and
    plan_time [s]: the goal search's IK answers and path checks and planning (0 when
    streaming). tag: the caller's label of the target (its message header), or None.
    """

    result: IKResult
    target: np.ndarray          # (4, 4) pose or (3,) position in the base frame
    seed_source: str            # 'joint_states', 'solution', 'command' or 'cold'
    solve_time: float           # [s]
    path: str = 'streaming'
    motion: str = 'direct'
    reason: str = ''
    search_time: float = 0.0
    plan_time: float = 0.0
    waypoints: int = 2
    tag: Any = None

    @property
    def refused(self) -> bool:
        """Return True when the arm does not move for this target."""
        return self.motion in (REFUSED, SUPERSEDED)


@dataclass(frozen=True)
class StepReport:
    """
    Outcome of one filtered step.

    q: (n,) command to publish [rad or m]. dt: time the step was sized for [s].
    The masks are (n,) bool: ``nonfinite`` goal entries held at the previous command,
    ``position_clamped`` goal entries clipped into the joint limits, ``velocity_clamped`` steps
    cut to ``v_max * dt``. ``reached`` is True when ``q`` equals the clipped goal. v, a: (n,)
    commanded velocity [rad/s or m/s] and acceleration, where the command follows a
    trajectory (the IK node's), else None.
    """

    q: np.ndarray
    dt: float
    nonfinite: np.ndarray
    position_clamped: np.ndarray
    velocity_clamped: np.ndarray
    reached: bool
    v: np.ndarray | None = None
    a: np.ndarray | None = None

    def describe(self, names: tuple[str, ...]) -> str:
        """Return a short human-readable list of what was clamped ('' if nothing)."""
        parts = []
        for label, mask in (('non-finite goal held', self.nonfinite),
                            ('goal outside limits', self.position_clamped),
                            ('velocity limited', self.velocity_clamped)):
            if np.any(mask):
                parts.append(f'{label}: ' + ', '.join(n for n, m in zip(names, mask) if m))
        return '; '.join(parts)
