# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.motion.limits: URDF velocities, MoveIt joint_limits files, defaults, bad input."""

import math
from pathlib import Path

from conftest import load
from hypothesis import given, settings
from hypothesis import strategies as st
from ik_node import Chain, IKInputError, JointLimitsError
from ik_node.model.link_tree import RobotTree
from ik_node.motion.limits import (DEFAULT_ACCELERATION, DEFAULT_JERK, DEFAULT_VELOCITY,
                                   joint_limits, JointLimits, read_limits_file)
import numpy as np
import pytest
import yaml

CONFIG = Path(__file__).resolve().parents[1] / 'config'
DEMO_URDF = CONFIG / 'urdf' / 'demo_arm.urdf'
DEMO_LIMITS = CONFIG / 'joint_limits.yaml'

# j1, j2 (no URDF velocity), j3 (continuous) actuated; j4 follows j2 twice as fast (mimic, in
# the chain); a gripper off the chain (finger_joint, and finger_mirror_joint mimicking it).
ARM = """<robot name="limits_arm">
  <link name="base_link"/><link name="l1"/><link name="l2"/><link name="l3"/><link name="l4"/>
  <link name="tip"/><link name="finger"/><link name="finger_mirror"/>
  <joint name="j1" type="revolute"><parent link="base_link"/><child link="l1"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="10" velocity="2.0"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" effort="10" velocity="0"/></joint>
  <joint name="j3" type="continuous"><parent link="l2"/><child link="l3"/>
    <origin xyz="0.3 0 0"/><axis xyz="1 0 0"/><limit effort="5" velocity="3.0"/></joint>
  <joint name="j4" type="revolute"><parent link="l3"/><child link="l4"/>
    <origin xyz="0.1 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-4" upper="4" effort="5" velocity="1.0"/>
    <mimic joint="j2" multiplier="2.0" offset="0"/></joint>
  <joint name="tip_joint" type="fixed"><parent link="l4"/><child link="tip"/>
    <origin xyz="0.1 0 0"/></joint>
  <joint name="finger_joint" type="prismatic"><parent link="l3"/><child link="finger"/>
    <axis xyz="0 1 0"/><limit lower="0" upper="0.04" effort="20" velocity="0.1"/></joint>
  <joint name="finger_mirror_joint" type="prismatic"><parent link="l3"/>
    <child link="finger_mirror"/><axis xyz="0 -1 0"/>
    <limit lower="0" upper="0.04" effort="20" velocity="0.1"/>
    <mimic joint="finger_joint"/></joint>
</robot>
"""


@pytest.fixture(scope='module')
def arm() -> Chain:
    return Chain.from_urdf(ARM, 'base_link', 'tip')


@pytest.fixture(scope='module')
def demo() -> Chain:
    return Chain.from_urdf(DEMO_URDF, 'base_link', 'tool0')


def entry(**values):
    """Return a joint entry with each given max_* (or min/max_position) flagged on."""
    out = {}
    for key, value in values.items():
        flag = {'min_position': 'has_position_limits', 'max_position': 'has_position_limits'
                }.get(key, 'has_' + key[4:] + '_limits')
        out[flag] = True
        out[key] = value
    return out


