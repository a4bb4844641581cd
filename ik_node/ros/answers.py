# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Pair each target with the command that answered it, for latency measurements.

The node stamps its commands with its own clock (strictly increasing), not with the target's
stamp; the status of a target names both (``target_stamp`` and ``command_stamp``). Feed the
commands and statuses a subscriber receives, in any order; :attr:`AnswerMatcher.answered`
maps each answered target's stamp [ns] to the receive time of its command. No rclpy import.
"""

from typing import Any

__all__ = ['AnswerMatcher', 'stamp_ns_from_text']


def stamp_ns_from_text(text: str) -> int:
    """Return the nanoseconds of a 'sec.nanosec' stamp text (as the node's status gives)."""
    sec, _, nsec = text.partition('.')
    return int(sec) * 1_000_000_000 + int(nsec or 0)


class AnswerMatcher:
    """Target stamp -> receive time of the command answering it (see the module docstring)."""

    def __init__(self):
        self.answered: dict[int, float] = {}
        self._command_time: dict[int, float] = {}
        self._target_of: dict[int, int] = {}

    def clear(self) -> None:
        """Forget everything."""
        self.answered.clear()
        self._command_time.clear()
        self._target_of.clear()

    def command(self, stamp: Any, t: float) -> None:
        """Record the header stamp of a command message received at time ``t`` [s]."""
        key = int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)
        self._command_time.setdefault(key, t)
        target = self._target_of.get(key)
        if target is not None:
            self.answered.setdefault(target, self._command_time[key])

    def status(self, values: dict[str, str]) -> None:
        """Record the key/values of one status: its ``target_stamp`` and ``command_stamp``."""
        if 'command_stamp' not in values or 'target_stamp' not in values:
            return
        key = stamp_ns_from_text(values['command_stamp'])
        target = stamp_ns_from_text(values['target_stamp'])
        self._target_of[key] = target
        if key in self._command_time:
            self.answered.setdefault(target, self._command_time[key])
