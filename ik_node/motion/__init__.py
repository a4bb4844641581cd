# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The motion layer: between the solver and the publishers, without ROS.

A goal becomes motion here: the joint limits a command must respect (velocity, acceleration,
jerk), the search for a collision-free answer near the arm, a collision-free joint path to it
(OMPL), and a jerk-limited trajectory (Ruckig) that the commands sample at their stamps. Plain
classes and functions that take ``now`` as an argument; nothing here imports rclpy.
"""
