# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Default topic names of the ik_node and sim_arm nodes: one source for both parameter tables.

Relative names follow the node's namespace; the RViz tool topics are absolute by default,
because RViz publishes them there.
"""

__all__ = ['ROBOT_DESCRIPTION', 'TARGET_POSE', 'GOAL_POSE', 'CLICKED_POINT', 'JOINT_STATES',
           'JOINT_COMMANDS', 'IK_STATUS', 'IK_MARKERS']

ROBOT_DESCRIPTION = 'robot_description'
TARGET_POSE = 'target_pose'
GOAL_POSE = '/goal_pose'
CLICKED_POINT = '/clicked_point'
JOINT_STATES = 'joint_states'
JOINT_COMMANDS = 'joint_commands'
IK_STATUS = 'ik_status'
IK_MARKERS = 'ik_markers'
