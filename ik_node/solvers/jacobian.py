# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Attempts of the Jacobian solver family ('dls', 'pinv', 'jt') for the restart driver.

One attempt runs :func:`ik_node.solvers.dls.run_attempt` from one start. A pose target on an
arm with fewer than 6 joints takes two passes: weighted least squares first (so the
position-first pass starts in the basin of the best-oriented branch, not a flipped one),
then position first with orientation in the null space. With objectives, an attempt that
fails is run again without them: they must never cost the primary task a solution.
"""

from typing import Callable, NamedTuple

from ik_node.collision import solver_hook
from ik_node.objectives import empty_objectives, objectives_active, pack_objectives
from ik_node.options import CLEARANCE_OPTIONS
from ik_node.solvers.dls import DlsParams, METHOD_CODES, run_attempt
from ik_node.solvers.records import make_target
import numpy as np

__all__ = ['prepare_jacobian', 'attempt_records', 'JACOBIAN_OPTIONS', 'CHUNK']

# Iterations per kernel call: a long attempt runs in chunks so that the timeout is checked
# inside it too; the default max_iterations fits in one chunk.
CHUNK = 256

JACOBIAN_OPTIONS = frozenset({
    'position_weight', 'orientation_weight', 'joint_weights', 'damping', 'max_damping',
    'manipulability_threshold', 'objectives', 'null_space_gain', 'secondary_iterations',
    'max_step'}) | CLEARANCE_OPTIONS


def attempt_records(code: int, chain, tgt, opts) -> tuple:
    """
    Return (DlsParams, packed objectives, objectives active) of one target's attempts.

    code: METHOD_DLS, METHOD_PINV or METHOD_JT; tgt: the target record. The parameters have
    priority False; the attempt sets it for a pose target on an arm with n < 6.
    """
    objectives = tuple(opts.objectives) + solver_hook.clearance_objectives(
        chain, opts, 6 if tgt.pose else 3)
    if objectives:
        obj = pack_objectives(chain, objectives)
        obj_on = objectives_active(obj)
    else:
        obj, obj_on = empty_objectives(chain.n), False
    params = DlsParams(
        method=code, w_pos=opts.position_weight / chain.length_scale,
        w_ori=float(opts.orientation_weight), w_inv=opts.joint_weights_inverse(chain.n),
        tol_p=float(opts.position_tolerance), tol_o=float(opts.orientation_tolerance),
        max_iter=min(int(opts.max_iterations), CHUNK), lam0=float(opts.damping),
        lam_max=float(opts.max_damping), w0=float(opts.manipulability_threshold),
        objectives_on=bool(obj_on), k_null=float(opts.null_space_gain),
        max_step=float(opts.max_step), secondary_iter=int(opts.secondary_iterations),
        priority=False)
    return params, obj, obj_on


# The records of recent (chain, options, method, pose or point) without objectives: they
# depend on nothing else, and building them costs more than a short solve's iterations.
_RECORDS: dict = {}
_RECORDS_SIZE = 64


class _Passes(NamedTuple):
    """The DlsParams of one target's attempts, and its objectives."""

    plain: DlsParams        # n < 6 pose: the weighted first pass
    first: DlsParams        # the attempt (position first for an n < 6 pose)
    no_obj: DlsParams       # the retry without objectives
    obj: tuple
    obj_on: bool


def _passes(code: int, chain, tgt, opts) -> _Passes:
    """Return the attempts' records; kept for the same chain and options without objectives."""
    cache = not (opts.objectives or opts.avoid_collisions)
    key = (id(chain), id(opts), code, tgt.pose)
    if cache:
        hit = _RECORDS.get(key)
        if hit is not None and hit[0] is chain and hit[1] is opts:
            return hit[2]
    params, obj, obj_on = attempt_records(code, chain, tgt, opts)
    first = params._replace(priority=tgt.pose and chain.n < 6)
    passes = _Passes(params, first, first._replace(objectives_on=False), obj, obj_on)
    if cache:
        if len(_RECORDS) >= _RECORDS_SIZE:
            _RECORDS.clear()
        _RECORDS[key] = (chain, opts, passes)
    return passes


def prepare_jacobian(method: str) -> Callable:
    """Return ``prepare(chain, target, opts) -> attempt`` for Jacobian method ``method``."""
    code = METHOD_CODES[method]

    def prepare(chain, target: np.ndarray, opts) -> Callable:
        tgt = make_target(target)
        plain, first, no_obj, obj, obj_on = _passes(code, chain, tgt, opts)
        underactuated = tgt.pose and chain.n < 6
        model, limits = chain.model, chain.limits
        max_iterations = int(opts.max_iterations)

        def run(start, budget, params):
            if max_iterations <= params.max_iter:
                # The usual case: the whole attempt in one kernel call.
                q, it, _, _, ok = run_attempt(model, limits, tgt, params, obj, start)
                return q, it, ok
            remaining, total, q = max_iterations, 0, start
            while True:
                if remaining < params.max_iter:
                    params = params._replace(max_iter=remaining)
                q, it, _, _, ok = run_attempt(model, limits, tgt, params, obj, q)
                total += it
                remaining -= it
                if ok or it < params.max_iter or remaining <= 0 or budget.expired():
                    return q, total, ok

        def attempt(start, budget):
            iterations = 0
            if underactuated:
                start, it, ok = run(start, budget, plain)
                iterations += it
                if ok and not obj_on:
                    # The whole pose is met: the position-first pass would stop at once.
                    return start, iterations
            q, it, ok = run(start, budget, first)
            iterations += it
            if obj_on and not ok:
                q, it, ok = run(start, budget, no_obj)
                iterations += it
            return q, iterations

        return attempt

    return prepare
