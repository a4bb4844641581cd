# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
'hybrid': a FABRIK start refined by damped least squares (DLS), for full pose targets.

Each attempt runs a short FABRIK phase on the joint positions
(:func:`ik_node.solvers.arm_fabrik.arm_attempt`: the tip, or for a pose the tip with the
last joint carried by the target frame and the two orientation points) and then DLS from
the q it reached, unless that q already meets the tolerances (checked by FK, the driver's
:func:`ik_node.solvers.final_check.judge`). FABRIK moves the arm quickly into the right
region without a Jacobian; DLS then converges quadratically on the full pose, where FABRIK
alone creeps. A start already near the target (within 2% of the arm's length and 0.1 rad,
a warm-started tracking step) is in the right region: DLS runs from it first, so the answer
stays on the start's branch with the smallest joint motion; the FABRIK phase follows only if
that fails. Restarts, the budget and the final check are the driver's.

Options: the FABRIK ones (tip_weight, fabrik_points, min_change, orientation_points_offset,
progress_window), ``fabrik_iterations`` (10): the cap of the FABRIK phase, and the DLS ones
(weights, damping); ``max_iterations`` caps the DLS phase. A position target works too
(FABRIK, then DLS on the position).
"""

from ik_node._jit import njit
from ik_node.solvers.arm_fabrik import arm_attempt
from ik_node.solvers.final_check import fk_scratch, judge
from ik_node.solvers.jacobian import jacobian_attempt

__all__ = ['hybrid_attempt', 'HYBRID_OPTIONS', 'NEAR_POSITION', 'NEAR_ORIENTATION']

HYBRID_OPTIONS = frozenset({
    'tip_weight', 'fabrik_points', 'min_change', 'orientation_points_offset',
    'progress_window', 'fabrik_iterations', 'position_weight', 'orientation_weight',
    'joint_weights', 'damping', 'max_damping', 'manipulability_threshold'})

# A start this near the target (fraction of the arm's length; radians) skips FABRIK.
NEAR_POSITION = 0.02
NEAR_ORIENTATION = 0.1


@njit
def hybrid_attempt(rec, ctx, kind, tgt, start, deadline):
    """
    Run one hybrid attempt from ``start`` (n,) toward ``tgt``; return (q, iterations).

    rec: the driver's records; ctx: the MethodAttempts (``arm``: the FABRIK phase, idle
    when fabrik_iterations is 0; ``jacobian``: the damped least-squares passes, of the
    point for a probe ``kind``). Each phase's q is judged like an answer
    (:func:`ik_node.solvers.final_check.judge`); the first that passes is returned.
    """
    model = rec.model
    limits = rec.limits
    q = start
    it = 0
    if ctx.arm.max_iter > 0:
        fk = fk_scratch(model)
        perr, oerr, _, _ = judge(rec, tgt, q, fk)
        if perr <= ctx.near_position and oerr <= ctx.near_orientation:
            q_dls, it = jacobian_attempt(model, limits, ctx.jacobian, kind, tgt, q, deadline)
            if judge(rec, tgt, q_dls, fk)[2]:
                return q_dls, it
        q, it_fabrik, _, _, _, _ = arm_attempt(model, limits, tgt, ctx.arm, q)
        it += it_fabrik
        if judge(rec, tgt, q, fk)[2]:
            return q, it
    q, it_dls = jacobian_attempt(model, limits, ctx.jacobian, kind, tgt, q, deadline)
    return q, it + it_dls
