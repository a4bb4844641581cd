# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.ros.launch_checks: what the launch files check before they start anything."""

from types import SimpleNamespace

from ik_node.ros.launch_checks import (install_hint, missing_executable, missing_package,
                                       parse_bool, required_exit)
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


def _prefix(tmp_path, monkeypatch, package: str):
    """Register ``package`` in an ament index at tmp_path (as colcon and pip both do)."""
    marker = tmp_path / 'share' / 'ament_index' / 'resource_index' / 'packages' / package
    marker.parent.mkdir(parents=True)
    marker.write_text('')
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path))
    return tmp_path


def test_an_executable_outside_lib_package_is_named_before_anything_starts(
        tmp_path, monkeypatch):
    pytest.importorskip('ament_index_python')
    prefix = _prefix(tmp_path, monkeypatch, 'ik_node')
    # A pip install: the package is in the index, its console scripts in bin/.
    (prefix / 'bin').mkdir()
    (prefix / 'bin' / 'ik_node').write_text('#!/bin/sh\n')
    reason = missing_executable('ik_node', 'ik_node')
    assert f'{prefix}/lib/ik_node/ik_node' in reason and 'colcon' in reason
    # A colcon layout: found.
    exe = prefix / 'lib' / 'ik_node' / 'ik_node'
    exe.parent.mkdir(parents=True)
    exe.write_text('#!/bin/sh\n')
    assert 'no executable' in missing_executable('ik_node', 'ik_node')    # not executable
    exe.chmod(0o755)
    assert missing_executable('ik_node', 'ik_node') is None
    assert "package 'rviz2' is not installed" in missing_executable('rviz2', 'rviz2')


def test_a_required_node_that_fails_stops_the_launch_with_an_error():
    on_exit = required_exit('ik_node')
    running = SimpleNamespace(is_shutdown=False)
    with pytest.raises(RuntimeError, match='ik_node exited with status 1: the launch stops'):
        on_exit(SimpleNamespace(returncode=1), running)
    # (not 'launch': the repository's launch/ folder is one, as a namespace package)
    Shutdown = pytest.importorskip('launch.actions').Shutdown
    # A clean exit, or any exit while the launch already stops (Ctrl-C): a plain shutdown.
    for code, context in ((0, running), (-15, SimpleNamespace(is_shutdown=True))):
        actions = on_exit(SimpleNamespace(returncode=code), context)
        assert len(actions) == 1 and isinstance(actions[0], Shutdown)
