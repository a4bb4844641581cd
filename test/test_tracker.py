# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.motion.tracker: feedback seeds the solver, commands approach the goal safely."""

from pathlib import Path

from conftest import load
from ik_node import IKInputError
from ik_node.motion.guards import ARM_LATENCY, STALL_START_GRACE
from ik_node.motion.tracker import IKTracker
from ik_node.ros.parameter_table import defaults, IK_NODE_PARAMETERS, solver_options
import numpy as np
from numpy.testing import assert_allclose
import pytest

PERIOD = 0.01
URDF_DEMO = Path(__file__).resolve().parents[1] / 'config' / 'urdf' / 'demo_arm.urdf'


def make_tracker(name='ur5', **overrides):
    chain = load(name)
    values = defaults(IK_NODE_PARAMETERS)
    values.update(overrides)
    v = np.where(np.isfinite(chain.velocity), chain.velocity, 1.0)
    return IKTracker(chain, values['solver'], solver_options(values, chain), v, PERIOD,
                     values['joint_states_timeout'])


def test_nothing_is_commanded_before_the_arm_position_is_known():
    tracker = make_tracker()
    assert not tracker.ready
    assert tracker.step(0.0) is None
    assert tracker.seed(0.0) == (None, 'cold')


def test_feedback_by_name_in_any_order_starts_the_command(rng):
    tracker = make_tracker()
    q = tracker.chain.random_q(rng)
    names = list(tracker.names)[::-1] + ['gripper']
    assert tracker.update_feedback(names, list(q[::-1]) + [0.02], now=1.0)
    assert tracker.ready
    assert_allclose(tracker.command, q)
    assert not tracker.update_feedback(names[1:], list(q[::-1])[1:] + [0.0], now=1.1)
    assert not tracker.update_feedback(names, [np.nan] * len(names), now=1.2)
    assert_allclose(tracker.measured(1.2), q)


def test_fresh_feedback_seeds_the_solver_and_stale_feedback_does_not(rng):
    tracker = make_tracker(joint_states_timeout=0.5)
    chain = tracker.chain
    q_arm = chain.random_q(rng)
    tracker.update_feedback(tracker.names, q_arm, now=10.0)
    seed, source = tracker.seed(10.2)
    assert source == 'joint_states'
    assert_allclose(seed, q_arm)
    # A target a few centimetres from the arm: solved from where the arm is, so the
    # solution stays near it (the 6-DOF UR5 has up to 8 IK branches).
    q_near = q_arm + 0.02
    outcome = tracker.solve(chain.fk(q_near), now=10.2)
    assert outcome.result.success and outcome.seed_source == 'joint_states'
    assert np.max(np.abs(outcome.result.q - q_near)) < 0.05
    _, source = tracker.seed(11.0)
    assert source == 'solution'


def test_commands_approach_the_goal_within_velocity_limits(rng):
    tracker = make_tracker()
    chain = tracker.chain
    q0 = chain.mid.copy()
    q0[1], q0[2] = -1.2, 1.3
    tracker.start_at(q0, now=0.0)
    q_goal = q0 + np.array([0.8, -0.5, 0.6, 0.4, -0.7, 1.0])
    outcome = tracker.solve(chain.fk(q_goal), now=0.0)
    assert outcome.result.success
    assert tracker.moving
    prev, t, steps = tracker.command, 0.0, 0
    v = tracker.velocity
    while tracker.moving:
        t += PERIOD
        report = tracker.step(t)
        assert np.all(np.abs(report.q - prev) <= v * PERIOD + 1e-12)
        assert chain.within_limits(report.q)
        prev = report.q
        steps += 1
        assert steps < 10_000
    assert steps > 1        # far: approached over several steps, not jumped to
    assert_allclose(chain.fk(prev)[:3, 3], chain.fk(q_goal)[:3, 3], atol=2e-3)


