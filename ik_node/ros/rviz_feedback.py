# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Drag an interactive marker the way rviz2 does, without rviz2: for tests and checks.

rviz2's InteractiveMarkers display (through the ``interactive_markers`` C++ client) publishes
``visualization_msgs/InteractiveMarkerFeedback`` on ``<server>/feedback`` (reliable, depth
100, one ``client_id``). For a frame-locked marker (header stamp zero, as ik_node's) the
header is the marker's frame and zero stamp, and the pose is in that frame. A drag is:

- mouse press: POSE_UPDATE then MOUSE_DOWN, back to back, at the pose it has;
- while dragging: one POSE_UPDATE per rendered frame in which the pose changed;
- mouse release: POSE_UPDATE then MOUSE_UP, back to back, at the released pose (which a
  frame may not have sent yet).

:class:`RvizMarkerClient` sends exactly these and records the server's
``InteractiveMarkerUpdate`` messages. No math here.
"""

from typing import Callable, Sequence

from geometry_msgs.msg import Pose
from rclpy.node import Node
from rclpy.qos import QoSProfile
from visualization_msgs.msg import (InteractiveMarker, InteractiveMarkerFeedback,
                                    InteractiveMarkerUpdate)

__all__ = ['RvizMarkerClient']

Feedback = InteractiveMarkerFeedback


class RvizMarkerClient:
    """Feedback as rviz2 sends it to the server ``namespace``; updates it gets back."""

    def __init__(self, node: Node, namespace: str, client_id: str = '/rviz2/InteractiveMarkers'):
        self.namespace = namespace
        self.client_id = client_id
        self.updates: list[InteractiveMarkerUpdate] = []
        # The QoS of the interactive_markers client rviz2 uses (rclcpp::QoS(100)).
        self._pub = node.create_publisher(Feedback, f'{namespace}/feedback', QoSProfile(depth=100))
        node.create_subscription(InteractiveMarkerUpdate, f'{namespace}/update',
                                 self.updates.append, QoSProfile(depth=1000))

    def connected(self) -> bool:
        """Return True once the server subscribes to the feedback topic."""
        return self._pub.get_subscription_count() > 0

    def markers(self, name: str) -> list[InteractiveMarker]:
        """Return every full update of marker ``name`` received, oldest first."""
        return [m for u in self.updates for m in u.markers if m.name == name]

    def send(self, event_type: int, marker: str, frame: str, pose: Pose,
             control: str = 'move_3d') -> None:
        """Publish one feedback message (frame-locked marker: zero stamp)."""
        msg = Feedback(client_id=self.client_id, marker_name=marker, control_name=control,
                       event_type=event_type, pose=pose)
        msg.header.frame_id = frame
        self._pub.publish(msg)

    def press(self, marker: str, frame: str, pose: Pose) -> None:
        """Mouse press on a control: POSE_UPDATE and MOUSE_DOWN back to back."""
        self.send(Feedback.POSE_UPDATE, marker, frame, pose)
        self.send(Feedback.MOUSE_DOWN, marker, frame, pose)

    def release(self, marker: str, frame: str, pose: Pose) -> None:
        """Mouse release: POSE_UPDATE and MOUSE_UP back to back at the released pose."""
        self.send(Feedback.POSE_UPDATE, marker, frame, pose)
        self.send(Feedback.MOUSE_UP, marker, frame, pose)

    def drag(self, marker: str, frame: str, poses: Sequence[Pose],
             wait: Callable[[float], None], frame_period: float = 1.0 / 60.0) -> None:
        """
        Drag through ``poses``: press at the first, a frame update each, release at the last.

        The last pose is sent only with the release, right after the previous frame's update,
        as when the mouse moves and is released between two frames. ``wait(t)`` spins the
        caller's executor for t seconds between frames.
        """
        self.press(marker, frame, poses[0])
        for pose in poses[1:-1]:
            wait(frame_period)
            self.send(Feedback.POSE_UPDATE, marker, frame, pose)
        self.release(marker, frame, poses[-1])
