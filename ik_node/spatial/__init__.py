# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The math kernels under every solver: rotations, poses, 3-vectors, small linear algebra.

- :mod:`~ik_node.spatial.rotations`: rotation matrices, quaternions, rotation vectors.
- :mod:`~ik_node.spatial.rpy`: the URDF's roll-pitch-yaw rotations (plain numpy, no kernel).
- :mod:`~ik_node.spatial.pose`: 4x4 poses from messages' numbers, pose errors.
- :mod:`~ik_node.spatial.vectors`: 3-vector helpers of the point chains.
- :mod:`~ik_node.spatial.linalg`: Cholesky/LDL factorisations and damped least squares.
"""