def test_an_unreachable_goal_is_refused_and_a_streamed_one_gives_the_best_pose():
    tracker = make_tracker()
    chain = tracker.chain
    q0 = chain.mid.copy()
    q0[1], q0[2] = -1.2, 1.3
    tracker.start_at(q0, now=0.0)
    outcome = tracker.solve(np.array([3.0, 0.0, 0.5]), now=0.0)
    r = outcome.result
    assert outcome.path == 'goal' and outcome.refused and not r.success
    assert 'out of reach' in outcome.reason
    assert r.position_error > 1.5          # the UR5 reaches about 0.95 m
    assert tracker.goal is None and not tracker.moving
    assert_allclose(tracker.step(0.5).q, q0)
    # A stream that walks out of reach in small steps follows the best pose.
    tip = chain.fk(q0)[:3, 3]
    out = tip / np.linalg.norm(tip)
    tracker.solve(tip, now=0.5)
    for k in range(1, 40):
        outcome = tracker.solve(tip + 0.02 * k * out, now=0.5 + 0.01 * k)
        tracker.step(0.5 + 0.01 * k)
    assert outcome.path == 'streaming' and not outcome.result.success
    goal = tracker.goal
    assert np.all(np.isfinite(goal)) and chain.within_limits(goal)
    # The best pose points at the target: the tip is farther out than at the start.
    assert np.linalg.norm(chain.fk(goal)[:3, 3]) > np.linalg.norm(tip)


def test_malformed_target_raises_and_keeps_the_goal():
    tracker = make_tracker()
    tracker.start_at(tracker.chain.mid, now=0.0)
    with pytest.raises(IKInputError):
        tracker.solve(np.array([np.nan, 0.0, 0.0]), now=0.0)
    assert tracker.goal is None
    assert not tracker.moving


def test_configure_switches_the_solver_and_keeps_the_state(rng):
    tracker = make_tracker()
    chain = tracker.chain
    tracker.update_feedback(tracker.names, chain.mid, now=0.0)
    values = defaults(IK_NODE_PARAMETERS)
    values['solver'] = 'pinv'
    tracker.configure('pinv', solver_options(values, chain), np.ones(chain.n), PERIOD, 0.5)
    assert tracker.ready
    outcome = tracker.solve(chain.fk(chain.mid + 0.05), now=0.1)
    assert outcome.result.method == 'pinv'
    with pytest.raises(ValueError):
        tracker.configure('dls', {}, np.zeros(chain.n), PERIOD, 0.5)


def ur5_start() -> np.ndarray:
    q = np.zeros(6)
    q[1], q[2], q[3], q[4] = -1.2, 1.3, -1.6, -1.2
    return q


@pytest.mark.parametrize('delay', [0.0, 0.15])
def test_a_stalled_arm_is_held_at_its_measured_position_once_the_lead_reaches_the_limit(delay):
    # delay: every reading arrives that long after its stamp (a busy machine or network, or
    # clocks a little apart); the arm must be judged all the same.
    tracker = make_tracker()
    chain = tracker.chain
    q_arm = ur5_start()
    tracker.set_following_error(np.full(chain.n, 0.25))
    t = 0.0
    while not tracker.ready:
        tracker.update_feedback(tracker.names, q_arm, now=t, stamp=t - delay)
        t += PERIOD
        assert t < 1.0
    t_start = t
    tracker.solve(chain.fk(q_arm + np.array([1.0, -0.5, 0.6, 0.4, -0.7, 1.0])), now=t)
    # The arm does not move (an e-stop) but keeps reporting where it is.
    leads = []
    for _ in range(300):
        t += PERIOD
        tracker.update_feedback(tracker.names, q_arm, now=t, stamp=t - delay)
        report = tracker.step(t)
        leads.append(np.max(np.abs(report.q - q_arm)))
        if tracker.stall:
            break
    assert tracker.stall and 'not following' in tracker.stall and 'shoulder_pan_joint' \
        in tracker.stall
    # An arm that never moved since the command started gets STALL_START_GRACE (its driver
    # may still be connecting): held 1 s after the first step (by the readings' stamps), not
    # 0.2 s after the lead reached the limit.
    held_after = t - t_start
    assert STALL_START_GRACE + delay <= held_after <= \
        STALL_START_GRACE + delay + ARM_LATENCY + 2 * PERIOD
    # Past the limit the command stopped on its path within its acceleration and jerk
    # limits (about 0.6 rad from full speed at this UR5's limits): it was at rest before the
    # hold, and the hold is at the arm.
    assert 0.25 < max(leads[:-1]) <= 1.0
    assert leads[-2] == leads[-3]
    assert_allclose(report.q, q_arm)
    assert not tracker.moving
    # Held from then on, without a new target.
    tracker.update_feedback(tracker.names, q_arm, now=t + PERIOD, stamp=t + PERIOD - delay)
    assert_allclose(tracker.step(t + PERIOD).q, q_arm) and not tracker.stall


