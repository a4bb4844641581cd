# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.ros.parameter_table: defaults valid, bad values refused with a reason, YAML matching."""

import math
from pathlib import Path

from conftest import load
from ik_node import Chain, IKInputError, JointLimitsError
from ik_node.model.link_tree import RobotTree
from ik_node.ros.parameter_table import (check_value, check_values, defaults,
                                         IK_NODE_PARAMETERS, limits_from_values,
                                         SIM_ARM_PARAMETERS, solver_options, topic_conflict)
from ik_node.solve_ik import methods, solve
import numpy as np
import pytest

CONFIG = Path(__file__).resolve().parents[1] / 'config'


@pytest.mark.parametrize('specs', [IK_NODE_PARAMETERS, SIM_ARM_PARAMETERS])
def test_defaults_are_valid_and_documented(specs):
    assert check_values(specs, defaults(specs)) is None
    names = [p.name for p in specs]
    assert len(names) == len(set(names))
    for p in specs:
        assert p.description.strip(), p.name
        assert p.type_name in ('bool', 'int', 'double', 'string', 'double_array',
                               'string_array')


@pytest.mark.parametrize('name, value, words', [
    ('solver', 'newton', 'must be one of'),
    ('position_tolerance', 0.0, '> 0'),
    ('position_tolerance', math.nan, '> 0'),
    ('orientation_tolerance', -1.0, '> 0'),
    ('max_iterations', 0, '>= 1'),
    ('max_attempts', 0, '>= 1'),
    ('timeout', math.inf, '> 0'),
    ('max_joint_change', -0.1, '>= 0'),
    ('damping', -0.1, '>= 0'),
    ('nullspace_limit_avoidance', -1.0, '>= 0'),
    ('output_rate', 0.0, 'in [1, 2000]'),
    ('output_rate', 5000.0, 'in [1, 2000]'),
    ('output_mode', 'sometimes', 'immediate, timer'),
    ('velocity_scale', 1.5, 'in [0.001, 1]'),
    ('acceleration_scale', 0.0, 'in [0.001, 1]'),
    ('acceleration_scale', math.nan, 'in [0.001, 1]'),
    ('default_acceleration_limit', 0.0, '> 0'),
    ('default_jerk_limit', -1.0, '> 0'),
    ('default_jerk_limit', math.inf, '> 0'),
    ('joint_limits_file', '/no/such/joint_limits.yaml', 'is not a file'),
    ('joint_limits_file', str(CONFIG), 'is not a file'),
    ('initial_positions', [0.0, math.nan], 'finite'),
    ('target_topic', '', 'must not be empty'),
    ('target_topic', 'bad topic', 'not a valid ROS topic name'),
    ('command_topic', '2fast', 'not a valid ROS topic name'),
    ('marker_topic', 'trailing/', 'not a valid ROS topic name'),
])
def test_invalid_values_are_refused_with_a_reason(name, value, words):
    reason = check_value(IK_NODE_PARAMETERS, name, value)
    assert reason is not None and reason.startswith(name) and words in reason, reason
    values = defaults(IK_NODE_PARAMETERS)
    values[name] = value
    assert check_values(IK_NODE_PARAMETERS, values) == reason


@pytest.mark.parametrize('name, value', [
    ('solver', 'pinv'), ('position_tolerance', 1e-4), ('output_mode', 'timer'),
    ('marker_topic', ''), ('trajectory_topic', '/arm/joint_trajectory_controller/commands'),
    ('goal_pose_topic', '~/goal'), ('initial_positions', [0.1, -0.2]), ('velocity_scale', 0.5),
    ('acceleration_scale', 0.001), ('joint_limits_file', ''),
    ('joint_limits_file', str(CONFIG / 'joint_limits.yaml')),
])
def test_valid_values_are_accepted(name, value):
    assert check_value(IK_NODE_PARAMETERS, name, value) is None


def test_every_registered_solver_is_accepted():
    for method in methods():
        assert check_value(IK_NODE_PARAMETERS, 'solver', method) is None


def test_unknown_parameter_and_equal_base_and_tip_are_refused():
    assert 'unknown parameter' in check_value(IK_NODE_PARAMETERS, 'nope', 1)
    values = defaults(IK_NODE_PARAMETERS)
    values.update(base_link='base_link', tip_link='base_link')
    assert 'must differ' in check_values(IK_NODE_PARAMETERS, values)


@pytest.mark.parametrize('fname, specs', [('ik_node.yaml', IK_NODE_PARAMETERS),
                                          ('sim_arm.yaml', SIM_ARM_PARAMETERS)])
def test_shipped_yaml_holds_declared_valid_values(fname, specs):
    yaml = pytest.importorskip('yaml')
    data = yaml.safe_load((CONFIG / fname).read_text())
    params = data['/**']['ros__parameters']
    known = {p.name: p for p in specs}
    assert set(params) <= set(known)
    # Every non-empty default is written out, so the file documents all parameters.
    assert {n for n, p in known.items() if p.default != []} <= set(params)
    values = defaults(specs)
    values.update(params)
    assert check_values(specs, values) is None
    for name, value in params.items():
        expected = known[name].type_name
        ok = {'bool': isinstance(value, bool),
              'int': isinstance(value, int) and not isinstance(value, bool),
              'double': isinstance(value, float),
              'string': isinstance(value, str),
              'double_array': (isinstance(value, list)
                               and all(isinstance(v, float) for v in value)),
              'string_array': (isinstance(value, list)
                               and all(isinstance(v, str) for v in value))}[expected]
        assert ok, (name, value, expected)


