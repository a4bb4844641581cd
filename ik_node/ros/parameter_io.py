# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Declare the parameters of a table (:mod:`ik_node.ros.parameter_table`) on a node, read them back.

A parameter named ``*_file`` holds a path: a relative one is made absolute against the
node's working folder when declared and whenever it is set, so a client in another folder
(``ik_web_view``, ``ros2 param get``) reads a path that works from anywhere.
"""

import os
from typing import Any

from ik_node.ros.parameter_table import ParamSpec
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.exceptions import InvalidParameterTypeException, ParameterUninitializedException
from rclpy.node import Node
from rclpy.parameter import Parameter

__all__ = ['declare_parameters', 'parameter_value', 'changed_values', 'absolute_path']

_TYPES = {
    'bool': Parameter.Type.BOOL,
    'int': Parameter.Type.INTEGER,
    'double': Parameter.Type.DOUBLE,
    'string': Parameter.Type.STRING,
    'double_array': Parameter.Type.DOUBLE_ARRAY,
    'string_array': Parameter.Type.STRING_ARRAY,
}


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
    node.add_pre_set_parameters_callback(_absolute_files)
    for spec in specs:
        descriptor = ParameterDescriptor(description=spec.description)
        is_empty_list = isinstance(spec.default, list) and not spec.default
        default = _TYPES[spec.type_name] if is_empty_list else spec.default
        try:
            param = node.declare_parameter(spec.name, default, descriptor)
        except InvalidParameterTypeException as exc:
            hint = ' (write 1.0, not 1)' if spec.type_name == 'double' else ''
            raise ValueError(f'invalid parameter: {spec.name} must be a {spec.type_name}'
                             f'{hint}: {exc}') from None
        try:
            values[spec.name] = parameter_value(node.get_parameter(spec.name))
        except ParameterUninitializedException:
            values[spec.name] = []
        del param
    files = [Parameter(name, value=absolute_path(value)) for name, value in values.items()
             if name.endswith('_file') and value and absolute_path(value) != value]
    if files:
        node.set_parameters(files)     # before any on-set callback: nothing reacts yet
        values.update((p.name, p.value) for p in files)
    return values


def absolute_path(path: str) -> str:
    """Return ``path`` made absolute against the working folder ('' stays '')."""
    return os.path.abspath(os.path.expanduser(path)) if path else path


def _absolute_files(params: list[Parameter]) -> list[Parameter]:
    """Pre-set callback: a ``*_file`` parameter set to a relative path gets the absolute one."""
    return [Parameter(p.name, value=absolute_path(p.value))
            if p.name.endswith('_file') and isinstance(p.value, str) and p.value else p
            for p in params]


def changed_values(current: dict[str, Any], params: list[Parameter]) -> dict[str, Any]:
    """Return a copy of ``current`` with the values of ``params`` (unknown names skipped)."""
    new = dict(current)
    for p in params:
        if p.name in new:
            new[p.name] = parameter_value(p)
    return new