def test_a_following_arm_never_trips_the_following_error():
    tracker = make_tracker()
    chain = tracker.chain
    q_arm = ur5_start()
    tracker.set_following_error(np.full(chain.n, 0.25))
    tracker.update_feedback(tracker.names, q_arm, now=0.0)
    q_goal = q_arm + np.array([1.0, -0.5, 0.6, 0.4, -0.7, 1.0])
    tracker.solve(chain.fk(q_goal), now=0.0)
    commands = [q_arm]
    t = 0.0
    while tracker.moving:
        t += PERIOD
        # The arm is two periods behind the commands (driver latency).
        tracker.update_feedback(tracker.names, commands[max(0, len(commands) - 3)], now=t)
        commands.append(tracker.step(t).q)
        assert not tracker.stall
        assert t < 5.0
    tracker.update_feedback(tracker.names, commands[-1], now=t + PERIOD)
    assert tracker.arrived(t + PERIOD, 1e-3, 1e-2)
    assert not tracker.arrived(t + 2 * PERIOD, 1e-3, 1e-2)   # said once per target


def test_a_stream_toward_a_wrist_singularity_slows_down_and_stops_short_of_it():
    tracker = make_tracker()
    tracker.set_singularity_thresholds(17.0, 30.0)
    q = ur5_start()
    q[4] = 0.6                       # wrist_2: the UR wrist is singular at 0
    tracker.start_at(q, now=0.0)
    # A dragged marker: tool poses 5 mrad of wrist_2 apart, straight through the singularity.
    path = np.outer(np.ones(240), q)
    path[:, 4] = np.linspace(0.6, -0.6, 240)
    t, speeds, conds = 0.0, [], []
    for q_path in path:
        tracker.solve(tracker.chain.fk(q_path), now=t, stream=True)
        t += PERIOD
        prev = tracker.command
        report = tracker.step(t)
        speeds.append(abs(report.q[4] - prev[4]) / PERIOD)
        conds.append(tracker.condition)
    v = tracker.velocity[4]
    assert max(speeds) > 0.1 * v                           # far from it: as streamed
    assert tracker.command[4] > 0.0                        # never crosses the singularity
    slowed = [s for s, c in zip(speeds, conds) if c > 17.0]
    assert slowed and max(slowed) < max(speeds)
    # Past the stop threshold it has braked (within its limits) to a creep.
    beyond = [s for s, c in zip(speeds, conds) if c > 30.0]
    assert beyond and max(beyond) < 0.05 * v
    # Moving away from it is never slowed.
    tracker.solve(tracker.chain.fk(ur5_start()), now=t)
    scales = []
    for _ in range(10):
        t += PERIOD
        tracker.step(t)
        scales.append(tracker.commander.scale)
    assert scales == [1.0] * 10


def test_a_goal_through_a_wrist_singularity_is_not_slowed():
    # Its joint path is time-parameterised within the joint limits everywhere: a
    # singularity on it asks for no more joint speed than anywhere else.
    tracker = make_tracker()
    tracker.set_singularity_thresholds(17.0, 30.0)
    q = ur5_start()
    q[4] = 0.6
    tracker.start_at(q, now=0.0)
    goal = q.copy()
    goal[4] = -0.6
    tracker.move_to(goal)
    t, scales = 0.0, []
    while tracker.moving:
        t += PERIOD
        tracker.step(t)
        scales.append(tracker.commander.scale)
        assert t < 5.0
    assert set(scales) == {1.0}
    np.testing.assert_allclose(tracker.command, goal, atol=1e-9)


