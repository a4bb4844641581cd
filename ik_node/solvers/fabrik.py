# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
FABRIK as an ``ik_node.solve`` method ('fabrik'); 'ccd' and 'hybrid' build on it.

``solve(chain, target, method='fabrik')`` runs FABRIK on the joint positions of the URDF arm
and maps each backward pass to joint angles (:mod:`ik_node.solvers.fabrik_chain`). The answer
is a q inside the limits whose forward kinematics is checked here, after the kernel, against
the tolerances; the FABRIK points themselves are never reported.

Targets. A (3,) position is the main case. A (4, 4) pose is handled too: the last joint's
origin is carried by the target frame in the forward pass, and two virtual points on the tip
frame are aligned with their places on the target frame in the backward pass; this converges
more slowly than for positions and is not always within the orientation tolerance, so for
poses prefer ``method='hybrid'`` (FABRIK start, DLS finish).

Options (besides :class:`ik_node.options.SolveOptions`: tolerances, max_iterations per
attempt, max_attempts, timeout, restarts, solutions, rng_seed):

- ``tip_weight`` (3.0 for 'fabrik'): weight of the tip (and of the virtual orientation points)
  against the FABRIK joint point in each joint's alignment.
- ``fabrik_points`` ('next'): each joint aligns the next joint point off its axis with its
  FABRIK target; 'all' aligns every point beyond it.
- ``min_change`` [m] (position_tolerance / 1000): an attempt stops as stalled when the tip
  moves less than this in one iteration.
- ``orientation_points_offset`` [m] (0.1): distance of the virtual orientation points from
  the tip.
- ``progress_window`` (10): an attempt also stops as stalled when its error did not halve
  over this many iterations (0: off). FABRIK and CCD converge linearly, and a few targets
  creep towards the tolerance for hundreds of iterations.
- ``polish_iterations`` (5 for 'fabrik', 0 for 'ccd'): when an attempt stops short of the
  tolerance, at most this many damped least-squares (Levenberg-Marquardt) steps finish it
  from the best q found. On the Panda benchmark about one solve in eight needs them; with 0
  the method is pure FABRIK and relies on random restarts instead (slower tail).

The point-chain solver (no URDF) is :func:`ik_node.solvers.fabrik_points.fabrik`.
"""

import math
from typing import Callable

from ik_node.collision import solver_hook
from ik_node.errors import IKInputError
from ik_node.options import SolveOptions
from ik_node.pose import pose_error
from ik_node.result import IKResult
from ik_node.solve import register_method
from ik_node.solvers.constraints import BallJoint, constraint_violation, HingeJoint
from ik_node.solvers.fabrik_chain import arm_attempt, MODE_FABRIK
from ik_node.solvers.fabrik_points import fabrik, PointSolution
from ik_node.solvers.restarts import (Budget, failure_message, out_of_reach, pick_nearest,
                                      Starts, wrap_continuous)
import numpy as np

__all__ = ['fabrik', 'PointSolution', 'BallJoint', 'HingeJoint', 'constraint_violation',
           'solve_fabrik', 'make_arm_solver', 'ArmOptions', 'split_options', 'run_restarts',
           'final_errors']

# An attempt that did not halve its error over ``progress_window`` iterations is stalled.
_PROGRESS = 0.5


class ArmOptions:
    """The FABRIK/CCD options that are not :class:`SolveOptions` fields (see module doc)."""

    __slots__ = ('tip_weight', 'next_only', 'min_change', 'offset', 'window', 'polish')

    def __init__(self, tip_weight: float, next_only: bool, min_change: float, offset: float,
                 window: int, polish: int):
        """Store validated values."""
        self.tip_weight = tip_weight
        self.next_only = next_only
        self.min_change = min_change
        self.offset = offset
        self.window = window
        self.polish = polish


def _count(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise IKInputError(f'option {name} must be an integer >= 0, got {value!r}')
    return int(value)


def _positive(name: str, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not (math.isfinite(v) and v > 0.0):
        raise IKInputError(f'option {name} must be a finite number > 0, got {value!r}')
    return v


def split_options(options: dict, tip_weight: float = 3.0, polish: int = 5) -> tuple:
    """Return (SolveOptions, ArmOptions) from keyword options; IKInputError when invalid."""
    opts = dict(options)
    tw = _positive('tip_weight', opts.pop('tip_weight', tip_weight))
    window = _count('progress_window', opts.pop('progress_window', 10))
    polish = _count('polish_iterations', opts.pop('polish_iterations', polish))
    pts = opts.pop('fabrik_points', 'next')
    if pts not in ('next', 'all'):
        raise IKInputError(f"option fabrik_points must be 'next' or 'all', got {pts!r}")
    min_change = opts.pop('min_change', None)
    offset = _positive('orientation_points_offset', opts.pop('orientation_points_offset', 0.1))
    solve_opts = SolveOptions.from_kwargs(**opts)
    if min_change is None:
        min_change = 1e-3 * solve_opts.position_tolerance
    else:
        min_change = _positive('min_change', min_change)
    return solve_opts, ArmOptions(tw, pts == 'next', min_change, offset, window, polish)


def final_errors(chain, target: np.ndarray, q: np.ndarray) -> tuple:
    """Return (position error [m], orientation error [rad] or nan) of q, by the chain's FK."""
    T = chain.fk(q)
    if target.shape == (3,):
        return float(np.linalg.norm(T[:3, 3] - target)), math.nan
    return pose_error(target, T)


