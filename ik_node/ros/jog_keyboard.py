# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
``ik_jog_keyboard``: jog the tool from a terminal (in the spirit of teleop_twist_keyboard).

Reads single keys (the terminal in cbreak mode) and publishes geometry_msgs/TwistStamped on
``jog_twist`` (relative to the node's namespace; remap it as any topic) at ``rate`` while a
motion key holds (:mod:`ik_node.motion.keyboard`: the layout and the hold after a key's last
repeat). Nothing is sent once no key holds: ik_node's ``jog_timeout`` then brakes the arm.
The header's frame is ``base_frame`` or ``tool_frame`` (key t toggles), stamped by this
node's clock. q or Ctrl-C quits. Parameters: linear_speed [m/s], angular_speed [rad/s],
rate [Hz], base_frame, tool_frame.
"""

import os
import select
import sys
import termios
import tty
from typing import Any

from geometry_msgs.msg import TwistStamped
from ik_node.motion.keyboard import HELP, KeyboardTeleop
import rclpy
from rclpy.node import Node

__all__ = ['main', 'twist_message']


def twist_message(twist: Any, frame: str, stamp: Any) -> TwistStamped:
    """Return a TwistStamped of (6,) ``twist`` (linear [m/s], angular [rad/s]) in ``frame``."""
    msg = TwistStamped()
    msg.header.frame_id = frame
    msg.header.stamp = stamp
    lin, ang = msg.twist.linear, msg.twist.angular
    lin.x, lin.y, lin.z, ang.x, ang.y, ang.z = (float(v) for v in twist)
    return msg


def _run(node: Node, fd: int) -> None:
    linear = float(node.declare_parameter('linear_speed', 0.05).value)
    angular = float(node.declare_parameter('angular_speed', 0.3).value)
    rate = float(node.declare_parameter('rate', 20.0).value)
    frames = (str(node.declare_parameter('base_frame', 'base_link').value),
              str(node.declare_parameter('tool_frame', 'tool0').value))
    teleop = KeyboardTeleop(linear, angular, frames=frames)
    pub = node.create_publisher(TwistStamped, 'jog_twist', 10)
    clock = node.get_clock()
    out = sys.stdout
    out.write(f'Jog the tool on {pub.topic_name} (q quits):\n{HELP}\n\r')
    out.write(f'frame {teleop.frame}, {teleop.linear_speed:.3g} m/s, '
              f'{teleop.angular_speed:.3g} rad/s\n\r')
    out.flush()
    while rclpy.ok():
        ready, _, _ = select.select([fd], [], [], 1.0 / rate)
        now = clock.now()
        t = now.nanoseconds * 1e-9
        if ready:
            key = os.read(fd, 1).decode(errors='replace')
            if key in ('q', '\x03', '\x04', ''):
                break
            answer = teleop.press(key, t)
            if answer.action in ('frame', 'speed', 'stop'):
                out.write(f'{answer.action}: frame {answer.frame}, '
                          f'{answer.linear_speed:.3g} m/s, {answer.angular_speed:.3g} rad/s\n\r')
                out.flush()
        twist = teleop.twist_at(t)
        if twist is not None:
            pub.publish(twist_message(twist, teleop.frame, now.to_msg()))


def main(args: list[str] | None = None) -> int:
    """Run the keyboard jog until q or Ctrl-C; return the exit code."""
    fd = sys.stdin.fileno()
    if not os.isatty(fd):
        print('ik_jog_keyboard needs a terminal (stdin is not one)', file=sys.stderr)
        return 2
    rclpy.init(args=args)
    node = rclpy.create_node('jog_keyboard')
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        _run(node, fd)
    except KeyboardInterrupt:
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