def test_ik_node_yaml_values_are_the_defaults():
    yaml = pytest.importorskip('yaml')
    params = yaml.safe_load((CONFIG / 'ik_node.yaml').read_text())['/**']['ros__parameters']
    expected = defaults(IK_NODE_PARAMETERS)
    for name, value in params.items():
        assert value == expected[name], name


@pytest.mark.parametrize('method', ['dls', 'pinv', 'jt'])
def test_solver_options_are_accepted_by_solve(method, rng):
    chain = load('panda')
    values = defaults(IK_NODE_PARAMETERS)
    values.update(solver=method, nullspace_limit_avoidance=0.1, nullspace_rest_posture=0.1,
                  nullspace_manipulability=0.01, max_attempts=3, max_joint_change=0.2)
    opts = solver_options(values, chain)
    assert len(opts['objectives']) == 3 and opts['restarts'] is True
    assert opts['max_joint_change'] == 0.2
    assert 'max_joint_change' not in solver_options(defaults(IK_NODE_PARAMETERS), chain)
    q = chain.random_q(rng)
    q0 = chain.clip(q + 0.05)
    result = solve(chain, chain.fk(q), q0=q0, method=method, **opts)
    assert result.method == method
    assert np.all(np.isfinite(result.q)) and np.max(np.abs(result.q - q0)) <= 0.2 + 1e-12


def test_solver_options_for_other_methods_hold_common_options_only():
    values = defaults(IK_NODE_PARAMETERS)
    values.update(solver='fabrik')
    opts = solver_options(values, load('ur5'))
    assert set(opts) == {'position_tolerance', 'orientation_tolerance', 'max_iterations',
                         'max_attempts', 'timeout'}


def test_rest_positions_of_the_wrong_size_are_refused():
    values = defaults(IK_NODE_PARAMETERS)
    values.update(nullspace_rest_posture=1.0, rest_positions=[0.0, 0.0])
    with pytest.raises(ValueError, match='rest_positions must have 6 values'):
        solver_options(values, load('ur5'))


def test_solve_refuses_an_unknown_option_so_the_mapping_matters():
    # Guards the split in solver_options: the Jacobian solvers refuse unknown options.
    with pytest.raises(IKInputError):
        solve(load('ur5'), np.array([0.3, 0.1, 0.4]), method='dls', not_an_option=1)


def test_two_topic_parameters_naming_one_topic_are_refused_after_resolving():
    values = defaults(IK_NODE_PARAMETERS)

    def in_arm1(topic):
        return topic if topic.startswith('/') else '/arm1/' + topic
    assert topic_conflict(values, in_arm1) is None
    # A relative name and the absolute name it resolves to are one topic.
    clash = dict(values, target_topic='/arm1/joint_commands')
    reason = topic_conflict(clash, in_arm1)
    assert reason is not None and 'command_topic' in reason and 'target_topic' in reason
    assert "'/arm1/joint_commands'" in reason
    # Outside the namespace they differ; an empty (switched off) topic never clashes.
    assert topic_conflict(dict(values, target_topic='/joint_commands'), in_arm1) is None
    assert topic_conflict(dict(values, marker_topic='', trajectory_topic=''), in_arm1) is None

    def refuses(topic):
        raise ValueError(f'cannot resolve {topic}')
    assert topic_conflict(dict(values, target_topic='joint_commands'), refuses) is not None


def demo_arm() -> Chain:
    return Chain.from_urdf(CONFIG / 'urdf' / 'demo_arm.urdf', 'base_link', 'tool0')


def test_command_limits_come_from_the_urdf_the_file_the_defaults_and_both_scales():
    chain = demo_arm()
    values = defaults(IK_NODE_PARAMETERS)
    plain = limits_from_values(chain, values)
    assert plain.names == chain.joint_names
    np.testing.assert_array_equal(plain.velocity, chain.velocity)
    np.testing.assert_array_equal(plain.acceleration, np.full(6, 5.0))
    np.testing.assert_array_equal(plain.jerk, np.full(6, 1000.0))
    values.update(joint_limits_file=str(CONFIG / 'joint_limits.yaml'), velocity_scale=0.5,
                  acceleration_scale=0.2, default_acceleration_limit=1.0,
                  default_jerk_limit=10.0)
    limits = limits_from_values(chain, values, robot=RobotTree.from_urdf(
        CONFIG / 'urdf' / 'demo_arm.urdf'))
    np.testing.assert_allclose(limits.velocity, 0.5 * chain.velocity)
    np.testing.assert_allclose(limits.acceleration, 0.2 * np.array([5, 5, 5, 10, 10, 10]))
    np.testing.assert_allclose(limits.jerk, 0.2 * np.array([500, 500, 500, 1e3, 1e3, 1e3]))
    # Joints the file leaves alone take the default limits.
    values['joint_limits_file'] = ''
    np.testing.assert_allclose(limits_from_values(chain, values).jerk, np.full(6, 2.0))


def test_a_bad_joint_limits_file_is_refused_naming_the_joint_and_the_field(tmp_path):
    bad = tmp_path / 'joint_limits.yaml'
    bad.write_text('joint_limits:\n  wrist_2_joint:\n    has_acceleration_limits: true\n'
                   '    max_acceleration: .nan\n')
    values = dict(defaults(IK_NODE_PARAMETERS), joint_limits_file=str(bad))
    assert check_values(IK_NODE_PARAMETERS, values) is None    # the content needs the robot
    with pytest.raises(JointLimitsError, match="max_acceleration of joint 'wrist_2_joint' "
                                               'must be finite'):
        limits_from_values(demo_arm(), values)
    bad.write_text('joint_limits:\n  gripper_joint: {}\n')
    with pytest.raises(JointLimitsError, match="'gripper_joint', which is not a joint"):
        limits_from_values(demo_arm(), values)