def test_a_step_into_an_obstacle_is_not_taken():
    from ik_node import Chain, HalfSpace, Sphere
    demo = Chain.from_urdf(URDF_DEMO, 'base_link', 'tool0')
    q = np.array([0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0])
    tracker = IKTracker(demo, 'dls', {}, np.full(6, 3.0), PERIOD, 0.5)
    tracker.start_at(q, now=0.0)
    # A ball on the arc the tool sweeps when the base turns by 0.6 rad.
    q_mid = q.copy()
    q_mid[0] += 0.3
    ball = Sphere(center=demo.fk(q_mid)[:3, 3], radius=0.03, name='ball')
    world = [HalfSpace(name='floor'), ball]
    tracker.set_collision_guard(world)
    goal = q.copy()
    goal[0] += 0.6
    tracker.move_to(goal)
    t, commands = 0.0, []
    while tracker.moving and t < 2.0:
        t += PERIOD
        commands.append(tracker.step(t).q)
    assert 'step refused' in tracker.stall and 'ball' in tracker.stall
    assert not tracker.moving                    # held, the goal dropped
    assert all(not demo.collisions(c, world) for c in commands)
    assert commands[-1][0] < q_mid[0]            # it stopped short of the ball


def test_feedback_lost_until_a_recent_reading_restarts_the_command_where_the_arm_is():
    tracker = make_tracker(joint_states_timeout=0.5)
    names, q0 = tracker.names, tracker.chain.mid.copy()
    assert not tracker.feedback_lost(0.0)                  # never heard: not lost, not ready
    tracker.update_feedback(names, q0, now=1.0, stamp=1.0)
    assert not tracker.feedback_lost(1.4)
    assert tracker.feedback_lost(1.6)                      # silent for over 0.5 s
    # The arm comes back where it was commanded: even an old reading (a backlog) ends it.
    tracker.update_feedback(names, q0, now=2.0, stamp=1.8)
    assert not tracker.feedback_lost(2.0)
    # Silent again; back 0.5 rad away (moved while unheard; more than 0.1 s at the UR5's
    # 3.15 rad/s). An old reading of that does not end the loss, a recent one restarts the
    # command there.
    moved = q0 + 0.5
    assert tracker.feedback_lost(2.7)
    tracker.update_feedback(names, moved, now=3.0, stamp=2.8)
    assert tracker.feedback_lost(3.0)
    assert_allclose(tracker.command, q0)
    tracker.update_feedback(names, moved, now=3.05, stamp=3.02)
    assert not tracker.feedback_lost(3.05)
    assert_allclose(tracker.command, moved)
    assert tracker.resync_distance == pytest.approx(0.5)


def test_an_arm_heard_again_before_it_hears_the_commands_is_given_the_start_grace():
    # The driver crashes mid-motion and restarts where it was commanded; it publishes its
    # readings before it is connected to the command topic (a monitor subscribed to the
    # commands keeps the node publishing). The command goes on from rest, the lag guard
    # stops it on its path, and the arm, once connected, catches up and reaches the goal: a
    # driver connecting is not a stall.
    tracker = make_tracker(joint_states_timeout=0.5)
    chain, names = tracker.chain, tracker.names
    tracker.set_following_error(np.full(chain.n, 0.25))
    q_arm = ur5_start()
    goal = q_arm + np.array([1.0, -0.5, 0.6, 0.4, -0.7, 1.0])
    tracker.update_feedback(names, q_arm, now=0.0, stamp=0.0)
    tracker.solve(chain.fk(goal), now=0.0)
    t, q = 0.0, q_arm
    for _ in range(30):                 # following its commands, one period behind
        t += PERIOD
        tracker.update_feedback(names, q, now=t, stamp=t)
        q = tracker.step(t).q
    # Silent for a second: the node sends nothing (no step) while the feedback is lost.
    t += 1.0
    assert tracker.feedback_lost(t)
    q = q_held = tracker.command
    connected = t + 0.6                 # it hears the commands 0.6 s after it is heard
    leads = []
    while t < connected + 5.0:
        t += PERIOD
        tracker.update_feedback(names, q_held if t < connected else q, now=t, stamp=t)
        q = tracker.step(t).q
        if t < connected:
            leads.append(np.max(np.abs(q - q_held)))
        assert not tracker.stall, (t - connected, tracker.stall)
    assert not tracker.moving
    assert_allclose(tracker.command, goal, atol=1e-9)
    # The lag guard stopped the command on its path while the arm was not connected.
    assert 0.25 < max(leads) <= 1.0


