# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The URDF's roll-pitch-yaw rotations, in plain numpy.

Apart from the kernels in :mod:`ik_node.spatial.rotations`: the URDF reader needs only this,
so a process that reads a URDF but solves nothing (sim_arm) starts without numba.
"""

import math

import numpy as np

__all__ = ['matrix_from_rpy']


def matrix_from_rpy(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Return R = Rz(yaw) Ry(pitch) Rx(roll), the URDF convention for ``origin rpy``."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])
