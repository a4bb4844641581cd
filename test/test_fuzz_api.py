# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Fuzzing of the library API: bad input gives a clear exception or a failed result.

Never a crash (an exception outside the IKError tree), a hang, or a NaN or out-of-limit ``q``.
Inputs come from hypothesis: NaN and Inf in targets and seeds, zero, denormal, huge and
unnormalised quaternions, huge and denormal coordinates, wrong shapes and types, mutated and
cyclic URDFs, absurd options. The cases fuzzing found (and the library now handles) are kept
as plain tests with the exact input.
"""

import math
import re
import time

from conftest import load, URDF_DIR
from hypothesis import assume, given, HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from ik_node import (Chain, IKError, IKInputError, methods, pose_from_xyz_quat, solve,
                     URDFError, warm_up)
from ik_node.model.link_tree import RobotTree
from ik_node.motion.tracker import IKTracker
from ik_node.ros.parameter_table import check_values, defaults, IK_NODE_PARAMETERS, solver_options
import numpy as np
from numpy.testing import assert_allclose
import pytest

METHODS = methods()
CHAINS = {name: load(name) for name in ('ur5', 'panda', 'continuous', 'prismatic', 'mimic')}
FAST = {'timeout': 0.01}         # keeps cold solves of random targets short
FUZZ = settings(max_examples=100, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

anything = st.floats(allow_nan=True, allow_infinity=True)
nonfinite = st.sampled_from([math.nan, -math.nan, math.inf, -math.inf])


@pytest.fixture(scope='module')
def warm():
    """Compile (or load) every solver's kernels first, so timed tests time solving only."""
    warm_up(CHAINS['ur5'])


def assert_safe(chain: Chain, q) -> None:
    """Assert that q is a finite joint vector inside the chain's limits."""
    q = np.asarray(q)
    assert q.shape == (chain.n,)
    assert np.all(np.isfinite(q)), q
    assert chain.within_limits(q), q


def solve_or_refuse(chain: Chain, target, q0=None, method='dls', **options):
    """Return the result, or None when solve() refuses the input with an IKInputError."""
    try:
        result = solve(chain, target, q0=q0, method=method, **options)
    except IKInputError as exc:
        assert str(exc)
        return None
    assert_safe(chain, result.q)
    return result


@st.composite
def poisoned(draw, shape):
    """Draw an array of ``shape`` with at least one NaN or Inf entry."""
    a = draw(hnp.arrays(float, shape, elements=st.floats(-10.0, 10.0)))
    flat = a.reshape(-1)
    for i in draw(st.lists(st.integers(0, flat.size - 1), min_size=1, max_size=3)):
        flat[i] = draw(nonfinite)
    return a


# Targets and seeds ------------------------------------------------------------------------

@FUZZ
@given(method=st.sampled_from(METHODS), robot=st.sampled_from(sorted(CHAINS)),
       data=st.data())
def test_nonfinite_targets_are_refused(method, robot, data):
    chain = CHAINS[robot]
    if data.draw(st.booleans()):
        target = data.draw(poisoned((3,)))
    else:
        target = chain.fk(chain.mid)
        target[:3, :] = data.draw(poisoned((3, 4)))
    with pytest.raises(IKInputError, match='NaN or Inf'):
        solve(chain, target, q0=chain.mid, method=method)


@FUZZ
@given(method=st.sampled_from(METHODS), robot=st.sampled_from(sorted(CHAINS)),
       data=st.data())
def test_nonfinite_and_misshaped_seeds_are_refused(method, robot, data):
    chain = CHAINS[robot]
    if data.draw(st.booleans()):
        q0 = data.draw(poisoned((chain.n,)))
    else:
        n = data.draw(st.integers(0, 9).filter(lambda k: k != chain.n))
        q0 = data.draw(hnp.arrays(float, data.draw(st.sampled_from([(n,), (1, chain.n)]))))
    with pytest.raises(IKInputError):
        solve(chain, chain.fk(chain.mid), q0=q0, method=method)


@FUZZ
@given(method=st.sampled_from(METHODS),
       target=hnp.arrays(float, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
                         elements=st.floats(-2.0, 2.0)))
