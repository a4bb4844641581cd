# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
'hybrid': a FABRIK start refined by damped least squares (DLS), for full pose targets.

Each attempt runs a short FABRIK phase on the joint positions (:func:`arm_attempt`; the
position of the tip, or for a pose the tip with the last joint carried by the target frame
and the two orientation points) and then DLS (:func:`ik_node.solvers.jacobian.run_jacobian`,
one attempt) from the q it reached. FABRIK moves the arm quickly into the right region
without a Jacobian; DLS then converges quadratically on the full pose, where FABRIK alone
creeps. Restarts from random q, the budget and the final FK check are shared with 'fabrik'
(:func:`ik_node.solvers.fabrik.run_restarts`).

Options: those of 'fabrik' (tip_weight, fabrik_points, orientation_points_offset) plus
``fabrik_iterations`` (10): the cap of the FABRIK phase; ``max_iterations`` caps the DLS
phase. A position target works too (FABRIK, then DLS on the position).
"""

from dataclasses import replace

from ik_node.errors import IKInputError
from ik_node.result import IKResult
from ik_node.solve import register_method
from ik_node.solvers.fabrik import run_restarts, split_options
from ik_node.solvers.fabrik_chain import arm_attempt, MODE_FABRIK
from ik_node.solvers.jacobian import run_jacobian
import numpy as np

__all__ = ['solve_hybrid']


def solve_hybrid(chain, target: np.ndarray, q0: np.ndarray, **options) -> IKResult:
    """Solve IK with a FABRIK phase then DLS (ik_node.solve method 'hybrid')."""
    options = dict(options)
    fabrik_iterations = options.pop('fabrik_iterations', 10)
    if (isinstance(fabrik_iterations, bool) or not isinstance(fabrik_iterations, (int, np.integer))
            or fabrik_iterations < 0):
        raise IKInputError(f'option fabrik_iterations must be an integer >= 0, '
                           f'got {fabrik_iterations!r}')
    opts, arm = split_options(options, 3.0, 0)
    dls_opts = replace(opts, restarts=False, max_attempts=1)
    pose = target.shape == (4, 4)
    tp = np.ascontiguousarray(target[:3, 3] if pose else target, dtype=float)
    tR = np.ascontiguousarray(target[:3, :3]) if pose else np.eye(3)
    cont = np.asarray(chain.continuous)

    def attempt(start):
        q = np.asarray(start, dtype=float)
        it = 0
        if fabrik_iterations > 0:
            q, it, _, _, ok, _ = arm_attempt(
                chain.model, q, chain.lower, chain.upper, cont, tp, tR, pose,
                opts.position_tolerance, opts.orientation_tolerance, int(fabrik_iterations),
                arm.min_change, arm.offset, MODE_FABRIK, arm.tip_weight, arm.next_only,
                arm.window, 0.5, 0)
            if ok:
                return q, it, True
        res = run_jacobian(chain, target, q, 'dls', dls_opts)
        return np.array(res.q), it + res.iterations, res.success

    return run_restarts(chain, target, q0, opts, attempt, 'hybrid')


register_method('hybrid', solve_hybrid)
