# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The robot model read from a URDF: the chain, its joints and limits, FK and Jacobians.

- :mod:`~ik_node.model.urdf`: the URDF reader (joints, links, limits, mimic joints).
- :mod:`~ik_node.model.link_tree`: every link and joint of the robot as a tree.
- :mod:`~ik_node.model.chain`: :class:`~ik_node.model.chain.Chain`, one base-to-tip chain.
- :mod:`~ik_node.model.kinematics`: the compiled forward kinematics and Jacobians.
"""
