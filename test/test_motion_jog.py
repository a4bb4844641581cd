# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Jogger: twists and joint velocities become jerk-limited joint commands, with the guards.

The demo arm (UR5 kinematics with geometry) and the 4-joint test arms, stepped at 100 Hz with
the clock given, the arm at each command. Every stream is judged by an independent
CommandWatcher (velocity, acceleration and jerk by divided differences at the stamps).
"""

import math

from conftest import URDF_DIR
from hypothesis import given, HealthCheck, settings
from hypothesis import strategies as st
import ik_node
from ik_node.collision import kernels
from ik_node.errors import IKInputError
from ik_node.model.urdf import load_urdf_text, read_chain
from ik_node.motion import jog
from ik_node.motion import jog as jog_module
from ik_node.motion.jog import Jogger, JogSettings, strongest_reason
from ik_node.motion.trajectory import BlendSegment, KinematicLimits, LineSegment, Motion
from ik_node.motion.watcher import CommandWatcher
from ik_node.spatial.rotations import rotation_vector_from_matrix
import numpy as np
import pytest

PERIOD = 0.01
V = np.array([2.0, 2.0, 2.0, 3.0, 3.0, 3.0])
A = np.array([5.0, 5.0, 5.0, 10.0, 10.0, 10.0])
J = np.full(6, 500.0)
Q_DEMO = np.array([0.0, -1.3, 1.6, -1.9, -1.57, 0.0])
FLOOR = ik_node.HalfSpace(normal=(0, 0, 1), offset=0.0, name='floor')


@pytest.fixture(scope='module')
def demo() -> ik_node.Chain:
    return ik_node.Chain.from_urdf(ik_node.share_path(), 'base_link', 'tool0')


@pytest.fixture(scope='module')
def arm4() -> ik_node.Chain:
    return ik_node.Chain.from_urdf(URDF_DIR / 'arm4.urdf', 'base_link', 'tip')


def limits(chain) -> KinematicLimits:
    n = chain.n
    return KinematicLimits.of(np.resize(V, n), np.resize(A, n), np.resize(J, n))


def watcher(chain) -> CommandWatcher:
    lim = limits(chain)
    return CommandWatcher.for_chain(chain, lim.velocity, PERIOD, a_max=lim.acceleration,
                                    j_max=lim.jerk)


def run(jogger: Jogger, now: float, seconds: float, command, check: CommandWatcher):
    """
    Step for ``seconds`` from ``now``; ``command(jogger, t)`` is called before each step.

    Return (time, steps, tool poses (k, 4, 4)); every command goes through ``check``.
    """
    steps, poses = [], []
    for _ in range(int(round(seconds / PERIOD))):
        now = round(now + PERIOD, 9)
        if command is not None:
            command(jogger, now)
        step = jogger.step(now)
        check.check(jogger.chain.joint_names, step.sample.q, stamp_ns=int(round(now * 1e9)))
        steps.append(step)
        poses.append(jogger.chain.fk(step.sample.q))
    return now, steps, np.array(poses)


def tool_twists(poses: np.ndarray) -> np.ndarray:
    """Return (k - 1, 6) tool twists [m/s, rad/s] (base frame) between consecutive poses."""
    lin = np.diff(poses[:, :3, 3], axis=0) / PERIOD
    ang = np.array([rotation_vector_from_matrix(b[:3, :3] @ a[:3, :3].T)
                    for a, b in zip(poses[:-1], poses[1:])]) / PERIOD
    return np.hstack([lin, ang])


def assert_within_limits(check: CommandWatcher, used: float = 0.3):
    assert check.total_violations == 0, check.violations[:3]
    # The blend did use the limits: a check that could not fail would prove nothing.
    assert check.max_acceleration_ratio > used


def test_a_constant_twist_is_tracked(demo):
    twist = np.array([0.05, -0.04, 0.03, 0.0, 0.0, 0.2])
    j = Jogger(demo, limits(demo))
    j.reset(Q_DEMO, 0.0)
    check = watcher(demo)
    _, steps, poses = run(j, 0.0, 1.0, lambda jg, t: jg.twist(twist, t), check)
    got = tool_twists(poses)[30:]           # after the 0.3 s blend
    err = np.max(np.linalg.norm(got - twist, axis=1)) / np.linalg.norm(twist)
    assert err < 0.01, err
    assert all(s.mode == jog.MODE_TWIST and s.scale == 1.0 for s in steps)
    assert check.total_violations == 0, check.violations[:3]


def test_a_tool_frame_twist_moves_along_the_tool_axes(demo):
    twist = np.array([0.0, 0.0, 0.05, 0.0, 0.0, 0.0])     # along the tool's z
    j = Jogger(demo, limits(demo))
    j.reset(Q_DEMO, 0.0)
    _, _, poses = run(j, 0.0, 0.6, lambda jg, t: jg.twist(twist, t, frame='tool0'),
                      watcher(demo))
    got = tool_twists(poses)[40:]
    want = np.array([np.concatenate([T[:3, :3] @ twist[:3], [0.0, 0.0, 0.0]])
                     for T in poses[40:-1]])
    assert np.max(np.linalg.norm(got - want, axis=1)) < 0.01 * 0.05


def test_a_step_in_the_twist_is_blended_within_the_limits(demo):
    """Full speed one way, then at once the other way: a, j within limits, v follows."""
    fast = np.array([0.0, 0.25, 0.0, 0.0, 0.0, 0.0])
    j = Jogger(demo, limits(demo))
    j.reset(Q_DEMO, 0.0)
    check = watcher(demo)

    def command(jg, t):
        jg.twist(fast if t < 0.4 else -fast, t)
    _, steps, poses = run(j, 0.0, 1.0, command, check)
    assert_within_limits(check, used=0.8)
    v = tool_twists(poses)
    assert np.linalg.norm(v[-1] + fast) < 0.01 * np.linalg.norm(fast)


def test_an_unsmoothed_step_breaks_the_check_the_jogger_passes(demo):
    """The same twist step through plain differential IK: the watcher sees the jerk."""
    check = watcher(demo)
    q = Q_DEMO.copy()
    for k in range(1, 80):
        twist = np.array([0.0, 0.25, 0.0, 0.0, 0.0, 0.0]) * (1 if k < 40 else -1)
        q = q + PERIOD * np.linalg.lstsq(demo.jacobian(q), twist, rcond=None)[0]
        check.check(demo.joint_names, q, stamp_ns=k * 10_000_000)
    assert check.counts['acceleration'] > 0 and check.counts['jerk'] > 0


def test_a_command_timeout_stops_the_arm_smoothly(demo):
    twist = np.array([0.1, 0.0, 0.0, 0.0, 0.0, 0.0])
    j = Jogger(demo, limits(demo))
    j.reset(Q_DEMO, 0.0)
    check = watcher(demo)
    now, _, _ = run(j, 0.0, 0.5, lambda jg, t: jg.twist(twist, t), check)
    last = now
    now, steps, poses = run(j, now, 0.6, None, check)
    assert_within_limits(check)
    speeds = np.linalg.norm(tool_twists(poses)[:, :3], axis=1)
    # Until the timeout the command stands; after it the arm brakes and comes to rest.
    timeout_steps = int(round(JogSettings().timeout / PERIOD))
    assert np.all(speeds[:timeout_steps - 1] > 0.099)
    stopped = [k for k, s in enumerate(steps) if s.mode == jog.MODE_IDLE]
    assert stopped, 'never came to rest'
    t_stop = (stopped[0] + 1) * PERIOD - JogSettings().timeout
    assert 0.0 < t_stop < 0.3, t_stop
    assert steps[timeout_steps].mode == jog.MODE_STOPPING
    assert np.all(steps[-1].sample.v == 0.0)
    assert last < now


def test_stop_brakes_at_once(demo):
    j = Jogger(demo, limits(demo))
    j.reset(Q_DEMO, 0.0)
    check = watcher(demo)
    now, _, _ = run(j, 0.0, 0.4, lambda jg, t: jg.twist([0.1, 0, 0, 0, 0, 0], t), check)
    j.stop(now)
    _, steps, _ = run(j, now, 0.3, None, check)
    assert steps[0].mode == jog.MODE_STOPPING and steps[-1].mode == jog.MODE_IDLE
    assert check.total_violations == 0


def test_a_jog_takes_over_a_goal_motion_mid_way_and_hands_back_smoothly(demo):
    """Goal motion -> jog (from its moving state) -> goal motion again: one smooth stream."""
    lim = limits(demo)
    goal = Q_DEMO + np.array([0.6, 0.3, -0.3, 0.2, 0.4, 0.5])
    motion = Motion(Q_DEMO, 0.0)
    motion.replace([LineSegment(Q_DEMO, goal, lim, 0.0)], 0.0)
    check = watcher(demo)
    now = 0.0
    for _ in range(30):                                   # the goal motion, at speed
        now = round(now + PERIOD, 9)
        check.check(demo.joint_names, motion.state(now).q, stamp_ns=int(round(now * 1e9)))
    handed = motion.state(now)
    assert np.max(np.abs(handed.v)) > 0.3
    j = Jogger(demo, lim)
    j.take_over(handed, now)
    assert j.active
    now, steps, _ = run(j, now, 0.6, lambda jg, t: jg.twist([0, 0, 0.05, 0, 0, 0], t), check)
    back = j.state
    motion.replace([BlendSegment(back, goal, lim, now)], now)
    for _ in range(300):
        now = round(now + PERIOD, 9)
        check.check(demo.joint_names, motion.state(now).q, stamp_ns=int(round(now * 1e9)))
    assert_within_limits(check)
    np.testing.assert_allclose(motion.state(now).q, goal, atol=1e-9)


def wrist_pass(demo, q5: float):
    """Return (q, twist): the demo arm at wrist_2 = q5, the twist of turning wrist_2 alone."""
    q = Q_DEMO.copy()
    q[4] = q5
    e = np.zeros(6)
    e[4] = 0.5
    return q, demo.jacobian(q) @ e


def test_a_pass_near_the_wrist_singularity_slows_and_gets_through(demo):
    """wrist_2 = 0 aligns wrist_1 and wrist_3: the pass slows near it, then goes on."""
    q, twist = wrist_pass(demo, -0.45)
    j = Jogger(demo, limits(demo))
    j.reset(q, 0.0)
    check = watcher(demo)
    _, steps, poses = run(j, 0.0, 8.0, lambda jg, t: jg.twist(twist, t), check)
    assert check.total_violations == 0, check.violations[:3]
    cond = np.array([s.condition for s in steps])
    scale = np.array([s.scale for s in steps])
    peak = int(np.argmax(cond))
    assert cond[peak] > JogSettings().singularity_stop
    # On the way in, slowed to the least at the hard stop (the last ~0.02 rad before the peak
    # move away from it at once and are not slowed).
    near = cond[:peak] > JogSettings().singularity_stop
    assert np.all(scale[:peak][near][:-5] == JogSettings().singularity_min_scale)
    assert steps[int(np.flatnonzero(near)[0])].reason == jog.REASON_SINGULARITY
    # Not stuck: past the singularity, at full speed again.
    assert steps[-1].sample.q[4] > 0.45
    assert np.all(scale[-20:] == 1.0)
    speed = np.linalg.norm(tool_twists(poses)[-10:], axis=1)
    assert np.all(speed > 0.95 * np.linalg.norm(twist))


def test_motion_away_from_a_singularity_is_not_slowed(demo):
    q, twist = wrist_pass(demo, 0.01)      # condition number in the thousands
    j = Jogger(demo, limits(demo))
    j.reset(q, 0.0)
    _, steps, _ = run(j, 0.0, 0.3, lambda jg, t: jg.twist(twist, t), watcher(demo))
    assert steps[0].condition > 100.0
    assert all(s.scale == 1.0 for s in steps)
    assert steps[-1].sample.v[4] == pytest.approx(0.5, rel=0.02)


def test_a_joint_approaches_its_limit_with_a_margin_and_backs_off(arm4):
    lim = limits(arm4)
    j = Jogger(arm4, lim)
    q0 = np.array([0.0, 0.3, 0.5, 0.5])
    j.reset(q0, 0.0)
    check = watcher(arm4)
    name = arm4.joint_names[3]
    upper, margin = arm4.upper[3], JogSettings().joint_limit_margin
    go = (lambda jg, t: jg.joint_velocities([name], [2.5], t))
    now, steps, _ = run(j, 0.0, 1.5, go, check)
    assert_within_limits(check)
    q = np.array([s.sample.q[3] for s in steps])
    assert q.max() <= upper - 0.5 * margin
    assert q[-1] > upper - 2.0 * margin and steps[-1].sample.v[3] == pytest.approx(0, abs=1e-6)
    assert steps[-1].reason == jog.REASON_JOINT_LIMIT
    assert np.any(np.array([s.sample.v[3] for s in steps]) > 2.4)     # full speed first
    back = (lambda jg, t: jg.joint_velocities([name], [-2.5], t))
    _, steps, _ = run(j, now, 0.5, back, check)
    assert steps[-1].sample.v[3] == pytest.approx(-2.5) and steps[-1].scale == 1.0
    np.testing.assert_allclose([s.sample.q[:3] for s in steps], np.tile(q0[:3], (50, 1)))


def floor_clearance(chain, q) -> float:
    """Return the clearance [m] of the floor to the forearm and the wrist."""
    setup = chain.collision_setup
    packed = setup.packed([FLOOR])
    d_self, d_obs, _ = kernels.distances(*setup.model.flat, np.array(q), packed.rows, 0.05)
    names = packed.pair_names[d_self.shape[0]:]
    return min(d for d, (link, _) in zip(d_obs.ravel(), names)
               if link.startswith(('forearm', 'wrist')))


def test_toward_the_floor_the_arm_slows_and_never_touches(demo):
    j = Jogger(demo, limits(demo), obstacles=[FLOOR])
    q0 = np.array([0.0, -0.8, 1.2, -1.95, -1.57, 0.0])
    j.reset(q0, 0.0)
    check = watcher(demo)
    down = np.array([0.0, 0.0, -0.1, 0.0, 0.0, 0.0])
    now, steps, poses = run(j, 0.0, 3.0, lambda jg, t: jg.twist(down, t), check)
    assert check.total_violations == 0, check.violations[:3]
    assert all(not demo.collisions(s.sample.q, [FLOOR]) for s in steps)
    assert all(s.reason != jog.REASON_CONTACT for s in steps)
    gap = np.array([floor_clearance(demo, s.sample.q) for s in steps])
    assert floor_clearance(demo, q0) > 0.05
    speed = -tool_twists(poses)[:, 2]
    assert 0.0 <= gap[-1] < 0.01, gap[-1]
    assert np.max(speed[gap[1:] < 0.005]) < 0.05      # slowed with the distance left
    assert np.any(speed > 0.099)                       # at full speed far from it
    assert steps[-1].reason == jog.REASON_COLLISION
    up = -down
    _, steps, _ = run(j, now, 0.3, lambda jg, t: jg.twist(up, t), check)
    assert steps[-1].scale == 1.0 and check.total_violations == 0


def test_an_arm_in_contact_may_leave_it_and_may_not_go_deeper(demo):
    q0 = np.array([0.0, -0.58, 1.2, -1.95, -1.57, 0.0])        # the wrist 2 cm in the floor
    assert floor_clearance(demo, q0) < -0.01
    check = watcher(demo)
    j = Jogger(demo, limits(demo), obstacles=[FLOOR])
    j.reset(q0, 0.0)
    down = np.array([0.0, 0.0, -0.05, 0.0, 0.0, 0.0])
    now, steps, _ = run(j, 0.0, 0.3, lambda jg, t: jg.twist(down, t), check)
    assert all(s.sample.at_rest for s in steps)
    np.testing.assert_array_equal(steps[-1].sample.q, q0)
    assert steps[-1].reason == jog.REASON_COLLISION and steps[-1].scale == 0.0
    _, steps, poses = run(j, now, 1.0, lambda jg, t: jg.twist(-down, t), check)
    assert check.total_violations == 0, check.violations[:3]
    gap = [floor_clearance(demo, s.sample.q) for s in steps]
    assert np.all(np.diff(gap) >= -1e-9) and gap[-1] > 0.0      # out, never deeper
    assert np.any(tool_twists(poses)[:, 2] > 0.049)             # at full speed


def test_a_redundant_arm_descends_its_null_space_objective_while_it_jogs():
    panda = ik_node.Chain.from_urdf(URDF_DIR / 'panda.urdf', 'panda_link0', 'panda_link8')
    q0 = np.array([0.0, -0.3, 0.0, -2.2, 0.0, 2.0, 0.8])
    q0[0] = 2.2                                      # far from mid-range in joint 1
    twist = np.array([0.0, 0.03, 0.0, 0.0, 0.0, 0.0])
    objective = ik_node.JointLimitAvoidance()
    ends, errors = {}, {}
    for label, objectives in (('plain', ()), ('objective', (objective,))):
        j = Jogger(panda, limits(panda), objectives=objectives)
        j.reset(q0, 0.0)
        check = watcher(panda)
        _, steps, poses = run(j, 0.0, 1.0, lambda jg, t: jg.twist(twist, t), check)
        assert check.total_violations == 0, check.violations[:3]
        ends[label] = steps[-1].sample.q
        errors[label] = np.max(np.linalg.norm(tool_twists(poses)[40:] - twist, axis=1))
    assert errors['objective'] < 0.02 * 0.03 and errors['plain'] < 0.02 * 0.03
    assert objective.cost(panda, ends['objective']) < objective.cost(panda, ends['plain']) - 0.05


def inward_with_a_roll(chain, q0: np.ndarray
                       ) -> tuple[Jogger, np.ndarray, np.ndarray, np.ndarray]:
    """
    Return (a jogger at rest at q0, the tool pose there, the heading, the twist).

    The twist: in toward the column at 0.05 m/s, and a roll about that heading that a
    four-joint arm cannot make.
    """
    j = Jogger(chain, limits(chain))
    j.reset(q0, 0.0)
    T0 = chain.fk(q0)
    heading = T0[:3, 3] * np.array([-1.0, -1.0, 0.0])
    heading /= np.linalg.norm(heading)
    return j, T0, heading, np.concatenate([0.05 * heading, 0.3 * heading])


def tilt(T: np.ndarray, T0: np.ndarray) -> float:
    """Return the angle [rad] between the tool's z axes at T and at T0."""
    return math.acos(min(1.0, float(T[:3, 2] @ T0[:3, 2])))


