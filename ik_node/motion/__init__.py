# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The motion layer: between the solver and the publishers, without ROS.

A goal becomes motion here: the joint limits a command must respect (velocity, acceleration,
jerk), the search for a collision-free answer near the arm, a collision-free joint path to it
(OMPL), and a jerk-limited trajectory (Ruckig) that the commands sample at their stamps. The
tracker (:mod:`ik_node.motion.tracker`) holds it together for the node: the arm's readings
(:mod:`~ik_node.motion.feedback`, :mod:`~ik_node.motion.reading_clock`), stream or goal
(:mod:`~ik_node.motion.streams`), the guards (:mod:`~ik_node.motion.guards`) and the command
of each step (:mod:`~ik_node.motion.outcome`). Plain classes and functions that take ``now``
as an argument; nothing here imports rclpy.
"""
