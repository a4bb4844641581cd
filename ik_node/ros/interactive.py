# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The RViz interactive marker target.

A 6-DOF marker at the tip, offered through the upstream ``interactive_markers`` server when
that package is installed.

RViz's InteractiveMarkers display shows it; dragging sends POSE_UPDATE feedback, releasing sends
MOUSE_UP with the final pose. Both are targets, so the released pose is never lost even when
the last POSE_UPDATE was dropped.
"""

import math
from typing import Callable

from geometry_msgs.msg import Quaternion
from ik_node.ros.conversions import matrix_to_pose
import numpy as np
from rclpy.node import Node
from rclpy.qos import QoSProfile
from visualization_msgs.msg import (InteractiveMarker, InteractiveMarkerControl,
                                    InteractiveMarkerFeedback, Marker)

__all__ = ['target_marker', 'MarkerTarget', 'STATES']

MARKER_NAME = 'ik_target'
# state -> (description shown in RViz, RGBA of the drag handle), as MoveIt colours its marker.
STATES = {
    'ok': ('IK target', (0.1, 0.9, 0.2, 0.6)),
    'unreachable': ('IK target: unreachable, the arm goes to the nearest pose',
                    (1.0, 0.5, 0.0, 0.8)),
    'refused': ('IK target: refused (see ik_status)', (0.9, 0.1, 0.1, 0.8)),
}


def target_marker(frame: str, T: np.ndarray, scale: float = 0.2,
                  state: str = 'ok') -> InteractiveMarker:
    """
    Return a 6-DOF InteractiveMarker at pose ``T`` (4, 4) in ``frame``.

    Controls: move and rotate about each axis, and a free 3D drag of the marker's sphere
    (as MoveIt's end-effector marker has). ``state`` (see :data:`STATES`) sets the text and
    the colour of the sphere: green, orange when unreachable, red when refused.
    """
    description, rgba = STATES[state]
    im = InteractiveMarker(name=MARKER_NAME, description=description, scale=scale,
                           pose=matrix_to_pose(T))
    im.header.frame_id = frame
    s = 1.0 / math.sqrt(2.0)
    for axis, (x, y, z) in (('x', (1.0, 0.0, 0.0)), ('y', (0.0, 0.0, 1.0)),
                            ('z', (0.0, 1.0, 0.0))):
        orientation = Quaternion(w=s, x=x * s, y=y * s, z=z * s)
        for mode, prefix in ((InteractiveMarkerControl.ROTATE_AXIS, 'rotate_'),
                             (InteractiveMarkerControl.MOVE_AXIS, 'move_')):
            im.controls.append(InteractiveMarkerControl(
                name=prefix + axis, orientation=orientation, interaction_mode=mode))
    free = InteractiveMarkerControl(name='move_3d',
                                    interaction_mode=InteractiveMarkerControl.MOVE_3D,
                                    always_visible=True)
    sphere = Marker(type=Marker.SPHERE)
    sphere.scale.x = sphere.scale.y = sphere.scale.z = 0.25 * scale
    sphere.color.r, sphere.color.g, sphere.color.b, sphere.color.a = rgba
    free.markers.append(sphere)
    im.controls.append(free)
    return im


class MarkerTarget:
    """
    Offer :func:`target_marker` through an interactive_markers server named ``<node>_target``.

    on_pose(header, pose) is called for every drag update and for the release. Without the
    ``interactive_markers`` package :attr:`available` is False and nothing is offered.
    """

    def __init__(self, node: Node, on_pose: Callable):
        self._node = node
        self._on_pose = on_pose
        self._server = None
        self.available = True
        try:
            from interactive_markers import InteractiveMarkerServer
        except ImportError:
            self.available = False
            return
        name = node.get_name() + '_target'
        try:
            # rviz2 sends the last drag update and the release back to back: a 1-deep queue
            # (the server's default) can drop the release pose.
            self._server = InteractiveMarkerServer(node, name,
                                                   feedback_sub_qos=QoSProfile(depth=100))
        except TypeError:   # an older server without the QoS arguments
            self._server = InteractiveMarkerServer(node, name)

    def offer(self, frame: str, T: np.ndarray, state: str = 'ok') -> None:
        """Place the marker at ``T`` (4, 4) in ``frame`` in ``state`` (moves an existing one)."""
        if self._server is None:
            return
        self._server.insert(target_marker(frame, T, state=state),
                            feedback_callback=self._feedback)
        self._server.applyChanges()

    def clear(self) -> None:
        """Remove the marker."""
        if self._server is None:
            return
        self._server.clear()
        self._server.applyChanges()

    def _feedback(self, feedback: InteractiveMarkerFeedback) -> None:
        if feedback.event_type in (InteractiveMarkerFeedback.POSE_UPDATE,
                                   InteractiveMarkerFeedback.MOUSE_UP):
            self._on_pose(feedback.header, feedback.pose)
