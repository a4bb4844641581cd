# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
sim_arm: a simulated arm that follows joint position commands within the URDF limits.

With ``follow: instant`` it jumps to each command instead (as a position-controlled arm
executes whatever it gets), and ``stalled: true`` freezes it while it keeps publishing (an
e-stop): both for testing what the IK node sends.

It loads the URDF (``robot_description`` parameter, ``urdf_file``, or the
``robot_description`` topic), starts at ``initial_positions``, and at a fixed ``rate`` moves
every actuated joint toward its last commanded position (sensor_msgs/JointState on
``joint_commands``) by at most velocity x period, inside the position limits. Mimic joints
follow their leader. It publishes sensor_msgs/JointState of every moving joint on
``joint_states``, as a hardware driver would, for robot_state_publisher and the IK node.
"""

import sys

from ik_node.model.link_tree import RobotTree
from ik_node.ros.control_loop import CycleGroup
from ik_node.ros.description import RobotDescriptionSource
from ik_node.ros.parameter_io import changed_values, declare_parameters
from ik_node.ros.parameter_table import check_values, SIM_ARM_PARAMETERS, velocity_limits
from ik_node.ros.qos import COMMAND_QOS, publisher_events, subscription_events
from ik_node.ros.runtime import run_node
from ik_node.ros.sim_stepper import CommandStepper
import numpy as np
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from sensor_msgs.msg import JointState

__all__ = ['SimArm', 'main']

_RUNTIME = ('velocity_scale', 'default_velocity_limit', 'stalled', 'follow')


class SimArm(Node):
    """Simulated position-controlled arm (see the module docstring)."""

    def __init__(self, node_name: str = 'sim_arm', **kwargs):
        super().__init__(node_name, **kwargs)
        self._values = declare_parameters(self, SIM_ARM_PARAMETERS)
        reason = check_values(SIM_ARM_PARAMETERS, self._values)
        if reason is not None:
            raise ValueError(f'invalid parameter: {reason}')
        self._tree: RobotTree | None = None
        self._stepper: CommandStepper | None = None
        self._goal: np.ndarray | None = None
        self._names: tuple[str, ...] = ()
        self._index: dict[str, int] = {}
        self._period = 1.0 / self._values['rate']
        # The step timer and the commands run in a control loop of their own, off rclpy's
        # executor (ik_node.ros.control_loop): under rclpy.spin a 100 Hz sim_arm took 0.1 s of
        # CPU per second doing little else, 0.46 s at 1 kHz.
        self.cycle_group = CycleGroup()
        self._pub = self.create_publisher(JointState, self._values['joint_states_topic'], 10,
                                          event_callbacks=publisher_events())
        self._sub = self.create_subscription(JointState, self._values['command_topic'],
                                             self._on_command, COMMAND_QOS,
                                             callback_group=self.cycle_group,
                                             event_callbacks=subscription_events(
                                                 self.get_logger()))
        self._source = RobotDescriptionSource(self, self._on_robot_description)
        self._source.update(self._values)
        text = self._source.text_from(self._values)
        if text:
            self._load(text)
        self._timer = self.create_timer(self._period, self._on_timer,
                                        callback_group=self.cycle_group)
        self.add_on_set_parameters_callback(self._on_set_parameters)

    def _velocities(self, tree: RobotTree, values) -> np.ndarray:
        return velocity_limits([j.velocity for j in tree.actuated_joints], values)

    def _load(self, text: str) -> None:
        tree = RobotTree.from_urdf(text)
        joints = tree.actuated_joints
        if not joints:
            raise ValueError(f'robot {tree.name!r} has no actuated joint to simulate')
        names = tuple(j.name for j in joints)
        lower = np.array([j.lower for j in joints])
        upper = np.array([j.upper for j in joints])
        stepper = CommandStepper(lower, upper, self._velocities(tree, self._values),
                                 continuous=[j.joint_type == 'continuous' for j in joints],
                                 max_dt=self._period)
        q0 = np.zeros(len(joints))
        initial = self._values['initial_positions']
        initial_names = self._values['initial_joint_names']
        if initial_names:
            if len(initial_names) != len(initial):
                raise ValueError('initial_joint_names and initial_positions differ in length')
            unknown = sorted(set(initial_names) - set(names))
            if unknown:
                self.get_logger().warning(f'initial_joint_names not actuated joints of robot '
                                          f'{tree.name!r}, ignored: {", ".join(unknown)}')
            for name, value in zip(initial_names, initial):
                if name in names:
                    q0[names.index(name)] = value
        elif initial:
            if len(initial) != len(joints):
                raise ValueError(f'initial_positions must have {len(joints)} values (joints '
                                 f'{", ".join(names)}), got {len(initial)}')
            q0[:] = initial
        self._tree, self._stepper, self._names = tree, stepper, names
        self._index = {name: i for i, name in enumerate(names)}
        self._goal = stepper.reset(q0)
        self.get_logger().info(f'simulating {tree.name!r}: {len(names)} joints at '
                               f'{1.0 / self._period:g} Hz, start '
                               f'{np.round(self._goal, 4).tolist()}')

    def _on_robot_description(self, text: str) -> None:
        try:
            self._load(text)
        except Exception as exc:  # noqa: B902  (a bad model must not stop the simulation)
            self.get_logger().error(f'robot_description from topic not usable, the previous '
                                    f'model stays: {type(exc).__name__}: {exc}')

    def _on_set_parameters(self, params: list) -> SetParametersResult:
        new = changed_values(self._values, params)
        changed = [name for name in new if new[name] != self._values[name]]
        fixed = [name for name in changed if name not in _RUNTIME]
        if fixed:
            return SetParametersResult(successful=False,
                                       reason=f'{", ".join(fixed)} cannot change at run time: '
                                              'restart sim_arm')
        reason = check_values(SIM_ARM_PARAMETERS, new)
        if reason is not None:
            return SetParametersResult(successful=False, reason=reason)
        self._values = new
        if self._stepper is not None and self._tree is not None:
            self._stepper.v_max = self._velocities(self._tree, new)
        return SetParametersResult(successful=True)

    def _on_command(self, msg: JointState) -> None:
        if self._goal is None:
            return
        if len(msg.position) != len(msg.name):
            self.get_logger().warning('command ignored: name and position differ in length',
                                      throttle_duration_sec=2.0)
            return
        goal = self._goal.copy()
        for name, value in zip(msg.name, msg.position):
            i = self._index.get(name)
            if i is None:
                continue
            if not np.isfinite(value):
                self.get_logger().warning(f'command ignored: non-finite position for {name}',
                                          throttle_duration_sec=2.0)
                return
            goal[i] = value
        self._goal = goal

    def _on_timer(self) -> None:
        stepper, tree, goal = self._stepper, self._tree, self._goal
        if stepper is None or tree is None or goal is None:
            return
        prev = stepper.q
        assert prev is not None     # reset when the model was loaded
        if self._values['stalled']:
            goal = prev
        elif self._values['follow'] == 'instant':
            stepper.reset(goal)
        report = stepper.step(goal, self._period)
        positions = dict(zip(self._names, report.q.tolist()))
        velocities = dict(zip(self._names, ((report.q - prev) / self._period).tolist()))
        full = tree.complete_positions(positions)
        msg = JointState()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.name = list(full)
        msg.position = [float(v) for v in full.values()]
        msg.velocity = [float(velocities.get(name, 0.0)) for name in full]
        self._pub.publish(msg)


def main(args: list[str] | None = None) -> int:
    """Run the sim_arm node until shutdown; return the process exit code."""
    return run_node('sim_arm', SimArm, args)


if __name__ == '__main__':
    sys.exit(main())
