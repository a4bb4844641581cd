# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Fuzzing every subscribed topic of the running ik_node, from a separate process.

One ik_node process (model from the ``robot_description`` topic) and one sim_arm process run
for the whole module in a fresh ROS domain of this run. The test process floods ``target_pose``,
``/goal_pose``, ``/clicked_point``, ``joint_states`` and ``robot_description`` with bad
messages, then checks that the node still runs, still serves a good target, logged a clear
warning at a bounded rate, and that a :class:`ik_node.motion.watcher.CommandWatcher` saw no unsafe
command (NaN, out of limits, or a step beyond v_max * dt) at any time. Parameters are fuzzed
through the real ``set_parameters`` service. Skipped when rclpy is not installed.
"""

import math
import re
import time

from conftest import URDF_DIR
from hypothesis import given, HealthCheck, settings
from hypothesis import strategies as st
from ik_node import Chain
from ik_node.ros.parameter_table import IK_NODE_PARAMETERS
import numpy as np
import pytest
from ros_harness import (NODE_TEST_PARAMS, pose_msg, Probe, Q0, ros_rig, STARTUP_TIMEOUT,
                         status_values, URDF)

rclpy = pytest.importorskip('rclpy')

from diagnostic_msgs.msg import DiagnosticStatus  # noqa: E402, I100
from geometry_msgs.msg import PointStamped, PoseStamped  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402

NAN, INF = math.nan, math.inf
LOG_LINE = re.compile(r'^\[(WARN|ERROR|FATAL)\]', re.MULTILINE)


def warnings_in(log, start: int = 0) -> list[str]:
    """Return the WARN/ERROR/FATAL lines of a node log from character ``start`` on."""
    text = log.read_text()[start:]
    return [line for line in text.splitlines() if LOG_LINE.match(line)]


def max_lines(seconds: float) -> int:
    """Most lines one kind of warning may give in ``seconds``: one per 2 s, plus the first."""
    return math.ceil(seconds / 2.0) + 1


@pytest.fixture(scope='module')
def chain():
    return Chain.from_urdf(URDF, 'base_link', 'tool0')


@pytest.fixture(scope='module')
def live(chain, tmp_path_factory):
    """Yield (procs, probe, node_process) with the arm and the node up and serving."""
    with ros_rig(tmp_path_factory.mktemp('fuzz_node'), chain) as (procs, probe):
        # The tests publish bad joint_states of the arm's joints themselves: not arm readings.
        probe.trusted_arm = False
        probe.description.publish(String(data=URDF.read_text()))
        procs.start('sim_arm', f'urdf_file:={URDF}', f'initial_positions:={Q0.tolist()}')
        node = procs.start('ik_node', 'interactive_marker:=false')
        assert probe.spin_until(lambda: node.poll() is not None or any(
            s.level == DiagnosticStatus.OK for s in probe.statuses), STARTUP_TIMEOUT,
            lambda: probe.publish_pose(chain.fk(Q0))), node.log_path.read_text()
        yield procs, probe, node


def bad_pose_messages(rng: np.random.Generator, count: int) -> list[tuple[tuple, tuple, str]]:
    """Return ``count`` (position, quaternion xyzw, frame) triples, each one bad."""
    positions = [(NAN, 0.0, 0.3), (0.3, INF, 0.3), (0.3, 0.1, -INF), (1e300, 0.0, 0.0),
                 (1e7, -1e7, 1e7), (-1.7e308, 1.7e308, 0.0), (NAN, NAN, NAN)]
    quats = [(0.0, 0.0, 0.0, 0.0), (5e-324, 0.0, 0.0, 0.0), (NAN, 0.0, 0.0, 1.0),
             (0.0, 0.0, INF, 1.0), (1e-7, 0.0, 0.0, 0.0), (-1e-310, 0.0, 1e-310, 0.0)]
    good_position, good_quat = (0.3, 0.2, 0.4), (0.0, 0.0, 0.0, 1.0)
    frames = ['map', 'no_such_frame', 'odom/base_link', ' ', '\u00e9\u4e2d', 'x' * 5000]
    out = []
    for k in range(count):
        kind = k % 3
        if kind == 0:       # bad position, any frame
            out.append((positions[rng.integers(len(positions))], good_quat,
                        ['', 'base_link', 'tool0'][rng.integers(3)]))
        elif kind == 1:     # bad orientation
            out.append((good_position, quats[rng.integers(len(quats))], 'base_link'))
        else:               # good pose, unknown frame
            out.append((good_position, good_quat, frames[rng.integers(len(frames))]))
    return out


def make_pose(position, quat, frame: str) -> PoseStamped:
    msg = pose_msg(np.eye(4), frame)
    p, o = msg.pose.position, msg.pose.orientation
    p.x, p.y, p.z = position
    o.x, o.y, o.z, o.w = quat
    return msg


def make_point(position, frame: str) -> PointStamped:
    msg = PointStamped()
    msg.header.frame_id = frame
    msg.point.x, msg.point.y, msg.point.z = position
    return msg


def test_bad_targets_on_every_topic_are_refused_and_rate_limited(live):
    procs, probe, node = live
    log = node.log_path
    log_start = len(log.read_text())
    n_status = len(probe.statuses)
    rng = np.random.default_rng(5)
    triples = bad_pose_messages(rng, 600)
    t0 = time.monotonic()
    for k, (position, quat, frame) in enumerate(triples):
        if k % 3 == 2 and frame in ('map', 'no_such_frame'):
            probe.clicked_point.publish(make_point(position, frame))
        elif k % 2:
            probe.goal_pose.publish(make_pose(position, quat, frame))
        else:
            probe.targets.publish(make_pose(position, quat, frame))
        if k % 10 == 9:
            probe.spin_for(0.004)
    for k in range(60):        # non-finite clicked points
        probe.clicked_point.publish(make_point((NAN, 0.0, INF * (k % 2)), 'base_link'))
        probe.spin_for(0.002)
    # The node has read the flood once it answers one more message sent after it.

    def one_more():
        msg = make_pose((NAN, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), 'base_link')
        msg.header.stamp = probe.node.get_clock().now().to_msg()
        probe.targets.publish(msg)
        return msg

    assert probe.answer_to(one_more, 20.0, refusal=True) is not None
    flood_seconds = time.monotonic() - t0
    assert node.poll() is None, log.read_text()[-3000:]
    refusals = [s for s in probe.statuses[n_status:] if s.level == DiagnosticStatus.ERROR]
    # The node kept up with a good part of the flood (its queue is 1 deep, so it may drop
    # some) and said why for each one it read.
    assert len(refusals) > 100, len(refusals)
    messages = {s.message.split(':')[0] for s in refusals}
    assert 'target refused' in messages
    assert any('quaternion' in s.message for s in refusals)
    assert any("frame 'map'" in s.message for s in refusals)
    assert any('more than 1e+06 m' in s.message for s in refusals)
    # The log names the problems, one line per kind per 2 s at most.
    lines = warnings_in(log, log_start)
    refused = [line for line in lines if 'target refused' in line]
    frames = [line for line in lines if 'neither the base frame' in line]
    assert refused and frames
    assert len(refused) <= max_lines(flood_seconds), refused
    assert len(frames) <= max_lines(flood_seconds), frames
    assert len(lines) <= 4 * max_lines(flood_seconds), lines
    assert not any('Traceback' in line for line in log.read_text().splitlines())
    probe.serve_good_target(np.array([0.1, -0.1, 0.1, 0.1, 0.0, 0.1]))
    probe.assert_safe()


def test_bad_joint_states_are_ignored_with_a_warning(live, chain):
    procs, probe, node = live
    log = node.log_path
    log_start = len(log.read_text())
    names = list(chain.joint_names)
    q = Q0.tolist()
    bad = [
        (['gripper_joint', 'unknown'], [0.0, 0.1]),                 # unknown names only
        (names[:3], q[:3]),                                          # chain joints missing
        (names + [names[0]], q + [0.5]),                             # a joint named twice
        (names, q[:5]),                                              # too few positions
        (names, q + [0.0, 1.0]),                                     # too many positions
        (names, [NAN] + q[1:]),                                      # NaN position
        (names, q[:3] + [INF] + q[4:]),                              # Inf position
        ([], []),                                                    # empty
        (names, [1e300] * 6),                                        # absurd but finite
    ]
    t0 = time.monotonic()
    for k in range(1500):
        names_k, positions = bad[k % len(bad)]
        probe.joint_states.publish(JointState(name=names_k, position=positions))
        if k % 10 == 9:
            probe.spin_for(0.002)
    words = ('names but', 'named more than once', 'non-finite position')
    assert probe.spin_until(lambda: all(any(w in line for line in warnings_in(log, log_start))
                                        for w in words), 20.0), warnings_in(log, log_start)
    flood_seconds = time.monotonic() - t0
    assert node.poll() is None
    lines = [line for line in warnings_in(log, log_start) if 'joint_states' in line]
    for words in ('names but', 'named more than once', 'non-finite position'):
        matching = [line for line in lines if words in line]
        assert matching, (words, lines)
        assert len(matching) <= max_lines(flood_seconds), matching
    # The arm's own joint_states keep the feedback fresh, so partial messages (another
    # publisher's joints) are not worth a warning, except while a starved node reads the
    # arm's messages late: then at the throttled rate only.
    missing = [line for line in lines if 'chain joints missing' in line]
    assert len(missing) <= max_lines(flood_seconds), missing
    # The flood may have pushed the arm's own readings out of the node's queue for a while
    # (feedback stale: targets answered but not commanded); once they flow again, a target
    # is served from the arm's joint_states.
    T = chain.fk(Q0 + np.array([-0.1, 0.1, -0.1, 0.0, 0.1, -0.1]))

    def served_from_the_arm() -> bool:
        s = probe.answer_to(lambda: probe.publish_pose(T), 2.0)
        return (s is not None and s.level == DiagnosticStatus.OK
                and status_values(s)['seed'] == 'joint_states')

    assert probe.spin_until(served_from_the_arm, 20.0)
    assert probe.spin_until(lambda: probe.commanded(T), 20.0)
    probe.assert_safe()


def test_bad_and_foreign_robot_descriptions_keep_the_node_serving(live, chain):
    procs, probe, node = live
    log = node.log_path
    log_start = len(log.read_text())
    ur5 = URDF.read_text()
    cyclic = (URDF_DIR / 'bad' / 'cyclic.urdf').read_text()
    mimic_inf = (URDF_DIR / 'mimic.urdf').read_text().replace(
        'multiplier="0.5"', 'multiplier="inf"')
    for text in ('not a robot', '', ur5[:len(ur5) // 2], cyclic, mimic_inf,
                 ur5.replace('<limit', '<limit_typo')):
        probe.description.publish(String(data=text))
        probe.spin_for(0.3)     # paced: one model at a time, as a publisher would send them
    assert probe.spin_until(lambda: any('not usable' in line
                                        for line in warnings_in(log, log_start)), 10.0)
    assert node.poll() is None
    lines = warnings_in(log, log_start)
    assert any('robot model not changed: the message on /robot_description is not URDF XML '
               "('not a robot')" in line for line in lines), lines
    assert any('robot_description from topic not usable' in line for line in lines), lines
    assert not any('cannot read URDF file' in line for line in lines), 'text read as a path'
    # The UR5 model stayed: a good target is still served.
    probe.serve_good_target(np.array([0.05, 0.05, -0.05, 0.05, 0.05, 0.05]))
    # A different robot is installed; its joints are not in the arm's joint_states, so it
    # publishes nothing and says why.
    n_status = len(probe.statuses)
    probe.description.publish(String(data=(URDF_DIR / 'planar3.urdf').read_text()))
    assert probe.spin_until(lambda: any('chain joints missing: joint1' in s.message
                                        for s in probe.statuses[n_status:]), 10.0,
                            lambda: probe.publish_pose(np.eye(4), 'base_link'))
    # (A command of its joints would be a 'names' violation of the watcher.)
    # The UR5 comes back (once the node says it is installed) and continues from where the
    # arm stands.
    installed = log.read_text().count("ready: robot 'ur5'")
    probe.description.publish(String(data=ur5))
    assert probe.spin_until(lambda: log.read_text().count("ready: robot 'ur5'") > installed,
                            10.0), log.read_text()[log_start:]
    probe.serve_good_target(np.array([0.1, 0.1, 0.1, -0.1, -0.1, -0.1]))
    assert node.poll() is None
    probe.assert_safe()


# Parameters -------------------------------------------------------------------------------

_TYPES = {'bool': Parameter.Type.BOOL, 'int': Parameter.Type.INTEGER,
          'double': Parameter.Type.DOUBLE, 'string': Parameter.Type.STRING,
          'double_array': Parameter.Type.DOUBLE_ARRAY,
          'string_array': Parameter.Type.STRING_ARRAY}
_STRINGS = ['', 'dls', 'pinv', 'fabrik', 'ccd', 'joint_states', 'ik_status', '/goal_pose',
            'bad topic', '2x', 'tool0', 'base_link', 'shoulder_link', 'wrist_2_link',
            str(URDF), '/nonexistent.urdf', '/tmp', 'timer', '<robot name="x"/>',
            'target_pose', 'joint_commands']


def _value(spec, draw):
    kind = spec.type_name
    if kind == 'bool':
        return draw(st.booleans())
    if kind == 'int':
        return draw(st.one_of(st.integers(-3, 200), st.integers(-2**63, 2**63 - 1)))
    if kind == 'double':
        return draw(st.one_of(st.floats(-10.0, 10.0), st.sampled_from(
            [0.0, -0.0, 1e-300, 1e300, NAN, INF, -INF, 2000.0, 5000.0])))
    if kind == 'string':
        return draw(st.one_of(st.sampled_from(_STRINGS), st.text(max_size=12)))
    if kind == 'double_array':
        return draw(st.lists(st.sampled_from([0.0, 0.5, -1.0, NAN, INF]), max_size=7))
    return draw(st.lists(st.text(max_size=5), max_size=3))


@st.composite
def parameter_changes(draw):
    """Draw 1-3 ik_node parameters with new values of their type (rarely of another)."""
    specs = draw(st.lists(st.sampled_from(IK_NODE_PARAMETERS), min_size=1, max_size=3,
                          unique_by=lambda p: p.name))
    params = []
    for spec in specs:
        if draw(st.integers(0, 9)) == 0:
            params.append(Parameter(spec.name, value=draw(st.sampled_from(
                ['abc', 7, 2.5, True, [1, 2]]))))
        else:
            params.append(Parameter(spec.name, _TYPES[spec.type_name], _value(spec, draw)))
    return params


def set_parameters(probe: Probe, params: list) -> list:
    """Set ``params`` (rclpy Parameters) on the ik_node; return the SetParametersResults."""
    return probe.set_parameter_list('ik_node', params)


def test_topics_that_change_places_between_types_are_applied(live, chain):
    """
    Two topic parameters of different types trading topics, in one call, are applied.

    The publisher on the old topic used to be still there when the new one was made (a
    fuzzed restore was refused with rcl's 'incompatible type' as an internal error).
    """
    procs, probe, node = live
    swaps = [  # JointState and JointTrajectory publishers; a publisher and a subscription
        {'command_topic': 'moved_commands', 'trajectory_topic': 'joint_commands'},
        {'status_topic': 'target_pose', 'target_topic': 'ik_status'}]
    defaults = {p.name: p.default for p in IK_NODE_PARAMETERS}
    for swap in swaps:
        back = {name: NODE_TEST_PARAMS.get(name, defaults[name]) for name in swap}
        for values in (swap, back):
            result = probe.set_parameters_atomically(
                'ik_node', [Parameter(k, value=v) for k, v in values.items()])
            assert result.successful, (values, result.reason)
    # Back where they were, the node still answers a target on its topics.
    n = len(probe.statuses)
    assert probe.answer(lambda: probe.publish_pose(chain.fk(Q0 + 0.02)), n) is not None
    assert node.poll() is None


def test_fuzzed_parameters_are_applied_or_refused_with_a_reason(live, chain):
    procs, probe, node = live
    specs = {p.name: p for p in IK_NODE_PARAMETERS}
    counts = {'applied': 0, 'refused': 0}
    reasons = set()

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(params=parameter_changes())
    def apply(params):
        for p, r in zip(params, set_parameters(probe, params)):
            counts['applied' if r.successful else 'refused'] += 1
            assert r.successful or r.reason.strip(), p.name
            if not r.successful:
                reasons.add(r.reason.split(' ')[0])
        assert node.poll() is None, node.log_path.read_text()[-3000:]
        restore = [Parameter(p.name, _TYPES[specs[p.name].type_name],
                             NODE_TEST_PARAMS.get(p.name, specs[p.name].default))
                   for p in params]
        # All at once: one by one, a state between two restored values can be refused (a
        # base_link accepted while no model was there to check it, kept until its own turn,
        # refused when the model topic comes back first: once in a CI loop).
        result = probe.set_parameters_atomically('ik_node', restore)
        assert result.successful, result.reason

    apply()
    assert counts['applied'] > 10 and counts['refused'] > 10, counts
    assert node.poll() is None
    assert not any('Traceback' in line for line in node.log_path.read_text().splitlines())
    probe.serve_good_target(np.array([0.0, 0.1, 0.0, -0.1, 0.0, 0.1]))
    probe.assert_safe()