def test_targets_of_the_wrong_shape_are_refused(method, target):
    assume(target.shape not in ((3,), (4, 4)))
    with pytest.raises(IKInputError, match='shape'):
        solve(CHAINS['ur5'], target, method=method)


@pytest.mark.parametrize('method', METHODS)
@pytest.mark.parametrize('target', [None, 'abc', {}, [[1.0, 2.0], [3.0]], b'xyz', object(),
                                    [0.1, 0.2, '0.3x'], np.zeros((4, 4, 1))])
def test_targets_of_the_wrong_type_are_refused(method, target):
    with pytest.raises(IKInputError):
        solve(CHAINS['ur5'], target, method=method)


@FUZZ
@given(method=st.sampled_from(METHODS),
       T=hnp.arrays(float, (4, 4), elements=st.floats(-2.0, 2.0)))
def test_poses_that_are_not_rigid_transforms_are_refused(method, T):
    R = T[:3, :3]
    rigid = (np.allclose(R @ R.T, np.eye(3), atol=1e-6) and abs(np.linalg.det(R) - 1) < 1e-6
             and np.allclose(T[3], [0.0, 0.0, 0.0, 1.0]))
    assume(not rigid)
    with pytest.raises(IKInputError):
        solve(CHAINS['ur5'], T, method=method)


# Quaternions and coordinates --------------------------------------------------------------

@settings(max_examples=300, deadline=None, database=None)
@given(quat=st.lists(anything, min_size=4, max_size=4),
       xyz=st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=3))
def test_quaternions_give_a_rotation_or_a_clear_error(quat, xyz):
    q = np.array(quat)
    big = np.max(np.abs(q))
    finite = np.all(np.isfinite(q)) and big > 0
    # A norm above the float range is a known bug, pinned below.
    assume(not (finite and big > 1e300 and np.linalg.norm(q / big) * (big / 1e300) > 1.79e8))
    norm = big * np.linalg.norm(q / big) if finite else 0.0
    try:
        T = pose_from_xyz_quat(xyz, quat)
    except IKInputError as exc:
        assert 'quaternion' in str(exc)
        assert not np.all(np.isfinite(q)) or norm < 1e-6
        return
    assert np.all(np.isfinite(q)) and norm >= 1e-6
    R = T[:3, :3]
    assert_allclose(R @ R.T, np.eye(3), atol=1e-9)
    assert np.linalg.det(R) == pytest.approx(1.0, abs=1e-9)
    # The same rotation as the unit quaternion (computed here independently).
    q = q / np.max(np.abs(q))
    x, y, z, w = q / np.linalg.norm(q)
    expected = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    assert_allclose(R, expected, atol=1e-9)
    assert_allclose(T[:3, 3], xyz)


@pytest.mark.parametrize('quat', [[0.0, 0.0, 0.0, 0.0], [5e-324, 0.0, 0.0, 0.0],
                                  [1e-310, -1e-310, 1e-310, 1e-310], [0.0, 0.0, 0.0, 1e-7]])
def test_zero_and_denormal_quaternions_are_refused(quat):
    with pytest.raises(IKInputError, match='norm'):
        pose_from_xyz_quat([0.3, 0.1, 0.4], quat)


