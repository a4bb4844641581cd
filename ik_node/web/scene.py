# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
What every arm page sets up the same way: the grid, the drawn arm, its base frame, the gizmos.

:func:`arm_scene` draws the grid and the URDF (:class:`~ik_node.web.arm_display.ArmDisplay`)
and adds the ``/base`` frame at the chain's base link: targets, gizmos and reached frames
live under it, in the base frame as ``ik_node.solve`` and the node take them.
:class:`TipGizmos` is a gizmo and a reached frame per tip (one for a chain, one per tip of a
tree), used by the standalone views and the ROS-mode view alike.
"""

from typing import Any, Callable, Sequence

from ik_node.web.arm_display import ArmDisplay
import numpy as np
import viser
import viser.transforms as vtf

__all__ = ['wxyz_of', 'pose_of', 'home_pose', 'arm_scene', 'TipGizmos']


def wxyz_of(T: np.ndarray) -> np.ndarray:
    """Return the (4,) quaternion w, x, y, z of the rotation of pose T (4, 4)."""
    return vtf.SO3.from_matrix(np.asarray(T)[:3, :3]).wxyz


def pose_of(position, wxyz) -> np.ndarray:
    """Return the (4, 4) pose of a position (3,) [m] and a quaternion w, x, y, z (normalised)."""
    T = np.eye(4)
    T[:3, :3] = vtf.SO3(np.asarray(wxyz, dtype=float)).normalize().as_matrix()
    T[:3, 3] = position
    return T


def home_pose(chain) -> np.ndarray:
    """Return a bent start pose (n,) inside the limits: mid-range with elbow-like bends."""
    bend = np.array([0.0 if j == 0 else 0.6 * (-1) ** j for j in range(chain.n)])
    return np.clip(np.asarray(chain.mid) + bend, chain.lower, chain.upper)


def arm_scene(server: viser.ViserServer, robot) -> tuple[ArmDisplay, np.ndarray]:
    """
    Draw the grid, the arm of ``robot`` (a RobotModel) and the ``/base`` frame on ``server``.

    Returns the display and T_base (4, 4): the chain's base link in the URDF root's frame.
    """
    scene = server.scene
    scene.add_grid('/grid', width=2.0, height=2.0, cell_size=0.1, section_size=0.5)
    display = ArmDisplay(server, robot)
    T_base = robot.urdf.get_transform(robot.chain.base_link, robot.urdf.base_link)
    scene.add_frame('/base', show_axes=False, position=T_base[:3, 3], wxyz=wxyz_of(T_base))
    return display, T_base


class TipGizmos:
    """
    A 6-DOF gizmo and a reached frame per tip, under ``/base``.

    tips: the tip link names (one for a chain); T (t, 4, 4): where they start;
    on_move(i, T): called with tip i's gizmo pose (4, 4) when a user drags it.
    """

    def __init__(self, server: viser.ViserServer, tips: Sequence[str], T: np.ndarray,
                 on_move: Callable[[int, np.ndarray], Any], scale: float = 0.15):
        scene = server.scene
        self.tips = tuple(tips)
        self.gizmos, self.reached = [], []
        for i, tip in enumerate(self.tips):
            gizmo = scene.add_transform_controls(f'/base/target_{tip}', scale=scale,
                                                 position=T[i][:3, 3], wxyz=wxyz_of(T[i]))
            gizmo.on_update(self._moved(i, on_move))
            self.gizmos.append(gizmo)
            self.reached.append(scene.add_frame(f'/base/reached_{tip}', axes_length=0.06,
                                                axes_radius=0.005, position=T[i][:3, 3],
                                                wxyz=wxyz_of(T[i])))

    def _moved(self, i: int, on_move: Callable[[int, np.ndarray], Any]) -> Callable:
        def moved(event: viser.TransformControlsEvent) -> None:
            on_move(i, self.pose(i))
        return moved

    def pose(self, i: int) -> np.ndarray:
        """Return where tip i's gizmo is: a (4, 4) pose in the base frame."""
        return pose_of(self.gizmos[i].position, self.gizmos[i].wxyz)

    def place(self, i: int, T: np.ndarray) -> None:
        """Move tip i's gizmo to T (4, 4) without calling back."""
        self.gizmos[i].position = T[:3, 3]
        self.gizmos[i].wxyz = wxyz_of(T)

    def show_reached(self, T: np.ndarray) -> None:
        """Put the reached frames at the tip poses T (t, 4, 4)."""
        for i, frame in enumerate(self.reached):
            frame.position, frame.wxyz = T[i][:3, 3], wxyz_of(T[i])
