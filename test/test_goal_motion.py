# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
IKTracker with goals: planned around obstacles, refused before moving, changed mid-motion.

The 4-joint collision test arm (position targets: it cannot take every orientation), a box
on the straight joint path between two poses; the
tracker is stepped at 100 Hz with the clock given, the arm following every command at once.
Every commanded state is checked for contact and the stream for its velocity, acceleration
and jerk by divided differences at the stamps.
"""

from conftest import URDF_DIR
import ik_node
from ik_node.motion.obstacle_stop import EMERGENCY, UNAVOIDABLE
from ik_node.motion.planner import _overlap as overlap, path_touches
from ik_node.motion.tracker import IKTracker
from ik_node.motion.watcher import CommandWatcher
import numpy as np
import pytest

PERIOD = 0.01
FLOOR = ik_node.HalfSpace(normal=(0, 0, 1), offset=0.0, name='floor')
Q_A = np.array([2.35, 0.426, -0.161, 1.093])
Q_B = np.array([-2.818, 1.035, -0.704, -1.637])
V, A, J = 1.5, 4.0, 200.0


@pytest.fixture(scope='module')
def arm() -> ik_node.Chain:
    return ik_node.Chain.from_urdf(URDF_DIR / 'collision_arm.urdf', 'base_link', 'tip')


@pytest.fixture(scope='module')
def box(arm) -> ik_node.Box:
    T = np.eye(4)
    T[:3, 3] = arm.fk(0.5 * (Q_A + Q_B))[:3, 3]
    return ik_node.Box(pose=T, size=(0.08, 0.08, 0.08), name='box')


def tracker(arm, obstacles, background: bool = False) -> IKTracker:
    n = arm.n
    t = IKTracker(arm, 'dls', {'max_attempts': 1, 'timeout': 0.005}, np.full(n, V), PERIOD,
                  0.5, acceleration=np.full(n, A), jerk=np.full(n, J), plan_budget=2.0,
                  background=background)
    t.set_collision_guard(obstacles)
    return t


def run(t: IKTracker, now: float, seconds: float, obstacles, watcher, events=None):
    """Step ``t`` for ``seconds`` from ``now``, the arm at each command; return the time."""
    steps = int(round(seconds / PERIOD))
    for k in range(1, steps + 1):
        now += PERIOD
        for when, action in list((events or {}).items()):
            if now >= when:
                action(now)
                del events[when]
        report = t.step(now)
        t.update_feedback(t.names, report.q, now=now, stamp=now)
        assert not t.chain.collisions(report.q, obstacles), (now, report.q)
        watcher.check(t.names, report.q, t=now, stamp_ns=int(round(now * 1e9)))
    return now


def make_watcher(arm) -> CommandWatcher:
    n = arm.n
    return CommandWatcher.for_chain(arm, np.full(n, V), PERIOD, a_max=np.full(n, A),
                                    j_max=np.full(n, J), require_all=False)


def test_a_goal_behind_an_obstacle_is_reached_along_a_planned_path(arm, box):
    world = [FLOOR, box]
    t = tracker(arm, world)
    t.start_at(Q_A, 0.0)
    assert arm.path_collides(Q_A, Q_B, 0.05, world)
    outcome = t.solve(arm.fk(Q_B)[:3, 3], 0.0)
    assert outcome.path == 'goal' and outcome.motion in ('planned', 'direct'), outcome.reason
    if outcome.motion == 'direct':       # another IK branch with a free straight path
        assert not arm.path_collides(Q_A, t.goal, 0.05, world)
    w = make_watcher(arm)
    now = run(t, 0.0, 30.0, world, w)
    assert not t.moving and not t.stall
    assert np.linalg.norm(arm.fk(t.command)[:3, 3] - arm.fk(Q_B)[:3, 3]) < 1e-4
    assert w.total_violations == 0, w.summary()
    assert t.arrived(now, 1e-3, 1e-2)


def test_a_goal_no_free_path_reaches_is_refused_before_any_motion(arm, box):
    tool = arm.fk(Q_B)[:3, 3]
    world = [FLOOR, box, ik_node.Sphere(center=tool, radius=0.15, name='blocker')]
    t = tracker(arm, world)
    t.start_at(Q_A, 0.0)
    outcome = t.solve(tool, 0.0)
    assert outcome.refused and 'no collision-free answer' in outcome.reason
    assert not t.moving
    w = make_watcher(arm)
    run(t, 0.0, 0.5, world, w)
    np.testing.assert_array_equal(t.command, arm.clip(Q_A))


def test_a_new_goal_mid_motion_blends_without_an_acceleration_jump(arm):
    world = [FLOOR]
    t = tracker(arm, world)
    t.start_at(Q_A, 0.0)
    first = t.solve(arm.fk(Q_B)[:3, 3], 0.0)
    assert first.motion == 'direct'
    q_c = 0.5 * (Q_A + Q_B) + np.array([0.3, -0.2, 0.2, 0.1])
    assert not arm.collisions(q_c, world)
    w = make_watcher(arm)
    events = {0.7: lambda now: t.solve(arm.fk(q_c)[:3, 3], now)}
    run(t, 0.0, 20.0, world, w, events)
    assert w.total_violations == 0, w.summary()
    assert np.linalg.norm(arm.fk(t.command)[:3, 3] - arm.fk(q_c)[:3, 3]) < 1e-4


def test_an_obstacle_on_the_path_stops_the_arm_within_its_limits_and_it_plans_again(arm):
    t = tracker(arm, [FLOOR])
    t.start_at(Q_A, 0.0)
    assert t.solve(arm.fk(Q_B)[:3, 3], 0.0).motion == 'direct'
    # A box appears where the tool will be halfway along its straight joint path.
    T = np.eye(4)
    T[:3, 3] = arm.fk(0.5 * (Q_A + t.goal))[:3, 3]
    world = [FLOOR, ik_node.Box(pose=T, size=(0.08, 0.08, 0.08), name='box')]
    w = make_watcher(arm)

    def box_appears(now):
        assert path_touches(arm, t.commander.remaining_path(now), world) != ''
        t.set_collision_guard(world, now)
        assert path_touches(arm, t.commander.remaining_path(now), world) == ''

    now = run(t, 0.0, 0.4, [FLOOR], w, {0.3: box_appears})
    now = run(t, now, 30.0, world, w)
    answers = t.take_events()
    assert w.total_violations == 0, w.summary()
    assert len(answers) == 1 and answers[0].path == 'goal'
    if answers[0].refused:
        assert 'path' in answers[0].reason or 'answer' in answers[0].reason
    else:
        assert np.linalg.norm(arm.fk(t.command)[:3, 3] - arm.fk(Q_B)[:3, 3]) < 1e-4


def test_an_arm_trapped_in_contact_backs_out_and_reaches_its_goal(arm):
    tool = arm.fk(Q_A)[:3, 3]
    ball = ik_node.Sphere(center=tool + [0.0, 0.0, 0.03], radius=0.04, name='ball')
    world = [FLOOR, ball]
    t = tracker(arm, world)
    t.start_at(Q_A, 0.0)
    assert arm.collisions(Q_A, world)
    outcome = t.solve(arm.fk(Q_B)[:3, 3], 0.0)
    assert not outcome.refused, outcome.reason
    now, depth = 0.0, [overlap(arm, Q_A, world)]
    for _ in range(3000):
        now += PERIOD
        q = t.step(now).q
        t.update_feedback(t.names, q, now=now, stamp=now)
        if arm.collisions(q, world):
            depth.append(overlap(arm, q, world))
    # It never went deeper into the contacts it started in, and left them for good.
    # Checked at its waypoints and every 5 mrad along its edges; between those samples the
    # overlap may wiggle by a fraction of a millimetre, never above where it started.
    assert max(depth) <= depth[0] + 1e-9 and depth[-1] < 0.5 * depth[0]
    assert not t.moving and not arm.collisions(t.command, world)
    assert np.linalg.norm(arm.fk(t.command)[:3, 3] - arm.fk(Q_B)[:3, 3]) < 1e-4


def test_a_goal_mid_motion_that_needs_a_path_brakes_and_is_planned_at_rest():
    """Planning takes up to its budget and no command goes out meanwhile: not at speed."""
    demo = ik_node.Chain.from_urdf(ik_node.share_path(), 'base_link', 'tool0')
    start = np.array([0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0])
    # A goal behind a ball (the ROS tests' scenario): every answer needs a planned path.
    q_behind = np.array([0.603, -1.926, 0.403, -0.862, -1.49, -0.607])
    world = [FLOOR, ik_node.Sphere(center=(-0.28, -0.205, 0.74), radius=0.08, name='ball')]
    t = tracker(demo, world)
    t.start_at(start, 0.0)
    assert t.solve(demo.fk(start + [0.3, 0.0, 0.0, 0.0, 0.0, 0.3]), 0.0).motion == 'direct'
    answers = []
    w = make_watcher(demo)
    events = {0.3: lambda now: answers.append(t.solve(demo.fk(q_behind), now))}
    now = run(t, 0.0, 0.35, world, w, events)
    assert answers[0].motion == 'pending' and 'braking' in answers[0].reason, answers[0]
    assert t.moving and t.take_events() == []
    now = run(t, now, 30.0, world, w)
    later = t.take_events()
    assert len(later) == 1 and later[0].motion == 'planned', later
    assert w.total_violations == 0, w.summary()
    assert t.arrived(now, 1e-3, 1e-2)


@pytest.mark.parametrize('scale, kind', [(2.0, UNAVOIDABLE), (8.0, EMERGENCY)])
def test_an_obstacle_closer_than_the_arm_can_brake_is_met_by_the_rule_and_planned_around(
        scale, kind):
    """Inside the braking distance: a stop up to ``scale`` x the limits, else held short."""
    demo = ik_node.Chain.from_urdf(ik_node.share_path(), 'base_link', 'tool0')
    q = np.array([0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0])
    t = tracker(demo, [FLOOR])
    t.set_emergency_stop_scale(scale)
    t.start_at(q, 0.0)
    goal = q + np.array([0.6, 0.0, 0.0, 0.0, 0.0, 0.0])
    assert t.solve(demo.fk(goal), 0.0).motion == 'direct'
    # A ball on the arc the tool sweeps (the wrist touches it from a base turn of 0.3 rad),
    # appearing at 0.22 rad: the arm cannot brake before it within its limits (0.29 rad),
    # at 2x them neither, at 4.8x it can.
    ball = ik_node.Sphere(center=demo.fk(q + [0.45, 0, 0, 0, 0, 0])[:3, 3], radius=0.03,
                          name='ball')
    world = [FLOOR, ball]
    n = demo.n
    w = CommandWatcher.for_chain(demo, np.full(n, V), PERIOD, a_max=np.full(n, A * scale),
                                 j_max=np.full(n, J * scale), require_all=False)
    now = 0.0
    while t.command[0] < q[0] + 0.22:
        now = run(t, now, PERIOD, [FLOOR], w)
    assert not demo.collisions(t.command, world)
    t.set_collision_guard(world, now)
    (stop,) = t.take_stops()
    assert stop.kind == kind and 'ball' in stop.contact and stop.level == 'ERROR'
    assert stop.stop_travel < stop.contact_travel < stop.braking_travel
    now = run(t, now, 30.0, world, w)
    answers = t.take_events()
    assert len(answers) == 1 and answers[0].motion in ('planned', 'refused'), answers
    assert stop.text() in answers[0].reason
    if answers[0].motion == 'planned':
        assert t.arrived(now, 1e-3, 1e-2)
    if kind == EMERGENCY:
        assert 1.0 < stop.scale <= scale and w.total_violations == 0, w.summary()
    else:
        # Within ``scale`` x the limits but for the one step the record tells.
        assert stop.scale == scale and stop.velocity_step > 0.1
        stamps = [v.stamp_ns for v in w.violations]
        assert stamps and max(stamps) - min(stamps) <= 3 * PERIOD * 1e9, w.summary()
