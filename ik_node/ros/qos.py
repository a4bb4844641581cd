# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
QoS profiles of the ik_node and sim_arm topics, and the QoS events they listen to.

Every QoS event handler is an entity of the executor's wait set, built again at each wakeup:
rclpy's defaults (an incompatible-QoS and an incompatible-type warning per publisher and
subscription) cost about 5 us per handler per wakeup here, a third of the executor's time at
a kHz. Only the subscriptions whose QoS a publisher can miss (reliable inputs) keep the
incompatible-QoS warning (:func:`subscription_events`); the others have none.
"""

from typing import Any

from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

__all__ = ['TARGET_QOS', 'FEEDBACK_QOS', 'COMMAND_QOS', 'ROBOT_DESCRIPTION_QOS', 'STATUS_QOS',
           'JOG_QOS', 'JOY_QOS', 'publisher_events', 'subscription_events']

# Depth 1: a burst of targets is served latest-first, older ones are dropped, never queued.
TARGET_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)

# Best effort matches both reliable and best-effort joint_states publishers. The depth keeps
# the arm's message when another publisher (a gripper, a second driver) shares the topic: with
# depth 1 the gripper's message would overwrite the arm's before the node reads it. Every
# message is read in order, oldest first, one per executor round; each reading is judged by
# its stamp (see IKTracker). A deeper queue would let a busy node work from readings up to
# depth / rate old (0.5 s at depth 50 and 100 Hz) and call a live arm lost.
FEEDBACK_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT)

# A position-controlled arm follows the newest command; older ones are obsolete.
COMMAND_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)

# The robot_state_publisher convention: late subscribers get the last model.
ROBOT_DESCRIPTION_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                                   reliability=ReliabilityPolicy.RELIABLE)

# ik_status: a subscriber that comes late (``ros2 topic echo --once``) gets the last statuses,
# the periodic state among them (diagnostic_updater publishes every second for the same need).
STATUS_QOS = QoSProfile(depth=10, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                        reliability=ReliabilityPolicy.RELIABLE)

# The jog streams: the newest command counts. Best effort matches every publisher (no QoS
# mismatch possible); depth 1 keeps only the newest of the messages that came since the
# executor last looked (a 1 kHz twist stream costs one callback per round, not a backlog).
JOG_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
# Joy: a button's press and release are two messages, both needed.
JOY_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT)


def publisher_events() -> PublisherEventCallbacks:
    """Return the event callbacks of a publisher: none (see the module docstring)."""
    return PublisherEventCallbacks(use_default_callbacks=False)


def subscription_events(logger: Any = None) -> SubscriptionEventCallbacks:
    """
    Return the event callbacks of a subscription: none, or with ``logger`` a warning.

    The warning, when a publisher offers a QoS this subscription cannot take (its messages
    would be dropped without a word), is for the reliable inputs only.
    """
    if logger is None:
        return SubscriptionEventCallbacks(use_default_callbacks=False)

    def incompatible(event: Any) -> None:
        logger.warning(f'a publisher offers an incompatible QoS and is not heard (last policy '
                       f'incompatible: {event.last_policy_kind})')
    return SubscriptionEventCallbacks(incompatible_qos=incompatible,
                                      use_default_callbacks=False)
