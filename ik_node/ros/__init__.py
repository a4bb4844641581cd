# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The ROS 2 layer of ik_node: everything that talks to rclpy lives here, nothing else does.

- :mod:`ik_node.ros.node`: the ``ik_node`` node (pose targets in, safe joint commands out);
- :mod:`ik_node.ros.target_intake`, :mod:`ik_node.ros.command_output`: a target message to a
  base-frame target, and the tracker's commands to the command topics (the node's two
  halves); :mod:`ik_node.ros.node_state`: what they share;
- :mod:`ik_node.ros.sim_stepper`: the simulated arm's velocity-limited motion model (no rclpy);
- :mod:`ik_node.ros.start`: its executable (plain-Python kernels while a fresh install
  compiles them in the background);
- :mod:`ik_node.ros.sim_arm`: the simulated position-controlled arm;
- :mod:`ik_node.ros.conversions`: messages <-> numpy arrays, status and marker messages;
- :mod:`ik_node.ros.parameter_table`: the parameter tables of both nodes and their
  validation (plain Python, no rclpy: unit-tested without ROS); :mod:`ik_node.ros.parameter_io`
  declares them on a node and reads them back;
- :mod:`ik_node.ros.topics`: default topic names and QoS profiles, one source for both nodes;
- :mod:`ik_node.ros.parameter_io`, :mod:`ik_node.ros.description`, :mod:`ik_node.ros.runtime`:
  parameter declaration, the robot model source and the spin/shutdown loop;
- :mod:`ik_node.ros.interactive`: the RViz interactive marker target;
- :mod:`ik_node.ros.web_view`: the ``web_view`` executable, the browser view (drawn with
  :mod:`ik_node.web`) driving a running node;
- :mod:`ik_node.ros.processes`: start and stop nodes as processes without ``ros2 launch``.

The math core (``ik_node`` outside this subpackage) never imports this package. Importing
``ik_node.ros`` itself does not import rclpy either, so the parameter tables work without ROS.
"""
