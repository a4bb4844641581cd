# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The whole link tree of a URDF: every joint, default chain ends, and the pose of any link.

:class:`ik_node.Chain` models one serial chain for the solvers. The ROS layer also needs the
rest of the robot: the simulated arm moves every non-fixed joint (robot_state_publisher wants
them all), and a target may be given in the frame of any link, also one off the chain. This
module reads the tree with the same reader as the chain (:func:`ik_node.model.urdf.read_robot`,
urdf_parser_py underneath) and computes link poses from joint positions by name.
"""

import math
import os
from typing import Mapping

from ik_node.errors import URDFError
from ik_node.model.urdf import JointSpec, read_robot
import numpy as np

__all__ = ['RobotTree']


class RobotTree:
    """Links and joints of a URDF robot, with link poses from joint positions."""

    def __init__(self, name: str, links: tuple[str, ...], joints: tuple[JointSpec, ...]):
        self.name = name
        self.links = links
        self.joints = joints
        self._by_child = {j.child: j for j in joints}
        self._by_name = {j.name: j for j in joints}
        roots = [link for link in links if link not in self._by_child]
        if len(roots) != 1:
            raise URDFError(f'robot {name!r} must have exactly one root link, found {roots}')
        self.root = roots[0]
        for j in joints:
            if j.mimic_joint is not None and not (math.isfinite(j.mimic_multiplier)
                                                  and math.isfinite(j.mimic_offset)):
                raise URDFError(f'mimic joint {j.name!r} has a non-finite multiplier or '
                                f'offset ({j.mimic_multiplier}, {j.mimic_offset})')
        for link in links:
            self.ancestors(link)    # raises URDFError for a cycle

    @classmethod
    def from_urdf(cls, urdf: str | os.PathLike) -> 'RobotTree':
        """Read a URDF from an XML string or a file path. Raises URDFError."""
        robot = read_robot(urdf)
        return cls(robot.name, robot.links, robot.joints)

    @property
    def moving_joints(self) -> tuple[JointSpec, ...]:
        """Every non-fixed joint, mimic joints included, in URDF order."""
        return tuple(j for j in self.joints if j.moves)

    @property
    def actuated_joints(self) -> tuple[JointSpec, ...]:
        """Every non-fixed joint that is not a mimic joint, in URDF order."""
        return tuple(j for j in self.joints if j.moves and j.mimic_joint is None)

    def ancestors(self, link: str) -> list[str]:
        """Return the links from the root down to ``link`` (both included)."""
        if link not in self.links:
            raise KeyError(link)
        path = [link]
        while path[-1] in self._by_child:
            path.append(self._by_child[path[-1]].parent)
            if len(path) > len(self.links):
                raise URDFError(f'the joints above link {link!r} form a cycle')
        return path[::-1]

    def default_chain(self) -> tuple[str, str]:
        """
        Return (base_link, tip_link): the root, and the leaf with most actuated joints above.

        Ties go to the leaf defined first in the URDF.
        """
        parents = {j.parent for j in self.joints}
        best, best_count = self.root, -1
        for link in self.links:
            if link in parents:
                continue
            count = sum(1 for a in self.ancestors(link)[1:]
                        if self._by_child[a].moves and self._by_child[a].mimic_joint is None)
            if count > best_count:
                best, best_count = link, count
        return self.root, best

    def complete_positions(self, positions: Mapping[str, float]) -> dict[str, float]:
        """Return positions of every moving joint: given ones, mimic ones derived, others 0."""
        out = {}
        for j in self.moving_joints:
            if j.mimic_joint is not None:
                continue
            out[j.name] = float(positions.get(j.name, 0.0))
        for j in self.moving_joints:
            if j.mimic_joint is not None:
                out[j.name] = (j.mimic_multiplier * out.get(j.mimic_joint, 0.0)
                               + j.mimic_offset)
        return out

    def _root_pose(self, link: str, positions: Mapping[str, float]) -> np.ndarray:
        # Imported here, not above: the kernel imports numba (0.4 CPU-s), and a process that
        # only reads the tree (sim_arm: joints, limits, mimic rules) never needs a link pose.
        from ik_node.spatial.rotations import rotation_about_axis
        T = np.eye(4)
        for a in self.ancestors(link)[1:]:
            j = self._by_child[a]
            T = T @ j.origin
            if j.moves:
                v = float(positions.get(j.name, 0.0))
                if j.joint_type == 'prismatic':
                    M = np.eye(4)
                    M[:3, 3] = j.axis * v
                else:
                    M = np.eye(4)
                    M[:3, :3] = rotation_about_axis(j.axis, v)
                T = T @ M
        return T

    def link_pose(self, base_link: str, link: str,
                  positions: Mapping[str, float]) -> np.ndarray:
        """
        Return the (4, 4) pose of ``link`` in the frame of ``base_link``.

        positions: joint name -> position [rad or m]; missing joints count as 0 and mimic
        joints follow their leader. Raises KeyError for a link not in the model.
        """
        full = self.complete_positions(positions)
        T_base = self._root_pose(base_link, full)
        T_link = self._root_pose(link, full)
        R = T_base[:3, :3]
        inv = np.eye(4)
        inv[:3, :3] = R.T
        inv[:3, 3] = -R.T @ T_base[:3, 3]
        return inv @ T_link