def test_quaternion_with_a_norm_beyond_the_float_range_is_normalised():
    T = pose_from_xyz_quat([0.0, 0.0, 0.0], [0.0, 0.0, 1.2711610061536462e308,
                                             1.2711610061536462e308])
    assert_allclose(T[:3, :3], [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
                    atol=1e-12)


def test_huge_quaternion_is_normalised_not_read_as_identity():
    # q @ q overflowed to inf for components above ~1.3e154 and q / inf read as the identity.
    T = pose_from_xyz_quat([0.3, 0.1, 0.4], [1e200, 0.0, 0.0, 0.0])
    assert_allclose(T[:3, :3], np.diag([1.0, -1.0, -1.0]), atol=1e-12)


coordinate = st.one_of(st.floats(-1e7, 1e7), st.floats(-1e300, 1e300),
                       st.floats(-1e-300, 1e-300),
                       st.sampled_from([0.0, -0.0, 5e-324, 1e6, -1e12, 1e155, 1.7e308]))


@FUZZ
@given(method=st.sampled_from(METHODS), robot=st.sampled_from(sorted(CHAINS)),
       xyz=st.lists(coordinate, min_size=3, max_size=3), as_pose=st.booleans(),
       warm=st.booleans())
def test_huge_and_denormal_coordinates_give_a_safe_result(method, robot, xyz, as_pose, warm):
    chain = CHAINS[robot]
    target = np.array(xyz)
    if as_pose:
        target = chain.fk(chain.mid)
        target[:3, 3] = xyz
    result = solve_or_refuse(chain, target, q0=chain.mid if warm else None, method=method,
                             **FAST)
    # Farther than 1e6 m is refused as no target for an arm; anything nearer is solved.
    assert (result is None) == (max(abs(v) for v in xyz) > 1e6)
    assert result is None or result.success or result.message


@pytest.mark.parametrize('method, x', [('jt', 1e155), ('pinv', 1.7e308), ('dls', 1e300)])
def test_targets_beyond_1e6_m_are_refused(method, x):
    # Found by fuzzing: 'jt' gave q = NaN from 1e155 m on, 'pinv' a LinAlgError at 1.7e308.
    chain = CHAINS['ur5']
    with pytest.raises(IKInputError, match='1e\\+06 m'):
        solve(chain, [x, 0.0, 0.0], q0=chain.mid, method=method)


# Options ----------------------------------------------------------------------------------

extreme = st.one_of(st.floats(1e-300, 1e-100), st.floats(1e3, 1e6))


@FUZZ
@given(method=st.sampled_from(METHODS), damping=extreme, max_step=extreme,
       tolerance=extreme, gain=st.one_of(st.just(0.0), extreme),
       iterations=st.integers(1, 300), attempts=st.integers(1, 10**6))
def test_extreme_but_valid_options_give_a_safe_result_in_time(
        warm, method, damping, max_step, tolerance, gain, iterations, attempts):
    chain = CHAINS['ur5']
    options = {'position_tolerance': tolerance, 'orientation_tolerance': tolerance,
               'max_iterations': iterations, 'max_attempts': attempts, 'timeout': 0.02}
    if method in ('dls', 'pinv', 'jt'):
        options.update(damping=damping, max_damping=damping, max_step=max_step,
                       null_space_gain=gain)
    t0 = time.perf_counter()
    result = solve_or_refuse(chain, chain.fk(chain.mid + 0.3), q0=chain.mid, method=method,
                             **options)
    assert time.perf_counter() - t0 < 1.0
    assert result is not None


def test_the_timeout_bounds_one_long_attempt():
    # Found by fuzzing: one 'jt' attempt ran all 300000 iterations (0.3 s for a 0.01 s budget).
    chain = load('planar3')
    solve(chain, [0.5, 0.7, 0.3], q0=chain.mid, method='jt', max_iterations=2)  # compiled
    t0 = time.perf_counter()
    solve(chain, [0.5, 0.7, 0.3], q0=chain.mid, method='jt', max_iterations=300_000,
          timeout=0.01)
    assert time.perf_counter() - t0 < 0.15


# URDFs ------------------------------------------------------------------------------------

BASE_URDFS = {name: (URDF_DIR / f'{name}.urdf').read_text()
              for name in ('planar3', 'mimic', 'continuous', 'prismatic', 'ur5')}
VALUES = ['nan', 'inf', '-inf', '', 'abc', '1e400', '-1e400', '0', '1e308', '-1', '0 0',
          '1 2 3 4', 'NaN NaN NaN', '1e-320', '0 0 0', 'link1', 'joint2', 'base_link']
_ATTR = re.compile(r'(\w+)="([^"]*)"')


@st.composite
def mutated_urdf(draw):
    """Draw a test URDF with 1-3 random edits: values, deleted attributes, lines or bytes."""
    text = BASE_URDFS[draw(st.sampled_from(sorted(BASE_URDFS)))]
    for _ in range(draw(st.integers(1, 3))):
        attrs = list(_ATTR.finditer(text))
        op = draw(st.sampled_from(['value', 'swap', 'drop_attr', 'drop_line', 'cut']))
        if op in ('value', 'swap', 'drop_attr') and attrs:
            a = attrs[draw(st.integers(0, len(attrs) - 1))]
            if op == 'value':
                text = text[:a.start(2)] + draw(st.sampled_from(VALUES)) + text[a.end(2):]
            elif op == 'swap':
                b = attrs[draw(st.integers(0, len(attrs) - 1))]
                text = text[:a.start(2)] + b.group(2) + text[a.end(2):]
            else:
                text = text[:a.start()] + text[a.end():]
        elif op == 'drop_line':
            lines = text.splitlines()
            del lines[draw(st.integers(0, len(lines) - 1))]
            text = '\n'.join(lines)
        else:
            i = draw(st.integers(0, len(text) - 1))
            text = text[:i] + text[i + draw(st.integers(1, 40)):]
    return text


@settings(max_examples=150, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=mutated_urdf())
def test_mutated_urdfs_give_a_usable_chain_or_urdf_error(text):
    try:
        tree = RobotTree.from_urdf(text)
        base, tip = tree.default_chain()
        chain = Chain.from_urdf(text, base, tip)
    except URDFError as exc:
        assert str(exc)
        return
    T = chain.fk(chain.mid)
    assert np.all(np.isfinite(T))
    for link in tree.links:
        assert np.all(np.isfinite(tree.link_pose(tree.root, link, {})))
    assert np.all((chain.velocity > 0.0) & ~np.isnan(chain.velocity))
    result = solve_or_refuse(chain, T, q0=chain.mid, **FAST)
    assert result is not None


def _robot(joints: str, links=('base_link', 'link1', 'link2', 'tip')) -> str:
    return ('<robot name="r">' + ''.join(f'<link name="{name}"/>' for name in links)
            + joints + '</robot>')


def _joint(name, parent, child, kind='revolute', extra=''):
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/>'
            f'<child link="{child}"/><origin xyz="0.5 0 0"/><axis xyz="0 0 1"/>'
            f'<limit lower="-1" upper="1" velocity="1" effort="1"/>{extra}</joint>')


