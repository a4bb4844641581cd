# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Throttled logging by kind: each kind of problem is logged at most once per period."""

from typing import Any

__all__ = ['KindLog', 'LOG_PERIOD']

LOG_PERIOD = 2.0        # [s] a repeated warning of one kind is logged once per period


class KindLog:
    """
    Warnings and errors of a node's logger, throttled per kind.

    One child logger per kind: rclpy throttles per logger and call site, so each kind of
    problem gets its own LOG_PERIOD budget.
    """

    def __init__(self, logger: Any):
        self.logger = logger
        self._children: dict[str, Any] = {}

    def _for(self, kind: str) -> Any:
        child = self._children.get(kind)
        if child is None:
            name = ''.join(c if c.isalnum() else '_' for c in kind)
            child = self._children[kind] = self.logger.get_child(name)
        return child

    def warn(self, kind: str, text: str) -> None:
        """Log a warning, at most once per LOG_PERIOD for each ``kind``."""
        self._for(kind).warning(text, throttle_duration_sec=LOG_PERIOD)

    def error(self, kind: str, text: str) -> None:
        """Log an error, at most once per LOG_PERIOD for each ``kind``."""
        self._for(kind).error(text, throttle_duration_sec=LOG_PERIOD)
