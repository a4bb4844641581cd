# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A kinematic tree: one base link, several tip links, and the joints they share.

:class:`TreeChain` is the model behind several end effectors on one URDF (both hands of a
torso, the fingers of a hand). It holds one joint vector ``q`` over the union of the tips'
joints, each joint once, and for every tip the serial chain base_link -> tip as a
:class:`ik_node.model.kinematics.ChainModel` whose joint indices point into that vector: FK and the
Jacobian of a tip are the single-chain kernels, and a joint two tips share gets one column
that both tips' rows fill.

Joint order: the tips in the order given, each tip's joints from the base outwards, each
joint at its first appearance (the master of a mimic joint off every path, right where
its mimic appears). The joints every tip shares (a torso) therefore come first,
then the first tip's own joints, then what the second tip adds, and so on.

Conventions are :class:`ik_node.Chain`'s: poses in the base_link frame, the Jacobian of a tip
is the geometric one of the tip link's origin, rows [v; w], both in the base_link frame.
"""

import os
from types import MappingProxyType
from typing import Mapping, Optional, Sequence, Union

from ik_node._jit import readonly
from ik_node.collision.model import held_values
from ik_node.errors import IKInputError, URDFError
from ik_node.model import kinematics
from ik_node.model.chain import Chain, fold_joints, JointVector
from ik_node.model.urdf import chain_of, JointSpec, read_robot, RobotSpec
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['TreeChain']

TipKey = Union[str, int]


def _tip_model(joints: Sequence[JointSpec], by_name: Mapping[str, JointSpec],
               names: list[str]) -> tuple[kinematics.ChainModel, np.ndarray, np.ndarray]:
    """
    Return (model, origins (m, 4, 4), tip offset (4, 4)) of the serial path ``joints``.

    Fixed joints fold into the next moving joint's origin, as in :class:`ik_node.Chain`;
    joint values index ``names`` (the tree's joint vector), mimic joints their master's entry.
    """
    f = fold_joints(joints, by_name, names)
    model = kinematics.ChainModel(
        readonly(f.origins[:, :3, :3]), readonly(f.origins[:, :3, 3]), readonly(f.axes),
        readonly(f.types), readonly(f.entry), readonly(f.multiplier), readonly(f.offset),
        readonly(f.tip[:3, :3].copy()), readonly(f.tip[:3, 3].copy()))
    return model, f.origins, f.tip


class TreeChain(JointVector):
    """
    The subtree of a URDF from ``base_link`` to several ``tip_links``.

    ``q`` is an (n,) array in ``joint_names`` order (see the module doc), [rad] for revolute
    and continuous joints, [m] for prismatic ones; mimic joints follow their master and
    narrow its limits, as in :class:`ik_node.Chain`; a master off every tip's path (a finger
    mimicking its twin) is a joint of ``q`` all the same. ``tip_joints[i]`` holds the indices
    into ``q`` of the joints tip i depends on, ascending. Joints outside the tree are held at
    ``held`` {name: value}.

    A tip may lie below another tip (a wrist and a fingertip): each keeps its own task, and
    the ancestor tip's Jacobian rows are zero in the columns of the joints below it.
    """

    def __init__(self, robot: RobotSpec, base_link: str, tip_links: Sequence[str],
                 held_joints: Optional[Mapping[str, float]] = None):
        """Build the tree of ``robot`` (:func:`~ik_node.model.urdf.read_robot`), or URDFError."""
        tips = self._checked_tips(robot, base_link, tip_links)
        specs = [chain_of(robot, base_link, tip) for tip in tips]
        self.robot_name = robot.name
        self.base_link = base_link
        self.tip_links = tips
        self.links = robot.links
        self._robot = robot
        by_name = {j.name: j for j in robot.joints}
        tree_joints: dict[str, JointSpec] = {}
        for spec in specs:
            for j in spec.joints:
                tree_joints.setdefault(j.name, j)
                # A mimic joint's master joins the vector even off every tip's path (a
                # finger mimicking its twin): the tip depends on it.
                master, seen = j, set()
                while master.mimic_joint is not None and master.name not in seen:
                    seen.add(master.name)
                    master = by_name.get(master.mimic_joint, master)
                if master is not j and master.moves:
                    tree_joints.setdefault(master.name, master)
        actuated = [j for j in tree_joints.values()
                    if j.joint_type != 'fixed' and j.mimic_joint is None]
        names = [j.name for j in actuated]
        self.joint_names = tuple(names)
        self.n = len(names)
        self.moving_joint_names = tuple(j.name for j in tree_joints.values()
                                        if j.joint_type != 'fixed')
        lower = np.array([j.lower for j in actuated])
        upper = np.array([j.upper for j in actuated])
        for j in tree_joints.values():
            if j.mimic_joint is not None and j.joint_type != 'continuous':
                idx, mul, off = Chain._resolve_mimic(j, by_name, names)
                Chain._narrow_master(j, idx, mul, off, lower, upper)
        self.lower = readonly(lower)
        self.upper = readonly(upper)
        self.velocity = readonly(np.array([j.velocity for j in actuated]))
        self.continuous = readonly(np.array([j.joint_type == 'continuous' for j in actuated]))
        self.prismatic = readonly(np.array([j.joint_type == 'prismatic' for j in actuated]))
        self.mid = readonly(0.5 * (np.where(self.continuous, 0.0, lower)
                                   + np.where(self.continuous, 0.0, upper)))
        models, tip_joints, reach = [], [], []
        for spec in specs:
            model, frames, tip = _tip_model(spec.joints, by_name, names)
            models.append(model)
            tip_joints.append(readonly(np.unique(model.index)))
            reach.append(Chain._reach_bound(frames, tip, spec.joints))
        self.tip_models = tuple(models)
        self.tip_joints = tuple(tip_joints)
        # The longest tip's reach bound [m]: the solvers measure position errors in units of
        # it (as Chain.length_scale), so damping acts alike on a hand and a humanoid.
        self.length_scale = max(max(r for _, r in reach), 1e-3)
        # Per tip (p0 (3,), r [m]): the tip never gets farther than r from p0, its first
        # moving joint (a bound, see Chain.reach): a target beyond it is out of reach.
        self.tip_reach = tuple(reach)
        count = np.zeros(self.n, dtype=np.int64)
        for cols in tip_joints:
            count[cols] += 1
        # Joints more than one tip depends on (the torso of two arms), ascending.
        self.shared_joints = readonly(np.flatnonzero(count > 1))
        self.held = MappingProxyType(held_values(robot, self, held_joints))

    @staticmethod
    def _checked_tips(robot: RobotSpec, base_link: str, tip_links) -> tuple[str, ...]:
        """Return ``tip_links`` as a tuple; URDFError naming an unknown, repeated or off tip."""
        if isinstance(tip_links, str) or not isinstance(tip_links, Sequence):
            raise URDFError(f'tip_links must be a list of link names, got {tip_links!r}')
        tips = tuple(tip_links)
        if not tips:
            raise URDFError('tip_links is empty: a tree needs at least one tip link')
        links = robot.links
        shown = ', '.join(links[:12]) + (', ...' if len(links) > 12 else '')
        if base_link not in links:
            raise URDFError(f'base_link {base_link!r} is not a link of robot {robot.name!r} '
                            f'(links: {shown})')
        parent = {j.child: j.parent for j in robot.joints}
        for i, tip in enumerate(tips):
            if not isinstance(tip, str) or tip not in links:
                raise URDFError(f'tip_links[{i}] {tip!r} is not a link of robot '
                                f'{robot.name!r} (links: {shown})')
            if tips.index(tip) != i:
                raise URDFError(f'tip_links[{i}] {tip!r} repeats tip_links[{tips.index(tip)}]: '
                                'each tip may appear once')
        paths = [_root_path(parent, tip, len(links)) for tip in tips]
        for i, (tip, path) in enumerate(zip(tips, paths)):
            if tip == base_link:
                raise URDFError(f'tip_links[{i}] {tip!r} is base_link itself: a tip must lie '
                                'below it')
            if base_link not in path:
                common = _common_ancestor(paths + [_root_path(parent, base_link, len(links))])
                raise URDFError(f'tip_links[{i}] {tip!r} is not below base_link {base_link!r} '
                                f'in robot {robot.name!r}; the nearest link above it and '
                                f'base_link is {common!r}')
        return tips

    @classmethod
    def from_urdf(cls, urdf: Union[str, os.PathLike], base_link: str,
                  tip_links: Sequence[str],
                  held_joints: Optional[Mapping[str, float]] = None) -> 'TreeChain':
        """
        Build the tree ``base_link`` -> each of ``tip_links`` from URDF XML text or a path.

        ``held_joints`` {name: value} holds joints outside the tree (a head, the legs;
        default: 0 clipped into their limits). URDFError for an unknown, repeated or
        unreachable tip, an empty list, a tip without an actuated joint above it, a mimic
        joint whose master is outside the tree, or a held joint that is not one outside it.
        """
        return cls(read_robot(urdf), base_link, tip_links, held_joints)

    def __repr__(self) -> str:
        """Name the robot, the base, the tips and the joint count."""
        return (f'TreeChain({self.robot_name!r}, {self.base_link!r} -> '
                f'{list(self.tip_links)}, n={self.n})')

    def tip_index(self, tip: TipKey) -> int:
        """Return the position of ``tip`` (a tip link name or an index) in ``tip_links``."""
        if isinstance(tip, (int, np.integer)) and not isinstance(tip, bool):
            if 0 <= tip < len(self.tip_links):
                return int(tip)
        elif tip in self.tip_links:
            return self.tip_links.index(tip)
        raise IKInputError(f'{tip!r} is not a tip of this tree (tips: {list(self.tip_links)})')

    def tip_chain(self, tip: TipKey) -> Chain:
        """
        Return the single :class:`ik_node.Chain` base_link -> ``tip`` (its own joint vector).

        Its ``joint_names`` are ``[joint_names[i] for i in tip_joints[tip]]`` when no mimic
        joint of the path follows a joint off it (a Chain refuses that one: URDFError).
        """
        return Chain(chain_of(self._robot, self.base_link,
                              self.tip_links[self.tip_index(tip)]))

    def fk(self, q: ArrayLike) -> np.ndarray:
        """Return the (t, 4, 4) poses of the tips, ``tip_links`` order, base_link frame."""
        qa = self.check_q(q)
        return np.array([kinematics.tip_pose(model, qa) for model in self.tip_models])

    def tip_pose(self, q: ArrayLike, tip: TipKey) -> np.ndarray:
        """Return the (4, 4) pose of one tip (name or index) in the base_link frame."""
        return kinematics.tip_pose(self.tip_models[self.tip_index(tip)], self.check_q(q))

    def tip_jacobian(self, q: ArrayLike, tip: TipKey) -> np.ndarray:
        """
        Return the (6, n) geometric Jacobian of one tip's origin, base frame, rows [v; w].

        Zero in the columns of the joints the tip does not depend on.
        """
        model = self.tip_models[self.tip_index(tip)]
        return kinematics.jacobian(model, self.n, self.check_q(q))

    def jacobian(self, q: ArrayLike) -> np.ndarray:
        """Return the stacked (6 t, n) Jacobian: rows 6 i .. 6 i + 5 are tip i's [v; w]."""
        return self.fk_and_jacobian(q)[1]

    def fk_and_jacobian(self, q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Return the (t, 4, 4) tip poses and the stacked (6 t, n) Jacobian at ``q``."""
        qa = self.check_q(q)
        t = len(self.tip_models)
        T = np.zeros((t, 4, 4))
        T[:, 3, 3] = 1.0
        J = np.zeros((6 * t, self.n))
        for i, model in enumerate(self.tip_models):
            m = model.origin_R.shape[0]
            R = np.empty((m + 1, 3, 3))
            p = np.empty((m + 1, 3))
            z = np.empty((m, 3))
            Ji = np.empty((6, self.n))
            kinematics.tip_and_jacobian(model, self.n, qa, R, p, z, Ji)
            T[i, :3, :3] = R[m]
            T[i, :3, 3] = p[m]
            J[6 * i:6 * i + 6] = Ji
        return T, J

    def positions(self, q: ArrayLike) -> dict[str, float]:
        """
        Return {joint: value} for every moving joint of the robot at tree joint values ``q``.

        Tree joints from ``q``, joints outside the tree from ``held``, mimic joints from
        their master (for a joint_states message or :meth:`ik_node.RobotTree.link_pose`).
        """
        qa = self.check_q(q)
        out = dict(self.held)
        out.update(zip(self.joint_names, map(float, qa)))
        by_name = {j.name: j for j in self._robot.joints}
        tree = set(self.joint_names)
        for j in self._robot.joints:
            if not (j.moves and j.mimic_joint is not None):
                continue
            mul, off, master = 1.0, 0.0, j
            for _ in range(len(by_name)):
                if master.mimic_joint is None or master.mimic_joint not in by_name:
                    break
                off += mul * master.mimic_offset
                mul *= master.mimic_multiplier
                master = by_name[master.mimic_joint]
            # Mimics of a joint outside the tree keep their held value.
            if master.name in tree:
                out[j.name] = mul * out[master.name] + off
        return out


def _root_path(parent: Mapping[str, str], link: str, limit: int) -> list[str]:
    """Return the links from ``link`` up to the root (both included)."""
    path = [link]
    while path[-1] in parent and len(path) <= limit:
        path.append(parent[path[-1]])
    return path


def _common_ancestor(paths: list[list[str]]) -> Optional[str]:
    """Return the deepest link on every one of the root paths, or None."""
    common = set(paths[0]).intersection(*paths[1:])
    for link in paths[0]:
        if link in common:
            return link
    return None