def test_without_a_file_the_urdf_velocities_and_the_defaults_apply(arm):
    limits = joint_limits(arm)
    assert limits.names == arm.joint_names == ('j1', 'j2', 'j3')
    # j2 has no URDF velocity: the default, then halved by its mimic j4 (1.0 rad/s at x2).
    np.testing.assert_array_equal(limits.velocity, [2.0, 0.5, 3.0])
    np.testing.assert_array_equal(limits.acceleration, np.full(3, DEFAULT_ACCELERATION))
    np.testing.assert_array_equal(limits.jerk, np.full(3, DEFAULT_JERK))
    other = joint_limits(arm, default_velocity=0.2, default_acceleration=2.0, default_jerk=30)
    np.testing.assert_array_equal(other.velocity, [2.0, 0.2, 3.0])
    np.testing.assert_array_equal(other.acceleration, [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(other.jerk, [30.0, 30.0, 30.0])
    assert DEFAULT_VELOCITY == 1.0


def test_the_shipped_demo_file_holds_a_real_arm_s_limits(demo):
    limits = joint_limits(demo, DEMO_LIMITS)
    np.testing.assert_array_equal(limits.velocity, np.full(6, 3.15))
    np.testing.assert_array_equal(limits.acceleration, [5.0, 5.0, 5.0, 10.0, 10.0, 10.0])
    np.testing.assert_array_equal(limits.jerk, [500.0, 500.0, 500.0, 1000, 1000, 1000])
    # Each joint ramps its acceleration up in 10 ms.
    np.testing.assert_allclose(limits.acceleration / limits.jerk, 0.01)
    data = yaml.safe_load(DEMO_LIMITS.read_text())
    assert set(data['joint_limits']) == set(demo.joint_names)


def test_a_path_yaml_text_and_a_mapping_give_the_same_limits(demo, tmp_path):
    text = DEMO_LIMITS.read_text()
    copy = tmp_path / 'limits.yaml'
    copy.write_text(text)
    results = [joint_limits(demo, source) for source in
               (DEMO_LIMITS, str(DEMO_LIMITS), copy, text, yaml.safe_load(text))]
    for other in results[1:]:
        for field in ('velocity', 'acceleration', 'jerk'):
            np.testing.assert_array_equal(getattr(other, field), getattr(results[0], field))
    flow = joint_limits(demo, '{joint_limits: {elbow_joint: {has_jerk_limits: true, '
                              'max_jerk: 7}}}')
    assert flow.jerk[2] == 7.0


def test_limits_are_read_only_copies_and_scaled_keeping_their_shape(arm):
    v = np.array([1.0, 2.0, 3.0])
    limits = JointLimits(('a', 'b', 'c'), v, [4.0, 5.0, 6.0], [40.0, 50.0, 60.0])
    v[0] = 9.0
    assert limits.velocity[0] == 1.0 and limits.n == 3
    for field in ('velocity', 'acceleration', 'jerk'):
        with pytest.raises(ValueError):
            getattr(limits, field)[0] = 0.0
    with pytest.raises(AttributeError):
        limits.velocity = v        # frozen
    half = limits.scaled(0.5, 0.25)
    np.testing.assert_allclose(half.velocity, [0.5, 1.0, 1.5])
    np.testing.assert_allclose(half.acceleration, [1.0, 1.25, 1.5])
    np.testing.assert_allclose(half.jerk, [10.0, 12.5, 15.0])
    np.testing.assert_allclose(half.acceleration / half.jerk, limits.acceleration / limits.jerk)
    assert limits.scaled(1.0, 1.0).velocity.tolist() == [1.0, 2.0, 3.0]
    for scales in ((0.0, 1.0), (1.0, 1.5), (math.nan, 1.0), (1.0, True), (1.0, '0.5')):
        with pytest.raises(JointLimitsError, match='_scale must be a number in'):
            limits.scaled(*scales)
    picked = limits.select(['c', 'a'])
    assert picked.names == ('c', 'a') and picked.jerk.tolist() == [60.0, 40.0]
    with pytest.raises(JointLimitsError, match=r"no limits for joints \['x'\]"):
        limits.select(['a', 'x'])
    assert 'b: 2/5/50' in repr(limits)


@pytest.mark.parametrize('args, words', [
    ((('a', 'b'), [1.0], [1.0, 1.0], [1.0, 1.0]), 'velocity limits must have shape (2,)'),
    ((('a', 'b'), [1.0, 1.0], [1.0, 0.0], [1.0, 1.0]),
     "acceleration limit of joint 'b' must be a finite number > 0, got 0.0"),
    ((('a', 'b'), [1.0, 1.0], [1.0, 1.0], [math.inf, 1.0]), "jerk limit of joint 'a'"),
    ((('a', 'a'), [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]), "['a'] appear twice"),
    ((('a', 'b'), ['x', 1.0], [1.0, 1.0], [1.0, 1.0]), 'velocity limits must be numbers'),
])
def test_a_bad_limits_record_is_refused(args, words):
    with pytest.raises(JointLimitsError) as info:
        JointLimits(*args)
    assert words in str(info.value)
    assert issubclass(JointLimitsError, IKInputError)


def test_the_file_lowers_velocities_and_sets_acceleration_and_jerk(arm):
    limits = joint_limits(arm, {'joint_limits': {
        'j1': entry(max_velocity=1.5, max_acceleration=3.0, max_jerk=40),
        'j2': entry(max_velocity=0.25),
        'j3': {'has_velocity_limits': False, 'max_velocity': 0,
               'has_acceleration_limits': False, 'max_acceleration': 0,
               'has_jerk_limits': True, 'max_jerk': 20.0},
    }})
    np.testing.assert_array_equal(limits.velocity, [1.5, 0.25, 3.0])
    np.testing.assert_array_equal(limits.acceleration, [3.0, DEFAULT_ACCELERATION,
                                                        DEFAULT_ACCELERATION])
    np.testing.assert_array_equal(limits.jerk, [40.0, DEFAULT_JERK, 20.0])
    # A joint without a URDF velocity may take any from the file (the mimic still bounds it).
    assert joint_limits(arm, {'joint_limits': {'j2': entry(max_velocity=7.0)}}).velocity[1] \
        == 0.5


def test_deceleration_lowers_the_acceleration_limit_with_either_sign(arm):
    for dec in (2.0, -2.0):
        limits = joint_limits(arm, {'joint_limits': {
            'j1': dict(entry(max_acceleration=3.0, max_deceleration=dec)),
            'j3': entry(max_deceleration=dec)}})
        np.testing.assert_array_equal(limits.acceleration, [2.0, DEFAULT_ACCELERATION, 2.0])
    wider = joint_limits(arm, {'joint_limits': {'j1': entry(max_acceleration=3.0,
                                                            max_deceleration=9.0)}})
    assert wider.acceleration[0] == 3.0


def test_a_mimic_joint_bounds_its_master_and_off_chain_joints_are_ignored(arm):
    limits = joint_limits(arm, {'joint_limits': {
        'j4': entry(max_velocity=0.6, max_acceleration=1.0, max_jerk=10.0),
        'finger_joint': entry(max_velocity=0.05, max_acceleration=0.5),
        'finger_mirror_joint': entry(max_velocity=0.05, max_effort=20),
        'tip_joint': {'has_velocity_limits': False},
    }})
    # j4 = 2 * j2: the master gets half of each of its mimic's limits.
    np.testing.assert_array_equal(limits.velocity, [2.0, 0.3, 3.0])
    np.testing.assert_array_equal(limits.acceleration, [DEFAULT_ACCELERATION, 0.5,
                                                        DEFAULT_ACCELERATION])
    np.testing.assert_array_equal(limits.jerk, [DEFAULT_JERK, 5.0, DEFAULT_JERK])
    # Off-chain entries are still checked.
    with pytest.raises(JointLimitsError, match="max_acceleration of joint 'finger_joint'"):
        joint_limits(arm, {'joint_limits': {'finger_joint': entry(max_acceleration=-1.0)}})


def test_the_robot_s_joints_come_from_the_chain_s_urdf_or_the_caller(arm, tmp_path):
    source = {'joint_limits': {'finger_joint': entry(max_velocity=0.05)}}
    tree = RobotTree.from_urdf(ARM)
    np.testing.assert_array_equal(joint_limits(arm, source, robot=tree).velocity,
                                  joint_limits(arm, source).velocity)
    # A chain built without Chain.from_urdf knows only its own joints.
    from ik_node.model.urdf import read_chain
    bare = Chain(read_chain(ARM, 'base_link', 'tip'))
    assert joint_limits(bare, {'joint_limits': {'j4': entry(max_velocity=0.6)}}
                        ).velocity[1] == 0.3
    with pytest.raises(JointLimitsError, match="'finger_joint', which is not a joint of this "
                                               r'chain \(pass robot='):
        joint_limits(bare, source)
    assert joint_limits(bare, source, robot=tree.joints).names == ('j1', 'j2', 'j3')


def test_position_limits_may_contain_the_urdf_s_but_not_narrow_them(arm, demo):
    wide = {'joint_limits': {'j1': entry(min_position=-2.0, max_position=2.5),
                             'j4': entry(min_position=-4.0, max_position=4.0)}}
    joint_limits(arm, wide)
    # Degrees rounded to a few digits are the same limits.
    joint_limits(demo, 'joint_limits:\n  elbow_joint:\n    has_position_limits: true\n'
                       '    min_position: !degrees -360.0\n    max_position: !radians 6.28318\n')
    for joint, field, value in (('j1', 'min_position', -1.9), ('j1', 'max_position', 1.0),
                                ('j4', 'max_position', 3.0), ('j3', 'min_position', -3.0)):
        bounds = {'min_position': -100.0, 'max_position': 100.0, field: value}
        with pytest.raises(JointLimitsError) as info:
            joint_limits(arm, {'joint_limits': {joint: entry(**bounds)}})
        message = str(info.value)
        assert f"{field} of joint '{joint}'" in message and 'narrow them in the URDF' in message


def test_moveit_scaling_factors_and_xacro_angle_tags_are_read(demo):
    text = ('default_velocity_scaling_factor: 0.1\ndefault_acceleration_scaling_factor: 1\n'
            'joint_limits:\n  wrist_3_joint:\n    has_velocity_limits: true\n'
            '    max_velocity: !degrees 90\n')
    limits = joint_limits(demo, text)
    assert limits.velocity[5] == pytest.approx(math.pi / 2)
    assert limits.velocity[0] == 3.15           # the factors scale nothing


BAD_FILES = [
    # (source, words the message must hold)
    ({'joint_limits': {'elbow_joint': entry(max_velocity=-1.0)}},
     "max_velocity of joint 'elbow_joint' must be > 0"),
    ({'joint_limits': {'elbow_joint': entry(max_acceleration=0)}},
     "max_acceleration of joint 'elbow_joint' must be > 0"),
    ({'joint_limits': {'elbow_joint': entry(max_jerk=math.nan)}},
     "max_jerk of joint 'elbow_joint' must be finite"),
    ('joint_limits:\n  elbow_joint:\n    has_jerk_limits: true\n    max_jerk: .inf\n',
     "max_jerk of joint 'elbow_joint' must be finite"),
    ({'joint_limits': {'elbow_joint': entry(max_deceleration=0.0)}},
     "max_deceleration of joint 'elbow_joint' must not be 0"),
    ({'joint_limits': {'elbow_joint': entry(max_velocity=4.0)}},
     "max_velocity of joint 'elbow_joint' (4) is above the URDF's velocity limit (3.15)"),
    ({'joint_limits': {'elbow_joint': {'has_acceleration_limits': True}}},
     "joint 'elbow_joint' has has_acceleration_limits: true but no max_acceleration"),
    ({'joint_limits': {'elbow_joint': {'has_position_limits': True, 'min_position': -7.0}}},
     "joint 'elbow_joint' has has_position_limits: true but no max_position"),
    ({'joint_limits': {'elbow_joint': {'max_jerk': 100.0}}},
     "joint 'elbow_joint' gives max_jerk without has_jerk_limits"),
    ({'joint_limits': {'elbow_joint': entry(min_position=7.0, max_position=6.5)}},
     "min_position of joint 'elbow_joint' (7.0) is above its max_position (6.5)"),
    ('joint_limits:\n  elbow_joint:\n    has_jerk_limits: true\n    max_jerk: 1e3\n',
     "max_jerk of joint 'elbow_joint' must be a number, got the string '1e3' (YAML 1.1"),
    ({'joint_limits': {'elbow_joint': entry(max_velocity='fast')}},
     "max_velocity of joint 'elbow_joint' must be a number, got the string 'fast'"),
    ({'joint_limits': {'elbow_joint': entry(max_acceleration=True)}},
     "max_acceleration of joint 'elbow_joint' must be a number, got the bool True"),
    ({'joint_limits': {'elbow_joint': {'has_jerk_limits': 'yes', 'max_jerk': 1.0}}},
     "has_jerk_limits of joint 'elbow_joint' must be true or false, got the string 'yes'"),
    ({'joint_limits': {'elbow_joint': {'has_jerk_limits': 1, 'max_jerk': 1.0}}},
     "has_jerk_limits of joint 'elbow_joint' must be true or false, got 1"),
    ({'joint_limits': {'elbow_joint': entry(max_accel=1.0)}},
     "joint 'elbow_joint' has an unknown key 'has_accel_limits'"),
    ({'joint_limits': {'elbow_joint': {'angle_wraparound': True}}},
     "joint 'elbow_joint' has an unknown key 'angle_wraparound'"),
    ({'joint_limits': {'elbow': entry(max_velocity=1.0)}},
     "joint_limits names joint 'elbow', which is not a joint of robot 'demo_arm'"),
    ({'joint_limits': {'elbow_joint': [1.0, 2.0]}},
     "the limits of joint 'elbow_joint' must be a mapping of limit keys, got list"),
    ({'joint_limits': {'elbow_joint': None}},
     "the limits of joint 'elbow_joint' must be a mapping of limit keys, got nothing"),
    ({'joint_limits': [{'elbow_joint': {}}]}, 'joint_limits must be a mapping'),
    ({'joint_limits': None}, 'joint_limits must be a mapping'),
    ({'joint_limit': {}}, "unknown key 'joint_limit'"),
    ({'joint_limits': {1: {}}}, 'joint names must be strings, got 1'),
    ({'default_velocity_scaling_factor': 1.5}, 'default_velocity_scaling_factor must be a '
                                               'number in (0, 1], got 1.5'),
    ('- elbow_joint\n- wrist_1_joint\n', 'must be a mapping with a joint_limits key, got list'),
    ('joint_limits:\n  elbow_joint: {has_jerk_limits: true, max_jerk: [1}\n',
     'joint limits YAML is not valid YAML'),
    ('joint_limits:\n  elbow_joint: {}\n  elbow_joint: {}\n',
     "key 'elbow_joint' appears twice in one mapping (line 3"),
    ('joint_limits:\n  elbow_joint:\n    has_velocity_limits: true\n    max_velocity: !degrees '
     'fast\n', '!degrees takes a number'),
    ('joint_limits:\n  elbow_joint:\n    has_velocity_limits: true\n    max_velocity: !!python/'
     'object:os.system ls\n', 'not valid YAML'),
    (42, 'joint limits must be a file path, YAML text or a mapping, got int'),
    ('', 'the path is empty'),
]


@pytest.mark.parametrize('source, words', BAD_FILES)
def test_bad_files_are_refused_naming_the_joint_and_the_field(demo, source, words):
    with pytest.raises(JointLimitsError) as info:
        joint_limits(demo, source)
    assert words in str(info.value)


def test_unreadable_files_are_refused_naming_the_file(demo, tmp_path):
    missing = tmp_path / 'nope.yaml'
    with pytest.raises(JointLimitsError, match="cannot read joint limits file '.*nope.yaml': "
                                               'No such file'):
        joint_limits(demo, missing)
    with pytest.raises(JointLimitsError, match='cannot read joint limits file'):
        joint_limits(demo, tmp_path)                  # a directory
    binary = tmp_path / 'binary.yaml'
    binary.write_bytes(b'joint_limits: \xff\xfe\n')
    with pytest.raises(JointLimitsError, match='is not UTF-8 text'):
        joint_limits(demo, binary)
    empty = tmp_path / 'empty.yaml'
    empty.write_text('# nothing but a comment\n')
    with pytest.raises(JointLimitsError, match='empty.yaml.* is empty'):
        joint_limits(demo, empty)
    bad = tmp_path / 'bad.yaml'
    bad.write_text('joint_limits:\n  elbow_joint:\n    has_jerk_limits: true\n'
                   '    max_jerk: -5.0\n')
    with pytest.raises(JointLimitsError, match="joint limits file '.*bad.yaml': max_jerk of "
                                               "joint 'elbow_joint' must be > 0"):
        joint_limits(demo, bad)


@pytest.mark.parametrize('name', ['default_velocity', 'default_acceleration', 'default_jerk'])
@pytest.mark.parametrize('value', [0.0, -1.0, math.nan, math.inf, '1.0', True, None])
def test_bad_defaults_are_refused(arm, name, value):
    with pytest.raises(JointLimitsError, match=f'{name} must be a finite number > 0'):
        joint_limits(arm, **{name: value})


bad_number = st.one_of(
    st.floats(max_value=0.0), st.sampled_from([math.nan, math.inf, -math.inf]),
    st.integers(max_value=0), st.booleans(), st.text(max_size=8), st.none(),
    st.lists(st.floats(1.0, 2.0), max_size=2))


@settings(max_examples=150, deadline=None)
@given(joint=st.sampled_from(['shoulder_pan_joint', 'elbow_joint', 'wrist_3_joint']),
       field=st.sampled_from(['max_velocity', 'max_acceleration', 'max_jerk']),
       value=bad_number, others=st.floats(0.1, 3.0))
def test_any_bad_limit_value_is_refused_naming_joint_and_field(demo, joint, field, value,
                                                               others):
    limits = {j: entry(max_velocity=others, max_acceleration=others, max_jerk=others)
              for j in demo.joint_names}
    limits[joint] = dict(limits[joint], **{field: value})
    for source in ({'joint_limits': limits}, yaml.safe_dump({'joint_limits': limits})):
        with pytest.raises(JointLimitsError) as info:
            joint_limits(demo, source)
        assert f"{field} of joint '{joint}'" in str(info.value)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.tuples(st.floats(1e-3, 3.15), st.floats(1e-3, 1e3),
                                 st.floats(1e-3, 1e5)), min_size=6, max_size=6))
