# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Default topic names of the ik_node and sim_arm nodes: one source for both parameter tables.

Relative names follow the node's namespace. The RViz tool topics are relative too: without a
namespace they are RViz's own /goal_pose and /clicked_point; a node in namespace ``arm1``
listens on /arm1/goal_pose, so one RViz click never moves two arms (set the tool's topic in
RViz to target that arm).
"""

__all__ = ['ROBOT_DESCRIPTION', 'TARGET_POSE', 'GOAL_POSE', 'CLICKED_POINT', 'JOINT_STATES',
           'JOINT_COMMANDS', 'IK_STATUS', 'IK_MARKERS']

ROBOT_DESCRIPTION = 'robot_description'
TARGET_POSE = 'target_pose'
GOAL_POSE = 'goal_pose'
CLICKED_POINT = 'clicked_point'
JOINT_STATES = 'joint_states'
JOINT_COMMANDS = 'joint_commands'
IK_STATUS = 'ik_status'
IK_MARKERS = 'ik_markers'