@pytest.mark.parametrize('urdf', ['arm4.urdf', 'prismatic.urdf'])
def test_a_four_joint_arm_jogs_the_position_and_does_not_drift(urdf):
    chain = ik_node.Chain.from_urdf(URDF_DIR / urdf, 'base_link', 'tip')
    q0 = np.clip(np.array([0.2, 0.3, 0.6, -0.4]), chain.lower + 0.2, chain.upper - 0.2)
    j, T0, heading, twist = inward_with_a_roll(chain, q0)
    check = watcher(chain)
    _, steps, poses = run(j, 0.0, 1.0, lambda jg, t: jg.twist(twist, t), check)
    assert check.total_violations == 0, check.violations[:3]
    p = poses[:, :3, 3] - T0[:3, 3]
    along = p @ heading
    side = p - np.outer(along, heading)
    # Off the line: a blend's transient (the velocity's direction turns while the joints
    # ramp up), then nothing more.
    off = np.linalg.norm(side, axis=1)
    assert off.max() < 0.01 * along[-1]
    assert off[-1] - off[30] < 1e-4
    lin = tool_twists(poses)[30:, :3]
    assert np.max(np.linalg.norm(lin - twist[:3], axis=1)) < 0.02 * 0.05
    # The pitch it can hold does not drift either: the tool keeps its tilt.
    assert max(tilt(T, T0) for T in poses) < 1e-3


