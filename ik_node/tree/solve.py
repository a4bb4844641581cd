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

Reachability: a target beyond its tip's reach bound goes below every other task
(:mod:`ik_node.tree.tasks`); an attempt that ends with some tasks met and others not goes on
once more from its best pose with the missed ones one level below the met ones. An
unreachable tip therefore stretches toward its target in the null space of the others:
they keep their targets wherever their own joints can make up for the shared ones.

Every answer is judged by forward kinematics against every task (:func:`tasks.result_of`);
the kernels' own claims are not trusted.
"""

from typing import Any, Mapping, Optional, Union

from ik_node._jit import solving_clock
from ik_node.collision.clearance import CollisionClearance
from ik_node.errors import IKInputError
from ik_node.solvers.objectives import NO_CLEARANCE, pack_objectives, PackedObjectives
from ik_node.solvers.target_records import Limits
from ik_node.tree import tasks as tk
from ik_node.tree.chain import TreeChain
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

# Random starts drawn per solve (attempts beyond them cycle through them again).
_START_ROWS = 64
# The largest weighted residual a lower level's task aims at per step (units of
# length_scale, or rad).
_LOWER_LEVEL_CLAMP = 0.1


class TreeSolver:
    """
    A tree, validated options and a method, with what their solves share.

    Holds the joint limits' record, the packed objectives and the table of random starts
    (drawn once with ``options.seed``), so a solve converts only its targets and seed:
    a caller that solves many targets on one tree (a node, a benchmark) keeps one.
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
        self.limits = Limits(tree.lower, tree.upper, tree.continuous)
        rng = np.random.default_rng(opts.seed)
        self.starts = np.ascontiguousarray(
            tree.random_q(rng, min(opts.max_attempts - 1, _START_ROWS)).reshape(-1, tree.n))
        self.tolerances = (float(opts.position_tolerance), float(opts.orientation_tolerance))
        obj = self.objectives
        self.objectives_on = any(w > 0.0 for w in (obj.joint.k_limits, obj.joint.k_rest,
                                                   obj.model.k_manip, obj.model.k_obstacle))
        self._fabrik: Any = None

    def fabrik_record(self):
        """Return the tree's :class:`ik_node.tree.fabrik.TreeFabrik` (made on first use)."""
        if self._fabrik is None:
            from ik_node.tree.fabrik import fabrik_record
            self._fabrik = fabrik_record(self.tree)
        return self._fabrik

    def solve(self, targets: Mapping[str, Union[ArrayLike, TipTarget, None]],
              q0: Optional[ArrayLike] = None) -> TreeIKResult:
        """:func:`solve_tree` with this solver's tree, options and method."""
        tree, opts, tol = self.tree, self.options, self.tolerances
        start = tree.mid.copy() if q0 is None else tree.clip(tree.check_q(q0, 'q0'))
        tasks = tk.tasks_of(tree, targets, start, opts.untargeted)
        clock = solving_clock()
        if self.method == 'fabrik':
            from ik_node.tree.fabrik import fabrik_drive
            q, done, attempts, iterations = fabrik_drive(self, tasks, start)
        else:
            q, done, attempts, iterations = self.run_dls(tasks, start)
        if not done:
            # Some tips met, some not: once more from the best pose with the missed ones
            # one level below the rest, so they stretch on in the null space of the met ones.
            polish = tk.demoted(tree, tasks, q, *tol)
            if polish is not None:
                left = max(opts.timeout - (solving_clock() - clock), 1e-6)
                q2, _, _, used = self.run_dls(polish, q, timeout=left, attempts=1)
                iterations += used
                if tk.count_met(tree, polish, q2, tol) >= tk.count_met(tree, tasks, q, tol):
                    q = q2
        return tk.result_of(tree, tasks, np.asarray(q, dtype=float), tol,
                            (iterations, attempts), self.method)

    def run_dls(self, tasks: list, q0: np.ndarray, timeout: Optional[float] = None,
                attempts: Optional[int] = None) -> tuple:
        """
        Run the compiled tree DLS driver; return (q, every task met, attempts, iterations).

        timeout [s] and attempts default to the options'; attempts after the first start
        from the start table's rows.
        """
        from ik_node.tree.dls import tree_drive
        opts, obj = self.options, self.objectives
        params = params_of(opts, self.objectives_on,
                           opts.max_attempts if attempts is None else attempts)
        q, done, n_attempts, iterations = tree_drive(
            self.tree.tip_models, self.limits, tk.task_record(self.tree, tasks), params, obj,
            self.starts, np.array(q0, dtype=float),
            float(opts.timeout if timeout is None else timeout))
        return q, bool(done), int(n_attempts), int(iterations)


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


def tree_objectives(tree: TreeChain, objectives) -> TreeObjectives:
    """Return the packed objectives split into joint-space and per-chain terms."""
    for o in objectives:
        if isinstance(o, CollisionClearance):
            raise IKInputError('CollisionClearance is not available on a tree (it has no '
                               'collision model); use ObstacleClearance')
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
