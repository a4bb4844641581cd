# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Several tip targets on one :class:`ik_node.tree.chain.TreeChain`: :func:`solve_tree`.

Two methods:
- ``'dls'`` (default): the compiled stacked-task damped least squares with restarts under a
  time budget (:mod:`ik_node.tree.dls`): per-tip position/orientation weights, priority
  levels (a primary tip exact, the others in its null space), joint limits, null-space
  objectives.
- ``'fabrik'``: FABRIK on the tree's joint points, sub-bases at the centroid of their
  branches' proposals, mapped back to joint angles, then polished by the same DLS
  (:mod:`ik_node.tree.fabrik`).

Both go through the one restart driver (:func:`ik_node.solvers.restarts.drive`, see
:mod:`ik_node.tree.drive`): its budget, starts, lazy clearance, final check, ranking, choice
among solutions and status. With ``avoid_collisions`` an answer must be free of contact
(every link of the tree, pairs across branches, obstacles), and the result reports its
clearance.

Reachability: a target beyond its tip's reach bound goes below every other task
(:mod:`ik_node.tree.tasks`); an attempt that ends with some tasks met and others not goes on
once more from its best pose with the missed ones one level below the met ones. An
unreachable tip therefore stretches toward its target in the null space of the others:
they keep their targets wherever their own joints can make up for the shared ones.

