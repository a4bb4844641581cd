# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Goals on the demo arm, as real processes: sim_arm executes every command at once.

A goal behind a sphere (its straight joint path blocked) is reached along a planned path; a
goal whose answer on the arm's own branch is blocked is reached on another branch; a sphere
appearing on the path mid-motion stops the arm within its limits and the node plans again;
a goal whose every answer is blocked is refused before the arm moves. Every
measured state is checked for contact, the command stream for velocity, acceleration and
jerk against the node's declared limits (divided differences at the stamps).
"""

from demo_rig import (assert_never_in_contact, assert_within_limits, DEMO_START, DEMO_URDF,
                      FLOOR, start)
from ik_node import Sphere
from ik_node.spatial.pose import pose_error
import numpy as np
import pytest
from ros_harness import status_values

rclpy = pytest.importorskip('rclpy')

from diagnostic_msgs.msg import DiagnosticStatus  # noqa: E402, I100
from visualization_msgs.msg import Marker, MarkerArray  # noqa: E402

# A goal whose straight joint path from the start passes through BALL (the tool at the
# path's middle), clear of it at both ends: found once by sampling, every IK answer of it
# then needs a planned path (checked below, not assumed).
Q_BEHIND = np.array([0.603, -1.926, 0.403, -0.862, -1.49, -0.607])
BALL = Sphere(center=(-0.28, -0.205, 0.74), radius=0.08, name='ball')
# A goal pose whose answer on the arm's own branch has its elbow inside ELBOW_BALL: only
# another IK branch reaches it.
Q_ELBOW = np.array([-0.006, -2.076, 0.594, -2.186, -1.187, -0.599])
ELBOW_BALL = Sphere(center=(0.206, -0.001, 0.461), radius=0.07, name='elbow_ball')


def sphere_marker(sphere: Sphere) -> Marker:
    marker = Marker(ns='test', id=1, type=Marker.SPHERE, action=Marker.ADD)
    marker.header.frame_id = 'base_link'
    p = marker.pose.position
    p.x, p.y, p.z = (float(v) for v in sphere.center)
    marker.pose.orientation.w = 1.0
    marker.scale.x = marker.scale.y = marker.scale.z = 2.0 * sphere.radius
    return marker


def test_a_goal_behind_a_sphere_is_reached_along_a_planned_path(rig, demo):
    procs, probe = rig
    world = [FLOOR, BALL]
    assert not demo.collisions(DEMO_START, world) and not demo.collisions(Q_BEHIND, world)
    assert demo.path_collides(DEMO_START, Q_BEHIND, 0.05, world)
    c, r = BALL.center, BALL.radius
    start(procs, probe, demo, f'obstacle_spheres:=[{c[0]}, {c[1]}, {c[2]}, {r}]')
    n_cmd, n_arm = len(probe.commands), len(probe.arm)
    T = demo.fk(Q_BEHIND)
    status = probe.answer_to(lambda: probe.publish_pose(T))
    assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()
    values = status_values(status)
    assert values['path'] == 'goal' and values['motion'] == 'planned', values
    assert int(values['waypoints']) > 2
    assert probe.spin_until(lambda: probe.arm_reached(T), 30.0), procs.logs()
    assert_never_in_contact(demo, probe, world, n_arm)
    assert_within_limits(demo, probe, n_cmd)


def test_a_goal_only_another_ik_branch_reaches_is_reached_on_it(rig, demo):
    procs, probe = rig
    world = [FLOOR, ELBOW_BALL]
    assert demo.collisions(Q_ELBOW, world) and not demo.collisions(DEMO_START, world)
    c, r = ELBOW_BALL.center, ELBOW_BALL.radius
    start(procs, probe, demo, f'obstacle_spheres:=[{c[0]}, {c[1]}, {c[2]}, {r}]')
    n_cmd, n_arm = len(probe.commands), len(probe.arm)
    T = demo.fk(Q_ELBOW)
    status = probe.answer_to(lambda: probe.publish_pose(T))
    assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()
    assert status_values(status)['motion'] in ('direct', 'planned')
    assert probe.spin_until(lambda: probe.arm_reached(T), 30.0), procs.logs()
    # The same pose, on another branch: far from the blocked answer in some joint.
    assert np.max(np.abs(probe.arm[-1][1] - Q_ELBOW)) > 0.5
    assert_never_in_contact(demo, probe, world, n_arm)
    assert_within_limits(demo, probe, n_cmd)


def test_a_sphere_appearing_on_the_path_stops_the_arm_and_the_node_plans_again(rig, demo):
    procs, probe = rig
    start(procs, probe, demo)
    n_cmd, n_arm, n_status = len(probe.commands), len(probe.arm), len(probe.statuses)
    T = demo.fk(Q_BEHIND)
    status = probe.answer_to(lambda: probe.publish_pose(T))
    assert status_values(status)['motion'] == 'direct', status_values(status)
    # Once the arm is on its way, a sphere appears where the tool will be at 80 %: farther
    # than the arm needs to stop within its limits.
    span = np.max(np.abs(Q_BEHIND - DEMO_START))

    def progress() -> float:
        return float(np.max(np.abs(probe.arm[-1][1] - DEMO_START))) / span

    assert probe.spin_until(lambda: progress() > 0.03, 20.0, period=0.005)
    ahead = demo.fk(DEMO_START + 0.8 * (Q_BEHIND - DEMO_START))[:3, 3]
    ball = Sphere(center=tuple(ahead), radius=0.05, name='ball')
    world = [FLOOR, ball]
    assert not demo.collisions(probe.arm[-1][1], world) and progress() < 0.3
    obstacles = probe.node.create_publisher(MarkerArray, 'ik_obstacles', 10)

    def answered_again() -> bool:
        return any(status_values(s).get('motion') in ('planned', 'refused')
                   for s in probe.statuses[n_status:])

    assert probe.spin_until(answered_again, 20.0,
                            lambda: obstacles.publish(MarkerArray(markers=[sphere_marker(ball)]))
                            ), procs.logs()
    again = next(s for s in probe.statuses[n_status:]
                 if status_values(s).get('motion') in ('planned', 'refused'))
    if status_values(again)['motion'] == 'planned':
        assert probe.spin_until(lambda: probe.arm_reached(T), 30.0), procs.logs()
    else:
        assert again.level == DiagnosticStatus.ERROR and 'refused' in again.message
        probe.settled(timeout=10.0)
        assert pose_error(T, demo.fk(probe.arm[-1][1]))[0] > 1e-3
    assert_never_in_contact(demo, probe, world, n_arm)
    assert_within_limits(demo, probe, n_cmd)


def test_a_goal_every_answer_of_which_is_blocked_is_refused_before_moving(rig, demo):
    procs, probe = rig
    T = demo.fk(Q_BEHIND)
    blocker = Sphere(center=tuple(T[:3, 3]), radius=0.12, name='blocker')
    c, r = blocker.center, blocker.radius
    start(procs, probe, demo, f'obstacle_spheres:=[{c[0]}, {c[1]}, {c[2]}, {r}]')
    n_arm = len(probe.arm)
    status = probe.answer_to(lambda: probe.publish_pose(T), refusal=True)
    assert status is not None and status.level == DiagnosticStatus.ERROR, procs.logs()
    assert 'refused before moving' in status.message and 'answer' in status.message
    assert status_values(status)['motion'] == 'refused'
    probe.spin_for(0.5)
    moved = [np.max(np.abs(q - DEMO_START)) for _, q in probe.arm[n_arm:]]
    assert not moved or max(moved) < 1e-9


def test_a_new_goal_mid_motion_blends_without_an_acceleration_jump(rig, demo):
    procs, probe = rig
    start(procs, probe, demo)
    n_cmd, n_arm = len(probe.commands), len(probe.arm)
    first = DEMO_START + np.array([0.9, -0.3, 0.4, 0.0, 0.6, 0.0])
    second = DEMO_START + np.array([-0.5, 0.2, -0.4, 0.3, 0.0, 0.8])
    for q in (first, second):
        assert not demo.collisions(q, [FLOOR])
    status = probe.answer_to(lambda: probe.publish_pose(demo.fk(first)))
    assert status_values(status)['motion'] == 'direct', status_values(status)
    assert probe.spin_until(
        lambda: np.max(np.abs(probe.arm[-1][1] - DEMO_START)) > 0.3, 20.0, period=0.005)
    T = demo.fk(second)
    status = probe.answer_to(lambda: probe.publish_pose(T))
    assert status.level == DiagnosticStatus.OK, status.message
    assert probe.spin_until(lambda: probe.arm_reached(T), 30.0), procs.logs()
    assert_never_in_contact(demo, probe, [FLOOR], n_arm)
    assert_within_limits(demo, probe, n_cmd)


def test_an_arm_started_in_contact_backs_out_and_reaches_a_goal(rig, demo):
    procs, probe = rig
    trapped = DEMO_START.copy()
    trapped[2] = 2.69          # the elbow folded until the wrist dips into the floor
    pairs = demo.collisions(trapped, [FLOOR])
    assert pairs and all('floor' in p for p in pairs)
    procs.start('sim_arm', f'urdf_file:={DEMO_URDF}', f'initial_positions:={trapped.tolist()}',
                'follow:=instant')
    procs.start('ik_node', f'urdf_file:={DEMO_URDF}')
    assert probe.spin_until(lambda: len(probe.arm) > 0, 20.0), procs.logs()
    T = demo.fk(DEMO_START)
    status = probe.answer_to(lambda: probe.publish_pose(T))
    assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()
    assert probe.spin_until(lambda: probe.arm_reached(T), 30.0), procs.logs()
    # Out of the floor without ever going deeper, then clear.
    depth = [max(-demo.min_distance(q, [FLOOR]).distance, 0.0)
             for _, q in sorted(probe.arm_stamped, key=lambda e: e[0])
             if demo.collisions(q, [FLOOR])]
    assert depth and all(b <= a + 1e-9 for a, b in zip(depth, depth[1:])), depth
    assert not demo.collisions(probe.arm[-1][1], [FLOOR])
    assert_within_limits(demo, probe, 0)
