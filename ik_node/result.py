# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The one result type every solver returns."""

from dataclasses import dataclass

import numpy as np

__all__ = ['IKResult', 'STATUS_REACHED', 'STATUS_OUT_OF_REACH', 'STATUS_NOT_CONVERGED',
           'STATUS_BLOCKED', 'STATUS_TOO_FAR', 'STATUS_POSITION_ONLY']

# Values of IKResult.status.
STATUS_REACHED = 'reached'
STATUS_OUT_OF_REACH = 'out_of_reach'
STATUS_NOT_CONVERGED = 'not_converged'
STATUS_BLOCKED = 'blocked'
STATUS_TOO_FAR = 'beyond_max_joint_change'
STATUS_POSITION_ONLY = 'position_only'


@dataclass(frozen=True)
class IKResult:
    """
    Outcome of an IK solve.

    ``q`` (n,) is the best joint vector found, always finite and inside the joint limits;
    ``success`` is True when it meets both tolerances. Errors are measured by FK of ``q``:
    ``position_error`` [m], ``orientation_error`` [rad] (nan for position-only targets).
    ``iterations`` counts solver iterations over all attempts; ``attempts`` the starts tried.
    ``status`` says why: ``'reached'`` (success), ``'out_of_reach'`` (the target is beyond the
    arm's reach bound, or every attempt stretched to the same best pose: ``q`` is that
    stretched pose), ``'not_converged'`` (no attempt met the tolerances within the budget;
    the target may still be reachable), or ``'blocked'`` (with ``avoid_collisions``: answers
    met the tolerances but every one collided; ``message`` names the pair), or
    ``'beyond_max_joint_change'`` (answers met the tolerances but each moved a joint farther
    from the seed than the ``max_joint_change`` option allows; ``message`` names the joint),
    or ``'position_only'`` (a pose target on an arm with fewer than 6 joints: the point is
    met, the orientation only as nearly as those joints allow).
    """

    q: np.ndarray
    success: bool
    position_error: float
    orientation_error: float
    iterations: int
    method: str
    attempts: int = 1
    message: str = ''
    status: str = ''

    def __post_init__(self):
        """Freeze ``q`` so a result cannot be changed behind the caller's back."""
        q = np.array(self.q, dtype=float)
        q.setflags(write=False)
        object.__setattr__(self, 'q', q)
        if not self.status:
            object.__setattr__(self, 'status',
                               STATUS_REACHED if self.success else STATUS_NOT_CONVERGED)

    @classmethod
    def of_solver(cls, q: np.ndarray, success: bool, position_error: float,
                  orientation_error: float, iterations: int, method: str, attempts: int,
                  message: str, status: str) -> 'IKResult':
        """
        Return the result of a solver's own values, without the checks of ``__init__``.

        For solvers only: ``q`` is a float array nobody else holds (it is frozen in place),
        the numbers are Python floats and ints, ``status`` is set. About a quarter of the
        cost of the checked construction, which counts in a solve of a few dozen µs.
        """
        q.setflags(write=False)
        result = object.__new__(cls)
        result.__dict__.update(q=q, success=success, position_error=position_error,
                               orientation_error=orientation_error, iterations=iterations,
                               method=method, attempts=attempts, message=message,
                               status=status)
        return result
