# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Attempts of the Jacobian solver family ('dls', 'pinv', 'jt') for the restart driver.

One attempt runs :func:`ik_node.solvers.dls.run_attempt` from one start. A pose target on an
arm with fewer than 6 joints takes two passes: weighted least squares first (so the
position-first pass starts in the basin of the best-oriented branch, not a flipped one),
then position first with orientation in the null space. With objectives, an attempt that
fails is run again without them: they must never cost the primary task a solution.

The collision clearance is left out of an attempt from a new start
(:data:`ik_node.solvers.codes.ATTEMPT_LAZY`): most answers are clear of contact without
it, and the final check finds those that are not; the driver then runs the same start again
with the clearance (:func:`ik_node.solvers.restarts.lazy_clearance`). A collision-aware
solve so costs about a plain one plus one collision check per answer.
"""

from typing import NamedTuple

from ik_node._jit import monotonic_clock, njit, njit_inline
from ik_node.collision import solver_hook
from ik_node.options import CLEARANCE_OPTIONS
from ik_node.solvers.codes import ATTEMPT_LAZY, ATTEMPT_PROBE
from ik_node.solvers.dls import DlsParams, run_attempt
from ik_node.solvers.objectives import (empty_objectives, NO_CLEARANCE, objectives_active,
                                        pack_objectives)
from ik_node.solvers.target_records import make_target
import numpy as np

__all__ = ['attempt_records', 'jacobian_attempts', 'jacobian_attempt',
           'JacobianAttempts', 'JacobianPasses', 'JACOBIAN_OPTIONS', 'CHUNK']

_now = monotonic_clock()

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


class JacobianPasses(NamedTuple):
    """The DlsParams of one kind of target's attempts, and its packed objectives."""

    plain: DlsParams        # n < 6 pose: the weighted first pass
    first: DlsParams        # the attempt (position first for an n < 6 pose)
    no_obj: DlsParams       # the retry without objectives
    obj: tuple
    obj_on: bool
    lazy: DlsParams         # an attempt from a new start: objectives but the clearance
    obj_lazy: tuple         # the objectives of that attempt
    lazy_on: bool           # there is a clearance to leave out of it


class JacobianAttempts(NamedTuple):
    """
    The records of a Jacobian method's attempts (:func:`jacobian_attempt`).

    pose: the passes toward the target (a pose, or a position for a point target); point:
    those of the position probes; max_iterations: per attempt (run in chunks of the
    params' max_iter); underactuated: a pose target on an arm with n < 6 (two passes).
    """

    pose: JacobianPasses
    point: JacobianPasses
    max_iterations: int
    underactuated: bool


def _passes(code: int, chain, tgt, opts) -> JacobianPasses:
    """Return the passes of one kind of target (pose or point)."""
    params, obj, obj_on = attempt_records(code, chain, tgt, opts)
    first = params._replace(priority=tgt.pose and chain.n < 6)
    lazy_on = obj.collision.weight > 0
    obj_lazy = obj._replace(collision=NO_CLEARANCE) if lazy_on else obj
    lazy = first._replace(objectives_on=bool(objectives_active(obj_lazy)))
    return JacobianPasses(params, first, first._replace(objectives_on=False), obj,
                          bool(obj_on), lazy, obj_lazy, bool(lazy_on))


def jacobian_attempts(code: int, chain, opts, pose: bool) -> JacobianAttempts:
    """Return the attempt records of method ``code`` for pose targets (else positions)."""
    point = _passes(code, chain, make_target(np.zeros(3)), opts)
    main = _passes(code, chain, make_target(np.eye(4)), opts) if pose else point
    return JacobianAttempts(main, point, int(opts.max_iterations), pose and chain.n < 6)


@njit
def _with_max_iter(p, k):
    return DlsParams(p.method, p.w_pos, p.w_ori, p.w_inv, p.tol_p, p.tol_o, k, p.lam0,
                     p.lam_max, p.w0, p.objectives_on, p.k_null, p.max_step, p.secondary_iter,
                     p.priority)


@njit_inline
def _run(model, limits, tgt, params, obj, start, max_iterations, deadline):
    """Run one pass in chunks of params.max_iter (to the deadline); return (q, it, ok)."""
    remaining = max_iterations
    total = 0
    q = start
    p = params
    while True:
        if remaining < p.max_iter:
            p = _with_max_iter(p, remaining)
        q, it, _, _, ok = run_attempt(model, limits, tgt, p, obj, q)
        total += it
        remaining -= it
        if ok or it < p.max_iter or remaining <= 0 or _now() >= deadline:
            return q, total, ok


@njit
def jacobian_attempt(model, limits, ctx, kind, tgt, start, deadline):
    """
    Run one attempt from ``start`` (n,) toward ``tgt``; return (q, iterations).

    kind: ATTEMPT_PROBE takes the point passes, any other kind the target's. A pose on an
    arm with n < 6 runs the weighted pass first, then position first; with objectives, a
    pass that fails runs again without them. deadline [s of the kernels' clock].
    """
    probe = kind == ATTEMPT_PROBE
    ps = ctx.point if probe else ctx.pose
    k = ctx.max_iterations
    iterations = 0
    if kind == ATTEMPT_LAZY and ps.lazy_on:
        q, it, ok = _run(model, limits, tgt, ps.lazy, ps.obj_lazy, start, k, deadline)
        if ps.lazy.objectives_on and not ok:
            q, it2, ok = _run(model, limits, tgt, ps.no_obj, ps.obj, start, k, deadline)
            it += it2
        return q, it
    if ctx.underactuated and not probe:
        start, it, ok = _run(model, limits, tgt, ps.plain, ps.obj, start, k, deadline)
        iterations += it
        if ok and not ps.obj_on:
            # The whole pose is met: the position-first pass would stop at once.
            return start, iterations
    q, it, ok = _run(model, limits, tgt, ps.first, ps.obj, start, k, deadline)
    iterations += it
    if ps.obj_on and not ok:
        q, it, ok = _run(model, limits, tgt, ps.no_obj, ps.obj, start, k, deadline)
        iterations += it
    return q, iterations
