# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Default topic names of the ik_node and sim_arm nodes: one source for both parameter tables.

Also :func:`release_changed`, how ik_node's publishers and subscriptions let go of a topic
whose parameter changed.

Relative names follow the node's namespace. The RViz tool topics are relative too: without a
namespace they are RViz's own /goal_pose and /clicked_point; a node in namespace ``arm1``
listens on /arm1/goal_pose, so one RViz click never moves two arms (set the tool's topic in
RViz to target that arm).
"""

from typing import Any, Callable, Mapping

__all__ = ['ROBOT_DESCRIPTION', 'TARGET_POSE', 'GOAL_POSE', 'CLICKED_POINT', 'JOINT_STATES',
           'JOINT_COMMANDS', 'IK_STATUS', 'IK_MARKERS', 'release_changed']

ROBOT_DESCRIPTION = 'robot_description'
TARGET_POSE = 'target_pose'
GOAL_POSE = 'goal_pose'
CLICKED_POINT = 'clicked_point'
JOINT_STATES = 'joint_states'
JOINT_COMMANDS = 'joint_commands'
IK_STATUS = 'ik_status'
IK_MARKERS = 'ik_markers'


def release_changed(held: dict[str, tuple[Any, str]], table: Mapping[str, tuple],
                    values: Mapping[str, Any], destroy: Callable[[Any], Any]) -> None:
    """
    Destroy and forget the entities of ``held`` whose topic parameter changed.

    held: {key: (entity, topic)}; table: {key: (message type, topic parameter, ...)};
    values: the parameter values; destroy: the node's destroy_publisher or
    destroy_subscription.
    """
    for key, (_, param, *_) in table.items():
        old = held.get(key)
        if old is not None and old[1] != values[param]:
            destroy(old[0])
            del held[key]
