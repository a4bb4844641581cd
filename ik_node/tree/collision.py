# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The collision model of a URDF tree: its moving joints as one tree of frames.

A chain's collision model (:mod:`ik_node.collision.model`) anchors every link to the moving
joint that carries it and runs the chain's forward kinematics. A tree does the same on
:class:`JointTreeView`: every moving joint of the tree once, depth-first from base_link
(parents first), each placed in its parent joint's frame, with the ``joint_tree`` arrays
(parent, end) that tell the kernels which joint moves which
(:mod:`ik_node.collision.joint_tree`). So the links of both arms, the torso and the
fingers past the tips are in one model: pairs across branches (left hand against right
hand, an arm against the torso) are checked like any other, adjacent and SRDF-disabled
pairs are left out, the floor and obstacles apply to every moving link, and joints outside
the tree are held.
"""

from typing import Mapping, Optional, Sequence

from ik_node._jit import readonly
from ik_node.errors import URDFError
from ik_node.model import kinematics
from ik_node.model.chain import fold_joints
from ik_node.model.urdf import chain_of, RobotSpec
import numpy as np

__all__ = ['JointTreeView']


class JointTreeView:
    """
    A tree's moving joints as the collision model takes a chain (see the module doc).

    ``model``: a :class:`ik_node.model.kinematics.ChainModel` of the m moving joints in depth-first
    order, joint k in the frame of joint ``joint_tree[0][k]``; ``moving_joint_names`` in that
    order; ``joint_tree`` (parent (m,), end (m,)). The joint vector (``n``, ``joint_names``,
    limits, ``random_q``, ``check_q``) is the tree's.
    """

    def __init__(self, tree, robot: RobotSpec):
        """Build the view of ``tree`` (a TreeChain) read from ``robot``."""
        self._tree = tree
        self.base_link = tree.base_link
        self.n = tree.n
        self.joint_names = tree.joint_names
        self.lower, self.upper = tree.lower, tree.upper
        by_name = {j.name: j for j in robot.joints}
        rows: dict[str, tuple] = {}
        children: dict[Optional[str], list[str]] = {None: []}
        for link in _carried_links(tree, robot, by_name):
            f = fold_joints(chain_of(robot, tree.base_link, link).joints, by_name,
                            tree.joint_names)
            up: Optional[str] = None
            for k, j in enumerate(f.moving):
                if j.name not in rows:
                    rows[j.name] = (f.origins[k], f.axes[k], f.types[k], f.entry[k],
                                    f.multiplier[k], f.offset[k], up)
                    children.setdefault(up, []).append(j.name)
                up = j.name
        order: list[str] = []
        stack = list(reversed(children[None]))
        while stack:
            name = stack.pop()
            order.append(name)
            stack.extend(reversed(children.get(name, [])))
        at = {name: k for k, name in enumerate(order)}
        m = len(order)
        parent = np.array([-1 if rows[nm][6] is None else at[rows[nm][6]] for nm in order],
                          dtype=np.int64)
        end = np.arange(1, m + 1, dtype=np.int64)
        for k in range(m - 1, -1, -1):
            if parent[k] >= 0:
                end[parent[k]] = max(end[parent[k]], end[k])
        O = np.array([rows[nm][0] for nm in order]).reshape(m, 4, 4)
        self.moving_joint_names = tuple(order)
        self.joint_tree = (readonly(parent), readonly(end))
        self.model = kinematics.ChainModel(
            readonly(np.ascontiguousarray(O[:, :3, :3])),
            readonly(np.ascontiguousarray(O[:, :3, 3])),
            readonly(np.array([rows[nm][1] for nm in order], dtype=float).reshape(m, 3)),
            readonly(np.array([rows[nm][2] for nm in order], dtype=np.int64)),
            readonly(np.array([rows[nm][3] for nm in order], dtype=np.int64)),
            readonly(np.array([rows[nm][4] for nm in order], dtype=float)),
            readonly(np.array([rows[nm][5] for nm in order], dtype=float)),
            readonly(np.eye(3)), readonly(np.zeros(3)))

    def random_q(self, rng: np.random.Generator, count: Optional[int] = None) -> np.ndarray:
        """Return the tree's random joint vectors (:meth:`TreeChain.random_q`)."""
        return self._tree.random_q(rng, count)

    def check_q(self, q, name: str = 'q') -> np.ndarray:
        """Return ``q`` checked as the tree checks it."""
        return self._tree.check_q(q, name)

    def clip(self, q) -> np.ndarray:
        """Return ``q`` clipped into the tree's limits."""
        return self._tree.clip(q)


def _carried_links(tree, robot: RobotSpec, by_name: Mapping) -> Sequence[str]:
    """
    Return links whose paths from base_link hold every moving joint of ``tree``.

    The tips, and the child link of a mimic joint's master that lies off every tip's path
    (it moves links of its own); URDFError when such a master is not below base_link.
    """
    links = list(tree.tip_links)
    on_paths = {j.name for tip in tree.tip_links
                for j in chain_of(robot, tree.base_link, tip).joints}
    for name in tree.moving_joint_names:
        if name in on_paths:
            continue
        child = by_name[name].child
        try:
            chain_of(robot, tree.base_link, child)
        except URDFError as exc:
            raise URDFError(f'joint {name!r} of the tree is not below base_link '
                            f'{tree.base_link!r}: no collision model for it ({exc})') from exc
        links.append(child)
    return links
