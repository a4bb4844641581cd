# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Checks the launch files run before they start anything.

A launch that cannot start one of its parts fails at once with one clear line, and never
leaves the other parts running.

No ``launch`` import here: the checks are plain functions, unit-tested without ROS.
"""

__all__ = ['parse_bool', 'missing_package', 'install_hint']

_TRUE = ('true', 'yes', 'on', '1')
_FALSE = ('false', 'no', 'off', '0')


def parse_bool(name: str, text: str) -> bool:
    """Return the boolean a launch argument spells; ValueError naming it otherwise."""
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f'launch argument {name}:={text!r} is not a boolean (use true or false)')


def install_hint(package: str) -> str:
    """Return how to install a ROS package on a ROS machine."""
    return f"sudo apt install ros-$ROS_DISTRO-{package.replace('_', '-')}"


def missing_package(package: str) -> str | None:
    """Return why ROS package ``package`` cannot be started (not installed), or None."""
    try:
        from ament_index_python.packages import (get_package_prefix,
                                                 PackageNotFoundError)
    except ImportError:
        return f'{package} cannot be looked up: ament_index_python is not installed'
    try:
        get_package_prefix(package)
    except (PackageNotFoundError, OSError):     # OSError: no AMENT_PREFIX_PATH at all
        return (f"package '{package}' is not installed (install it with: "
                f'{install_hint(package)}, then source the ROS setup file again)')
    return None
