# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A kinematic tree (several tips on one URDF) as the motion layer takes an arm.

The goal search, the jerk-limited commander, the guards and the feedback checks of
:class:`ik_node.motion.tracker.IKTracker` need of a chain only its joint vector (names,
limits, continuous and prismatic joints), FK, a Jacobian, a solve and a collision check.
:class:`TreeArm` gives them those of a :class:`ik_node.TreeChain`, so the whole tree moves
through the same motion and safety layers as one chain:

- its target is every tip's pose at once, a (t, 4, 4) array in ``tip_links`` order in the
  base_link frame (a goal for one tip carries the other tips' poses to hold);
- ``fk`` gives the (t, 4, 4) tip poses, ``jacobian`` the stacked (6 t, n) Jacobian;
- :meth:`TreeArm.solve` solves all tips at once with :func:`ik_node.tree.solve_tree`, its
  restarts from random joint values within ``max_attempts`` and ``timeout``.

A tree has no collision model yet: :meth:`TreeArm.collisions` finds no contact, and a solve
given obstacles raises IKInputError; the node refuses ``avoid_collisions`` for trees.
:func:`solve_on`, :func:`check_arm_target` and :func:`target_error` are the seam: they take a
Chain or a TreeArm and do the right thing for each.
"""

import math
from typing import Any, Sequence

from ik_node.errors import IKInputError
from ik_node.model.chain import Chain
from ik_node.solve_ik import solve
from ik_node.spatial.pose import pose_error
from ik_node.target_checks import check_target
from ik_node.tree import solve_tree, TreeChain, TreeIKResult, TreeSolveOptions
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['TreeArm', 'solve_on', 'check_arm_target', 'target_error', 'TREE_METHODS']

# The node's solvers a tree solves with: the methods of ik_node.tree.solve_tree.
TREE_METHODS = ('dls', 'fabrik')

# Options :meth:`TreeArm.solve` takes (the goal search adds avoid_collisions, obstacles,
# timeout, rng_seed and max_attempts to the node's).
_TAKEN = {'position_tolerance', 'orientation_tolerance', 'max_iterations', 'max_attempts',
          'timeout', 'rng_seed', 'avoid_collisions', 'obstacles'}


class TreeArm:
    """A :class:`ik_node.TreeChain` with the interface of a Chain the motion layer uses."""

    def __init__(self, tree: TreeChain):
        self.tree = tree
        self.robot_name = tree.robot_name
        self.base_link = tree.base_link
        self.tip_links = tuple(tree.tip_links)
        self.tip_link = ', '.join(self.tip_links)
        self.joint_names = tuple(tree.joint_names)
        # Actuated joints only: the tree narrows a master's position limits by its mimic
        # joints (TreeChain), but their velocity limits do not bound the master here.
        self.moving_joint_names = self.joint_names
        self.n = tree.n
        self.lower, self.upper, self.velocity = tree.lower, tree.upper, tree.velocity
        self.continuous, self.prismatic, self.mid = tree.continuous, tree.prismatic, tree.mid
        self.length_scale = tree.length_scale
        wide = ~self.prismatic & ~self.continuous & (self.upper - self.lower > 2.0 * math.pi)
        wide.setflags(write=False)
        self.wide_revolute = wide

    def __repr__(self) -> str:
        """Name the tree."""
        return f'TreeArm({self.tree!r})'

    def check_q(self, q: ArrayLike, name: str = 'q') -> np.ndarray:
        """Return ``q`` as a float (n,) array; IKInputError for a wrong shape or NaN."""
        return self.tree.check_q(q, name)

    def clip(self, q: ArrayLike) -> np.ndarray:
        """Return ``q`` clipped into the joint limits."""
        return self.tree.clip(q)

    def within_limits(self, q: ArrayLike, tol: float = 1e-9) -> bool:
        """Return True if ``q`` is within the limits (``tol`` [rad or m])."""
        return self.tree.within_limits(q, tol)

    def random_q(self, rng: np.random.Generator, count: int | None = None) -> np.ndarray:
        """Return uniform random joint values within the limits."""
        return self.tree.random_q(rng, count)

    def fk(self, q: ArrayLike) -> np.ndarray:
        """Return the (t, 4, 4) tip poses at ``q``, ``tip_links`` order, base_link frame."""
        return self.tree.fk(q)

    def jacobian(self, q: ArrayLike) -> np.ndarray:
        """Return the stacked (6 t, n) Jacobian of the tips at ``q`` (the singularity guard)."""
        return self.tree.jacobian(q)

    def collisions(self, q: ArrayLike, obstacles: Sequence = ()) -> list[tuple[str, str]]:
        """Return no contact: a tree has no collision model (avoid_collisions is refused)."""
        return []

    def path_collides(self, q_a: ArrayLike, q_b: ArrayLike, step: float = 0.05,
                      obstacles: Sequence = ()) -> bool:
        """Return False: a tree has no collision model (see :meth:`collisions`)."""
        return False

    def check_target(self, target: ArrayLike) -> np.ndarray:
        """Return ``target`` as a read-only (t, 4, 4) array; IKInputError if malformed."""
        try:
            a = np.array(target, dtype=float)
        except (TypeError, ValueError) as exc:
            raise IKInputError(f'a tree target must be a (t, 4, 4) array: {exc}') from exc
        t = len(self.tip_links)
        if a.shape != (t, 4, 4):
            raise IKInputError(f'a tree target must hold a (4, 4) pose per tip, shape '
                               f'({t}, 4, 4) for {list(self.tip_links)}, got {a.shape}')
        for i, tip in enumerate(self.tip_links):
            try:
                check_target(a[i])
            except IKInputError as exc:
                raise IKInputError(f'target of tip {tip!r}: {exc}') from exc
        a.setflags(write=False)
        return a

    def tip_errors(self, target: np.ndarray, q: ArrayLike) -> list[tuple[float, float]]:
        """Return (position [m], orientation [rad]) error of each tip at ``q`` to ``target``."""
        T = self.fk(q)
        return [pose_error(target[i], T[i]) for i in range(len(self.tip_links))]

    def target_for(self, tip: int, pose: ArrayLike, q_hold: ArrayLike) -> np.ndarray:
        """
        Return the tree target of a (4, 4) ``pose`` for tip index ``tip``: (t, 4, 4).

        The other tips hold their poses at ``q_hold`` (n,): where the arm is, or the goal it
        is on its way to.
        """
        target = self.fk(q_hold)
        target[tip] = np.asarray(pose, dtype=float)
        return self.check_target(target)

    def solve(self, target: ArrayLike, q0: ArrayLike | None = None, method: str = 'dls',
              **options: Any) -> TreeIKResult:
        """
        Solve every tip to its pose in ``target`` (t, 4, 4) at once; see the module doc.

        options: the tolerances [m, rad], ``max_iterations`` (per attempt), ``max_attempts``
        (the seed, then random joint values drawn with ``rng_seed``) within ``timeout`` [s],
        as :func:`ik_node.tree.solve_tree` takes them. IKInputError for another option,
        obstacles, a method the tree does not have or a bad target.
        """
        unknown = sorted(set(options) - _TAKEN)
        if unknown:
            raise IKInputError(f'option(s) {", ".join(unknown)} not taken by a tree solve')
        if options.get('obstacles'):
            raise IKInputError('a tree has no collision model: obstacles cannot be avoided')
        if method not in TREE_METHODS:
            raise IKInputError(f'solver {method!r} does not solve trees (use one of '
                               f'{", ".join(TREE_METHODS)})')
        poses = self.check_target(target)
        defaults = TreeSolveOptions()
        seed = options.get('rng_seed')
        tree_options = TreeSolveOptions(
            position_tolerance=float(options.get('position_tolerance',
                                                 defaults.position_tolerance)),
            orientation_tolerance=float(options.get('orientation_tolerance',
                                                    defaults.orientation_tolerance)),
            max_iterations=int(options.get('max_iterations', defaults.max_iterations)),
            max_attempts=max(int(options.get('max_attempts', 1)), 1),
            timeout=float(options.get('timeout', defaults.timeout)),
            seed=0 if seed is None else int(seed))
        return solve_tree(self.tree, dict(zip(self.tip_links, poses)), q0, tree_options,
                          method)


def solve_on(arm: Any, target: ArrayLike, q0: ArrayLike | None = None, method: str = 'dls',
             **options: Any) -> Any:
    """Solve ``target`` on a Chain (:func:`ik_node.solve`) or a TreeArm (its own solve)."""
    if isinstance(arm, TreeArm):
        return arm.solve(target, q0=q0, method=method, **options)
    chain: Chain = arm
    return solve(chain, target, q0=q0, method=method, **options)


def check_arm_target(arm: Any, target: ArrayLike) -> np.ndarray:
    """Return ``target`` checked for ``arm``: (4, 4) or (3,) for a Chain, (t, 4, 4) for a tree."""
    if isinstance(arm, TreeArm):
        return arm.check_target(target)
    return check_target(target)


def target_error(arm: Any, target: np.ndarray, q: ArrayLike) -> tuple[float, float]:
    """
    Return the (position [m], orientation [rad]) error of ``arm`` at ``q`` to ``target``.

    A tree: the largest over its tips; a (3,) target: orientation error 0.
    """
    if isinstance(arm, TreeArm):
        errors = arm.tip_errors(target, q)
        return max(e[0] for e in errors), max(e[1] for e in errors)
    T = arm.fk(q)
    if target.shape == (3,):
        return float(np.linalg.norm(T[:3, 3] - target)), 0.0
    pe, oe = pose_error(target, T)
    return float(pe), float(oe)
