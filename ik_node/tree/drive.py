# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A tree solve through the one restart driver (:func:`ik_node.solvers.restarts.drive`).

The driver takes a tree as it takes one tip, with three records of the tree's own types:

- :class:`TreeRun` (the driver's ``ctx``): an attempt (:func:`tree_attempt_of`) is the tree's
  damped least squares (:func:`ik_node.tree.dls.tree_attempt`) or, for 'fabrik', FABRIK
  iterations (:func:`ik_node.tree.fabrik.fabrik_attempt`) polished by it when they fall
  short. With ``avoid_collisions`` the driver's lazy clearance applies: each start is first
  tried without the clearance objective (ATTEMPT_LAZY); an answer in contact runs the same
  start again with the clearance in the null space of the tasks (ATTEMPT_MAIN).
- :class:`TreeGoal` (the driver's target): the tasks of every tip, judged by
  :func:`tree_judge` (forward kinematics of every tip against its task, then the collision
  model: every link of the tree, pairs across branches, obstacles). The driver ranks
  failed attempts by the tasks they miss, then by their position errors beyond the
  tolerance summed over the tips, then by the orientation errors. It has no single point:
  ``position`` is unused, ``pose`` False (no probes of a point).
- :class:`ik_node.solvers.restarts.DriverRecords` with the tree's limits, its start table,
  its collision check and DriverParams whose reach bounds are infinite and rescue off (its
  ``model``, the first tip's chain, only types the code those switch off).

:func:`tree_solve` is the compiled entry; :class:`ik_node.tree.solve.TreeSolver` makes the
records.
"""

import math
from typing import NamedTuple

from ik_node._jit import monotonic_clock, njit_inline, njit_nogil
from ik_node.collision import kernels as collision_kernels
from ik_node.solvers.codes import ATTEMPT_MAIN
from ik_node.solvers.restarts import CollisionCheck, drive, on_a_limit, pushed_past_a_limit
from ik_node.solvers.target_records import Limits
from ik_node.tree.dls import _evaluate, _work, tree_attempt
from ik_node.tree.fabrik import fabrik_attempt, TreeFabrik
from ik_node.tree.records import TreeModel, TreeObjectives, TreeParams, TreeTasks
import numpy as np

__all__ = ['TreeRun', 'TreeGoal', 'tree_attempt_of', 'tree_judge', 'tree_held_by_a_limit',
           'tree_solve']

_now = monotonic_clock()


class TreeRun(NamedTuple):
    """
    Everything a tree solve's attempts take (the driver's ``ctx``).

    params / obj: the attempts' numbers and null-space objectives; params_clear / obj_clear:
    those of the retry of a start whose answer collided (the clearance on); fabrik: the
    method is 'fabrik', whose points are ``fab`` and whose iterations per attempt are
    ``fparams``'s (``fparams_clear``'s on a retry); collide: the collision check of the
    answers (``on`` False: none).
    """

    tm: TreeModel
    limits: Limits
    tasks: TreeTasks
    params: TreeParams
    obj: TreeObjectives
    params_clear: TreeParams
    obj_clear: TreeObjectives
    fabrik: bool
    fab: TreeFabrik
    fparams: TreeParams
    fparams_clear: TreeParams
    collide: CollisionCheck


class TreeGoal(NamedTuple):
    """
    A tree's target as the driver takes it: every tip's task (see the module doc).

    position (3,), rotation (3, 3), pose: the fields of a one-tip Target the driver reads
    (zeros, identity, False); tm, tasks, params: the tree, its tasks and their tolerances.
    """

    position: np.ndarray
    rotation: np.ndarray
    pose: bool
    tm: TreeModel
    tasks: TreeTasks
    params: TreeParams


@njit_inline
def _attempt(run, start, clear, deadline):
    """Run one attempt from ``start``; return (q, iterations) (inlined: see tree_attempt_of)."""
    params = run.params_clear if clear else run.params
    obj = run.obj_clear if clear else run.obj
    if not run.fabrik:
        q, it, _, _, _ = tree_attempt(run.tm, run.limits, run.tasks, params, obj, start,
                                      deadline)
        return q, it
    fparams = run.fparams_clear if clear else run.fparams
    q, it, done = fabrik_attempt(run.tm, run.limits, run.tasks, run.fab, fparams, start)
    if done and not params.objectives_on:
        return q, it
    q, it2, _, _, _ = tree_attempt(run.tm, run.limits, run.tasks, params, obj, q, deadline)
    return q, it + it2


def tree_attempt_of(rec, ctx, kind, tgt, start, deadline):
    """
    Run the driver's attempt of ``kind`` from ``start``; return (q, iterations).

    ctx: the TreeRun (rec and tgt, the driver's, are not needed). ATTEMPT_MAIN is the retry
    of a start whose answer collided (the clearance on); every other kind (ATTEMPT_LAZY: the
    first try of a start) leaves the clearance out. Compiled as the body of the driver's
    overload of :func:`ik_node.solvers.restarts.run_attempt_of` (one function around the
    tree's attempts: each function compiled on its own optimises all the code it calls).
    """
    return _attempt(ctx, start, kind == ATTEMPT_MAIN, deadline)


def tree_judge(rec, tgt, q, fk):
    """
    Return (position error [m], orientation error [rad], ok, collided) of q for a tree.

    Compiled as the body of the overload of :func:`ik_node.solvers.final_check.judge` (fk,
    the one-tip chain's FK scratch, is not needed).

    What the driver ranks failed attempts by (position first, then orientation): the
    "position error" is the number of tasks missed plus x / (1 + x), x the position errors
    beyond the tolerance summed over the tasks [m] (fewer tips off their targets first,
    then the nearer; the same-end rule then compares x); the "orientation error" the
    orientation errors summed [rad]. ok: every task within the tolerances and (collisions
    on) no contact; collided: every task met, but in contact.
    """
    tasks = tgt.tasks
    w = _work(tgt.tm, tasks, q.shape[0])
    met = _evaluate(tgt.tm, tasks, tgt.params, q, w)
    missed = 0.0
    excess = 0.0
    oerr = 0.0
    for k in range(tasks.tip.shape[0]):
        if not w.met[k]:
            missed += 1.0
        if tasks.check_p[k]:
            excess += max(w.perr[k] - rec.params.tol_p, 0.0)
        if tasks.check_o[k]:
            oerr += w.oerr[k]
    perr = missed + excess / (1.0 + excess)
    hit = False
    if met and rec.collide.on:
        c = rec.collide
        hit = collision_kernels.contacts(c.F, c.K, q, c.obstacles).shape[0] > 0
    return perr, oerr, met and not hit, hit


def tree_held_by_a_limit(rec, tgt, q):
    """
    Return True when a joint of q on a limit keeps the tips from their targets' points.

    Compiled as the body of the overload of :func:`ik_node.solvers.restarts.held_by_a_limit`.

    The descent direction of the summed squared position errors, Σ J_iᵀ e_i, pushes that
    joint outward (as :func:`ik_node.solvers.restarts._held_by_a_limit` for one tip, with the
    same two tests).
    """
    if not on_a_limit(q, rec.limits):
        return False
    n = q.shape[0]
    tasks = tgt.tasks
    w = _work(tgt.tm, tasks, n)
    _evaluate(tgt.tm, tasks, tgt.params, q, w)
    g = np.zeros(n)
    e2 = 0.0
    for k in range(tasks.tip.shape[0]):
        if not tasks.check_p[k]:
            continue
        t = tasks.tip[k]
        for c in range(3):
            e = w.err[k, c]
            e2 += e * e
            for j in range(n):
                g[j] += w.J[t, c, j] * e
    eps = 1e-3 * math.sqrt(e2) * rec.params.length_scale
    return pushed_past_a_limit(q, rec.limits, g, eps)


# The driver's code inlined into the tree's entry: called, it would compile (and optimise)
# all the tree's code once more, 7 s of a compile into an empty cache. (A dispatcher of its
# own, inlined wherever it is called; the chain's entries call the driver.)
_drive_inlined = njit_inline(getattr(drive, 'py_func', drive))


@njit_nogil
def tree_solve(rec, run, goal, q0, timeout):
    """
    Solve a tree's goal from seed q0 (n,) through the driver; return (q, q_blocked, Outcome).

    The GIL is released, as the chain's solve releases it: a tree's goal search runs a whole
    budget in here beside the node's control thread (holding the GIL, it held a command
    tick for 40 ms and more).

    rec: DriverRecords; run: TreeRun; goal: TreeGoal; timeout [s] from the call. q: the
    answer, else the best failed attempt; q_blocked: the last answer within the tolerances
    that collided.
    """
    q_out = q0.copy()
    q_blocked = np.zeros(q0.shape[0])
    outcome = _drive_inlined(rec, run, (goal, goal), q0, q_out, q_blocked, _now() + timeout)
    return q_out, q_blocked, outcome
