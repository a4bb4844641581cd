# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The arm's visual geometry on the page, posed quickly enough for a 60 Hz drag.

viser's ``ViserUrdf`` draws the URDF's visual meshes under one frame per joint. Its
``update_cfg`` goes through yourdfpy's scene graph, about 3 ms per update for the demo arm on
these machines; here the moving joints' frames are set straight from their origin and joint
value instead (about ten times less), with ``update_cfg`` kept as the fallback.
"""

from ik_node.spatial.rotations import quat_wxyz_from_matrix, rotation_about_axis
import numpy as np
from viser.extras import ViserUrdf

__all__ = ['ArmDisplay']

MOVING = ('revolute', 'continuous', 'prismatic')


class ArmDisplay:
    """The URDF of a :class:`~ik_node.web.robot.RobotModel` drawn under ``/robot``."""

    def __init__(self, server, robot):
        """Add the visual meshes to ``server``'s scene."""
        self.urdf = robot.urdf
        self.viser_urdf = ViserUrdf(server, robot.urdf, root_node_name='/robot')
        names = list(robot.urdf.actuated_joint_names)
        joints = list(robot.urdf.joint_map.values())
        self.moving = []
        for i, j in enumerate(joints):
            if j.type not in MOVING:
                continue
            if j.mimic is not None:
                master = names.index(j.mimic.joint) if j.mimic.joint in names else -1
                mult, off = float(j.mimic.multiplier or 1.0), float(j.mimic.offset or 0.0)
            else:
                master, mult, off = names.index(j.name), 1.0, 0.0
            origin = np.eye(4) if j.origin is None else np.asarray(j.origin, dtype=float)
            axis = np.asarray(j.axis if j.axis is not None else (1.0, 0.0, 0.0), dtype=float)
            self.moving.append((i, j.type == 'prismatic', origin,
                                axis / np.linalg.norm(axis), master, mult, off))
        frames = getattr(self.viser_urdf, '_joint_frames', None)
        # The fast path relies on ViserUrdf keeping one frame per joint in joint_map order.
        self.frames = frames if frames is not None and len(frames) == len(joints) else None
        self._placed = False

    def link_frames(self) -> dict:
        """Return {link name: its frame's scene node name} (empty off the fast path)."""
        if self.frames is None:
            return {}
        joints = list(self.urdf.joint_map.values())
        out = {j.child: frame.name for j, frame in zip(joints, self.frames)}
        root = getattr(self.viser_urdf, '_visual_root_frame', None)
        if root is not None:
            out[self.urdf.base_link] = root.name
        return out

    def transforms(self, cfg: np.ndarray) -> list:
        """Return [(joint index, (4, 4) parent->child transform)] of the moving joints."""
        out = []
        for i, prismatic, origin, axis, master, mult, off in self.moving:
            q = (cfg[master] if master >= 0 else 0.0) * mult + off
            M = np.eye(4)
            if prismatic:
                M[:3, 3] = q * axis
            else:
                M[:3, :3] = rotation_about_axis(axis, q)
            out.append((i, origin @ M))
        return out

    def update(self, cfg: np.ndarray) -> None:
        """Pose the drawn arm at the display joint vector ``cfg`` (actuated joints)."""
        if self.frames is None:
            self.viser_urdf.update_cfg(cfg)
            return
        for (i, T), moving in zip(self.transforms(np.asarray(cfg, dtype=float)), self.moving):
            handle = self.frames[i]
            handle.wxyz = np.asarray(quat_wxyz_from_matrix(np.ascontiguousarray(T[:3, :3])))
            # a revolute joint's frame only turns: its position is sent once
            if moving[1] or not self._placed:
                handle.position = T[:3, 3]
        self._placed = True
