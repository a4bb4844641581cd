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
alone creeps. Restarts, the budget and the final check are the driver's.

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


def prepare_hybrid(chain, target: np.ndarray, opts) -> Callable:
    """Return the hybrid attempt ``attempt(start, budget) -> (q, iterations)``."""
    params = arm_params(MODE_FABRIK, opts, opts.fabrik_iterations, 0)
    tgt = make_target(target)
    model, limits = chain.model, chain.limits
    dls_attempt = _prepare_dls(chain, target, opts)
    fabrik_on = opts.fabrik_iterations > 0

    def attempt(start, budget):
        q = np.asarray(start, dtype=float)
        it = 0
        if fabrik_on:
            q, it, _, _, _, _ = arm_attempt(model, limits, tgt, params, q)
            if final_check(chain, target, q, opts).ok:
                return q, it
        q, it_dls = dls_attempt(q, budget)
        return q, it + it_dls

    return attempt
