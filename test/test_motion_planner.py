# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.motion.planner and goal_search: free paths around obstacles, refusals with reasons."""

import time

from conftest import URDF_DIR
import ik_node
from ik_node.motion.goal_search import DIRECT, plan_goal, PLANNED, REFUSED
from ik_node.motion.planner import _repair, escape_contact, path_touches, plan_path
import numpy as np
from numpy.testing import assert_allclose
import pytest

FLOOR = ik_node.HalfSpace(normal=(0, 0, 1), offset=0.0, name='floor')
# Start and goal of the 4-joint collision test arm, and a box on the straight joint path
# between them (at the tool of the joint-space midpoint).
Q_A = np.array([2.35, 0.426, -0.161, 1.093])
Q_B = np.array([-2.818, 1.035, -0.704, -1.637])


@pytest.fixture(scope='module')
def arm() -> ik_node.Chain:
    return ik_node.Chain.from_urdf(URDF_DIR / 'collision_arm.urdf', 'base_link', 'tip')


@pytest.fixture(scope='module')
def world(arm) -> list:
    T = np.eye(4)
    T[:3, 3] = arm.fk(0.5 * (Q_A + Q_B))[:3, 3]
    return [FLOOR, ik_node.Box(pose=T, size=(0.08, 0.08, 0.08), name='box')]


def test_a_blocked_straight_path_is_planned_around_and_every_edge_is_free(arm, world):
    assert not arm.collisions(Q_A, world) and not arm.collisions(Q_B, world)
    assert arm.path_collides(Q_A, Q_B, 0.05, world)
    # The shortcuts run while the budget lasts: a budget no loaded machine uses up, so
    # that the last assertion judges the shortcuts, not the machine's load.
    path = plan_path(arm, Q_A, Q_B, world, timeout=30.0)
    assert path.found, path.reason
    assert_allclose(path.waypoints[0], Q_A)
    assert_allclose(path.waypoints[-1], Q_B)
    assert path_touches(arm, path.waypoints, world) == ''
    for a, b in zip(path.waypoints[:-1], path.waypoints[1:]):
        assert not arm.path_collides(a, b, 0.05, world)
    # Shortcut: no waypoint can be left out (the arm stops at each one).
    for a, c in zip(path.waypoints[:-2], path.waypoints[2:]):
        assert arm.path_collides(a, c, 0.05, world)
    assert np.all(path.waypoints >= arm.lower) and np.all(path.waypoints <= arm.upper)


def test_a_free_straight_path_is_returned_as_it_is(arm):
    path = plan_path(arm, Q_A, Q_B, [FLOOR], timeout=0.5)
    assert path.found and path.waypoints.shape == (2, 4) and path.checks == 1


def test_a_goal_in_contact_or_unreachable_in_time_is_refused_with_the_reason(arm, world):
    inside = Q_A.copy()
    inside[1] = 2.4     # folded down into the floor
    assert arm.collisions(inside, world)
    refused = plan_path(arm, Q_A, inside, world, timeout=0.2)
    assert not refused.found and 'the goal is in contact' in refused.reason
    # A path exists (see above), but not without time to look for it.
    hurried = plan_path(arm, Q_A, Q_B, world, timeout=0.0)
    assert not hurried.found and 'no collision-free path found in 0 ms' in hurried.reason


def test_an_edge_repaired_toward_a_waypoint_in_contact_fails_at_once(arm, world):
    # Given no valid goal state, OMPL's RRT-Connect waits for one until its timeout in native
    # code that holds the GIL (the node's control thread, which needs it, stopped for 65 ms).
    inside = Q_A.copy()
    inside[1] = 2.4     # folded down into the floor
    assert arm.collisions(inside, world)
    t0 = time.perf_counter()
    repaired = _repair(arm, np.array([Q_A, inside]), world, t0 + 10.0, 0, [0])
    assert repaired is None and time.perf_counter() - t0 < 2.0


def test_an_arm_in_contact_backs_out_along_rising_clearance(arm):
    tool = arm.fk(Q_A)[:3, 3]
    world = [FLOOR, ik_node.Sphere(center=tool + [0.0, 0.0, 0.03], radius=0.04, name='ball')]
    assert arm.collisions(Q_A, world)
    out = escape_contact(arm, Q_A, world)
    assert out is not None and not arm.collisions(out[-1], world)
    depth = [-min(arm.min_distance(w, world).distance, 0.0) for w in out]
    assert depth[-1] == 0.0 and depth[0] > 0.0
    assert max(depth[1:]) <= depth[0]
    # A path that starts in contact may leave it, never go back into it.
    assert path_touches(arm, out, world) == ''
    assert 'would touch ball' in path_touches(arm, out[[-1, 0]], world)
    assert 'would go deeper into ball' in path_touches(arm, out[[1, 0]], world)
    planned = plan_path(arm, Q_A, Q_B, world, timeout=1.0)
    assert planned.found and path_touches(arm, planned.waypoints, world) == ''


