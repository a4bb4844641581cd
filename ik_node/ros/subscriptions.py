# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The subscriptions of ik_node, remade when their topic parameter changes.

joint_states comes first: the executor serves ready subscriptions in the order they were
made, so in each round the arm's newest reading is taken before a target is judged. An empty
topic turns that input off. The control cycle's inputs (:data:`CYCLE_INPUTS`: joint_states and
jog_twist) are taken raw (their callbacks get the CDR bytes, :mod:`ik_node.ros.wire`) and
belong to the cycle group given (:mod:`ik_node.ros.control_loop`).
"""

from typing import Any, Callable

from geometry_msgs.msg import PointStamped, PoseStamped, TwistStamped
from ik_node.ros.qos import (FEEDBACK_QOS, JOG_QOS, JOY_QOS, subscription_events,
                             TARGET_QOS)
from ik_node.ros.topics import release_changed
from rclpy.node import Node
from sensor_msgs.msg import JointState, Joy
from visualization_msgs.msg import MarkerArray

__all__ = ['Subscriptions', 'INPUTS', 'TARGET_INPUTS', 'CYCLE_INPUTS']

# key: (message type, topic parameter, QoS)
INPUTS: dict[str, tuple[Any, str, Any]] = {
    'joint_states': (JointState, 'joint_states_topic', FEEDBACK_QOS),
    'target': (PoseStamped, 'target_topic', TARGET_QOS),
    'goal_pose': (PoseStamped, 'goal_pose_topic', TARGET_QOS),
    'clicked_point': (PointStamped, 'clicked_point_topic', TARGET_QOS),
    'obstacles': (MarkerArray, 'obstacles_topic', 10),
    # The jog inputs (ik_node.ros.jog_input): streams, the newest counts.
    'jog_twist': (TwistStamped, 'jog_twist_topic', JOG_QOS),
    'jog_joints': (JointState, 'jog_joint_topic', JOG_QOS),
    'joy': (Joy, 'joy_topic', JOY_QOS),
}
TARGET_INPUTS = ('target', 'goal_pose', 'clicked_point')
# Inputs of every control cycle: taken raw, waited on by the control loop.
CYCLE_INPUTS = ('joint_states', 'jog_twist')
# Reliable inputs: a best-effort publisher is not heard; the node warns of it.
_WARN_QOS = (*TARGET_INPUTS, 'obstacles')


class Subscriptions:
    """The node's subscriptions by key of :data:`INPUTS`."""

    def __init__(self, node: Node, callbacks: dict[str, Callable], cycle_group: Any = None):
        self._node, self._callbacks, self._cycle_group = node, callbacks, cycle_group
        self._subs: dict[str, tuple[Any, str]] = {}

    def release(self, values: dict[str, Any]) -> None:
        """Destroy the subscriptions whose topic changed (see Outputs.update)."""
        release_changed(self._subs, INPUTS, values, self._node.destroy_subscription)

    def update(self, values: dict[str, Any]) -> None:
        """(Re)create the subscriptions whose topic changed."""
        self.release(values)
        for key, (msg_type, param, qos) in INPUTS.items():
            topic = values[param]
            if topic and key not in self._subs:
                events = subscription_events(self._node.get_logger().get_child(key)
                                             if key in _WARN_QOS else None)
                cycle = key in CYCLE_INPUTS
                self._subs[key] = (self._node.create_subscription(
                    msg_type, topic, self._callbacks[key], qos, event_callbacks=events,
                    raw=cycle, callback_group=self._cycle_group if cycle else None), topic)

    def target_topics(self) -> str:
        """Return the resolved topics targets come on, comma separated."""
        return ', '.join(self._subs[key][0].topic_name for key in TARGET_INPUTS
                         if key in self._subs)
