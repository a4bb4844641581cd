# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
rclpy helpers shared by the ik_node and sim_arm nodes: parameters and the robot model source.

Parameters are declared from the tables in :mod:`ik_node.params` (type and description
included) and set-requests are checked against the same tables. The robot model comes from the
``robot_description`` parameter, else ``urdf_file``, else the ``robot_description`` topic with
TRANSIENT_LOCAL durability, the way robot_state_publisher offers it.
"""

from typing import Any, Callable, Mapping

from ik_node.errors import URDFError
from ik_node.params import ParamSpec
from ik_node.urdf import load_urdf_text
from rcl_interfaces.msg import ParameterDescriptor
import rclpy
from rclpy.exceptions import ParameterUninitializedException
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

__all__ = ['declare_parameters', 'parameter_value', 'ROBOT_DESCRIPTION_QOS',
           'RobotDescriptionSource', 'require_xml']

_TYPES = {
    'bool': Parameter.Type.BOOL,
    'int': Parameter.Type.INTEGER,
    'double': Parameter.Type.DOUBLE,
    'string': Parameter.Type.STRING,
    'double_array': Parameter.Type.DOUBLE_ARRAY,
    'string_array': Parameter.Type.STRING_ARRAY,
}

ROBOT_DESCRIPTION_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                                   reliability=ReliabilityPolicy.RELIABLE)


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


def parameter_value(param: Parameter) -> Any:
    """Return a parameter's value as plain Python (arrays become lists)."""
    value = param.value
    if param.type_ in (Parameter.Type.DOUBLE_ARRAY, Parameter.Type.STRING_ARRAY,
                       Parameter.Type.INTEGER_ARRAY, Parameter.Type.BOOL_ARRAY):
        return list(value)
    return value


def declare_parameters(node: Node, specs: tuple[ParamSpec, ...]) -> dict[str, Any]:
    """
    Declare every parameter of ``specs`` on ``node``; return {name: current value}.

    Empty-list defaults are declared by type (a ROS parameter cannot hold an untyped empty
    list) and read back as [] until set.
    """
    values = {}
    for spec in specs:
        descriptor = ParameterDescriptor(description=spec.description)
        is_empty_list = isinstance(spec.default, list) and not spec.default
        default = _TYPES[spec.type_name] if is_empty_list else spec.default
        param = node.declare_parameter(spec.name, default, descriptor)
        try:
            values[spec.name] = parameter_value(node.get_parameter(spec.name))
        except ParameterUninitializedException:
            values[spec.name] = []
        del param
    return values


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
        self._sub = None
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

    def update(self, values: Mapping[str, Any]) -> None:
        """Subscribe to the topic when no parameter gives the model, else unsubscribe."""
        need_topic = not values['robot_description'] and not values['urdf_file']
        topic = values['robot_description_topic']
        if self._sub is not None and (not need_topic or topic != self._topic):
            self._node.destroy_subscription(self._sub)
            self._sub = None
            self.topic_text = '' if topic != self._topic else self.topic_text
        if need_topic and self._sub is None:
            self._topic = topic
            self._sub = self._node.create_subscription(String, topic, self._callback,
                                                       ROBOT_DESCRIPTION_QOS)
            self._node.get_logger().info(
                f'waiting for the robot model on topic {self._sub.topic_name} '
                f'(or set robot_description / urdf_file)')

    def _callback(self, msg: String) -> None:
        if msg.data == self.topic_text:
            return
        try:
            require_xml(msg.data, f'the message on {self._sub.topic_name}')
        except URDFError as exc:
            self._node.get_logger().error(f'robot model not changed: {exc}')
            return
        self.topic_text = msg.data
        self._on_urdf(msg.data)


def spin_until_shutdown(node: Node) -> None:
    """Spin ``node`` until Ctrl-C or shutdown, then destroy it and shut rclpy down quietly."""
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except RuntimeError:
        # On SIGINT rclpy shuts the context down under a running executor; taking a message
        # at that moment fails ('Unable to convert call argument'). Not an error then.
        if rclpy.ok():
            raise
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
