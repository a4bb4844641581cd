# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
ROS messages <-> numpy arrays, and the status and marker messages of the IK node.

Plain functions, no node state: the callbacks of :mod:`ik_node.ros.node` call them to turn a
message into arrays for the core and the core's arrays back into messages. Poses are (4, 4)
homogeneous matrices [m], joint positions (n,) arrays [rad or m], times seconds or
``builtin_interfaces`` messages.
"""

import array
from typing import Any, Mapping, Sequence

from builtin_interfaces.msg import Duration, Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Point, Pose, Quaternion, Transform
from ik_node.spatial.pose import pose_from_xyz_quat, quat_xyzw_from_matrix
import numpy as np
from numpy.typing import ArrayLike
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
from visualization_msgs.msg import Marker, MarkerArray

__all__ = ['pose_to_matrix', 'matrix_to_pose', 'transform_to_matrix', 'point_to_array',
           'stamp_ns', 'stamp_text', 'stamp_from_ns', 'duration', 'joint_state', 'float64_values',
           'joint_trajectory', 'float64_array', 'status_array', 'answer_values', 'held_values',
           'motion_values', 'target_markers', 'marker_obstacle', 'LEVELS']

# DiagnosticStatus levels by name (the message constants are bytes).
LEVELS = {'OK': DiagnosticStatus.OK, 'WARN': DiagnosticStatus.WARN,
          'ERROR': DiagnosticStatus.ERROR}


def pose_to_matrix(pose: Pose) -> np.ndarray:
    """
    Return the (4, 4) matrix of a geometry_msgs/Pose.

    Raises IKInputError for a non-finite position or quaternion, or a quaternion of norm ~0
    (an unnormalised quaternion is normalised, as ROS tools do).
    """
    p, o = pose.position, pose.orientation
    return pose_from_xyz_quat((p.x, p.y, p.z), (o.x, o.y, o.z, o.w))


def matrix_to_pose(T: ArrayLike) -> Pose:
    """Return the geometry_msgs/Pose of a (4, 4) matrix."""
    T = np.asarray(T, dtype=float)
    x, y, z, w = (float(v) for v in quat_xyzw_from_matrix(T))
    return Pose(position=Point(x=float(T[0, 3]), y=float(T[1, 3]), z=float(T[2, 3])),
                orientation=Quaternion(x=x, y=y, z=z, w=w))


def transform_to_matrix(transform: Transform) -> np.ndarray:
    """Return the (4, 4) matrix of a geometry_msgs/Transform (as tf2 lookups give it)."""
    t, r = transform.translation, transform.rotation
    return pose_from_xyz_quat((t.x, t.y, t.z), (r.x, r.y, r.z, r.w))


def point_to_array(point: Point) -> np.ndarray:
    """Return a geometry_msgs/Point as a (3,) array [m]."""
    return np.array([point.x, point.y, point.z], dtype=float)


def stamp_ns(stamp: Time) -> int:
    """Return a stamp as integer nanoseconds (0 for the zero stamp)."""
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


def stamp_from_ns(ns: int) -> Time:
    """Return the builtin_interfaces/Time of ``ns`` nanoseconds."""
    return Time(sec=int(ns // 1_000_000_000), nanosec=int(ns % 1_000_000_000))


def stamp_text(stamp: Time) -> str:
    """Return a stamp as 'sec.nanosec' text (nine digits after the point)."""
    return f'{stamp.sec}.{stamp.nanosec:09d}'


def duration(seconds: float) -> Duration:
    """Return the builtin_interfaces/Duration of ``seconds`` (>= 0)."""
    ns = int(round(max(seconds, 0.0) * 1e9))
    return Duration(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def joint_state(names: Sequence[str], q: ArrayLike, stamp: Time) -> JointState:
    """Return a sensor_msgs/JointState with positions ``q`` (n,) for ``names``."""
    msg = JointState(name=list(names), position=float64_values(q))
    msg.header.stamp = stamp
    return msg


def float64_values(q: ArrayLike) -> array.array:
    """
    Return ``q`` as array('d'): a message's float64[] field takes it without a per-item check.

    (A list of floats is checked item by item in Python by the generated setter: at a kHz
    that is a sizeable share of a control cycle.)
    """
    out = array.array('d')
    out.frombytes(np.ascontiguousarray(q, dtype=np.float64).reshape(-1).tobytes())
    return out


def joint_trajectory(names: Sequence[str], points: Sequence[tuple], stamp: Time | None = None
                     ) -> JointTrajectory:
    """
    Return a trajectory_msgs/JointTrajectory through ``points`` (t [s], q, v, a), from ``stamp``.

    Each point carries positions, velocities and accelerations (joint_trajectory_controller
    then interpolates with quintic splines); ``t`` is the time from the header stamp.
    """
    def floats(a: ArrayLike) -> list[float]:
        return [float(v) for v in np.asarray(a).reshape(-1)]

    msg = JointTrajectory(joint_names=list(names), points=[
        JointTrajectoryPoint(positions=floats(q), velocities=floats(v),
                             accelerations=floats(a), time_from_start=duration(t))
        for t, q, v, a in points])
    if stamp is not None:
        msg.header.stamp = stamp
    return msg


def float64_array(q: ArrayLike) -> Float64MultiArray:
    """Return ``q`` as std_msgs/Float64MultiArray (forward_command_controller's input)."""
    return Float64MultiArray(data=[float(v) for v in np.asarray(q).reshape(-1)])


def _text(value: Any) -> str:
    if isinstance(value, float):
        return f'{value:.6g}'
    return str(value)


def status_array(name: str, level: str, message: str, values: Mapping[str, Any],
                 stamp: Time, hardware_id: str = '') -> DiagnosticArray:
    """
    Return a diagnostic_msgs/DiagnosticArray with one status.

    level: 'OK', 'WARN' or 'ERROR'. values: key -> value (floats as 6 significant digits,
    the rest with ``str``; booleans read 'True'/'False').
    """
    status = DiagnosticStatus(level=LEVELS[level], name=name, message=message,
                              hardware_id=hardware_id,
                              values=[KeyValue(key=k, value=_text(v)) for k, v in values.items()])
    msg = DiagnosticArray(status=[status])
    msg.header.stamp = stamp
    return msg


def answer_values(result: Any, seed_source: str, solve_time: float, header: Any,
                  clamped: str | None, command_stamp: Time | None) -> dict[str, Any]:
    """
    Return the key/values of the status that answers one target.

    result: the IKResult; seed_source: where the solve started ('joint_states', ...);
    solve_time [s]; header: the target's header; clamped: what the command step clamped
    (None when no command answered at once); command_stamp: that command's stamp, or None.
    ``reachable`` is False only when the solver found the target out of reach (a target it
    merely did not converge on may be reachable).
    """
    values = {
        'success': bool(result.success),
        'reachable': result.status != 'out_of_reach',
        'status': result.status,
        'position_error': float(result.position_error),
        'orientation_error': float(result.orientation_error),
        'iterations': int(result.iterations),
        'attempts': int(result.attempts),
        'solve_time_ms': 1e3 * solve_time,
        'solver': result.method,
        'seed': seed_source,
        'target_frame': header.frame_id,
        'target_stamp': stamp_text(header.stamp),
    }
    if clamped is not None:
        values['clamped'] = clamped or 'none'
    if command_stamp is not None:
        values['command_stamp'] = stamp_text(command_stamp)
    return values


def motion_values(outcome: Any) -> dict[str, Any]:
    """Return the status values of how a target is reached (a SolveOutcome's motion)."""
    values: dict[str, Any] = {'path': outcome.path, 'motion': outcome.motion}
    if outcome.path == 'goal':
        values.update(goal_search_ms=1e3 * outcome.search_time,
                      planning_ms=1e3 * outcome.plan_time, waypoints=int(outcome.waypoints))
    if outcome.reason:
        values['reason'] = outcome.reason
    return values


def held_values(command: Mapping[str, float], stamp_ns: int) -> dict[str, Any]:
    """
    Return the key/values of a status that tells where the arm was last commanded.

    command: joint name -> position of the last command sent; stamp_ns: its stamp [ns]
    (0: none was sent). One key per joint, ``command.<name>``, with every digit of the
    value (``repr``), so that an operator or a restarted driver can hold it exactly.
    """
    values: dict[str, Any] = {'feedback_lost': True,
                              'command_stamp': stamp_text(stamp_from_ns(stamp_ns))
                              if stamp_ns else 'none'}
    values.update((f'command.{name}', repr(float(v))) for name, v in command.items())
    return values


def marker_obstacle(marker: Marker) -> Any:
    """
    Return the ik_node.collision shape of a SPHERE, CUBE or CYLINDER marker (its own frame).

    Named '<ns>/<id>'. Raises ValueError for another marker type, IKInputError for a bad
    size or pose (NaN, zero, negative).
    """
    from ik_node.collision import Box, Cylinder, Sphere
    name = f'{marker.ns}/{marker.id}'
    T = pose_to_matrix(marker.pose)
    s = marker.scale
    if marker.type == Marker.SPHERE:
        if not (s.x == s.y == s.z):
            raise ValueError(f'marker {name}: only round spheres (scale x = y = z) are '
                             'obstacles')
        return Sphere(center=T[:3, 3], radius=0.5 * s.x, name=name)
    if marker.type == Marker.CUBE:
        return Box(pose=T, size=(s.x, s.y, s.z), name=name)
    if marker.type == Marker.CYLINDER:
        if s.x != s.y:
            raise ValueError(f'marker {name}: only round cylinders (scale x = y) are obstacles')
        return Cylinder(pose=T, radius=0.5 * s.x, length=s.z, name=name)
    raise ValueError(f'marker {name}: type {marker.type} is not an obstacle shape (SPHERE, '
                     'CUBE or CYLINDER)')


def target_markers(frame: str, T_target: ArrayLike, T_reached: ArrayLike, success: bool,
                   stamp: Time) -> MarkerArray:
    """
    Return markers of a target and the reached tip pose: a sphere and an x-axis arrow each.

    Green: the target. Blue: the reached pose when the target was met, orange when not.
    A (3,) target is drawn at that position with the identity orientation; a tree's
    (t, 4, 4) target and reached poses give a pair per tip (ids 2 i, 2 i + 1).
    """
    T_target = np.asarray(T_target, dtype=float)
    if T_target.shape == (3,):
        position = T_target
        T_target = np.eye(4)
        T_target[:3, 3] = position
    reached_color = (0.1, 0.4, 1.0) if success else (1.0, 0.5, 0.0)
    markers = []
    reached = np.asarray(T_reached, dtype=float).reshape(-1, 4, 4)
    pairs = zip(T_target.reshape(-1, 4, 4), reached)
    for i, (T_goal, T_got) in enumerate(pairs):
        for ns, T, color in (('target', T_goal, (0.1, 0.9, 0.2)),
                             ('reached', T_got, reached_color)):
            markers.extend(_pose_markers(frame, ns, 2 * i, matrix_to_pose(T), color, stamp))
    return MarkerArray(markers=markers)


def _pose_markers(frame: str, ns: str, first_id: int, pose: Pose, color: tuple,
                  stamp: Time) -> list:
    """Return a sphere (id ``first_id``) and an x-axis arrow (the next id) at ``pose``."""
    markers = []
    for mid, mtype, scale in ((first_id, Marker.SPHERE, (0.03, 0.03, 0.03)),
                              (first_id + 1, Marker.ARROW, (0.1, 0.01, 0.01))):
        m = Marker(ns=ns, id=mid, type=mtype, action=Marker.ADD, pose=pose)
        m.header.frame_id = frame
        m.header.stamp = stamp
        m.scale.x, m.scale.y, m.scale.z = scale
        m.color.r, m.color.g, m.color.b = color
        m.color.a = 0.8
        markers.append(m)
    return markers