Every answer is judged by forward kinematics against every task (:func:`tasks.result_of`);
the kernels' own claims are not trusted.
"""

from dataclasses import replace
from typing import Any, Mapping, Optional, Union

from ik_node._jit import readonly, solving_clock
from ik_node.collision.clearance import CollisionClearance
from ik_node.errors import IKInputError
from ik_node.result import STATUS_BLOCKED, STATUS_NOT_CONVERGED
from ik_node.solvers.codes import CODE_REACHED
from ik_node.solvers.objectives import (ClearanceTerms, NO_CLEARANCE, pack_objectives,
                                        PackedObjectives)
from ik_node.solvers.outcome import STATUS_OF_CODE
from ik_node.solvers.restarts import CollisionCheck, DriverParams, DriverRecords
from ik_node.solvers.target_records import Limits
from ik_node.tree import tasks as tk
from ik_node.tree.chain import TreeChain
from ik_node.tree.drive import tree_solve, TreeGoal, TreeRun
from ik_node.tree.fabrik import no_fabrik
from ik_node.tree.options import TreeSolveOptions
from ik_node.tree.records import TreeObjectives, TreeParams
from ik_node.tree.targets import (MODE_FREE, MODE_HOLD, MODE_TARGET, TipResult, TipTarget,
                                  TreeIKResult)
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['TipTarget', 'TipResult', 'TreeIKResult', 'TreeSolveOptions', 'TreeSolver',
           'solve_tree',
           'METHODS', 'MODE_TARGET', 'MODE_HOLD', 'MODE_FREE']

METHODS = ('dls', 'fabrik')

# The largest weighted residual a lower level's task aims at per step (units of
# length_scale, or rad).
_LOWER_LEVEL_CLAMP = 0.1
# Null-space steps after the tasks are met, at least, on the retry of a start whose answer
# collided: the clearance objective needs more than the polish of the other objectives.
_CLEAR_STEPS = 30
# The collision check of a solve without avoid_collisions (the types of a real one).
_NO_COLLISIONS = CollisionCheck(False, readonly(np.zeros(0)),
                                readonly(np.zeros(0, dtype=np.int64)), np.zeros((0, 16)))


class TreeSolver:
    """
    A tree, validated options and a method, with what their solves share.

    Holds the joint limits' record, the packed objectives, the collision check and the table
    of random starts (drawn once with ``options.seed``), so a solve converts only its
    targets and seed: a caller that solves many targets on one tree (a node, a benchmark)
    keeps one.
    """

    def __init__(self, tree: TreeChain, options: Optional[TreeSolveOptions] = None,
                 method: str = 'dls'):
        """Validate ``options`` and ``method``; IKInputError names a bad one."""
        opts = TreeSolveOptions() if options is None else options
        if not isinstance(opts, TreeSolveOptions):
            raise IKInputError('options must be a TreeSolveOptions')
        if method not in METHODS:
            raise IKInputError(f'unknown tree method {method!r} '
                               f'(methods: {", ".join(METHODS)})')
        if not isinstance(tree, TreeChain):
            raise IKInputError(f'tree must be a TreeChain, got {type(tree).__name__}')
        self.tree = tree
        self.options = opts
        self.method = method
        self.objectives = tree_objectives(tree, opts.objectives)
        self.collide, clearance = collision_records(tree, opts)
        self.objectives_clear = self.objectives._replace(
            joint=self.objectives.joint._replace(collision=clearance))
        self.limits = Limits(tree.lower, tree.upper, tree.continuous)
        self.records = driver_records(tree, opts, self.limits, self.collide)
        self.tolerances = (float(opts.position_tolerance), float(opts.orientation_tolerance))
        obj = self.objectives
        self.objectives_on = any(w > 0.0 for w in (obj.joint.k_limits, obj.joint.k_rest,
                                                   obj.model.k_manip, obj.model.k_obstacle))
        if method == 'fabrik':
            from ik_node.tree.fabrik import fabrik_record
            self.fabrik, self.fabrik_iter = fabrik_record(tree), int(opts.fabrik_iterations)
        else:
            self.fabrik, self.fabrik_iter = no_fabrik(), 1

    def solve(self, targets: Mapping[str, Union[ArrayLike, TipTarget, None]],
              q0: Optional[ArrayLike] = None) -> TreeIKResult:
        """:func:`solve_tree` with this solver's tree, options and method."""
        tree, opts, tol = self.tree, self.options, self.tolerances
        start = tree.mid.copy() if q0 is None else tree.clip(tree.check_q(q0, 'q0'))
        tasks = tk.tasks_of(tree, targets, start, opts.untargeted)
        clock = solving_clock()
        q, out = self.drive(tasks, start)
        iterations = out.iterations
        if not out.success:
            # Some tips met, some not: once more from the best pose with the missed ones
            # one level below the rest, so they stretch on in the null space of the met ones.
            # None met (the driver ranks by the summed errors: a reachable tip may end a hair
            # off its target beside one out of reach): once more from the best pose as it is.
            met = tk.count_met(tree, tasks, q, tol)
            polish = tk.demoted(tree, tasks, q, *tol) or (tasks if met == 0 else None)
            if polish is not None:
                left = max(opts.timeout - (solving_clock() - clock), 1e-6)
                q2, out2 = self.drive(polish, q, timeout=left, attempts=1)
                iterations += int(out2.iterations)
                if (tk.count_met(tree, polish, q2, tol) >= max(met, 1)
                        and not self._worse_contact(q2, q)):
                    q = q2
        result = tk.result_of(tree, tasks, np.asarray(q, dtype=float), tol,
                              (iterations, int(out.attempts)), self.method)
        if not result.success and int(out.code) != CODE_REACHED:
            result = replace(result, status=STATUS_OF_CODE[int(out.code)])
        return self._with_clearance(result, bool(out.blocked))

    def drive(self, tasks: list, q0: np.ndarray, timeout: Optional[float] = None,
              attempts: Optional[int] = None) -> tuple:
        """
        Run the one restart driver on ``tasks`` (:func:`ik_node.tree.drive.tree_solve`).

        Returns (q, the driver's Outcome). timeout [s] and attempts default to the options';
        attempts after the first start from the start table's rows.
        """
        opts = self.options
        params = params_of(opts, self.objectives_on,
                           opts.max_attempts if attempts is None else attempts)
        params_clear = params._replace(
            objectives_on=True, secondary_iter=max(params.secondary_iter, _CLEAR_STEPS))
        fparams = params._replace(max_iter=self.fabrik_iter)
        run = TreeRun(self.tree.tip_record, self.limits, tk.task_record(self.tree, tasks),
                      params, self.objectives, params_clear, self.objectives_clear,
                      self.method == 'fabrik', self.fabrik, fparams,
                      params_clear._replace(max_iter=self.fabrik_iter), self.collide)
        goal = TreeGoal(np.zeros(3), np.eye(3), False, self.tree.tip_record, run.tasks,
                        params)
        rec = self.records
        if attempts is not None:
            rec = rec._replace(params=rec.params._replace(max_attempts=int(attempts)))
        q, _, out = tree_solve(rec, run, goal, np.array(q0, dtype=float),
                               float(opts.timeout if timeout is None else timeout))
        return q, out

    def _worse_contact(self, q_new: np.ndarray, q_old: np.ndarray) -> bool:
        """Return True when collisions count and q_new is in contact where q_old is not."""
        if not self.collide.on:
            return False
        obstacles = self.options.obstacles
        return bool(self.tree.collisions(q_new, obstacles)
                    and not self.tree.collisions(q_old, obstacles))

    def _with_clearance(self, result: TreeIKResult, blocked: bool) -> TreeIKResult:
        """Return ``result`` judged for contact too, with its clearance, when collisions count."""
        if not self.collide.on:
            return result
        obstacles = self.options.obstacles
        gap = self.tree.min_distance(result.q, obstacles)
        pairs = self.tree.collisions(result.q, obstacles)
        fields: dict[str, Any] = {'clearance': float(gap.distance),
                                  'closest_pair': tuple(gap.pair)}
        if pairs:
            a, b = pairs[0]
            more = f' (and {len(pairs) - 1} more pair(s))' if len(pairs) > 1 else ''
            fields.update(success=False, status=STATUS_BLOCKED,
                          message=(result.message + '; ' if result.message else '')
                          + f'the answer is in contact: {a} collides with {b}{more}')
        elif not result.success and blocked:
            fields['message'] = (result.message + '; answers that met every tip collided')
            if result.status == STATUS_NOT_CONVERGED:
                fields['status'] = STATUS_BLOCKED
        return replace(result, **fields)