BAD_URDFS = {
    'not xml': 'this is not a URDF',
    'empty': '<robot name="r"/>',
    'truncated': BASE_URDFS['planar3'][:len(BASE_URDFS['planar3']) // 2],
    'self loop': _robot(_joint('j1', 'base_link', 'base_link')),
    'cycle': _robot(_joint('j1', 'base_link', 'link1') + _joint('j2', 'link1', 'link2')
                    + _joint('j3', 'link2', 'link1') + _joint('j4', 'link2', 'tip')),
    'two roots': _robot(_joint('j1', 'base_link', 'link1') + _joint('j2', 'link2', 'tip')),
    'missing link': _robot(_joint('j1', 'base_link', 'nowhere')),
    'mimic cycle': _robot(_joint('j1', 'base_link', 'link1', extra='<mimic joint="j2"/>')
                          + _joint('j2', 'link1', 'tip', extra='<mimic joint="j1"/>')),
    'mimic of nothing': _robot(_joint('j1', 'base_link', 'link1')
                               + _joint('j2', 'link1', 'tip', extra='<mimic joint="jx"/>')),
    'entity bomb': ('<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">'
                    + ''.join(f'<!ENTITY {b} "{("&" + a + ";") * 10}">'
                              for a, b in zip('abcdef', 'bcdefg'))
                    + ']><robot name="&g;"/>'),
    # Found by fuzzing: 1e308 loads in urdfdom but puts the arm's own poses out of range.
    'huge prismatic limit': _robot(_joint('j1', 'base_link', 'tip', kind='prismatic').replace(
        'upper="1"', 'upper="1e308"'), links=('base_link', 'tip')),
    'huge origin': _robot(_joint('j1', 'base_link', 'tip').replace('xyz="0.5 0 0"',
                                                                   'xyz="2e4 0 0"'),
                          links=('base_link', 'tip')),
    'huge mimic offset': _robot(_joint('j1', 'base_link', 'link1')
                                + _joint('j2', 'link1', 'tip',
                                         extra='<mimic joint="j1" offset="1e308"/>'),
                                links=('base_link', 'link1', 'tip')),
    'no actuated joint': _robot(_joint('j1', 'base_link', 'tip', kind='fixed'),
                                links=('base_link', 'tip')),
}


@pytest.mark.parametrize('name', sorted(BAD_URDFS))
def test_malformed_and_cyclic_urdfs_raise_urdf_error(name):
    text = BAD_URDFS[name]
    with pytest.raises(URDFError):
        tree = RobotTree.from_urdf(text)
        Chain.from_urdf(text, *tree.default_chain())
    with pytest.raises(URDFError):
        Chain.from_urdf(text, 'base_link', 'tip')


def test_the_bundled_cyclic_urdf_raises_urdf_error():
    path = URDF_DIR / 'bad' / 'cyclic.urdf'
    with pytest.raises(URDFError, match='cycle'):
        Chain.from_urdf(path, 'base_link', 'tip')
    with pytest.raises(URDFError):
        RobotTree.from_urdf(path)


@pytest.mark.parametrize('kind, attr', [('revolute', 'multiplier="inf"'),
                                        ('continuous', 'offset="-1e400"')])
def test_a_non_finite_mimic_factor_raises_urdf_error(kind, attr):
    # Found by fuzzing: the chain was built and its FK was NaN.
    text = _robot(_joint('j1', 'base_link', 'link1') + _joint('j2', 'link1', 'link2', kind)
                  + _joint('j3', 'link2', 'tip', kind, extra=f'<mimic joint="j2" {attr}/>'))
    with pytest.raises(URDFError):
        Chain.from_urdf(text, 'base_link', 'tip')


@pytest.mark.parametrize('attr', ['multiplier="inf"', 'offset="-1e400"', 'multiplier="nan"'])
def test_the_robot_tree_refuses_a_non_finite_mimic_factor(attr):
    text = _robot(_joint('j1', 'base_link', 'link1') + _joint('j2', 'link1', 'link2')
                  + _joint('j3', 'link2', 'tip', extra=f'<mimic joint="j2" {attr}/>'))
    with pytest.raises(URDFError, match='mimic'):
        RobotTree.from_urdf(text)


def test_a_binary_file_raises_urdf_error(tmp_path):
    # Found by fuzzing: UnicodeDecodeError escaped (a ValueError, not a URDFError).
    path = tmp_path / 'binary.urdf'
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(URDFError):
        Chain.from_urdf(path, 'base_link', 'tip')


def test_every_error_is_in_the_ikerror_tree():
    # The node catches IKError (and ValueError); both error types derive from both.
    assert issubclass(URDFError, IKError) and issubclass(URDFError, ValueError)
    assert issubclass(IKInputError, IKError) and issubclass(IKInputError, ValueError)


# Tracker feedback and node parameters (the rclpy-free core of the node) -------------------

def _tracker(chain: Chain, **overrides) -> IKTracker:
    values = defaults(IK_NODE_PARAMETERS)
    values.update(overrides)
    return IKTracker(chain, values['solver'], solver_options(values, chain),
                     np.full(chain.n, 2.0), 0.01, values['joint_states_timeout'])


@FUZZ
@given(data=st.data(), robot=st.sampled_from(sorted(CHAINS)))
def test_any_joint_states_message_is_used_or_refused_with_a_reason(data, robot):
    chain = CHAINS[robot]
    tracker = _tracker(chain)
    pool = list(chain.joint_names) + ['gripper', 'unknown', '']
    for _ in range(data.draw(st.integers(1, 5))):
        names = data.draw(st.lists(st.sampled_from(pool), max_size=chain.n + 3))
        positions = data.draw(st.lists(st.one_of(st.floats(-10.0, 10.0), anything),
                                       min_size=max(0, len(names) - 1),
                                       max_size=len(names) + 1))
        ok = tracker.update_feedback(names, positions, now=0.0)
        assert ok == (tracker.feedback_problem is None)
        if not ok:
            assert tracker.feedback_problem.kind in ('length', 'missing', 'duplicate',
                                                     'nonfinite', 'limits')
            assert tracker.feedback_problem.message
    if tracker.ready:
        # The command starts within one step of the measured arm, inside the limits.
        assert_safe(chain, tracker.command)
        measured = tracker.measured(0.0)
        assert np.all(np.abs(tracker.command - measured) <= 2.0 * 0.01 + 1e-12)


def test_an_arm_outside_the_limits_is_not_commanded_until_it_is_back():
    chain = CHAINS['ur5']
    tracker = _tracker(chain)
    q = chain.mid.copy()
    q[2] = chain.upper[2] + 0.5                 # far beyond one step (0.02 rad)
    assert not tracker.update_feedback(chain.joint_names, q, now=0.0)
    assert tracker.feedback_problem.kind == 'limits' and 'elbow_joint' in \
        tracker.feedback_problem.message
    assert not tracker.ready
    q[2] = chain.upper[2] + 0.01                # within one step: starts at the limit
    assert tracker.update_feedback(chain.joint_names, q, now=0.1)
    assert tracker.command[2] == chain.upper[2]


def test_feedback_back_after_a_gap_far_from_the_command_restarts_it_at_the_arm():
    chain = CHAINS['ur5']
    tracker = _tracker(chain)                       # joint_states_timeout 0.5 s
    q = chain.mid.copy()
    assert tracker.update_feedback(chain.joint_names, q, now=0.0)
    tracker.solve(chain.fk(q + 0.5), now=0.0)
    for k in range(1, 40):
        tracker.step(0.01 * k)                      # the command moves about 0.3 rad
    q_cmd = tracker.command
    assert np.max(np.abs(q_cmd - q)) > 0.2
    # Fresh feedback near the command (the arm following): nothing changes.
    assert tracker.update_feedback(chain.joint_names, q_cmd - 0.01, now=0.40)
    assert tracker.resync_distance is None and tracker.moving
    # After a gap, the arm is 0.47 rad away (restarted elsewhere): the command restarts
    # there, the goal is dropped, and the next command is one step from the arm at most.
    assert tracker.update_feedback(chain.joint_names, q, now=1.0)
    assert tracker.resync_distance == pytest.approx(np.max(np.abs(q_cmd - q)))
    assert_allclose(tracker.command, q)
    assert not tracker.moving
    assert_allclose(tracker.step(1.01).q, q)
    # After a gap, close to the command: kept.
    tracker.solve(chain.fk(q + 0.5), now=1.01)
    tracker.step(1.02)
    assert tracker.update_feedback(chain.joint_names, tracker.command, now=2.0)
    assert tracker.resync_distance is None and tracker.moving


def test_first_feedback_far_from_an_assumed_start_restarts_the_command():
    chain = CHAINS['ur5']
    tracker = _tracker(chain)
    tracker.start_at(chain.mid, now=0.0)            # require_joint_states false
    q = chain.mid + 0.3
    assert tracker.update_feedback(chain.joint_names, q, now=0.5)
    assert tracker.resync_distance == pytest.approx(0.3)
    assert_allclose(tracker.command, q)


def _param_value(spec, draw):
    kind = spec.type_name
    if kind == 'bool':
        return draw(st.booleans())
    if kind == 'int':
        return draw(st.integers(-2**63, 2**63 - 1))
    if kind == 'double':
        return draw(anything)
    if kind == 'string':
        return draw(st.one_of(st.sampled_from(['', 'dls', 'ccd', 'x', 'a/b', '2x', '~/t']),
                              st.text(max_size=8)))
    return draw(st.lists(anything, max_size=8))


@settings(max_examples=300, deadline=None, database=None)
@given(data=st.data())
def test_any_parameter_values_are_refused_with_a_reason_or_give_a_working_tracker(
        warm, data):
    chain = CHAINS['ur5']
    values = defaults(IK_NODE_PARAMETERS)
    for spec in data.draw(st.lists(st.sampled_from(IK_NODE_PARAMETERS), max_size=6)):
        values[spec.name] = _param_value(spec, data.draw)
    reason = check_values(IK_NODE_PARAMETERS, values)
    if reason is not None:
        assert isinstance(reason, str) and reason.split(' ')[0] in values
        return
    try:
        options = solver_options(values, chain)
    except ValueError as exc:
        assert 'rest_positions' in str(exc)
        return
    tracker = IKTracker(chain, values['solver'], options, np.full(chain.n, 2.0),
                        1.0 / values['output_rate'], values['joint_states_timeout'])
    tracker.start_at(chain.mid, now=0.0)
    t0 = time.perf_counter()
    tracker.solve(np.array([2.0, 1.0, 0.5]), now=0.0)          # unreachable: the worst case
    assert time.perf_counter() - t0 < values['timeout'] + 1.5
    assert_safe(chain, tracker.step(0.01).q)