def test_strokes_keep_the_tilt_from_rest_and_when_resumed_while_the_arm_brakes(arm4):
    """
    A stroke from rest to rest keeps the joints in step: the tool's tilt does not move.

    So does a stroke resumed while the arm still brakes (the stream paused past the
    timeout): it blends in step along the braking's line first. Strokes do not add up.
    """
    j, T0, _, twist = inward_with_a_roll(arm4, np.array([0.2, 0.3, 0.6, -0.4]))
    check = watcher(arm4)

    def stroke(now: float, seconds: float, pause: float) -> tuple[float, list]:
        now, _, moving = run(j, now, seconds, lambda jg, t: jg.twist(twist, t), check)
        now, _, paused = run(j, now, pause, None, check)
        return now, [tilt(T, T0) for T in np.concatenate([moving, paused])]

    now, tilts = stroke(0.0, 0.3, 0.5)
    assert max(tilts) < 1e-6        # (Ruckig's time synchronisation: 1.5e-4)
    resumed = []
    for _ in range(6):
        now, tilts = stroke(now, 0.2, 0.15)
        resumed += tilts
    now, tilts = stroke(now, 0.3, 0.5)
    assert check.total_violations == 0, check.violations[:3]
    assert max(resumed) < 1e-5      # (time-synchronised: 9.4e-4; with no hold 1.9e-3)
    assert tilts[-1] < 1e-5


