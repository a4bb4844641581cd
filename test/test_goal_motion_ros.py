# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Goals on the demo arm, as real processes: sim_arm executes every command at once.

A goal behind a sphere (its straight joint path blocked) is reached along a planned path; a
goal whose answer on the arm's own branch is blocked is reached on another branch; a sphere
appearing on the path mid-motion, beyond the braking distance, stops the arm within its limits
and the node plans again; one inside the braking distance gets the bounded emergency stop, told
as an ERROR with its figures; a goal whose every answer is blocked is refused before the arm
moves. Every measured state is checked for contact, the command stream for velocity,
acceleration and jerk against the node's declared limits (divided differences at the stamps).
"""

from demo_rig import (assert_never_in_contact, assert_within_limits, DEMO_START, DEMO_URDF,
                      FLOOR, start)
from ik_node import Sphere
from ik_node.motion.trajectory import KinematicLimits, LineSegment
from ik_node.ros.parameter_table import defaults, IK_NODE_PARAMETERS, limits_from_values
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


# The sphere tests: the node's straight line DEMO_START -> Q_BEHIND under its limits, where
# the node will be when a marker published now reaches it (from the arm's newest reading and
# its stamp) and where it would stop from there. A ball at the tool's place at fraction s of
# the line is first touched (by the wrist) at about s - 0.27.
SPAN = Q_BEHIND - DEMO_START
BALL_PLACES = np.round(np.arange(0.5, 0.901, 0.005), 3)


def fraction(q: np.ndarray) -> float:
    """Return how far along DEMO_START -> Q_BEHIND ``q`` is (0 to 1), by projection."""
    return float(np.dot(q - DEMO_START, SPAN) / np.dot(SPAN, SPAN))


def node_limits(demo, **params) -> KinematicLimits:
    """Return the node's command limits with ``params`` (the others at their defaults)."""
    lim = limits_from_values(demo, {**defaults(IK_NODE_PARAMETERS), **params})
    return KinematicLimits.of(lim.velocity, lim.acceleration, lim.jerk)


def ball_at(demo, s: float) -> Sphere:
    return Sphere(center=tuple(demo.fk(DEMO_START + s * SPAN)[:3, 3]), radius=0.05, name='ball')


def first_contacts(demo) -> list[tuple[float, float]]:
    """Return (s, fraction at which the line first touches ball_at(s)) for each BALL_PLACES."""
    fractions = np.linspace(0.0, 1.0, 401)
    found = []
    for s in BALL_PLACES:
        world = [FLOOR, ball_at(demo, s)]
        hit = next(f for f in fractions if demo.collisions(DEMO_START + f * SPAN, world))
        found.append((float(s), float(hit)))
    return found


def newest_fraction(probe) -> float:
    """Return where on the line the newest of the last few readings (by stamp) is."""
    return fraction(max(probe.arm_stamped[-5:], key=lambda e: e[0])[1])


def line_at_the_node(probe, demo, limits: KinematicLimits, allowance: float
                     ) -> tuple[LineSegment, float]:
    """
    Return the node's motion on the line from the arm's newest state, and when a marker gets there.

    The state on the line (where, how fast, how its speed changes) from a parabola through the
    five newest commands by their stamps: exact samples of the node's motion, which the arm
    executes at once (its own readings, 100 Hz unsynchronised with the commands, show each
    command up to a period late: too rough for a speed). The node's motion from it is the
    time-optimal one to the end of the line under ``limits`` (also after a pause that
    restarted it). The marker is allowed ``allowance`` [s] after now to reach the node.
    """
    stamps, q = probe.commands_by_stamp(demo, max(0, len(probe.commands) - 100))
    # The arm follows: its newest reading is the command of its stamp (a reading can come
    # after newer commands: the probe takes what is queued, in no order between topics).
    when, newest = max(probe.arm_stamped, key=lambda e: e[0])
    k = int(np.searchsorted(stamps, when * 1e-9, side='right')) - 1
    assert k >= 0 and np.max(np.abs(newest - q[k])) < 0.05, (newest, q[k], when, stamps[-1])
    ts, ps = stamps[-5:] - stamps[-1], [fraction(row) for row in q[-5:]]
    c2, c1, c0 = np.polyfit(ts, ps, 2)
    share = np.abs(SPAN)
    v_max, a_max = (float(np.min(lim / share)) for lim in limits[:2])
    start = (float(c0), float(np.clip(c1, 0.0, v_max)), float(np.clip(2.0 * c2, -a_max, a_max)))
    line = LineSegment(DEMO_START, Q_BEHIND, limits, float(stamps[-1]), start)
    return line, probe.now_ns() * 1e-9 + allowance


