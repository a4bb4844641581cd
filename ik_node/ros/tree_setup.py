# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Several tips on one URDF tree (``tip_links``): the model, its tracker and its target topics.

With ``tip_links`` set the node's arm is the tree base_link -> each tip
(:class:`ik_node.TreeChain`, seen by the motion layer through
:class:`ik_node.motion.tree_arm.TreeArm`): one joint vector, one IKTracker, one command
stream. What a tree cannot do yet is refused here with the reason, at start and on
``ros2 param set``: collision avoidance (no collision model for trees), position-only
solving, and the solvers other than those of :data:`ik_node.motion.tree_arm.TREE_METHODS`.
"""

from typing import Any, cast

from ik_node.model.chain import Chain
from ik_node.model.link_tree import RobotTree
from ik_node.motion.tree_arm import TREE_METHODS, TreeArm
from ik_node.tree import TreeChain

__all__ = ['build_tree_arm', 'tree_solver_options', 'tip_topics', 'is_tree', 'as_tree']


def is_tree(chain: Any) -> bool:
    """Return True if the tracker's ``chain`` is a tree of several tips."""
    return isinstance(chain, TreeArm)


def as_tree(chain: Any) -> TreeArm:
    """Return the tracker's ``chain`` as the TreeArm it is (see :func:`is_tree`)."""
    assert isinstance(chain, TreeArm)
    return chain


def build_tree_arm(text: str, values: dict[str, Any], robot: RobotTree) -> Chain:
    """
    Return the tree of ``values['tip_links']`` as the motion layer takes a chain.

    Raises URDFError (an unknown, repeated or misplaced tip) or ValueError naming the
    parameter a tree cannot take.
    """
    if values['avoid_collisions']:
        raise ValueError('avoid_collisions is not available with tip_links: a tree has no '
                         'collision model yet (set avoid_collisions:=false; nothing then '
                         'keeps the arms apart or off the floor)')
    if values['position_only']:
        raise ValueError('position_only is not available with tip_links: each tip takes a '
                         'full pose (a clicked point keeps its orientation)')
    if values['solver'] not in TREE_METHODS:
        raise ValueError(f'solver {values["solver"]!r} does not solve trees: with tip_links '
                         f'use {", ".join(TREE_METHODS)}')
    base = values['base_link'] or robot.default_chain()[0]
    arm = TreeArm(TreeChain.from_urdf(text, base, list(values['tip_links'])))
    # The motion layer takes it where it takes a Chain: it uses the joint vector, limits,
    # FK, Jacobian, solve and collision check that TreeArm gives (see its module doc).
    return cast(Chain, arm)


def tree_solver_options(values: dict[str, Any]) -> dict[str, Any]:
    """Return the options of :meth:`TreeArm.solve` from the node's parameter values."""
    return {'position_tolerance': float(values['position_tolerance']),
            'orientation_tolerance': float(values['orientation_tolerance']),
            'max_iterations': int(values['max_iterations']),
            'max_attempts': int(values['max_attempts']),
            'timeout': float(values['timeout'])}


def tip_topics(values: dict[str, Any]) -> list[str]:
    """Return the target topic of each of ``tip_links`` (default: <tip>/target_pose)."""
    tips = list(values['tip_links'])
    return list(values['tip_target_topics']) or [f'{tip}/target_pose' for tip in tips]
