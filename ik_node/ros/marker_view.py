# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Where the interactive markers show the target: the goal the arm is going to, in a state.

:class:`MarkerView` keeps the marker (:class:`ik_node.ros.interactive.MarkerTarget`, when
``interactive_markers`` is installed) at the target the arm is going to, whichever input sent
it there, and colours it by how that target was answered. A tree (``tip_links``) has one
marker per tip: dragging one is a target for that tip, the others holding (as a message on
the tip's topic); each tip's marker shows its own state and follows its tip's part of the goal.
Feedback naming a marker that is not offered (an unknown tip) gets a throttled warning, and
nothing moves.
"""

from typing import Any, Callable

from ik_node.ros.interactive import MarkerTarget, tip_marker_name
from ik_node.ros.kind_log import KindLog
from ik_node.ros.node_state import NodeState
from ik_node.ros.tip_targets import TipTag
from ik_node.ros.tree_setup import as_tree, is_tree
import numpy as np

__all__ = ['MarkerView']


class MarkerView:
    """
    The marker targets of one node (see the module docstring).

    on_pose(header, pose, tip): a marker's pose as a target; tip: the tip index of a tree's
    marker, None for the one marker of a chain.
    """

    def __init__(self, node: Any, state: NodeState, on_pose: Callable):
        self._node, self._state, self._on_pose = node, state, on_pose
        self._log = KindLog(node.get_logger())
        self._marker: MarkerTarget | None = None
        self._pose: dict[int | None, np.ndarray] = {}     # per tip (None: a chain's marker)
        self._shown: dict[int | None, str] = {}
        self._dragged: int | None = None      # the tip whose marker fed the last target
        self._offered: tuple[str, ...] = ()     # the tips whose markers are offered

    def _tips(self) -> tuple[str, ...]:
        """Return the tip links of the tree in use (empty for a chain)."""
        tracker = self._state.tracker
        if tracker is None or not is_tree(tracker.chain):
            return ()
        return as_tree(tracker.chain).tip_links

    def offer(self, now: float, topics: str) -> None:
        """Offer the marker at the tip, a marker per tip of a tree (or clear them when off)."""
        state = self._state
        if not state.values['interactive_marker']:
            if self._marker is not None:
                self._marker.clear()
            return
        tracker = state.tracker
        if tracker is None:
            return
        if self._marker is None:
            self._marker = MarkerTarget(self._node, self._marker_pose, self._unknown)
            log = self._node.get_logger()
            if self._marker.available:
                log.info('interactive marker offered: add an InteractiveMarkers display in '
                         f'RViz on {self._node.get_name()}_target/update')
            else:
                log.info('interactive_markers is not installed: no 6-DOF marker (targets on '
                         f'{topics})')
        tips = self._tips()
        if tips != self._offered:       # a model change changed the tips: new markers
            self._marker.clear()
            self._pose.clear()
            self._shown.clear()
            self._offered = tips
        T = tracker.tip_pose(now)
        T = T if T is not None else tracker.chain.fk(tracker.chain.mid)
        if not tips:
            self._marker.offer(tracker.chain.base_link, T)
            self._pose[None] = T
        for i, tip in enumerate(tips):
            self._marker.offer(tracker.chain.base_link, T[i], tip=tip)
            self._pose[i] = T[i]

    def _marker_pose(self, header: Any, pose: Any, name: str) -> None:
        """Feed a marker's pose to the node as a target of its tip."""
        tips = self._tips()
        names = [tip_marker_name(t) for t in tips]
        if name in names:
            self._dragged = names.index(name)
        elif tips:
            self._unknown_name(name)
            return
        else:
            self._dragged = None
        self._on_pose(header, pose, self._dragged)

    def _unknown(self, feedback: Any) -> None:
        self._unknown_name(feedback.marker_name)

    def _unknown_name(self, name: str) -> None:
        tips = self._tips()
        offered = ', '.join(tip_marker_name(t) for t in tips) if tips else 'ik_target'
        self._log.warn('unknown marker', f'interactive marker feedback for {name!r} ignored: '
                       f'no such marker (offered: {offered}); nothing moves')

    def answered(self, outcome: Any, from_marker: bool) -> None:
        """
        Show where the arm is going after a target's answer (a SolveOutcome).

        While a marker is being dragged it is left alone unless its state changes (RViz
        owns its pose). A tree's other tips' markers follow their part of the goal.
        """
        shown = ('refused' if outcome.refused else 'ok' if outcome.result.success
                 else 'unreachable')
        if not self._tips():
            if not from_marker or shown != self._shown.get(None, 'ok'):
                self.show(outcome.target, shown)
            return
        tip = outcome.tag.tip if isinstance(outcome.tag, TipTag) else None
        for i in range(len(self._tips())):
            if i != tip:
                if not outcome.refused:
                    self._show_tip(i, outcome.target[i], 'ok')
            elif not from_marker or shown != self._shown.get(i, 'ok'):
                self._show_tip(i, outcome.target[i], shown)

    def show(self, target: np.ndarray | None, shown: str) -> None:
        """
        Move the marker to ``target`` ((4, 4) or (3,); None: stay) in state ``shown``.

        For a tree: the marker of the tip last dragged, ``target`` its (4, 4) pose or None.
        """
        if self._tips():
            if self._dragged is not None:
                self._show_tip(self._dragged, target, shown)
            return
        tracker = self._state.tracker
        if tracker is None:
            return
        chain = tracker.chain
        if target is not None and target.shape == (3,):
            T = chain.fk(tracker.goal if tracker.goal is not None else chain.mid)
            T[:3, 3] = target
            target = T
        self._show_tip(None, target, shown)

    def _show_tip(self, tip: int | None, T: np.ndarray | None, shown: str) -> None:
        """Move the marker of ``tip`` (None: a chain's) to T (None: stay) in state ``shown``."""
        self._shown[tip] = shown
        tracker = self._state.tracker
        if self._marker is None or not self._marker.available or tracker is None:
            return
        T = self._pose.get(tip) if T is None else T
        if T is None:
            return
        self._pose[tip] = T
        self._marker.offer(tracker.chain.base_link, T, shown,
                           None if tip is None else self._tips()[tip])
