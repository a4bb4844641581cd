# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The RViz interactive marker targets.

A 6-DOF marker at the tip (one per tip of a tree, ``tip_links``: named
:func:`tip_marker_name`), offered through the upstream ``interactive_markers`` server when that
package is installed.

RViz's InteractiveMarkers display shows them; dragging sends POSE_UPDATE feedback, releasing
sends MOUSE_UP with the final pose. Both are targets, so the released pose is never lost even
when the last POSE_UPDATE was dropped. The server ignores feedback for a marker it does not
offer; :class:`MarkerTarget` also listens to the feedback topic for such names, so a client
that drives an unknown tip is told why nothing moves.
"""

import math
from typing import Callable, Optional

from geometry_msgs.msg import Quaternion
from ik_node.ros.conversions import matrix_to_pose
import numpy as np
from rclpy.node import Node
from rclpy.qos import QoSProfile
from visualization_msgs.msg import (InteractiveMarker, InteractiveMarkerControl,
                                    InteractiveMarkerFeedback, Marker)

__all__ = ['target_marker', 'tip_marker_name', 'MarkerTarget', 'STATES']

MARKER_NAME = 'ik_target'
# state -> (description shown in RViz, RGBA of the drag handle), as MoveIt colours its marker.
STATES = {
    'ok': ('IK target', (0.1, 0.9, 0.2, 0.6)),
    'unreachable': ('IK target: unreachable, the arm goes to the nearest pose',
                    (1.0, 0.5, 0.0, 0.8)),
    'refused': ('IK target: refused (see ik_status)', (0.9, 0.1, 0.1, 0.8)),
}


def tip_marker_name(tip: str) -> str:
    """Return the name of the marker of tip link ``tip`` of a tree (``ik_target/<tip>``)."""
    return f'{MARKER_NAME}/{tip}'


def target_marker(frame: str, T: np.ndarray, scale: float = 0.2, state: str = 'ok',
                  tip: Optional[str] = None) -> InteractiveMarker:
    """
    Return a 6-DOF InteractiveMarker at pose ``T`` (4, 4) in ``frame``.

    Controls: move and rotate about each axis, and a free 3D drag of the marker's sphere
    (as MoveIt's end-effector marker has). ``state`` (see :data:`STATES`) sets the text and
    the colour of the sphere: green, orange when unreachable, red when refused. ``tip``: the
    tip link of a tree the marker drives (named :func:`tip_marker_name`, its text names it).
    """
    description, rgba = STATES[state]
    name = MARKER_NAME if tip is None else tip_marker_name(tip)
    if tip is not None:
        description = description.replace('IK target', f'IK target {tip}', 1)
    im = InteractiveMarker(name=name, description=description, scale=scale,
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
    Offer :func:`target_marker` s through an interactive_markers server named ``<node>_target``.

    on_pose(header, pose, name) is called for every drag update and for the release of the
    marker ``name``; on_unknown(feedback) for feedback naming a marker not offered (the
    server drops it). Without the ``interactive_markers`` package :attr:`available` is False
    and nothing is offered.
    """

    def __init__(self, node: Node, on_pose: Callable,
                 on_unknown: Optional[Callable[[InteractiveMarkerFeedback], None]] = None):
        self._node = node
        self._on_pose = on_pose
        self._server = None
        self._offered: set[str] = set()
        self.available = True
        try:
            from interactive_markers import InteractiveMarkerServer
        except ImportError:
            self.available = False
            return
        name = node.get_name() + '_target'
        # rviz2 sends the last drag update and the release back to back: a 1-deep queue
        # (the server's default) can drop the release pose.
        qos = QoSProfile(depth=100)
        try:
            self._server = InteractiveMarkerServer(node, name, feedback_sub_qos=qos)
        except TypeError:   # an older server without the QoS arguments
            self._server = InteractiveMarkerServer(node, name)
        if on_unknown is not None:
            self._watch = node.create_subscription(
                InteractiveMarkerFeedback, f'{name}/feedback',
                lambda fb: None if fb.marker_name in self._offered else on_unknown(fb), qos)

    def offer(self, frame: str, T: np.ndarray, state: str = 'ok',
              tip: Optional[str] = None) -> None:
        """Place tip ``tip``'s marker (None: the one tip's) at ``T`` (4, 4) in ``frame``."""
        if self._server is None:
            return
        marker = target_marker(frame, T, state=state, tip=tip)
        self._offered.add(marker.name)
        self._server.insert(marker, feedback_callback=self._feedback)
        self._server.applyChanges()

    def clear(self) -> None:
        """Remove every marker."""
        if self._server is None:
            return
        self._offered.clear()
        self._server.clear()
        self._server.applyChanges()

    def _feedback(self, feedback: InteractiveMarkerFeedback) -> None:
        if feedback.event_type in (InteractiveMarkerFeedback.POSE_UPDATE,
                                   InteractiveMarkerFeedback.MOUSE_UP):
            self._on_pose(feedback.header, feedback.pose, feedback.marker_name)
