# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A stand-in for the ``interactive_markers`` Python server, for CI where it is not installable.

Only what ik_node uses, with the upstream server's documented behaviour: topics
``<namespace>/update`` and ``<namespace>/feedback``, the keyword arguments ``update_pub_qos``
(default depth 100) and ``feedback_sub_qos`` (default depth 1, as upstream: a caller that
keeps the default can lose one of two messages sent back to back), ``insert`` /
``applyChanges`` / ``clear``, feedback for unknown markers ignored, a POSE_UPDATE moving the
marker, and the marker's callback called for every event. Put this folder on PYTHONPATH.
"""

from rclpy.qos import QoSProfile
from visualization_msgs.msg import (InteractiveMarkerFeedback, InteractiveMarkerPose,
                                    InteractiveMarkerUpdate)

__all__ = ['InteractiveMarkerServer']

STANDIN = True


class InteractiveMarkerServer:
    """Offers markers on ``<namespace>/update``, calls back on ``<namespace>/feedback``."""

    def __init__(self, node, namespace, *, update_pub_qos=None, feedback_sub_qos=None):
        self._markers, self._pending, self._callbacks, self._seq = {}, {}, {}, 0
        self._pub = node.create_publisher(InteractiveMarkerUpdate, namespace + '/update',
                                          update_pub_qos or QoSProfile(depth=100))
        self._sub = node.create_subscription(InteractiveMarkerFeedback, namespace + '/feedback',
                                             self._on_feedback,
                                             feedback_sub_qos or QoSProfile(depth=1))

    def insert(self, marker, *, feedback_callback=None, feedback_type=255):
        self._pending[marker.name] = marker
        if feedback_callback is not None:
            self._callbacks[marker.name] = feedback_callback

    def clear(self):
        self._pending = dict.fromkeys(self._markers)

    def applyChanges(self):  # noqa: N802  (the upstream name)
        if not self._pending:
            return
        update = InteractiveMarkerUpdate(type=InteractiveMarkerUpdate.UPDATE)
        for name, marker in self._pending.items():
            if marker is None:
                self._markers.pop(name, None)
                update.erases.append(name)
            else:
                self._markers[name] = marker
                update.markers.append(marker)
        self._pending = {}
        self._publish(update)

    def _publish(self, update):
        self._seq += 1
        update.seq_num = self._seq
        self._pub.publish(update)

    def _on_feedback(self, feedback):
        marker = self._markers.get(feedback.marker_name)
        if marker is None:
            return
        if feedback.event_type == InteractiveMarkerFeedback.POSE_UPDATE:
            marker.pose = feedback.pose
            self._publish(InteractiveMarkerUpdate(
                type=InteractiveMarkerUpdate.UPDATE,
                poses=[InteractiveMarkerPose(header=marker.header, pose=feedback.pose,
                                             name=marker.name)]))
        callback = self._callbacks.get(feedback.marker_name)
        if callback is not None:
            callback(feedback)
