# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
What the parts of ik_node share: the parameter values, the model in use, the node clock.

:class:`NodeState` is the one record the node and its helpers (target intake, command
output, marker view) hold by reference; the node replaces its fields when the model or a
parameter changes. :class:`NodeClock` gives the node-clock times the core works in. No rclpy
import here (the clock is read through the node given).
"""

from dataclasses import dataclass, field
import math
from typing import Any

from ik_node.model.link_tree import RobotTree
from ik_node.motion.tracker import IKTracker
import numpy as np

__all__ = ['NodeState', 'NodeClock']


class NodeClock:
    """
    Seconds since the node started, on its clock (ROS time: simulated with use_sim_time).

    Computed from integer nanoseconds: a command samples its trajectory at exactly its stamp
    (seconds since 1970 as a float carry only 0.24 us, which shows as jerk at a kHz).
    """

    def __init__(self, node: Any):
        self._clock = node.get_clock()
        # The clock's own handle: read directly, without a Time object per reading (0.9 us
        # instead of 2.9, and the control cycle reads it a few times per period).
        self._handle = self._clock.handle
        self.epoch_ns = self.now_ns()

    def now_ns(self) -> int:
        """Return the clock's time [ns since 1970, or since the simulation's start]."""
        with self._handle:
            return self._handle.get_now().nanoseconds

    def now(self) -> float:
        """Return the node-clock time [s since the node started]."""
        return self.seconds(self.now_ns())

    def seconds(self, ns: int) -> float:
        """Return the node-clock time [s] of ``ns``."""
        return (ns - self.epoch_ns) * 1e-9


@dataclass
class NodeState:
    """The node's shared state (see the module docstring)."""

    values: dict[str, Any]
    tree: RobotTree | None = None
    tracker: IKTracker | None = None
    forward_index: np.ndarray | None = None
    paused: bool = False
    goal_stamp: str = ''            # target_stamp of the goal being approached
    # Last published command per joint name, across model changes, and its stamp [ns].
    last_command: dict[str, float] = field(default_factory=dict)
    last_stamp_ns: int = 0
    # After a hold at a returning arm, the hold is repeated until then [s, node clock]: an
    # arm driver that has just come up may not be listening yet.
    hold_until: float = -math.inf

    def feedback_lost(self, now: float) -> bool:
        """
        Return True while the arm, heard before, is unheard (when feedback is required).

        No command is stepped or sent then: the arm may not follow, and a driver that comes
        back would act on a command no reading has judged. Stream controllers and trajectory
        controllers both hold their last command meanwhile.
        """
        tracker = self.tracker
        return (tracker is not None and self.values['require_joint_states']
                and tracker.feedback_lost(now))
