# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The middleware floor of a jog cycle: ik_node's control loop doing nothing but its I/O.

A node with the node's control loop (:class:`ik_node.ros.control_loop.ControlLoop`, its
thread named as the node's) and the same entities in its cycle: a timer at ``--rate``, raw
``joint_states`` and ``jog_twist`` subscriptions, each message read as ik_node reads it
(:mod:`ik_node.ros.wire`), and each period the JointState command published as bytes on
``joint_commands`` with the node's QoS: the last reading's positions, stamped now. No jog, no
checks. ``bench_jog_ros.py --floor`` runs it in place of ik_node, so that the CPU time of a
cycle can be read against what the ROS side of it costs alone.

    python bench/jog_floor_node.py --rate 1000
"""

import argparse
import os
import sys

import numpy as np


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--rate', type=float, default=1000.0, help='cycles per second')
    args, ros_args = parser.parse_known_args(argv)
    # Started alone too (the usage above): DDS discovery stays on this machine.
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ.pop('ROS_LOCALHOST_ONLY', None)
    import rclpy
    from ik_node.ros.control_loop import CycleGroup
    from ik_node.ros.qos import COMMAND_QOS
    from ik_node.ros.runtime import spin_until_shutdown
    from ik_node.ros.wire import JointStateReader, JointStateWriter, read_twist_stamped
    from sensor_msgs.msg import JointState
    from geometry_msgs.msg import TwistStamped

    rclpy.init(args=ros_args)
    node = rclpy.create_node('jog_floor')
    group = CycleGroup()
    reader = JointStateReader()
    last: dict = {}
    pub = node.create_publisher(JointState, 'joint_commands', COMMAND_QOS)

    def on_reading(data: bytes) -> None:
        msg = reader.read(data)
        last['names'], last['q'] = msg.name, np.array(msg.position)

    def on_twist(data: bytes) -> None:
        read_twist_stamped(data)

    def on_timer() -> None:
        if 'q' not in last:
            return
        writer = last.get('writer')
        if writer is None or writer.names != tuple(last['names']):
            writer = last['writer'] = JointStateWriter(last['names'])
        pub.publish(writer.serialize(node.get_clock().now().nanoseconds, last['q']))

    node.create_subscription(JointState, 'joint_states', on_reading, 10, raw=True,
                             callback_group=group)
    node.create_subscription(TwistStamped, 'jog_twist', on_twist, 10, raw=True,
                             callback_group=group)
    node.create_timer(1.0 / args.rate, on_timer, callback_group=group)
    # Spun as the nodes are: the cycle's entities in a ControlLoop, the rest handed to it.
    node.cycle_group = group
    spin_until_shutdown(node)
    return 0


if __name__ == '__main__':
    sys.exit(main())
