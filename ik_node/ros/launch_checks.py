# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Checks the launch files run before they start anything.

A launch that cannot start one of its parts fails at once with one clear line, and never
leaves the other parts running.

No ``launch`` import at module level: the checks are plain functions, unit-tested without
ROS (:func:`required_exit` imports ``launch`` only when a node exits under a launch).
"""

import os

__all__ = ['parse_bool', 'missing_package', 'missing_executable', 'install_hint',
           'required_exit']

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


def missing_executable(package: str, executable: str) -> str | None:
    """
    Return why ``ros2 launch`` cannot start ``executable`` of ``package``, or None.

    launch_ros runs ``<prefix>/lib/<package>/<executable>``. A package found in the ament
    index whose executables are elsewhere was installed with pip rather than built in a
    colcon workspace (pip puts console scripts in ``bin``).
    """
    problem = missing_package(package)
    if problem:
        return problem
    from ament_index_python.packages import get_package_prefix
    path = os.path.join(get_package_prefix(package), 'lib', package, executable)
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return None
    hint = (' (a pip install puts console scripts in bin/, not there: build the package in a '
            'colcon workspace, see the README, or start the console scripts yourself)'
            if package == 'ik_node' else '')
    return f'{package} has no executable {path}{hint}'


def required_exit(name: str):
    """
    Return the ``on_exit`` of a node the launch cannot go on without.

    When ``name`` exits the whole launch stops. An exit with a failure status (a bad
    parameter, an unusable model) while the launch was not already shutting down raises:
    ``ros2 launch`` then logs 'Caught exception in launch ... <name> exited with status N'
    as its last error and exits with status 1, so a script can tell.
    """
    def on_exit(event, context):
        code = getattr(event, 'returncode', 0)
        if code not in (0, None) and not context.is_shutdown:
            raise RuntimeError(f'{name} exited with status {code}: the launch stops (its '
                               'last lines above say why)')
        from launch.actions import Shutdown
        return [Shutdown(reason=f'{name} exited')]
    return on_exit