def sphere_run(procs, probe, demo, pick, params: dict, progress: float, allowance: float):
    """
    Go toward Q_BEHIND; past ``progress`` place the ball ``pick(line, t, contacts)`` chooses.

    line, t: the node's motion on the line and when the marker reaches it
    (:func:`line_at_the_node`, the marker allowed ``allowance`` [s]). ``pick`` returns None
    when no place is left: the probe saw the progress mark too late (a starved test process);
    the arm then goes back to DEMO_START and the run starts again (three tries).

    Returns (world, contact fraction, index of the first command, of the first reading, the
    stop status, the status that answered the target again).
    """
    limits = node_limits(demo, **params)
    contacts = first_contacts(demo)         # before the motion: it takes a while
    start(procs, probe, demo, *(f'{k}:={v}' for k, v in params.items()))
    obstacles = probe.node.create_publisher(MarkerArray, 'ik_obstacles', 10)
    assert probe.spin_until(lambda: obstacles.get_subscription_count() > 0, 20.0)
    late = []
    for _ in range(3):
        n_cmd, n_arm, n_status = len(probe.commands), len(probe.arm), len(probe.statuses)
        status = probe.answer_to(lambda: probe.publish_pose(demo.fk(Q_BEHIND)))
        assert status_values(status)['motion'] == 'direct', status_values(status)
        assert probe.spin_until(lambda: newest_fraction(probe) > progress, 20.0, period=0.002)
        line, t = line_at_the_node(probe, demo, limits, allowance)
        picked = pick(line, t, contacts)
        if picked is not None:
            break
        late.append(fraction(line.at(t).q))
        # Back to the start, at rest, for another try.
        probe.answer_to(lambda: probe.publish_pose(demo.fk(DEMO_START)))
        assert probe.spin_until(lambda: probe.arm_reached(demo.fk(DEMO_START)), 30.0), \
            procs.logs()
        probe.settled(timeout=10.0)
    else:
        raise AssertionError(f'no place for the ball left in three tries: the probe saw the '
                             f'progress mark {progress} at {late}')
    s, contact = picked
    ball = ball_at(demo, s)
    world = [FLOOR, ball]
    assert not demo.collisions(max(probe.arm_stamped, key=lambda e: e[0])[1], world)

    def answered_again() -> bool:
        return any(status_values(s).get('motion') in ('planned', 'refused')
                   for s in probe.statuses[n_status:])

    assert probe.spin_until(answered_again, 30.0,
                            lambda: obstacles.publish(MarkerArray(markers=[sphere_marker(ball)]))
                            ), procs.logs()
    stops = [s for s in probe.statuses[n_status:] if 'stop' in status_values(s)]
    assert len(stops) == 1, [s.message for s in stops]
    again = next(s for s in probe.statuses[n_status:]
                 if status_values(s).get('motion') in ('planned', 'refused'))
    return world, contact, n_cmd, n_arm, stops[0], again


def rest_index(t: np.ndarray, q: np.ndarray) -> int:
    """
    Return the index of the command at which the arm, started at ``q[0]``, came to rest.

    The first command the next one repeats (the node held it), or, where a new motion began
    in the cycle the stop ended, the command at which the speed between commands (from their
    stamps, the times they were sampled for) is least before it grows again. The search starts
    once the arm is under way (half its top speed), past the speed-up from ``q[0]``.
    """
    step = np.linalg.norm(np.diff(q, axis=0), axis=1)
    speed = step / np.diff(t)
    top = float(speed.max(initial=0.0))
    assert top > 0.0, 'the commands never moved'
    start = int(np.argmax(speed >= 0.5 * top))
    for k in range(start, step.shape[0]):
        if step[k] == 0.0:
            return k
        if speed[k] < 0.05 * top and k + 1 < step.shape[0] and speed[k + 1] > speed[k]:
            return k
    raise AssertionError(f'the commands never came to rest (speeds {speed[start:].tolist()})')


def assert_stopped_on_the_line_short_of(demo, probe, n_cmd: int, world, contact: float
                                        ) -> np.ndarray:
    """Check that the commands came to rest on the line before ``contact``; return there."""
    def rest() -> np.ndarray | None:
        t, q = probe.commands_by_stamp(demo, n_cmd)
        moving = np.flatnonzero(np.any(q != DEMO_START, axis=1))
        assert moving.size
        try:
            return q[moving[0] + rest_index(t[moving[0]:], q[moving[0]:])]
        except AssertionError:
            return None         # commands still in flight when the new answer came

    assert probe.spin_until(lambda: rest() is not None, 10.0), rest_index(
        *probe.commands_by_stamp(demo, n_cmd))
    q_rest = rest()
    assert q_rest is not None
    f = fraction(q_rest)
    assert 0.0 < f < contact, (f, contact)
    # On the line (the IK answer is Q_BEHIND to some 1e-5 rad).
    assert np.max(np.abs(q_rest - (DEMO_START + f * SPAN))) < 1e-4
    assert not demo.collisions(q_rest, world)
    return q_rest