def solve_tree(tree: TreeChain, targets: Mapping[str, Union[ArrayLike, TipTarget, None]],
               q0: Optional[ArrayLike] = None, options: Optional[TreeSolveOptions] = None,
               method: str = 'dls') -> TreeIKResult:
    """
    Solve IK for several tips of ``tree`` at once.

    targets: {tip link (or index): (4, 4) pose, (3,) position [m] (base_link frame) or
    TipTarget}; None or a missing tip means no target (held or free, ``options.untargeted``).
    q0: (n,) seed [rad or m], clipped into the limits; None starts at mid-range. method:
    'dls' or 'fabrik' (see the module doc). Unreachable targets give ``success=False`` and
    the best attempt, never an exception; misuse (an unknown tip, a bad shape, NaN, an
    unknown method or option) raises IKInputError. Many solves on one tree: keep a
    :class:`TreeSolver`.
    """
    return TreeSolver(tree, options, method).solve(targets, q0)


def collision_records(tree: TreeChain, opts: TreeSolveOptions
                      ) -> tuple[CollisionCheck, ClearanceTerms]:
    """
    Return the collision check of the answers and the clearance objective's terms.

    Both off without ``avoid_collisions``; IKInputError when the tree has no collision
    geometry (not read with TreeChain.from_urdf) or an obstacle is not a shape.
    """
    if not opts.avoid_collisions:
        return _NO_COLLISIONS, NO_CLEARANCE
    setup = tree.collision_setup
    F, K = setup.model.flat
    rows = setup.packed(tuple(opts.obstacles)).rows
    return (CollisionCheck(True, F, K, rows),
            ClearanceTerms(float(opts.collision_weight), float(opts.collision_margin), F, K,
                           rows))


def driver_records(tree: TreeChain, opts: TreeSolveOptions, limits: Limits,
                   collide: CollisionCheck) -> DriverRecords:
    """
    Return the restart driver's records of a tree solve (see :mod:`ik_node.tree.drive`).

    One solution is enough; no reach bound, no max_joint_change, no rescue; the table of
    ``max_attempts - 1`` random starts drawn with ``opts.seed``.
    """
    rng = np.random.default_rng(opts.seed)
    starts = np.ascontiguousarray(
        tree.random_q(rng, max(int(opts.max_attempts) - 1, 1)).reshape(-1, tree.n))
    wide = ~tree.prismatic & ~tree.continuous & (tree.upper - tree.lower > 2.0 * np.pi)
    params = DriverParams(
        tol_p=float(opts.position_tolerance), tol_o=float(opts.orientation_tolerance),
        max_attempts=int(opts.max_attempts), solutions=1, restarts=True, max_change=np.inf,
        reach_origin=np.zeros(3), reach=np.inf, stretched=np.inf,
        length_scale=float(tree.length_scale), w=np.ones(tree.n),
        wide=np.array(wide, dtype=bool), rescue=False)
    # The first tip's chain stands in for the one-tip model the driver's switched-off code
    # is typed with (never run for a tree).
    return DriverRecords(tree.tip_models[0], limits, starts, params, collide)


def tree_objectives(tree: TreeChain, objectives) -> TreeObjectives:
    """Return the packed objectives split into joint-space and per-chain terms."""
    for o in objectives:
        if isinstance(o, CollisionClearance):
            raise IKInputError('CollisionClearance is not an objective of a tree solve: '
                               'give avoid_collisions=True (with obstacles) instead')
    p = pack_objectives(tree, objectives)
    joint = PackedObjectives(p.k_limits, p.k_rest, p.q_rest, 0.0, np.zeros((0, 4)), 0.0,
                             p.margin, NO_CLEARANCE)
    model = PackedObjectives(0.0, 0.0, np.zeros(tree.n), p.k_manip, p.spheres,
                             p.k_obstacle, p.margin, NO_CLEARANCE)
    return TreeObjectives(joint, model)


def params_of(opts: TreeSolveOptions, objectives_on: bool, attempts: int) -> TreeParams:
    """Return the kernel's :class:`TreeParams` of ``opts``."""
    return TreeParams(
        tol_p=float(opts.position_tolerance), tol_o=float(opts.orientation_tolerance),
        max_iter=int(opts.max_iterations), max_attempts=int(attempts),
        lam0=float(opts.damping), clamp=_LOWER_LEVEL_CLAMP, objectives_on=objectives_on,
        k_null=float(opts.null_space_gain), max_step=float(opts.max_step),
        secondary_iter=int(opts.secondary_iterations))
