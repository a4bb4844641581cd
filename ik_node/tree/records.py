# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The records the compiled tree solve takes (numba NamedTuples, one type per field).

The tree itself travels as a tuple of :class:`ik_node.model.kinematics.ChainModel`, one per tip,
whose joint indices point into the tree's joint vector (:class:`ik_node.tree.chain.TreeChain`
``tip_models``); the joint limits as :class:`ik_node.solvers.target_records.Limits`.
"""

from typing import NamedTuple

from ik_node.solvers.objectives import PackedObjectives
import numpy as np

__all__ = ['TreeTasks', 'TreeParams', 'TreeObjectives']


class TreeTasks(NamedTuple):
    """
    The tasks of one solve: k tasks (one per tip with a target or a hold), r error rows.

    Per task: ``tip`` (k,) the tip's index in the tree, ``tip_frame`` (k,) the index of its
    tip frame in the FK work arrays (the tip model's moving joint count), ``position``
    (k, 3) [m] and ``rotation`` (k, 3, 3) of the goal (identity for a position target),
    ``pose`` (k,) whether it has an orientation, ``level`` (k,) its priority level
    (0 first, dense), ``check_p``/``check_o`` (k,) whether its position/orientation counts
    toward success (its weight is not 0). Per row, grouped by level: ``row_task``,
    ``row_comp`` (0-2 position, 3-5 orientation) and ``row_weight`` (w_p / length_scale,
    or w_o); ``level_rows`` (levels + 1,): level l owns rows level_rows[l]:level_rows[l + 1].
    """

    tip: np.ndarray
    tip_frame: np.ndarray
    position: np.ndarray
    rotation: np.ndarray
    pose: np.ndarray
    level: np.ndarray
    check_p: np.ndarray
    check_o: np.ndarray
    row_task: np.ndarray
    row_comp: np.ndarray
    row_weight: np.ndarray
    level_rows: np.ndarray


class TreeParams(NamedTuple):
    """
    The numbers of a tree DLS solve.

    tol_p [m], tol_o [rad]: tolerances; max_iter: iterations per attempt; max_attempts:
    attempts per solve (the seed, then the start table's rows); lam0: the damping floor
    (dimensionless); clamp: the largest weighted residual a lower level's task aims at per
    step (Buss); objectives_on, k_null, max_step [rad or m], secondary_iter: the null-space
    objectives (once every task is met, that many more steps follow their gradient within
    the tolerances).
    """

    tol_p: float
    tol_o: float
    max_iter: int
    max_attempts: int
    lam0: float
    clamp: float
    objectives_on: bool
    k_null: float
    max_step: float
    secondary_iter: int


class TreeObjectives(NamedTuple):
    """
    The packed null-space objectives of a tree solve.

    joint: the joint-space terms (limits, rest posture), taken once; model: the terms of a
    chain's geometry (manipulability, obstacle spheres), summed over the tips' chains.
    """

    joint: PackedObjectives
    model: PackedObjectives
