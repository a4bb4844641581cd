# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The records the compiled tree solve takes (numba NamedTuples, one type per field).

The tree itself travels as one :class:`TreeModel`: every tip's serial chain
(:class:`ik_node.model.kinematics.ChainModel`, joint indices into the tree's joint vector)
stacked into the same arrays, so the kernels' types do not depend on the number of tips and
compile once for any tree (:func:`tip_model` gives tip i's ChainModel as views); the joint
limits travel as :class:`ik_node.solvers.target_records.Limits`.
"""

from typing import NamedTuple, Sequence

from ik_node._jit import njit_inline, readonly
from ik_node.model import kinematics
from ik_node.solvers.objectives import PackedObjectives
import numpy as np

__all__ = ['TreeModel', 'tree_model', 'tip_model', 'tip_count', 'TreeTasks', 'TreeParams',
           'TreeObjectives']


class TreeModel(NamedTuple):
    """
    The t tips' chains stacked: tip i's moving joints are rows start[i]:start[i + 1].

    origin_R (M, 3, 3), origin_t (M, 3), axes (M, 3), types, index, mult, offset (M,) as a
    ChainModel's; tip_R (t, 3, 3), tip_t (t, 3) each tip's fixed offset; start (t + 1,).
    """

    origin_R: np.ndarray
    origin_t: np.ndarray
    axes: np.ndarray
    types: np.ndarray
    # The ChainModel field name the kernels read (see kinematics.ChainModel).
    index: np.ndarray  # type: ignore[assignment]
    mult: np.ndarray
    offset: np.ndarray
    tip_R: np.ndarray
    tip_t: np.ndarray
    start: np.ndarray


def tree_model(models: Sequence[kinematics.ChainModel]) -> TreeModel:
    """Return the :class:`TreeModel` of the tips' ChainModels (arrays read-only)."""
    def stack(k, shape):
        parts = [np.asarray(m[k]) for m in models]
        return readonly(np.ascontiguousarray(np.concatenate(parts).reshape(shape)))
    M = sum(m.origin_R.shape[0] for m in models)
    return TreeModel(
        stack(0, (M, 3, 3)), stack(1, (M, 3)), stack(2, (M, 3)),
        readonly(np.concatenate([m.types for m in models]).astype(np.int64)),
        readonly(np.concatenate([m.index for m in models]).astype(np.int64)),
        readonly(np.concatenate([m.mult for m in models]).astype(float)),
        readonly(np.concatenate([m.offset for m in models]).astype(float)),
        readonly(np.array([m.tip_R for m in models], dtype=float).reshape(-1, 3, 3)),
        readonly(np.array([m.tip_t for m in models], dtype=float).reshape(-1, 3)),
        readonly(np.cumsum([0] + [m.origin_R.shape[0] for m in models]).astype(np.int64)))


@njit_inline
def tip_count(tm):
    """Return the number of tips of TreeModel ``tm``."""
    return tm.start.shape[0] - 1


@njit_inline
def tip_model(tm, i):
    """Return tip i's :class:`ik_node.model.kinematics.ChainModel` as views of ``tm``."""
    a = tm.start[i]
    b = tm.start[i + 1]
    return kinematics.ChainModel(tm.origin_R[a:b], tm.origin_t[a:b], tm.axes[a:b],
                                 tm.types[a:b], tm.index[a:b], tm.mult[a:b], tm.offset[a:b],
                                 tm.tip_R[i], tm.tip_t[i])


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
