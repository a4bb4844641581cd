# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
ik_node: inverse kinematics for URDF arms (DLS with null-space objectives, FABRIK).

The library never imports rclpy; the ROS 2 layer in ``ik_node.ros`` is a thin layer over it.
URDF solvers: :func:`solve` (methods in :mod:`ik_node.solvers.table`); point chains:
:mod:`ik_node.pointchain`.
"""

from ik_node.batch import BatchResult, solve_batch
from ik_node.chain import Chain
from ik_node.collision import Box, Cylinder, HalfSpace, Sphere
from ik_node.collision.clearance import CollisionClearance
from ik_node.errors import IKError, IKInputError, URDFError
from ik_node.objectives import (JointLimitAvoidance, Manipulability, ObstacleClearance,
                                RestPosture)
from ik_node.options import SolveOptions
from ik_node.pointchain import (BallJoint, ccd, constraint_violation, fabrik, fabrik_tree,
                                global_rotations, HingeJoint, local_rotations,
                                reference_offsets, retarget_rotations, two_bone,
                                two_bone_angles)
from ik_node.pose import pose_error, pose_from_xyz_quat, quat_xyzw_from_matrix
from ik_node.reach import reachability, ReachMap
from ik_node.resources import share_path
from ik_node.result import IKResult
from ik_node.solve import methods, register_method, solve, warm_up

__all__ = [
    'Chain', 'IKError', 'IKInputError', 'URDFError', 'IKResult', 'SolveOptions',
    'solve', 'methods', 'register_method', 'warm_up', 'solve_batch', 'BatchResult',
    'reachability', 'ReachMap',
    'JointLimitAvoidance', 'Manipulability', 'ObstacleClearance', 'RestPosture',
    'HalfSpace', 'Sphere', 'Box', 'Cylinder', 'CollisionClearance',
    'pose_error', 'pose_from_xyz_quat', 'quat_xyzw_from_matrix',
    'fabrik', 'fabrik_tree', 'ccd', 'two_bone', 'two_bone_angles', 'BallJoint', 'HingeJoint',
    'constraint_violation', 'share_path',
    'global_rotations', 'local_rotations', 'reference_offsets', 'retarget_rotations',
]
