# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Where the robot model comes from.

The ``robot_description`` parameter, else ``urdf_file``, else the ``robot_description`` topic
with TRANSIENT_LOCAL durability, the way robot_state_publisher offers it.
"""

from typing import Any, Callable, Mapping

from ik_node.errors import URDFError
from ik_node.model.urdf import load_urdf_text
from ik_node.ros.qos import ROBOT_DESCRIPTION_QOS
from rclpy.node import Node
from rclpy.subscription import Subscription
from std_msgs.msg import String

__all__ = ['RobotDescriptionSource', 'require_xml']


def require_xml(text: str, source: str) -> str:
    """
    Return ``text`` if it looks like URDF XML; URDFError naming ``source`` otherwise.

    A robot_description is XML, never a file name: the library would read any other string
    as a path, so a message on the topic could make the node open a file.
    """
    if not text.lstrip().startswith('<'):
        shown = text.strip()[:40] or 'empty'
        raise URDFError(f'{source} is not URDF XML ({shown!r})')
    return text


class RobotDescriptionSource:
    """
    Deliver URDF text to ``on_urdf`` from a parameter value, a file, or the topic.

    Call :meth:`update` with the current parameter values: with a ``robot_description`` or
    ``urdf_file`` value the text is returned at once; otherwise the topic is subscribed and
    ``on_urdf(text)`` is called for each message (the last one is kept in :attr:`topic_text`).
    """

    def __init__(self, node: Node, on_urdf: Callable[[str], None]):
        self._node = node
        self._on_urdf = on_urdf
        self._sub: Subscription | None = None
        self._topic = ''
        self.topic_text = ''

    def text_from(self, values: Mapping[str, Any]) -> str:
        """
        Return the URDF text the values point at ('' if it must come from the topic).

        Raises URDFError for an unreadable file or a parameter value that is not XML.
        """
        if values['robot_description']:
            return require_xml(values['robot_description'], 'the robot_description parameter')
        if values['urdf_file']:
            return load_urdf_text(str(values['urdf_file']))
        return self.topic_text

    def release(self, values: Mapping[str, Any]) -> None:
        """Unsubscribe when the topic changed or a parameter now gives the model."""
        need_topic = not values['robot_description'] and not values['urdf_file']
        topic = values['robot_description_topic']
        if self._sub is not None and (not need_topic or topic != self._topic):
            self._node.destroy_subscription(self._sub)
            self._sub = None
            self.topic_text = '' if topic != self._topic else self.topic_text

    def update(self, values: Mapping[str, Any]) -> None:
        """Subscribe to the topic when no parameter gives the model, else unsubscribe."""
        self.release(values)
        need_topic = not values['robot_description'] and not values['urdf_file']
        topic = values['robot_description_topic']
        if need_topic and self._sub is None:
            self._topic = topic
            sub = self._node.create_subscription(String, topic, self._callback,
                                                 ROBOT_DESCRIPTION_QOS)
            self._sub = sub
            self._node.get_logger().info(
                f'waiting for the robot model on topic {sub.topic_name} '
                f'(or set robot_description / urdf_file)')

    def _callback(self, msg: String) -> None:
        if msg.data == self.topic_text:
            return
        try:
            require_xml(msg.data, f'the message on {self._node.resolve_topic_name(self._topic)}')
        except URDFError as exc:
            self._node.get_logger().error(f'robot model not changed: {exc}')
            return
        self.topic_text = msg.data
        self._on_urdf(msg.data)