def test_a_reading_that_jumps_restarts_the_command_where_the_arm_is():
    # A driver restarted between two readings (well within joint_states_timeout) at another
    # position: the feedback never went stale, but the command must not go on from where it
    # was, or the new driver would be sent there in one jump.
    tracker = make_tracker(joint_states_timeout=0.5)
    chain, names = tracker.chain, tracker.names
    q_arm = ur5_start()
    tracker.update_feedback(names, q_arm, now=0.0, stamp=0.0)
    tracker.solve(chain.fk(q_arm + np.array([1.0, -0.5, 0.6, 0.4, -0.7, 1.0])), now=0.0)
    t, q = 0.0, q_arm
    for _ in range(30):                 # following its commands, one period behind
        t += PERIOD
        tracker.update_feedback(names, q, now=t, stamp=t)
        assert tracker.resync_distance is None
        q = tracker.step(t).q
    assert tracker.moving
    # The next reading is 0.4 rad from the one before, 10 ms later: no commanded motion.
    t += PERIOD
    restarted = q_arm - 0.4
    tracker.update_feedback(names, restarted, now=t, stamp=t)
    assert tracker.resync_reason == 'jumped'
    assert tracker.resync_distance == pytest.approx(np.max(np.abs(q - restarted)))
    assert_allclose(tracker.command, restarted)
    assert not tracker.moving                           # the goal is dropped
    assert_allclose(tracker.step(t + PERIOD).q, restarted)
    # A reading that jumps (0.2 rad in 10 ms) but stays near the command (within RESYNC_LAG
    # of motion) is no reason to stop: only one away from the command restarts it.
    tracker.move_to(restarted + 0.5)
    tracker.update_feedback(names, restarted + 0.2, now=t + 2 * PERIOD,
                            stamp=t + 2 * PERIOD)
    assert tracker.resync_distance is None and tracker.moving


@pytest.mark.parametrize('arm_speed_known', [True, False])
def test_an_arm_catching_up_at_its_own_speed_is_not_a_jump(arm_speed_known):
    # Commands at a quarter of the arm's limits (velocity_scale 0.25). A driver that came
    # back publishes readings before it hears the commands, which run a following error
    # ahead; once it hears them it catches up at its full speed, four command steps per
    # reading. That is motion, not a restart: the goal stays.
    chain = load('ur5')
    values = defaults(IK_NODE_PARAMETERS)
    arm_v = np.where(np.isfinite(chain.velocity), chain.velocity, 1.0)
    tracker = IKTracker(chain, values['solver'], solver_options(values, chain), 0.25 * arm_v,
                        PERIOD, 0.5)
    tracker.set_following_error(np.full(chain.n, 0.25))
    if arm_speed_known:
        tracker.set_arm_speed(arm_v)
    names, q_arm = tracker.names, ur5_start()
    tracker.update_feedback(names, q_arm, now=0.0, stamp=0.0)
    tracker.solve(chain.fk(q_arm + np.array([1.0, -0.5, 0.6, 0.4, -0.7, 1.0])), now=0.0)
    t, q, jumps, lead = 0.0, q_arm.copy(), 0, 0.0
    for k in range(60):
        t += PERIOD
        command = tracker.step(t).q
        if k >= 40:                     # the driver hears the commands from here on
            q = q + np.clip(command - q, -arm_v * PERIOD, arm_v * PERIOD)
        lead = max(lead, float(np.max(np.abs(command - q))))
        tracker.update_feedback(names, q, now=t, stamp=t)
        jumps += tracker.resync_distance is not None
    assert lead > 0.15                  # the command did run ahead of the arm
    if arm_speed_known:
        assert jumps == 0 and tracker.moving
    else:       # judged by the commands' own speed, the catching up looks like a jump
        assert jumps > 0 and tracker.resync_reason == 'jumped'
    with pytest.raises(ValueError):
        tracker.set_arm_speed(np.zeros(chain.n))


