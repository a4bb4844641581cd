# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The ament linters a ROS build farm runs (flake8, pep257), the copyright header, rclpy's place.

They run here through the ros-ament-flake8 / ros-ament-pep257 wheels, so `colcon test` on a
ROS install stays green too. mypy is in test_mypy.py: a file of its own, so that the test
workers run it beside flake8 (one to two minutes each on a fresh checkout).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(p for d in ('ik_node', 'test', 'launch', 'bench', 'scripts')
                 for p in (ROOT / d).rglob('*.py')) + [ROOT / 'setup.py']


@pytest.mark.linter
def test_flake8():
    main_with_errors = pytest.importorskip('ament_flake8.main').main_with_errors
    rc, errors = main_with_errors(argv=[str(p) for p in SOURCES])
    assert rc == 0, f'{len(errors)} flake8 error(s):\n' + '\n'.join(errors)


@pytest.mark.linter
def test_pep257():
    main = pytest.importorskip('ament_pep257.main').main
    rc = main(argv=[str(p) for p in SOURCES])
    assert rc == 0, 'pep257 errors: see the report above'


@pytest.mark.linter
def test_copyright_header():
    missing = [str(p.relative_to(ROOT)) for p in SOURCES
               if not p.read_text().startswith('# Copyright 2026 ik_node maintainers\n'
                                               '# Licensed under the Apache License')]
    assert not missing, f'files without the copyright header: {missing}'


# The ROS client library and the message packages: imported only by the ROS layer.
ROS_PACKAGES = ('rclpy', 'rcl_interfaces', 'std_msgs', 'geometry_msgs', 'sensor_msgs',
                'trajectory_msgs', 'visualization_msgs', 'diagnostic_msgs', 'std_srvs',
                'builtin_interfaces')


def test_only_the_ros_layer_imports_rclpy():
    package = ROOT / 'ik_node'
    offenders = []
    for path in sorted(package.rglob('*.py')):
        if path.relative_to(package).parts[0] == 'ros':
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            offenders += [f'{path.relative_to(ROOT)}:{node.lineno} {name}' for name in names
                          if name.split('.')[0] in ROS_PACKAGES]
    assert not offenders, f'ROS imports outside ik_node/ros: {offenders}'