@pytest.mark.parametrize('twist, frame, message', [
    ([math.nan, 0, 0, 0, 0, 0], None, 'NaN or Inf'),
    ([0, math.inf, 0, 0, 0, 0], None, 'NaN or Inf'),
    ([5.0, 0, 0, 0, 0, 0], None, 'linear speed'),
    ([0, 0, 0, 0, 0, 1e6], None, 'angular speed'),
    ([0.1, 0, 0], None, '6 numbers'),
    (['a', 0, 0, 0, 0, 0], None, '6 numbers'),
    ([0.1, 0, 0, 0, 0, 0], 'world', "frame 'world'"),
])
def test_a_bad_twist_is_refused_and_nothing_moves(demo, twist, frame, message):
    j = Jogger(demo, limits(demo))
    j.reset(Q_DEMO, 0.0)
    with pytest.raises(IKInputError, match=message):
        j.twist(twist, 0.005, frame=frame)
    for k in range(1, 11):
        step = j.step(k * PERIOD)
        assert step.mode == jog.MODE_IDLE
    np.testing.assert_array_equal(step.sample.q, Q_DEMO)
    assert step.sample.at_rest


@pytest.mark.parametrize('names, values, message', [
    (['elbow_joint', 'no_such_joint'], [0.1, 0.1], "unknown joint 'no_such_joint'"),
    (['elbow_joint', 'elbow_joint'], [0.1, 0.1], 'named twice'),
    (['elbow_joint'], [0.1, 0.2], '1 joint names but 2'),
    (['elbow_joint'], [math.nan], "joint 'elbow_joint' is nan"),
    (['elbow_joint'], [50.0], 'above its limit'),
])
def test_bad_joint_velocities_are_refused_and_the_command_in_force_stays(
        demo, names, values, message):
    j = Jogger(demo, limits(demo))
    j.reset(Q_DEMO, 0.0)
    j.joint_velocities(['wrist_3_joint'], [0.5], 0.0)
    with pytest.raises(IKInputError, match=message):
        j.joint_velocities(names, values, 0.005)
    for k in range(1, 6):
        step = j.step(k * PERIOD)
    assert step.mode == jog.MODE_JOINT
    assert step.sample.v[2] == 0.0 and step.sample.v[5] > 0.0


