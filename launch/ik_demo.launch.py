# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Demo: robot_state_publisher, the simulated arm, the IK node and RViz for one arm.

    ros2 launch ik_node ik_demo.launch.py
    ros2 launch ik_node ik_demo.launch.py solver:=fabrik rviz:=false
    ros2 launch ik_node ik_demo.launch.py robot:=/path/to/arm.urdf base_link:=base tip_link:=tool
    ros2 launch ik_node ik_demo.launch.py namespace:=arm1   # and arm2 ...: arms side by side
    ros2 launch ik_node ik_demo.launch.py rviz:=false web:=true   # RViz-free: a browser view

With a namespace, every topic (also /tf, /goal_pose and /clicked_point of RViz) is moved into
it, so each arm has its own nodes, TF tree and RViz window.

Before anything starts, the launch checks what it needs: without robot_state_publisher it
stops with one line saying how to install it; without rviz2 it starts without RViz and says
so. ik_node and sim_arm are required: if either exits, the whole launch shuts down.
"""

import os

from ament_index_python.packages import get_package_share_directory
from ik_node.model.link_tree import RobotTree
from ik_node.ros.launch_checks import missing_executable, parse_bool, required_exit
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, GroupAction, LogInfo, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node, PushRosNamespace

# Absolute names used by RViz and robot_state_publisher, made relative so that they follow the
# namespace (without a namespace they resolve to the same absolute names).
REMAPPINGS = [('/tf', 'tf'), ('/tf_static', 'tf_static')]
RVIZ_REMAPPINGS = REMAPPINGS + [
    ('/robot_description', 'robot_description'), ('/ik_markers', 'ik_markers'),
    ('/goal_pose', 'goal_pose'), ('/clicked_point', 'clicked_point'),
    ('/ik_node_target/update', 'ik_node_target/update'),
    ('/ik_node_target/feedback', 'ik_node_target/feedback'),
    ('/ik_node_target/get_interactive_markers', 'ik_node_target/get_interactive_markers'),
]


def launch_setup(context):
    """Read the URDF and return the nodes, in the namespace when one is given."""
    # Everything is checked before any node is returned: a launch that cannot start one
    # of its parts must not leave the others running.
    urdf_path = LaunchConfiguration('robot').perform(context)
    try:
        with open(urdf_path) as f:
            robot_description = f.read()
    except OSError as exc:
        raise RuntimeError(f'robot:={urdf_path}: cannot read the URDF ({exc})') from exc
    namespace = LaunchConfiguration('namespace').perform(context)
    start_rviz = parse_bool('rviz', LaunchConfiguration('rviz').perform(context))
    start_web = parse_bool('web', LaunchConfiguration('web').perform(context))
    # Every executable is checked first: one missing must not leave the others running.
    for package, executable in (('robot_state_publisher', 'robot_state_publisher'),
                                ('ik_node', 'sim_arm'), ('ik_node', 'ik_node')) \
            + ((('ik_node', 'web_view'),) if start_web else ()):
        problem = missing_executable(package, executable)
        if problem:
            raise RuntimeError(f'the demo needs {executable}: {problem}')
    notes = []
    if start_rviz and missing_executable('rviz2', 'rviz2'):
        start_rviz = False
        notes.append(LogInfo(msg='rviz2 is not installed: starting without RViz (drive the '
                                 'arm with target_pose, or install ros-$ROS_DISTRO-rviz2)'))
    base_link = LaunchConfiguration('base_link').perform(context)
    # RViz's fixed frame: the chain base, else the URDF root (demo.rviz names base_link).
    fixed_frame = base_link or RobotTree.from_urdf(robot_description).root
    ik_overrides = {'solver': LaunchConfiguration('solver').perform(context)}
    # The bundled demo arm's acceleration and jerk limits (the file names its joints); another
    # robot gives its own MoveIt joint_limits.yaml, or runs on the URDF's and the defaults.
    limits = LaunchConfiguration('joint_limits').perform(context)
    if not limits and urdf_path == os.path.join(get_package_share_directory('ik_node'),
                                                'config', 'urdf', 'demo_arm.urdf'):
        limits = os.path.join(get_package_share_directory('ik_node'), 'config',
                              'joint_limits.yaml')
    if limits:
        ik_overrides['joint_limits_file'] = limits
    for name in ('base_link', 'tip_link'):
        value = LaunchConfiguration(name).perform(context)
        if value:
            ik_overrides[name] = value

    actions = [] if not namespace else [PushRosNamespace(namespace)]
    actions += [
        Node(package='robot_state_publisher', executable='robot_state_publisher',
             parameters=[{'robot_description': robot_description}],
             remappings=REMAPPINGS, output='screen'),
        Node(package='ik_node', executable='sim_arm',
             parameters=[LaunchConfiguration('sim_params'), {'urdf_file': urdf_path}],
             output='screen', on_exit=required_exit('sim_arm')),
        # The IK node reads the model from the robot_description topic of
        # robot_state_publisher (TRANSIENT_LOCAL), as it would on a real robot.
        Node(package='ik_node', executable='ik_node',
             parameters=[LaunchConfiguration('ik_params'), ik_overrides],
             remappings=REMAPPINGS, output='screen', sigterm_timeout='15',
             on_exit=required_exit('ik_node')),
    ]
    if start_web:
        # The browser view (needs the web extra: pip install ik_node[web]); it reads the
        # model and topics from ik_node and serves on localhost.
        actions.append(Node(package='ik_node', executable='web_view',
                            parameters=[{'node_name': 'ik_node',
                                         'port': int(LaunchConfiguration('web_port')
                                                     .perform(context))}],
                            # Its teardown (viser, rclpy) can take over launch's default 5 s
                            # on a busy machine: wait longer before escalating to SIGTERM.
                            sigterm_timeout='15', output='screen'))
    if start_rviz:
        actions.append(Node(package='rviz2', executable='rviz2',
                            arguments=['-d', LaunchConfiguration('rviz_config'),
                                       '-f', fixed_frame],
                            remappings=RVIZ_REMAPPINGS, output='screen'))
    return notes + [GroupAction(actions)]


def generate_launch_description():
    """Declare the arguments; the nodes are made in launch_setup."""
    share = get_package_share_directory('ik_node')
    config = os.path.join(share, 'config')
    return LaunchDescription([
        DeclareLaunchArgument('robot', default_value=os.path.join(config, 'urdf',
                                                                  'demo_arm.urdf'),
                              description='URDF file of the arm'),
        DeclareLaunchArgument('solver', default_value='dls',
                              description='IK method: dls, fabrik, hybrid, jt, pinv or ccd'),
        DeclareLaunchArgument('base_link', default_value='',
                              description='chain base link (empty: the URDF root)'),
        DeclareLaunchArgument('tip_link', default_value='',
                              description='chain tip link (empty: the longest chain end)'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='namespace of this arm (several arms side by side)'),
        DeclareLaunchArgument('rviz', default_value='true',
                              description='start RViz (skipped, with a note, if not installed)'),
        DeclareLaunchArgument('web', default_value='false',
                              description='start the browser view (ik_node web_view)'),
        DeclareLaunchArgument('web_port', default_value='8080',
                              description='port of the browser view on localhost'),
        DeclareLaunchArgument('rviz_config', default_value=os.path.join(config, 'demo.rviz'),
                              description='RViz configuration file'),
        DeclareLaunchArgument('joint_limits', default_value='',
                              description='MoveIt joint_limits.yaml (acceleration, jerk) of the '
                                          'arm; empty: the one of the demo arm for the demo '
                                          'arm, else the URDF velocities and the defaults'),
        DeclareLaunchArgument('ik_params', default_value=os.path.join(config, 'ik_node.yaml'),
                              description='parameter file of the IK node'),
        DeclareLaunchArgument('sim_params', default_value=os.path.join(config, 'sim_arm.yaml'),
                              description='parameter file of the simulated arm'),
        OpaqueFunction(function=launch_setup),
    ])
