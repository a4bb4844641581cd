# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Where the interactive marker shows the target: the goal the arm is going to, in a state.

:class:`MarkerView` keeps the marker (:class:`ik_node.ros.interactive.MarkerTarget`, when
``interactive_markers`` is installed) at the target the arm is going to, whichever input sent
it there, and colours it by how that target was answered.
"""

from typing import Any, Callable

from ik_node.ros.interactive import MarkerTarget
from ik_node.ros.node_state import NodeState
from ik_node.ros.tree_setup import is_tree
import numpy as np

__all__ = ['MarkerView']


class MarkerView:
    """The marker target of one node (see the module docstring)."""

    def __init__(self, node: Any, state: NodeState, on_pose: Callable):
        self._node, self._state, self._on_pose = node, state, on_pose
        self._marker: MarkerTarget | None = None
        self._pose: np.ndarray | None = None
        self._shown = 'ok'

    def offer(self, now: float, topics: str) -> None:
        """Offer the marker at the tip (or clear it when the parameter is off)."""
        state = self._state
        if not state.values['interactive_marker']:
            if self._marker is not None:
                self._marker.clear()
            return
        tracker = state.tracker
        if tracker is None:
            return
        if is_tree(tracker.chain):
            # One marker per tip is not offered yet: a tree's tips take targets on topics.
            self._node.get_logger().info('interactive marker: not offered for a tree of '
                                         'several tips (send targets on the tip topics)')
            return
        if self._marker is None:
            self._marker = MarkerTarget(self._node, self._on_pose)
            log = self._node.get_logger()
            if self._marker.available:
                log.info('interactive marker offered: add an InteractiveMarkers display in '
                         f'RViz on {self._node.get_name()}_target/update')
            else:
                log.info('interactive_markers is not installed: no 6-DOF marker (targets on '
                         f'{topics})')
        T = tracker.tip_pose(now)
        self._marker.offer(tracker.chain.base_link,
                           T if T is not None else tracker.chain.fk(tracker.chain.mid))

    def answered(self, outcome: Any, from_marker: bool) -> None:
        """
        Show where the arm is going after a target's answer (a SolveOutcome).

        While the marker is being dragged it is left alone unless its state changes (RViz
        owns its pose).
        """
        shown = ('refused' if outcome.refused else 'ok' if outcome.result.success
                 else 'unreachable')
        if not from_marker or shown != self._shown:
            self.show(outcome.target, shown)

    def show(self, target: np.ndarray | None, shown: str) -> None:
        """Move the marker to ``target`` ((4, 4) or (3,); None: stay) in state ``shown``."""
        self._shown = shown
        tracker = self._state.tracker
        if self._marker is None or not self._marker.available or tracker is None:
            return
        chain = tracker.chain
        if target is None:
            T = self._pose
        elif target.shape == (3,):
            T = chain.fk(tracker.goal if tracker.goal is not None else chain.mid)
            T[:3, 3] = target
        else:
            T = target
        if T is None:
            return
        self._pose = T
        self._marker.offer(chain.base_link, T, shown)
