# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.ros.launch_checks: what the launch files check before they start anything."""

from ik_node.ros.launch_checks import install_hint, missing_package, parse_bool
import pytest


@pytest.mark.parametrize('text, value', [('true', True), ('True', True), ('1', True),
                                         ('false', False), (' off ', False), ('0', False)])
def test_booleans_are_read_as_ros2_launch_users_write_them(text, value):
    assert parse_bool('rviz', text) is value


@pytest.mark.parametrize('text', ['banana', '', 'tru', '2'])
def test_anything_else_is_refused_with_the_argument_named(text):
    with pytest.raises(ValueError, match=r'launch argument rviz:=.* is not a boolean'):
        parse_bool('rviz', text)


def test_a_package_that_is_not_installed_is_named_with_its_install_command():
    pytest.importorskip('ament_index_python')
    reason = missing_package('rviz2_not_a_real_package')
    assert "package 'rviz2_not_a_real_package' is not installed" in reason
    assert 'sudo apt install ros-$ROS_DISTRO-rviz2-not-a-real-package' in reason
    assert install_hint('robot_state_publisher') == \
        'sudo apt install ros-$ROS_DISTRO-robot-state-publisher'
