# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Run a node until Ctrl-C or shutdown, and exit with a clear line when it cannot start."""

from typing import Callable

from ik_node.errors import IKError
import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.logging import get_logger
from rclpy.node import Node

__all__ = ['spin_until_shutdown', 'run_node']


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


def run_node(name: str, make: Callable[[], Node], args: list[str] | None = None) -> int:
    """
    Run the node ``make()`` builds until shutdown; return the process exit code.

    A node that cannot start (a bad parameter, an unusable robot model) logs one FATAL line
    with the reason and the process exits with code 1, without a traceback.
    """
    rclpy.init(args=args)
    try:
        node = make()
    except (IKError, ValueError) as exc:
        get_logger(name).fatal(str(exc))
        rclpy.try_shutdown()
        return 1
    spin_until_shutdown(node)
    return 0