def test_an_older_reading_does_not_age_the_feedback_unless_the_clock_went_back():
    tracker = make_tracker(joint_states_timeout=0.5)
    names, q = tracker.names, tracker.chain.mid.copy()
    tracker.update_feedback(names, q, now=10.0, stamp=10.0)
    # A backlog behind the reading in hand: 0.6 s old, it would make the feedback stale.
    tracker.update_feedback(names, q + 0.01, now=10.05, stamp=9.4)
    assert_allclose(tracker.measured(10.05), q)
    assert not tracker.feedback_lost(10.05)
    # A simulation restarted (use_sim_time): the clock and the stamps start over.
    tracker.update_feedback(names, q + 0.01, now=0.2, stamp=0.19)
    assert_allclose(tracker.measured(0.2), q + 0.01)


WARMED = """
import sys
import numpy as np
from ik_node import Chain
from ik_node.motion import window_checks
from ik_node.motion.tracker import IKTracker
arm = Chain.from_urdf(sys.argv[1], 'base_link', 'tool0')
IKTracker(arm, 'dls', {}, np.full(arm.n, 3.0), 0.01, 0.5).warm_up()
print(len(window_checks.ring_stood_still.signatures),
      len(window_checks.ring_following_lag.signatures))
"""


def test_warm_up_loads_the_feedback_checks_kernels_before_the_first_reading():
    # Loaded on the first reading instead, they held that control cycle for 8 ms each (more
    # on a busy machine: a pause in the command stream). A fresh process: nothing loaded yet.
    import subprocess
    import sys
    from ik_node import _jit
    if not _jit.JIT_ENABLED:
        pytest.skip(f'numba is off: {_jit.JIT_UNAVAILABLE}')
    out = subprocess.run([sys.executable, '-c', WARMED, str(URDF_DEMO)], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ['1', '1']


WARMED_GOAL = """
import sys
import numpy as np
from ik_node import _jit, Chain, HalfSpace, Sphere
from ik_node.motion.goal_search import plan_goal
from ik_node.motion.tracker import IKTracker
arm = Chain.from_urdf(sys.argv[1], 'base_link', 'tool0')
IKTracker(arm, 'dls', {}, np.full(arm.n, 3.0), 0.01, 0.5).warm_up()
imported, loaded = 'ompl' in sys.modules, _jit.loading_seconds()
start = np.array([0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0])
goal = np.array([0.603, -1.926, 0.403, -0.862, -1.49, -0.607])
ball = Sphere(center=tuple(arm.fk(start + 0.7 * (goal - start))[:3, 3]), radius=0.05)
plan = plan_goal(arm, arm.fk(goal), start, 'dls', {}, [HalfSpace(), ball], 2.0, 5.0)
print(imported, plan.kind, _jit.loading_seconds() - loaded)
"""


def test_warm_up_loads_what_a_goal_planned_around_an_obstacle_needs():
    # The goal search runs on a thread of its own, but OMPL's import and numba's cache loads
    # hold the GIL, and with it the command thread, for up to 17 ms at a time.
    import subprocess
    import sys
    from ik_node import _jit
    if not _jit.JIT_ENABLED:
        pytest.skip(f'numba is off: {_jit.JIT_UNAVAILABLE}')
    out = subprocess.run([sys.executable, '-c', WARMED_GOAL, str(URDF_DEMO)],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ['True', 'planned', '0.0']