def test_any_valid_file_gives_its_values(demo, values):
    table = {j: entry(max_velocity=v, max_acceleration=a, max_jerk=jerk)
             for j, (v, a, jerk) in zip(demo.joint_names, values)}
    limits = joint_limits(demo, yaml.safe_dump({'joint_limits': table}))
    np.testing.assert_array_equal(limits.velocity, [v for v, _, _ in values])
    np.testing.assert_array_equal(limits.acceleration, [a for _, a, _ in values])
    np.testing.assert_array_equal(limits.jerk, [jerk for _, _, jerk in values])


yaml_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.floats(allow_nan=True), st.integers(),
              st.text(max_size=6)),
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(st.text(max_size=12), children, max_size=3)),
    max_leaves=12)
limit_keys = st.sampled_from(['has_velocity_limits', 'max_velocity', 'has_jerk_limits',
                              'max_jerk', 'has_position_limits', 'min_position', 'max_position',
                              'has_deceleration_limits', 'max_deceleration', 'extra'])


@settings(max_examples=300, deadline=None)
@given(document=st.one_of(
    yaml_values, st.text(max_size=80),
    st.dictionaries(st.sampled_from(['joint_limits', 'default_velocity_scaling_factor']),
                    st.dictionaries(st.sampled_from(['elbow_joint', 'wrist_1_joint', 'x']),
                                    st.dictionaries(limit_keys, yaml_values, max_size=4),
                                    max_size=2), max_size=2)))