def test_the_commands_handed_out_are_read_only_and_inputs_are_not_kept(demo):
    j = Jogger(demo, limits(demo))
    q0 = Q_DEMO.copy()
    j.reset(q0, 0.0)
    q0[0] = 1.0                                  # the caller's array is not the state
    twist = np.array([0.05, 0.0, 0.0, 0.0, 0.0, 0.0])
    j.twist(twist, 0.0)
    twist[0] = 0.9
    step = j.step(PERIOD)
    assert step.sample.q[0] == pytest.approx(Q_DEMO[0], abs=1e-3)
    for a in (step.sample.q, step.sample.v, step.sample.a, j.state.q):
        with pytest.raises(ValueError):
            a[0] = 0.0
    _, _, poses = run(j, PERIOD, 0.5, lambda jg, t: None, watcher(demo))
    # The command in force is the 0.05 m/s given, not the caller's array changed later
    # (it times out after 0.1 s: the speed at its end is what it was commanded).
    speed = np.linalg.norm(tool_twists(poses)[:, :3], axis=1)
    assert 0.0 < speed.max() <= 0.05 * 1.001


def test_time_going_back_and_bad_settings_are_refused(demo):
    j = Jogger(demo, limits(demo))
    with pytest.raises(IKInputError, match='reset'):
        j.step(0.0)
    j.reset(Q_DEMO, 1.0)
    with pytest.raises(IKInputError, match='went back'):
        j.step(0.5)
    with pytest.raises(IKInputError, match='singularity_slowdown'):
        Jogger(demo, limits(demo), JogSettings(singularity_slowdown=40.0))
    with pytest.raises(IKInputError, match='timeout'):
        Jogger(demo, limits(demo), JogSettings(timeout=0.0))
    with pytest.raises(IKInputError, match='6 values'):
        Jogger(demo, KinematicLimits.of([1.0] * 4, [1.0] * 4, [1.0] * 4))
    with pytest.raises(IKInputError, match='collision geometry'):
        Jogger(ik_node.Chain(read_chain(load_urdf_text(URDF_DIR / 'arm4.urdf'), 'base_link',
                                        'tip')),
               KinematicLimits.of([1.0] * 4, [1.0] * 4, [1.0] * 4), obstacles=())


