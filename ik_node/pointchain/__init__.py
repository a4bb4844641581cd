# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Point-chain toolkit: chains of points with joint constraints, no URDF.

FABRIK on a point chain with hinge, ball-cone and twist constraints (:func:`fabrik`), CCD
(:func:`ccd`), FABRIK on trees with several end effectors (:func:`fabrik_tree`), the
closed-form two-bone solution (:func:`two_bone`, :func:`two_bone_angles`), and rotation
retargeting between reference poses (:mod:`ik_node.pointchain.retarget`). The URDF solvers
are in :mod:`ik_node.solvers`; the 3-vector helpers in :mod:`ik_node.spatial.vectors`.
"""

from ik_node.pointchain.ccd import ccd
from ik_node.pointchain.constraints import BallJoint, constraint_violation, HingeJoint
from ik_node.pointchain.point_fabrik import fabrik, PointSolution
from ik_node.pointchain.point_tree import fabrik_tree
from ik_node.pointchain.retarget import (global_rotations, local_rotations, reference_offsets,
                                         retarget_rotations)
from ik_node.pointchain.two_bone import two_bone, two_bone_angles

__all__ = ['fabrik', 'PointSolution', 'ccd', 'fabrik_tree', 'two_bone', 'two_bone_angles',
           'BallJoint', 'HingeJoint', 'constraint_violation', 'global_rotations',
           'local_rotations', 'reference_offsets', 'retarget_rotations']
