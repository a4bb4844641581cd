# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The IK node alone, against a real arm (its driver publishes joint_states).

    ros2 launch ik_node ik_node.launch.py
    ros2 launch ik_node ik_node.launch.py robot:=/path/to/arm.urdf tip_link:=tool0
    ros2 launch ik_node ik_node.launch.py trajectory_topic:=/arm_controller/joint_trajectory
    ros2 launch ik_node ik_node.launch.py namespace:=arm1   # listens to arm1/goal_pose ...

Without ``robot`` the model comes from the robot_description topic that robot_state_publisher
offers. Empty arguments keep the values of the parameter file.
"""

import os

from ament_index_python.packages import get_package_share_directory
from ik_node.ros.launch_checks import missing_executable, required_exit
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, GroupAction, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node, PushRosNamespace

OVERRIDES = {
    'robot': 'urdf_file',
    'solver': 'solver',
    'base_link': 'base_link',
    'tip_link': 'tip_link',
    'joint_states_topic': 'joint_states_topic',
    'command_topic': 'command_topic',
    'trajectory_topic': 'trajectory_topic',
    'goal_pose_topic': 'goal_pose_topic',
    'clicked_point_topic': 'clicked_point_topic',
    'frame_prefix': 'frame_prefix',
}


def launch_setup(context):
    """Return the IK node with the non-empty arguments as parameter overrides."""
    overrides = {}
    for argument, parameter in OVERRIDES.items():
        value = LaunchConfiguration(argument).perform(context)
        if value:
            overrides[parameter] = value
    namespace = LaunchConfiguration('namespace').perform(context)
    problem = missing_executable('ik_node', 'ik_node')
    if problem:
        raise RuntimeError(problem)
    # The RViz tool topics (goal_pose, clicked_point) are relative: in a namespace the node
    # listens on <namespace>/goal_pose, so one RViz click never moves two arms.
    actions = [] if not namespace else [PushRosNamespace(namespace)]
    actions.append(Node(package='ik_node', executable='ik_node',
                        parameters=[LaunchConfiguration('params_file'), overrides],
                        remappings=[('/tf', 'tf'), ('/tf_static', 'tf_static')],
                        output='screen', sigterm_timeout='15',
                        on_exit=required_exit('ik_node')))
    return [GroupAction(actions)]


def generate_launch_description():
    """Declare the arguments; the node is made in launch_setup."""
    share = get_package_share_directory('ik_node')
    arguments = [
        DeclareLaunchArgument('params_file',
                              default_value=os.path.join(share, 'config', 'ik_node.yaml'),
                              description='parameter file of the IK node'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='namespace of the arm'),
        DeclareLaunchArgument('robot', default_value='',
                              description='URDF file (empty: the robot_description topic)'),
        DeclareLaunchArgument('solver', default_value='',
                              description='IK method: dls, fabrik, hybrid, jt, pinv or ccd'),
    ]
    for name in ('base_link', 'tip_link', 'joint_states_topic', 'command_topic',
                 'trajectory_topic', 'goal_pose_topic', 'clicked_point_topic',
                 'frame_prefix'):
        arguments.append(DeclareLaunchArgument(name, default_value='',
                                               description=f'{name} parameter override'))
    return LaunchDescription(arguments + [OpaqueFunction(function=launch_setup)])
