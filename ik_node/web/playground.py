# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
State of the FABRIK playground, without any GUI: the point chain or tree, its root and targets.

A single chain (one end effector) is solved by :func:`ik_node.fabrik`, with hinge and cone
constraints when chosen, and can be stepped one forward or backward pass at a time
(:func:`ik_node.pointchain.point_fabrik.fabrik_pass`). Several end effectors make a tree: a
trunk of ``n_links`` links and one branch per end effector from the sub-base at its top,
solved by :func:`ik_node.fabrik_tree` (free joints only; stepped one iteration at a time).
"""

from dataclasses import dataclass, replace
import math
from typing import List, Optional, Union

from ik_node.errors import IKInputError
from ik_node.pointchain.constraints import BallJoint, constraint_violation, HingeJoint
from ik_node.pointchain.point_fabrik import fabrik, fabrik_pass, PassResult
from ik_node.pointchain.point_tree import fabrik_tree
import numpy as np

__all__ = ['PlaygroundConfig', 'Playground', 'Status', 'CONSTRAINT_KINDS']

CONSTRAINT_KINDS = ('free', 'hinge', 'cone', 'hinge + cone')
MAX_LINKS = 24
MAX_END_EFFECTORS = 4


@dataclass(frozen=True)
class PlaygroundConfig:
    """
    Settings of the playground (lengths [m], angles [rad]).

    lengths: one length for every link, or one per trunk link; hinge_limit: each hinge turns
    within [-hinge_limit, hinge_limit]; cone_angle: half-angle of each cone; branch_links:
    links per branch of a tree; tolerance, min_change (stall threshold) [m], max_iterations as
    for :func:`ik_node.fabrik`.
    """

    n_links: int = 6
    lengths: tuple = (0.15,)
    constraint: str = 'free'
    hinge_limit: float = math.radians(90.0)
    cone_angle: float = math.radians(45.0)
    end_effectors: int = 1
    branch_links: int = 3
    max_iterations: int = 100
    tolerance: float = 1e-3
    min_change: float = 1e-6

    def check(self) -> 'PlaygroundConfig':
        """Return self; IKInputError naming the first bad setting."""
        def integer(name, lo, hi):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
                raise IKInputError(f'{name} must be an integer in [{lo}, {hi}], got {v!r}')
        integer('n_links', 1, MAX_LINKS)
        integer('end_effectors', 1, MAX_END_EFFECTORS)
        integer('branch_links', 1, MAX_LINKS)
        integer('max_iterations', 0, 100000)
        lengths = np.asarray(self.lengths, dtype=float).reshape(-1)
        if lengths.size not in (1, self.n_links) or not np.all(np.isfinite(lengths)) \
                or np.any(lengths <= 0.0):
            raise IKInputError(f'link lengths must be 1 or {self.n_links} numbers > 0, '
                               f'got {list(self.lengths)}')
        if self.constraint not in CONSTRAINT_KINDS:
            raise IKInputError(f'constraint must be one of {CONSTRAINT_KINDS}, '
                               f'got {self.constraint!r}')
        if not 0.0 <= self.hinge_limit <= math.pi:
            raise IKInputError('hinge limit must be in [0, 180] degrees')
        BallJoint(self.cone_angle).packed_limits()   # the library's own check
        for name in ('tolerance', 'min_change'):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0.0):
                raise IKInputError(f'{name} must be a finite number >= 0, got {v!r}')
        return self

    def link_lengths(self) -> np.ndarray:
        """Return the (n_links,) trunk link lengths [m]."""
        lengths = np.asarray(self.lengths, dtype=float).reshape(-1)
        return np.resize(lengths, self.n_links)


@dataclass(frozen=True)
class Status:
    """What the page shows after a solve or a pass."""

    text: str
    distance: float
    iterations: int
    passes: int
    length_error: float
    violation: float


class Playground:
    """The point chain (or tree), its root and targets; solve it or step it."""

    def __init__(self, config: Optional[PlaygroundConfig] = None):
        """Build the rest pose of ``config`` (default settings when None)."""
        self.root = np.zeros(3)
        self.targets = np.zeros((0, 3))
        self.frames: Optional[np.ndarray] = None   # bone frames of a constrained chain
        self.wish: Optional[PassResult] = None     # the forward pass not yet taken back
        self.configure(config or PlaygroundConfig())

    @property
    def is_tree(self) -> bool:
        """Return True when there are several end effectors."""
        return self.config.end_effectors > 1

    def configure(self, config: PlaygroundConfig) -> None:
        """Take checked settings; rebuild the rest pose and keep the targets that still fit."""
        self.config = config.check()
        L = config.link_lengths()
        trunk = np.vstack([np.zeros(3), np.cumsum(np.outer(L, [0.0, 0.0, 1.0]), axis=0)])
        parents = list(range(-1, config.n_links))
        points = list(trunk)
        leaves = [config.n_links]
        if self.is_tree:
            leaves = []
            top = config.n_links
            d = float(L[-1])
            for k in range(config.end_effectors):
                a = 2.0 * math.pi * k / config.end_effectors
                u = np.array([math.sin(0.6) * math.cos(a), math.sin(0.6) * math.sin(a),
                              math.cos(0.6)])
                prev = top
                for _ in range(config.branch_links):
                    points.append(points[prev] + d * u)
                    parents.append(prev)
                    prev = len(points) - 1
                leaves.append(prev)
        self.rest = np.array(points) + self.root
        self.parents = np.array(parents, dtype=np.int64)
        self.leaves = leaves
        self.lengths = np.linalg.norm(self.rest[1:] - self.rest[self.parents[1:]], axis=1)
        old = self.targets
        self.targets = np.array([old[k] if k < len(old) else self._default_target(k)
                                 for k in range(len(leaves))])
        self.reset()

    def _default_target(self, k: int) -> np.ndarray:
        reach = float(self.lengths.sum()) if not self.is_tree else float(
            np.linalg.norm(self.rest[self.leaves[k]] - self.root))
        a = 2.0 * math.pi * k / max(1, self.config.end_effectors) + 0.5
        return self.root + 0.6 * reach * np.array([0.6 * math.cos(a), 0.6 * math.sin(a), 0.8])

    def constraints(self) -> Optional[List[Union[BallJoint, HingeJoint]]]:
        """Return the joint constraints of the single chain (None: free)."""
        kind = self.config.constraint
        if kind == 'free' or self.is_tree:
            return None
        lim, cone = self.config.hinge_limit, self.config.cone_angle
        out: List[Union[BallJoint, HingeJoint]] = []
        for j in range(self.config.n_links):
            hinge = HingeJoint(axis=(1.0, 0.0, 0.0) if j % 2 == 0 else (0.0, 1.0, 0.0),
                               lower=-lim, upper=lim)
            ball = BallJoint(cone)
            if kind == 'hinge':
                out.append(hinge)
            elif kind == 'cone':
                out.append(ball)
            else:   # 'hinge + cone': alternating, starting with a cone
                out.append(hinge if j % 2 else ball)
        return out

    def reset(self) -> Status:
        """Put the chain back in its rest pose (projected onto the constraints)."""
        self.points = self.rest.copy()
        self.points[0] = self.root
        self.frames = None
        self.wish = None
        self.passes = 0
        self.iterations = 0
        c = self.constraints()
        if c is not None:
            p = fabrik_pass(self.points, self.root, 'backward', constraints=c)
            self.points, self.frames = p.points, p.frames
        return self.status('rest pose')

    def move_root(self, root) -> None:
        """Move the root anchor [m] (the next backward pass or solve puts the root there)."""
        self.root = np.array(root, dtype=float).reshape(3)

    def move_target(self, k: int, target) -> None:
        """Move end effector k's target [m]."""
        self.targets[k] = np.array(target, dtype=float).reshape(3)

    def solve(self) -> Status:
        """Solve from the current pose with the current settings; return the status."""
        c = self.config
        self.wish = None
        if self.is_tree:
            tree_sol = fabrik_tree(self.points, self.parents,
                                   {leaf: self.targets[k] for k, leaf in enumerate(self.leaves)},
                                   root=self.root, tolerance=c.tolerance,
                                   min_change=c.min_change, max_iterations=c.max_iterations)
            self.points = tree_sol.points
            self.iterations = tree_sol.iterations
            return self.status(tree_sol.status)
        sol = fabrik(self.points, self.targets[0], root=self.root,
                     constraints=self.constraints(), frames=self.frames,
                     tolerance=c.tolerance, min_change=c.min_change,
                     max_iterations=c.max_iterations)
        self.points, self.frames = sol.points, sol.frames
        self.iterations = sol.iterations
        return self.status(sol.status)

    def step(self, kind: str) -> Status:
        """
        Run one 'forward' or 'backward' pass, or one 'iteration' (both), and return the status.

        After a forward pass the wished points are in ``wish`` and the chain is unchanged;
        the backward pass builds the chain from them. A tree steps by whole iterations.
        """
        if kind not in ('forward', 'backward', 'iteration'):
            raise IKInputError(f'unknown step {kind!r}')
        if self.is_tree:
            if kind != 'iteration':
                raise IKInputError('a tree steps by whole iterations (fabrik_tree has no '
                                   'single-pass API)')
            c = self.config
            sol = fabrik_tree(self.points, self.parents,
                              {leaf: self.targets[k] for k, leaf in enumerate(self.leaves)},
                              root=self.root, tolerance=c.tolerance, min_change=0.0,
                              max_iterations=1)
            self.points = sol.points
            self.iterations += 1
            self.passes += 2
            return self.status('stepping')
        if kind == 'iteration':
            self.step('forward')
            return self.step('backward')
        constraints = self.constraints()
        if kind == 'forward':
            p = fabrik_pass(self.points, self.targets[0], 'forward', constraints=constraints,
                            frames=self.frames)
            self.wish = p
        else:
            src = self.wish
            pts = src.points if src is not None else self.points
            frames = src.frames if src is not None else self.frames
            p = fabrik_pass(pts, self.root, 'backward', constraints=constraints, frames=frames)
            self.points, self.frames = p.points, p.frames
            self.wish = None
            self.iterations += 1
        self.passes += 1
        return self.status(f'stepping: {kind} pass done')

    def end_distances(self) -> np.ndarray:
        """Return the (K,) distances of the end effectors to their targets [m]."""
        return np.linalg.norm(self.points[self.leaves] - self.targets, axis=1)

    def status(self, text: str) -> Status:
        """Return the status of the current pose, headed by ``text``."""
        seg = np.linalg.norm(self.points[1:] - self.points[self.parents[1:]], axis=1)
        viol = 0.0
        c = self.constraints()
        if c is not None and self.frames is not None:
            viol = float(constraint_violation(self.frames, c).max())
        return Status(text, float(self.end_distances().max()), self.iterations, self.passes,
                      float(np.max(np.abs(seg - self.lengths))), viol)

    def with_config(self, **changes) -> PlaygroundConfig:
        """Return the current settings with ``changes``; IKInputError when they are refused."""
        return replace(self.config, **changes).check()
