# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Collision checking for chains read from a URDF: self-collision, floor and obstacles.

- :mod:`~ik_node.collision.shapes`: obstacles (HalfSpace, Sphere, Box, Cylinder).
- :mod:`~ik_node.collision.geometry`: the URDF's ``<collision>`` elements, meshes via trimesh.
- :mod:`~ik_node.collision.srdf`, :mod:`~ik_node.collision.pairs`: disabled pairs, the
  default matrix decided on the exact geometry (:mod:`~ik_node.collision.exact`, FCL).
- :mod:`~ik_node.collision.bounds`, :mod:`~ik_node.collision.model`: the capsules bounding
  each link, grouped by the joint that moves them.
- :mod:`~ik_node.collision.kernels`: compiled distances, clearance cost, path check.
- :mod:`~ik_node.collision.checker`: the queries behind ``Chain.collisions`` and friends.
- :mod:`~ik_node.collision.clearance`, :mod:`~ik_node.collision.solver_hook`: the solver's
  null-space clearance objective and final check.
"""

from ik_node.collision.shapes import Box, Cylinder, HalfSpace, Shape, Sphere

__all__ = ['HalfSpace', 'Sphere', 'Box', 'Cylinder', 'Shape']
