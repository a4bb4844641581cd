# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The restarts of a tree solve, both methods, with the collision check: :func:`tree_drive`.

Attempts run from the seed, then from the rows of a start table, until one meets every task
(and, with a collision model, is free of contact), ``max_attempts`` ran or the budget is
spent (the first attempt always runs). An attempt is the tree's damped least squares
(:func:`ik_node.tree.dls.tree_attempt`) or, for 'fabrik', FABRIK iterations
(:func:`ik_node.tree.fabrik.fabrik_attempt`) polished by it when they fall short.

Collisions, as the single chain's driver does them (:mod:`ik_node.solvers.restarts`): each
start is first tried without the clearance objective; an answer that meets every task but
is in contact (:func:`ik_node.collision.kernels.contacts`, every link of the tree, pairs
across branches, obstacles) runs the same start again with the clearance in the null space
of the tasks. An answer still in contact is a failed attempt, and the solve says so
(``blocked``).

Ranking of failed attempts: tasks met, then the levels' costs, level by level.
"""

from typing import NamedTuple

from ik_node._jit import monotonic_clock, njit
from ik_node.collision import kernels as collision_kernels
from ik_node.solvers.restarts import CollisionCheck
from ik_node.solvers.target_records import Limits
from ik_node.tree.dls import _evaluate, _lower, _work, tree_attempt
from ik_node.tree.fabrik import fabrik_attempt, TreeFabrik
from ik_node.tree.records import TreeModel, TreeObjectives, TreeParams, TreeTasks
import numpy as np

__all__ = ['TreeRun', 'TreeOutcome', 'tree_drive']

_now = monotonic_clock()


class TreeRun(NamedTuple):
    """
    Everything a tree solve's attempts take.

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


class TreeOutcome(NamedTuple):
    """What :func:`tree_drive` found (its q is returned beside it)."""

    done: bool
    attempts: int
    iterations: int
    blocked: bool


@njit
def _attempt(run, start, clear, deadline):
    """Run one attempt from ``start``; return (q, iterations, done, tasks met, costs)."""
    params = run.params_clear if clear else run.params
    obj = run.obj_clear if clear else run.obj
    if not run.fabrik:
        return tree_attempt(run.tm, run.limits, run.tasks, params, obj, start, deadline)
    fparams = run.fparams_clear if clear else run.fparams
    q, it, done = fabrik_attempt(run.tm, run.limits, run.tasks, run.fab, fparams, start)
    if done and not params.objectives_on:
        w = _work(run.tm, run.tasks, q.shape[0])
        _evaluate(run.tm, run.tasks, params, q, w)
        return q, it, True, run.tasks.tip.shape[0], w.cost.copy()
    q, it2, done, met, cost = tree_attempt(run.tm, run.limits, run.tasks, params, obj, q,
                                           deadline)
    return q, it + it2, done, met, cost


@njit
def _in_contact(collide, q):
    """Return True when the collision check is on and finds a contact at ``q``."""
    if not collide.on:
        return False
    return collision_kernels.contacts(collide.F, collide.K, q, collide.obstacles).shape[0] > 0


@njit
def tree_drive(run, starts, q_seed, timeout, q_blocked):
    """
    Solve with attempts from ``q_seed`` (n,), then from the rows of ``starts`` (k, n).

    Returns (best q, TreeOutcome): the first attempt that meets every task (free of
    contact), else the best failed one. q_blocked (n,) receives the last answer that met
    every task but collided. timeout [s] counts from the call.
    """
    deadline = _now() + timeout
    limits = run.limits
    best_q = np.minimum(np.maximum(q_seed, limits.lower), limits.upper)
    best_met = -1
    best_cost = np.full(run.tasks.level_rows.shape[0] - 1, np.inf)
    best_done = blocked = clear = False
    attempts = iterations = draws = 0
    start = q_seed.copy()
    while attempts < run.params.max_attempts and (attempts == 0 or _now() < deadline):
        if attempts > 0 and not clear:
            if starts.shape[0] == 0:
                break
            start = starts[draws % starts.shape[0]].copy()
            draws += 1
        q, it, done, met, cost = _attempt(run, start, clear, deadline)
        attempts += 1
        iterations += it
        hit = done and _in_contact(run.collide, q)
        if hit:
            blocked = True
            q_blocked[:] = q
            done = False
        if done or met > best_met or (met == best_met and _lower(cost, best_cost)):
            best_q, best_met, best_cost, best_done = q, met, cost, done
        if done:
            break
        # The same start again with the clearance on, once, when a plain answer collided.
        clear = hit and not clear
    return best_q, TreeOutcome(best_done, attempts, iterations, blocked)