ANY_FLOAT = st.floats(allow_nan=True, allow_infinity=True, width=64)


@settings(max_examples=60, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(twists=st.lists(st.lists(st.one_of(ANY_FLOAT, st.floats(-0.3, 0.3)), min_size=6,
                                max_size=6), min_size=1, max_size=8),
       frame=st.sampled_from([None, 'base_link', 'tool0', 'world']))
def test_any_twist_stream_is_refused_or_commanded_within_the_limits(demo, twists, frame):
    """Whatever comes in: an IKInputError, or finite commands the watcher passes."""
    j = Jogger(demo, limits(demo))
    j.reset(Q_DEMO, 0.0)
    check = watcher(demo)
    now = 0.0
    for twist in twists + [None] * 30:
        now = round(now + PERIOD, 9)
        if twist is not None:
            try:
                j.twist(twist, now, frame=frame)
            except IKInputError:
                pass
        step = j.step(now)
        assert np.all(np.isfinite(step.sample.q)) and np.all(np.isfinite(step.sample.v))
        check.check(demo.joint_names, step.sample.q, stamp_ns=int(round(now * 1e9)))
    assert check.total_violations == 0, check.violations[:3]
    assert step.mode == jog.MODE_IDLE           # the timeout brought it to rest


def quintic_accelerations(s, q_end: np.ndarray, T: float) -> np.ndarray:
    """Return (200, n) accelerations of the quintic from state ``s`` to rest at q_end in T."""
    d = q_end - s.q - s.v * T - 0.5 * s.a * T ** 2
    M = np.array([[T ** 3, T ** 4, T ** 5], [3 * T ** 2, 4 * T ** 3, 5 * T ** 4],
                  [6 * T, 12 * T ** 2, 20 * T ** 3]])
    c = np.linalg.solve(M, np.vstack([d, -s.v - s.a * T, -s.a]))
    t = np.linspace(0.0, T, 200)[:, None]
    return s.a + 6 * c[0] * t + 12 * c[1] * t ** 2 + 20 * c[2] * t ** 3


def test_preview_is_the_state_ahead_and_its_rest_point_brakes_within_the_limits(demo):
    lim = limits(demo)
    jogger = Jogger(demo, lim)
    jogger.reset(Q_DEMO, 0.0)
    worst = 0.0
    for k in range(1, 80):
        now = k * PERIOD
        jogger.twist([0.0, 0.1, -0.05, 0.0, 0.0, 0.3 if k > 40 else 0.0], now)
        jogger.step(now)
        ahead, t_rest, q_rest = jogger.preview(0.02)
        assert t_rest > 0.0
        # What joint_trajectory_controller interpolates between the two points: a quintic.
        worst = max(worst, float(np.max(np.abs(quintic_accelerations(ahead, q_rest, t_rest))
                                        / lim.acceleration)))
        if k == 30:
            expected = ahead
    assert worst <= 1.05, worst
    # The state ahead is the one a step at that time reaches under the same command.
    other = Jogger(demo, lim)
    other.reset(Q_DEMO, 0.0)
    for k in range(1, 33):
        other.twist([0.0, 0.1, -0.05, 0.0, 0.0, 0.0], k * PERIOD)
        step = other.step(k * PERIOD)
    assert np.max(np.abs(step.sample.q - expected.q)) < 1e-3
    # At rest: the state itself, nothing to brake.
    jogger.reset(Q_DEMO, 1.0)
    ahead, t_rest, q_rest = jogger.preview(0.02)
    assert t_rest == 0.0 and np.array_equal(q_rest, Q_DEMO) and not np.any(ahead.v)


def test_the_strongest_slow_down_of_a_status_period_is_the_one_told():
    # ik_status tells one reason per period: a short pass near a singularity followed by a
    # velocity limit is still told as the singularity.
    reasons = [getattr(jog_module, name) for name in jog_module.__all__
               if name.startswith('REASON_')]
    order = ['', 'velocity', 'joint_limit', 'singularity', 'collision', 'contact']
    assert sorted(reasons) == sorted(order)         # every reason has a rank
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            assert strongest_reason(a, b) == order[max(i, j)]
    told = ''
    for step in ('velocity', 'singularity', 'velocity', '', 'joint_limit'):
        told = strongest_reason(told, step)
    assert told == 'singularity'
