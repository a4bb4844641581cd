# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The final check of an answer: its tip by forward kinematics against the target, and contacts.

The one place where success is decided (:func:`judge`): the restart driver judges every
attempt's q with it, and the hybrid method its phases. A kernel's own claim is never
trusted. A tree's goal (:class:`ik_node.tree.drive.TreeGoal`, several tips) is judged by
:func:`ik_node.tree.drive.tree_judge`; compiled, the choice is made by the target's type.
"""

import math

from ik_node._jit import JIT_ENABLED, njit, njit_inline
from ik_node.collision import kernels as collision_kernels
from ik_node.model import kinematics
from ik_node.solvers.dls import tip_error
import numpy as np

__all__ = ['target_errors_into', 'judge', 'fk_scratch']


@njit
def target_errors_into(model, target, q, R, p, z):
    """
    Return (position error [m], orientation error [rad], 0 for a point) of the tip at q.

    R (m + 1, 3, 3), p (m + 1, 3), z (m, 3): FK's scratch, m the chain's moving joints.
    """
    kinematics.forward_kinematics(model, q, R, p, z)
    d0, d1, d2, r0, r1, r2 = tip_error(p, R, z.shape[0], target.position, target.rotation,
                                       target.pose)
    return math.sqrt(d0 * d0 + d1 * d1 + d2 * d2), math.sqrt(r0 * r0 + r1 * r1 + r2 * r2)


@njit_inline
def fk_scratch(model):
    """Return FK's scratch (R (m + 1, 3, 3), p (m + 1, 3), z (m, 3)) for ``model``."""
    m = model.origin_R.shape[0]
    return (np.empty((m + 1, 3, 3)), np.empty((m + 1, 3)), np.empty((m, 3)))


def is_tree_goal(tgt) -> bool:
    """Return True when ``tgt`` (a record, or its numba type) is a tree's TreeGoal."""
    from ik_node.tree.drive import TreeGoal
    return isinstance(tgt, TreeGoal) or getattr(tgt, 'instance_class', None) is TreeGoal


def judge(rec, tgt, q, fk):
    """
    Return (position error [m], orientation error [rad], ok, collided) of q.

    rec: the driver's records (model, params with the tolerances, the collision check);
    tgt: the Target (or a tree's TreeGoal: the errors are then summed over its tasks, see
    :func:`ik_node.tree.drive.tree_judge`). ok: within the tolerances and (collisions on)
    free of contact; collided: within the tolerances but in contact. fk: :func:`fk_scratch`.
    """
    if is_tree_goal(tgt):
        from ik_node.tree.drive import tree_judge
        return tree_judge(rec, tgt, q, fk)
    return _judge_target(rec, tgt, q, fk)


def _judge_target(rec, tgt, q, fk):
    """:func:`judge` of one tip's Target (compiled as the overload's own body)."""
    prm = rec.params
    perr, oerr = target_errors_into(rec.model, tgt, q, fk[0], fk[1], fk[2])
    met = perr <= prm.tol_p and (not tgt.pose or oerr <= prm.tol_o)
    hit = False
    if met and rec.collide.on:
        c = rec.collide
        hit = collision_kernels.contacts(c.F, c.K, q, c.obstacles).shape[0] > 0
    return perr, oerr, met and not hit, hit


if JIT_ENABLED:
    from numba.extending import overload

    # A call, not inlined into the driver's inlined helpers: numba's IR inlining of an
    # overload into an inlined function leaves variables its checks flag out of scope. The
    # implementations are the functions themselves, not wrappers: each function compiled on
    # its own optimises all the code it calls once more.
    @overload(judge)
    def _judge_compiled(rec, tgt, q, fk):
        if is_tree_goal(tgt):
            from ik_node.tree.drive import tree_judge
            return tree_judge
        return _judge_target