def assert_reached_or_refused(demo, probe, procs, again) -> None:
    """Planned again: the arm reaches the goal; refused: it says why and stays short."""
    T = demo.fk(Q_BEHIND)
    if status_values(again)['motion'] == 'planned':
        assert probe.spin_until(lambda: probe.arm_reached(T), 30.0), procs.logs()
    else:
        assert again.level == DiagnosticStatus.ERROR and 'refused' in again.message
        probe.settled(timeout=10.0)
        assert pose_error(T, demo.fk(probe.arm[-1][1]))[0] > 1e-3


# Slow enough that a probe starved for 0.6 s (3 workers on 2 cores) still finds a ball to
# place: at 0.25 the arm was past every place after a 0.25 s delay (a run of the ROS files).
SLOW = {'velocity_scale': 0.15}


def test_a_sphere_appearing_on_the_path_stops_the_arm_and_the_node_plans_again(rig, demo):
    """Beyond the braking distance: a stop within the limits, short of the sphere."""
    procs, probe = rig

    def beyond_the_braking_distance(line, t, contacts):
        # Where a stop within the limits would end, the marker allowed 0.3 s to arrive; the
        # arm first touches the sphere a fifth of the line beyond that.
        reach = fraction(line.stopping(t).end)
        fits = [(s, c) for s, c in contacts if c > reach + 0.2]
        return fits[0] if fits else None

    world, contact, n_cmd, n_arm, stop, again = sphere_run(
        procs, probe, demo, beyond_the_braking_distance, SLOW, 0.03, 0.3)
    values = status_values(stop)
    assert stop.level == DiagnosticStatus.WARN and values['stop'] == 'within limits', \
        stop.message
    assert 'stopped within the limits' in stop.message
    assert (float(values['stop_travel']) == float(values['braking_travel'])
            < float(values['contact_travel']))
    assert 'stopped within the limits' in status_values(again)['reason']
    assert_stopped_on_the_line_short_of(demo, probe, n_cmd, world, contact)
    assert_reached_or_refused(demo, probe, procs, again)
    assert_never_in_contact(demo, probe, world, n_arm)
    assert_within_limits(demo, probe, n_cmd, **SLOW)


# Gentle enough that a probe 0.35 s late past the progress mark still finds a place for the
# ball (at 0.2: 0.25 s, short of a starved probe's delay in a run of the ROS files).
GENTLE = {'acceleration_scale': 0.1, 'emergency_stop_scale': 4.0}


def test_a_sphere_inside_the_braking_distance_gets_a_bounded_emergency_stop_told_as_such(
        rig, demo):
    """No stop within the limits avoids it: the gentlest clear one up to 4x, as an ERROR."""
    procs, probe = rig

    def inside_the_braking_distance(line, t, contacts):
        # Between where a stop at 4x the acceleration and jerk limits would end and where one
        # within them would, as near the latter as the places go: a marker that arrives
        # late still finds the 4x stop clear. (It cannot arrive before it is published.)
        within = fraction(line.stopping(t).end)
        emergency = fraction(line.stopping(t, 4.0).end)
        fits = [(s, c) for s, c in contacts if emergency + 0.02 < c < within - 0.03]
        return max(fits, key=lambda e: e[1]) if fits else None

    world, contact, n_cmd, n_arm, stop, again = sphere_run(
        procs, probe, demo, inside_the_braking_distance, GENTLE, 0.28, 0.0)
    values = status_values(stop)
    assert stop.level == DiagnosticStatus.ERROR and values['stop'] == 'emergency', stop.message
    scale = float(values['stop_scale'])
    assert 1.0 < scale <= 4.0 and f'emergency stop at {scale:.2f}x' in stop.message
    assert (float(values['stop_travel']) < float(values['contact_travel'])
            < float(values['braking_travel']))
    assert 'emergency stop at' in status_values(again)['reason']
    assert_stopped_on_the_line_short_of(demo, probe, n_cmd, world, contact)
    assert_reached_or_refused(demo, probe, procs, again)
    assert_never_in_contact(demo, probe, world, n_arm)
    # Over the limits (it had to be), by no more than the scale told.
    w = assert_within_limits(demo, probe, n_cmd, scale=scale, **GENTLE)
    assert w.max_acceleration_ratio * scale > 1.05, w.summary()


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