def test_plan_goal_takes_the_nearest_free_answer_and_plans_when_blocked(arm, world):
    # Search budgets of 2 s, so that attempts decide: in 50 ms a test worker beside two
    # others on 2 cores made 2 attempts and found no answer.
    direct = plan_goal(arm, arm.fk(Q_B), Q_A, 'dls', {}, [FLOOR], 2.0, 0.5)
    assert direct.kind == DIRECT and direct.reason == ''
    assert not arm.path_collides(direct.waypoints[0], direct.waypoints[-1], 0.05, [FLOOR])
    reached = arm.fk(direct.result.q)
    assert np.linalg.norm(reached[:3, 3] - arm.fk(Q_B)[:3, 3]) < 1e-4
    around = plan_goal(arm, arm.fk(Q_B), Q_A, 'dls', {}, world, 2.0, 2.0)
    assert around.kind in (DIRECT, PLANNED), around.reason
    assert path_touches(arm, around.waypoints, world) == ''
    assert not arm.collisions(around.result.q, world)


def test_plan_goal_refuses_a_target_no_collision_free_answer_reaches(arm, world):
    far = plan_goal(arm, [5.0, 0.0, 1.0], Q_A, 'dls', {}, world, 0.02, 0.1)
    assert far.kind == REFUSED and 'out of reach' in far.reason and far.waypoints is None
    tool = arm.fk(Q_B)[:3, 3]
    blocker = world + [ik_node.Sphere(center=tool, radius=0.15, name='blocker')]
    blocked = plan_goal(arm, tool, Q_A, 'dls', {}, blocker, 0.02, 0.1)
    assert blocked.kind == REFUSED and 'no collision-free answer' in blocked.reason


def test_one_query_plans_to_whichever_answer_it_reaches(arm, world):
    inside = Q_A.copy()
    inside[1] = 2.4     # folded down into the floor: left out, not a reason to refuse
    planned = plan_path(arm, Q_A, np.array([inside, Q_B]), world, timeout=2.0)
    assert planned.found and planned.goal == 1, planned.reason
    assert_allclose(planned.waypoints[-1], Q_B)
    assert path_touches(arm, planned.waypoints, world) == ''
    both = plan_path(arm, Q_A, np.array([inside, inside]), world, timeout=0.2)
    assert not both.found and 'the goal is in contact' in both.reason and both.goal == -1


def test_answers_keep_the_arms_turn_of_joints_with_more_than_a_turn_of_range():
    """Answers from random starts too: the same pose, not a turn of 2 pi away from the arm."""
    from ik_node.motion.goal_search import _Answers
    demo = ik_node.Chain.from_urdf(ik_node.share_path(), 'base_link', 'tool0')
    wide = np.flatnonzero(demo.wide_revolute)
    assert wide.size >= 3
    rng = np.random.default_rng(4)
    q_start = np.array([0.0, -1.2, 1.4, -1.6, -1.5, 0.0])
    options = {'avoid_collisions': True, 'obstacles': [FLOOR], 'max_attempts': 1000}
    answers = 0
    while answers < 12:
        q_goal = demo.random_q(rng)
        if demo.collisions(q_goal, [FLOOR]):
            continue
        found = _Answers(demo, demo.fk(q_goal), q_start, 'dls', options,
                         time.perf_counter() + 0.05)
        found.first()
        found.more()
        answers += len(found.found)
        for r in found.found:
            q = r.q
            for j in wide:
                # No other image of the same angle (2 pi apart, within the limits) is nearer.
                for image in (q[j] - 2 * np.pi, q[j] + 2 * np.pi):
                    if demo.lower[j] <= image <= demo.upper[j]:
                        assert abs(q[j] - q_start[j]) <= abs(image - q_start[j]) + 1e-9, (j, q)


def test_planning_rounds_add_each_answer_a_turn_the_other_way_within_the_limits():
    from ik_node.motion.goal_search import _plan_rounds
    from ik_node.result import IKResult
    demo = ik_node.Chain.from_urdf(ik_node.share_path(), 'base_link', 'tool0')
    q_start = np.array([0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0])
    answer = np.array([4.5, -2.0, 0.4, -0.9, -1.5, -0.6])     # base beyond +pi: turn -2 pi
    found = [IKResult(q=answer, success=True, position_error=0.0, orientation_error=0.0,
                      iterations=1, method='dls')]
    rounds = _plan_rounds(demo, q_start, found, None)
    assert_allclose(rounds[0][0], answer[None, :])
    wide = set(np.flatnonzero(demo.wide_revolute))
    turned = [goals for goals, _ in rounds[1:]]
    assert len(turned) == len(wide)
    for goals in turned:
        for q in goals:
            moved = np.flatnonzero(np.abs(q - answer) > 1e-9)
            assert len(moved) == 1 and moved[0] in wide
            assert_allclose(abs(q[moved[0]] - answer[moved[0]]), 2 * np.pi)
            assert np.all(q >= demo.lower) and np.all(q <= demo.upper)
            assert_allclose(demo.fk(q), demo.fk(answer), atol=1e-9)    # the same pose
    # The base's turn the other way (4.5 - 2 pi, nearest the start) comes first.
    assert_allclose(turned[0][0][0], answer[0] - 2 * np.pi)
