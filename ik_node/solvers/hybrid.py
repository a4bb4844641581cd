# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
'hybrid': a FABRIK start refined by damped least squares (DLS), for full pose targets.

Each attempt runs a short FABRIK phase on the joint positions
(:func:`ik_node.solvers.fabrik_chain.arm_attempt`: the tip, or for a pose the tip with the
last joint carried by the target frame and the two orientation points) and then DLS from
the q it reached, unless that q already meets the tolerances (checked by FK, the driver's
:func:`ik_node.solvers.driver.final_check`). FABRIK moves the arm quickly into the right
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

from typing import Callable

from ik_node.solvers.driver import final_check
from ik_node.solvers.fabrik import arm_params
from ik_node.solvers.fabrik_chain import arm_attempt, MODE_FABRIK
from ik_node.solvers.jacobian import prepare_jacobian
from ik_node.solvers.records import make_target
import numpy as np

__all__ = ['prepare_hybrid', 'HYBRID_OPTIONS']

HYBRID_OPTIONS = frozenset({
    'tip_weight', 'fabrik_points', 'min_change', 'orientation_points_offset',
    'progress_window', 'fabrik_iterations', 'position_weight', 'orientation_weight',
    'joint_weights', 'damping', 'max_damping', 'manipulability_threshold'})

_prepare_dls = prepare_jacobian('dls')
# A start this near the target (fraction of the arm's length; radians) skips FABRIK.
_NEAR_POSITION = 0.02
_NEAR_ORIENTATION = 0.1


def prepare_hybrid(chain, target: np.ndarray, opts) -> Callable:
    """Return the hybrid attempt ``attempt(start, budget) -> (q, iterations)``."""
    params = arm_params(MODE_FABRIK, opts, opts.fabrik_iterations, 0)
    tgt = make_target(target)
    model, limits = chain.model, chain.limits
    dls_attempt = _prepare_dls(chain, target, opts)
    fabrik_on = opts.fabrik_iterations > 0
    near_p = _NEAR_POSITION * chain.length_scale

    def attempt(start, budget):
        q = np.asarray(start, dtype=float)
        it = 0
        if fabrik_on:
            c = final_check(chain, target, q, opts)
            if c.position_error <= near_p and c.orientation_error <= _NEAR_ORIENTATION:
                q_dls, it = dls_attempt(q, budget)
                if final_check(chain, target, q_dls, opts).ok:
                    return q_dls, it
            q, it_fabrik, _, _, _, _ = arm_attempt(model, limits, tgt, params, q)
            it += it_fabrik
            if final_check(chain, target, q, opts).ok:
                return q, it
        q, it_dls = dls_attempt(q, budget)
        return q, it + it_dls

    return attempt