def run_restarts(chain, target: np.ndarray, q0: np.ndarray, opts: SolveOptions,
                 attempt: Callable, method: str) -> IKResult:
    """
    Run ``attempt(start) -> (q, iterations, ok)`` from q0, then from random starts.

    The budget (max_attempts, timeout), the choice among solutions (nearest the seed) and the
    final forward-kinematics check are shared by 'fabrik', 'ccd' and 'hybrid'.
    """
    pose = target.shape == (4, 4)
    tp = target[:3, 3] if pose else target
    beyond_reach = out_of_reach(chain, tp, opts.position_tolerance)
    budget = Budget(opts.max_attempts if (opts.restarts and not beyond_reach) else 1,
                    opts.timeout)
    starts = Starts(chain, q0, opts.rng_seed)
    solutions = []
    best = None
    blocked = None
    iterations = 0
    while budget.take():
        start = starts.start(budget.attempts)
        q, it, _ = attempt(start)
        iterations += int(it)
        q = wrap_continuous(np.clip(q, chain.lower, chain.upper), q0, chain.continuous)
        perr, oerr = final_errors(chain, target, q)
        ok = perr <= opts.position_tolerance and (not pose
                                                  or oerr <= opts.orientation_tolerance)
        reason = solver_hook.collision_reason(chain, q, opts) if ok else None
        if reason is not None:
            ok, blocked = False, reason
        if ok:
            solutions.append((q, perr, oerr))
            if len(solutions) >= opts.solutions or budget.attempts == 1:
                break
            continue
        score = perr * opts.position_weight + (oerr * opts.orientation_weight if pose else 0.0)
        if best is None or score < best[0]:
            best = (score, q, perr, oerr)
    if solutions:
        q, perr, oerr = pick_nearest(solutions, q0, np.ones(chain.n))
        success, message = True, ''
    else:
        _, q, perr, oerr = best
        success = False
        message = failure_message(beyond_reach, budget.attempts, perr, oerr, pose)
        if blocked is not None:
            message += f'; answers within tolerance collide: {blocked}'
    return IKResult(q=q, success=success, position_error=perr, orientation_error=oerr,
                    iterations=iterations, method=method, attempts=budget.attempts,
                    message=message)


def _unpack(target: np.ndarray) -> tuple:
    if target.shape == (4, 4):
        return (np.ascontiguousarray(target[:3, 3]), np.ascontiguousarray(target[:3, :3]),
                True)
    return np.ascontiguousarray(target, dtype=float), np.eye(3), False


def make_arm_solver(mode: int, method: str, tip_weight: float, polish: int) -> Callable:
    """Return an ``ik_node.solve`` method running :func:`arm_attempt` in ``mode``."""

    def solve_arm(chain, target: np.ndarray, q0: np.ndarray, **options) -> IKResult:
        opts, arm = split_options(options, tip_weight, polish)
        tp, tR, pose = _unpack(target)
        cont = np.asarray(chain.continuous)

        def attempt(start):
            q, it, _, _, ok, polish_it = arm_attempt(
                chain.model, np.asarray(start, dtype=float), chain.lower, chain.upper, cont,
                tp, tR, pose, opts.position_tolerance, opts.orientation_tolerance,
                opts.max_iterations, arm.min_change, arm.offset, mode, arm.tip_weight,
                arm.next_only, arm.window, _PROGRESS, arm.polish)
            return q, it + polish_it, ok

        return run_restarts(chain, target, q0, opts, attempt, method)

    solve_arm.__name__ = f'solve_{method}'
    return solve_arm


solve_fabrik = make_arm_solver(MODE_FABRIK, 'fabrik', 3.0, 5)
solve_fabrik.__doc__ = ('Solve IK with FABRIK on the joint positions mapped to joint angles '
                        '(ik_node.solve method "fabrik"; options in the module doc).')

register_method('fabrik', solve_fabrik)
