# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Entry point of the Jacobian solver family ('dls', 'pinv', 'jt') for ik_node.solve."""

import math

from ik_node.collision import solver_hook
from ik_node.objectives import empty_objectives, objectives_active, pack_objectives
from ik_node.options import SolveOptions
from ik_node.result import IKResult
from ik_node.solvers.dls import METHOD_CODES, run_attempt
from ik_node.solvers.restarts import (Budget, failure_message, out_of_reach, pick_nearest,
                                      Starts, wrap_continuous)
import numpy as np

__all__ = ['solve_jacobian', 'unpack_target']

_UNDERACTUATED_TRIES = 8
_CHUNK = 256


def unpack_target(target: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Return (position (3,), rotation (3, 3), is_pose) of a validated target."""
    if target.shape == (4, 4):
        return (np.ascontiguousarray(target[:3, 3]), np.ascontiguousarray(target[:3, :3]),
                True)
    return np.ascontiguousarray(target), np.eye(3), False


def solve_jacobian(chain, target: np.ndarray, q0: np.ndarray, method: str = 'dls',
                   **options) -> IKResult:
    """Solve with a Jacobian method; see :class:`ik_node.options.SolveOptions` for options."""
    opts = SolveOptions.from_kwargs(**options)
    return run_jacobian(chain, target, q0, method, opts)


def run_jacobian(chain, target: np.ndarray, q0: np.ndarray, method: str,
                 opts: SolveOptions) -> IKResult:
    """Solve with validated options (used by the hybrid solver too)."""
    code = METHOD_CODES[method]
    tp, tR, pose = unpack_target(target)
    w_inv = opts.joint_weights_inverse(chain.n)
    objectives = tuple(opts.objectives) + solver_hook.clearance_objectives(
        chain, opts, 6 if pose else 3)
    obj = pack_objectives(chain, objectives) if objectives else empty_objectives(chain.n)
    obj_on = bool(objectives) and objectives_active(obj)
    # Restarts cannot help a target beyond the arm's reach: one attempt stretches toward it.
    beyond_reach = out_of_reach(chain, tp, opts.position_tolerance)
    restarts = opts.restarts and not beyond_reach
    budget = Budget(opts.max_attempts if restarts else 1, opts.timeout)
    # With n < 6 a pose is reachable only by chance: once a few attempts reached the point,
    # more restarts would only polish the orientation at the cost of the whole timeout.
    underactuated = pose and chain.n < 6
    point_reached = 0
    starts = Starts(chain, q0, opts.rng_seed)
    solutions = []
    blocked = None

    def attempt(start, priority, use_objectives=obj_on):
        # A long attempt runs in chunks, so that the timeout is checked inside it too; the
        # default max_iterations fits in one chunk.
        remaining, total, q = opts.max_iterations, 0, start
        while True:
            chunk = min(remaining, _CHUNK)
            q, it, perr, oerr, ok = run_attempt(
                chain.model, chain.n, q, tp, tR, pose, chain.lower, chain.upper, code,
                opts.position_weight, opts.orientation_weight, w_inv, opts.position_tolerance,
                opts.orientation_tolerance, chunk, opts.damping, opts.max_damping,
                opts.manipulability_threshold, obj, use_objectives, opts.null_space_gain,
                opts.max_step, opts.secondary_iterations, priority)
            total += it
            remaining -= it
            if ok or it < chunk or remaining <= 0 or budget.expired():
                return q, total, perr, oerr, ok

    best = None
    iterations = 0
    while budget.take():
        start = starts.start(budget.attempts)
        if underactuated:
            # Balance position and orientation first, so the position-first iteration
            # starts in the basin of the best-oriented branch rather than a flipped one.
            start, it, _, _, _ = attempt(start, False)
            iterations += it
        q, it, perr, oerr, ok = attempt(start, underactuated)
        iterations += it
        if obj_on and not ok:
            # The objectives must never cost the primary task a solution: the same start
            # without them gets its chance too.
            q, it, perr, oerr, ok = attempt(start, underactuated, False)
            iterations += it
        q = wrap_continuous(q, q0, chain.continuous)
        reason = solver_hook.collision_reason(chain, q, opts) if ok else None
        if reason is not None:
            ok, blocked = False, reason
        if ok:
            solutions.append((q, perr, oerr))
            if len(solutions) >= opts.solutions or budget.attempts == 1:
                break
            continue
        # Failed attempts are ranked position first, as a user expects from an unreachable
        # target: get as close as possible, then orient.
        score = (max(perr - opts.position_tolerance, 0.0), oerr if pose else 0.0)
        if best is None or score < best[0]:
            best = (score, q, perr, oerr)
        if underactuated and perr <= opts.position_tolerance:
            point_reached += 1
            if point_reached >= _UNDERACTUATED_TRIES:
                break
    if solutions:
        q, perr, oerr = pick_nearest(solutions, q0, 1.0 / w_inv)
        success = True
        message = ''
    else:
        _, q, perr, oerr = best
        success = False
        message = failure_message(beyond_reach, budget.attempts, perr, oerr, pose)
        if blocked is not None:
            message += f'; answers within tolerance collide: {blocked}'
    return IKResult(q=q, success=success, position_error=float(perr),
                    orientation_error=float(oerr) if pose else math.nan,
                    iterations=iterations, method=method, attempts=budget.attempts,
                    message=message)
