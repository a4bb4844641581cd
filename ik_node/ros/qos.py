# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""QoS profiles of the ik_node and sim_arm subscriptions and the robot model topic."""

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

__all__ = ['TARGET_QOS', 'FEEDBACK_QOS', 'COMMAND_QOS', 'ROBOT_DESCRIPTION_QOS', 'STATUS_QOS']

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
