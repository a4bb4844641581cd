# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The one result type every solver returns."""

from dataclasses import dataclass

import numpy as np

__all__ = ['IKResult']


@dataclass(frozen=True)
class IKResult:
    """
    Outcome of an IK solve.

    ``q`` (n,) is the best joint vector found, always finite and inside the joint limits;
    ``success`` is True when it meets both tolerances. Errors are measured by FK of ``q``:
    ``position_error`` [m], ``orientation_error`` [rad] (nan for position-only targets).
    ``iterations`` counts solver iterations over all attempts; ``attempts`` the starts tried.
    """

    q: np.ndarray
    success: bool
    position_error: float
    orientation_error: float
    iterations: int
    method: str
    attempts: int = 1
    message: str = ''

    def __post_init__(self):
        """Freeze ``q`` so a result cannot be changed behind the caller's back."""
        q = np.array(self.q, dtype=float)
        q.setflags(write=False)
        object.__setattr__(self, 'q', q)
