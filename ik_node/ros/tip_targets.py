# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A target topic per tip of a tree (``tip_links``), and each tip's part of a target's status.

:class:`TipTargets` subscribes ``geometry_msgs/PoseStamped`` on each tip's topic
(:func:`ik_node.ros.tree_setup.tip_topics`) and hands the message to the node with the tip's
index; the node turns it into the tree's target (the other tips held) and answers it as any
target. :class:`TipTag` labels such a target for the motion layer (its header and its tip),
so its answer names the tip; :func:`tip_values` gives every tip's errors and success on
ik_status.
"""

from typing import Any, Callable, NamedTuple

from geometry_msgs.msg import PoseStamped
from ik_node.ros.qos import TARGET_QOS
from ik_node.ros.tree_setup import is_tree, tip_topics
from rclpy.node import Node
from std_msgs.msg import Header

__all__ = ['TipTargets', 'TipTag', 'tip_values', 'tip_refusal', 'without_tree_jog']


class TipTag(NamedTuple):
    """The caller's label of a tip's target: its message header and the tip's index."""

    header: Header
    tip: int


class TipTargets:
    """One PoseStamped subscription per tip of the tree in use (none for one chain)."""

    def __init__(self, node: Node, callback: Callable[[int, PoseStamped], None]):
        self._node, self._callback = node, callback
        self._subs: list[Any] = []
        self._topics: list[str] = []

    def update(self, chain: Any, values: dict[str, Any]) -> None:
        """Subscribe the tip topics of ``chain`` (a model just installed); none for a chain."""
        topics = tip_topics(values) if is_tree(chain) else []
        if topics == self._topics:
            return
        for sub in self._subs:
            self._node.destroy_subscription(sub)
        self._subs = [self._node.create_subscription(
            PoseStamped, topic, lambda msg, i=i: self._callback(i, msg), TARGET_QOS)
            for i, topic in enumerate(topics)]
        self._topics = topics

    def topics(self) -> str:
        """Return the resolved tip topics, comma separated ('' for one chain)."""
        return ', '.join(sub.topic_name for sub in self._subs)


def tip_refusal(chain: Any, tip: int | None) -> str:
    """Return why a target for ``tip`` (None: on a one-chain topic) does not fit ``chain``."""
    if tip is None:
        return (f'target refused: this node drives the tips {", ".join(chain.tip_links)} of '
                'a tree; send each tip its target on its topic (tip_target_topics)')
    return 'target refused: a tip target, but the model in use is one chain (no tip_links)'


def tip_values(result: Any, tips: tuple, tip: int | None) -> dict[str, Any]:
    """
    Return the status values of a tree's answer: ``tip`` (the one targeted) and per tip.

    result: a TreeIKResult (its ``tips``); for each tip ``tip.<link>.success``,
    ``.position_error`` [m], ``.orientation_error`` [rad] and ``.mode`` (target, hold).
    """
    values: dict[str, Any] = {}
    if tip is not None:
        values['tip'] = tips[tip]
    for r in getattr(result, 'tips', ()):
        key = f'tip.{r.tip_link}'
        values.update({f'{key}.success': bool(r.success),
                       f'{key}.position_error': float(r.position_error),
                       f'{key}.orientation_error': float(r.orientation_error),
                       f'{key}.mode': r.mode if tip is None
                       else 'target' if r.tip_link == tips[tip] else 'hold'})
    return values


def without_tree_jog(callbacks: dict[str, Callable], state: Any,
                     warn: Callable[[str, str], None]) -> dict[str, Callable]:
    """
    Return the jog ``callbacks`` refusing their messages while a tree is in use.

    A jog moves one tool frame; a tree has several, so its jog messages are refused with a
    (throttled) warning and the arm stays under the goal commands.
    """
    def wrap(key: str, callback: Callable) -> Callable:
        def on_message(msg: Any) -> None:
            tracker = state.tracker
            if tracker is not None and is_tree(tracker.chain):
                warn('tree jog', f'{key} message ignored: jogging is not available with '
                     'tip_links (send each tip a target on its topic)')
                return
            callback(msg)
        return on_message
    return {key: wrap(key, callback) for key, callback in callbacks.items()}