def test_any_input_gives_limits_or_a_joint_limits_error(demo, document):
    try:
        limits = joint_limits(demo, document)
    except JointLimitsError as exc:
        assert str(exc)
        return
    assert np.all(np.isfinite(limits.velocity)) and np.all(limits.velocity > 0)
    assert np.all(limits.velocity <= demo.velocity)
    assert np.all(np.isfinite(limits.jerk)) and np.all(limits.jerk > 0)


def test_reading_a_file_alone_returns_the_values_in_force():
    assert read_limits_file(None) == {}
    assert read_limits_file(DEMO_LIMITS)['wrist_1_joint'] == {
        'max_velocity': 3.15, 'max_acceleration': 10.0, 'max_jerk': 1000.0}
    assert read_limits_file({'joint_limits': {'any': {'has_jerk_limits': False,
                                                      'max_jerk': -1}}}) == {'any': {}}


def test_limits_of_the_test_robots_are_usable():
    for name in ('panda', 'ur5', 'prismatic', 'continuous', 'mimic'):
        chain = load(name)
        limits = joint_limits(chain)
        assert limits.names == chain.joint_names
        np.testing.assert_array_equal(limits.velocity, np.where(
            np.isfinite(chain.velocity), chain.velocity, DEFAULT_VELOCITY))
