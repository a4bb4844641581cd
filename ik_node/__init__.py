# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
ik_node: inverse kinematics for URDF arms (DLS with null-space objectives, FABRIK).

The library never imports rclpy; the ROS 2 layer in ``ik_node.ros`` is a thin layer over it.
URDF solvers: :class:`Solver` and the one-call :func:`solve` (methods in
:mod:`ik_node.solvers.table`); point chains:
:mod:`ik_node.pointchain`.

The names below load on first use: ``import ik_node`` itself imports no kernel, so a program
can choose how they run (:mod:`ik_node._jit`) before the first one is defined.
"""

import importlib
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ik_node.batch import BatchResult, solve_batch
    from ik_node.collision import Box, Cylinder, HalfSpace, Sphere
    from ik_node.collision.clearance import CollisionClearance
    from ik_node.errors import IKError, IKInputError, JointLimitsError, URDFError
    from ik_node.model.chain import Chain
    from ik_node.options import SolveOptions
    from ik_node.pointchain import (BallJoint, ccd, constraint_violation, fabrik, fabrik_tree,
                                    global_rotations, HingeJoint, local_rotations,
                                    reference_offsets, retarget_rotations, two_bone,
                                    two_bone_angles)
    from ik_node.reach import reachability, ReachMap
    from ik_node.resources import share_path
    from ik_node.result import IKResult
    from ik_node.solve_ik import methods, register_method, solve, warm_up
    from ik_node.solver import Solver
    from ik_node.solvers.objectives import (JointLimitAvoidance, Manipulability, ObstacleClearance,
                                            RestPosture)
    from ik_node.spatial.pose import pose_error, pose_from_xyz_quat, quat_xyzw_from_matrix
    from ik_node.tree import solve_tree, TipTarget, TreeSolveOptions, TreeSolver
    from ik_node.tree.chain import TreeChain

_HOMES = {
    'ik_node.batch': ('BatchResult', 'solve_batch'),
    'ik_node.collision': ('Box', 'Cylinder', 'HalfSpace', 'Sphere'),
    'ik_node.collision.clearance': ('CollisionClearance',),
    'ik_node.errors': ('IKError', 'IKInputError', 'JointLimitsError', 'URDFError'),
    'ik_node.model.chain': ('Chain',),
    'ik_node.options': ('SolveOptions',),
    'ik_node.pointchain': ('BallJoint', 'ccd', 'constraint_violation', 'fabrik', 'fabrik_tree',
                           'global_rotations', 'HingeJoint', 'local_rotations',
                           'reference_offsets', 'retarget_rotations', 'two_bone',
                           'two_bone_angles'),
    'ik_node.reach': ('reachability', 'ReachMap'),
    'ik_node.resources': ('share_path',),
    'ik_node.result': ('IKResult',),
    'ik_node.solve_ik': ('methods', 'register_method', 'solve', 'warm_up'),
    'ik_node.solver': ('Solver',),
    'ik_node.solvers.objectives': ('JointLimitAvoidance', 'Manipulability',
                                   'ObstacleClearance', 'RestPosture'),
    'ik_node.spatial.pose': ('pose_error', 'pose_from_xyz_quat', 'quat_xyzw_from_matrix'),
    'ik_node.tree': ('solve_tree', 'TipTarget', 'TreeSolveOptions', 'TreeSolver'),
    'ik_node.tree.chain': ('TreeChain',),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    'Chain', 'TreeChain', 'solve_tree', 'TreeSolver', 'TipTarget', 'TreeSolveOptions',
    'IKError', 'IKInputError', 'JointLimitsError', 'URDFError', 'IKResult',
    'SolveOptions',
    'Solver', 'solve', 'methods', 'register_method', 'warm_up', 'solve_batch', 'BatchResult',
    'reachability', 'ReachMap',
    'JointLimitAvoidance', 'Manipulability', 'ObstacleClearance', 'RestPosture',
    'HalfSpace', 'Sphere', 'Box', 'Cylinder', 'CollisionClearance',
    'pose_error', 'pose_from_xyz_quat', 'quat_xyzw_from_matrix',
    'fabrik', 'fabrik_tree', 'ccd', 'two_bone', 'two_bone_angles', 'BallJoint', 'HingeJoint',
    'constraint_violation', 'share_path',
    'global_rotations', 'local_rotations', 'reference_offsets', 'retarget_rotations',
]


def __getattr__(name: str) -> Any:
    """Import the module that defines ``name`` on first use (PEP 562)."""
    home = _HOME_OF.get(name)
    if home is None:
        raise AttributeError(f"module 'ik_node' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
