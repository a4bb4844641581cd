# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Parameters of the ik_node and sim_arm nodes: names, defaults, documentation, validation.

One table per node (:data:`IK_NODE_PARAMETERS`, :data:`SIM_ARM_PARAMETERS`) is the single
source of truth: the nodes declare their ROS parameters from it (description included), the
shipped YAML files mirror it (a test checks that), and :func:`check_value` /
:func:`check_values` give the reason a value is refused, both at start-up and on
``ros2 param set``. Nothing here imports rclpy.
"""

from dataclasses import dataclass
import math
import os
from typing import Any, Callable, Mapping

from ik_node.motion import limits
from ik_node.motion.limits import JointLimits
from ik_node.ros import topics
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['ParamSpec', 'IK_NODE_PARAMETERS', 'SIM_ARM_PARAMETERS', 'OUTPUT_MODES',
           'MODEL_PARAMETERS', 'TOPIC_PARAMETERS', 'JACOBIAN_METHODS', 'check_value',
           'check_values', 'defaults', 'solver_options', 'topic_conflict', 'velocity_limits',
           'limits_from_values', 'command_velocity_limits', 'JOY_MAPPINGS']

OUTPUT_MODES = ('immediate', 'timer')
GOAL_POSE_MODES = ('planar', 'full')

Check = Callable[[Any], 'str | None']


@dataclass(frozen=True)
class ParamSpec:
    """One parameter: its default fixes its type (``kind`` for the empty-list case)."""

    name: str
    default: Any
    description: str
    check: Check | None = None
    kind: str = ''      # 'bool', 'int', 'double', 'string', 'double_array', 'string_array'

    @property
    def type_name(self) -> str:
        """Return the parameter type as a ROS type name suffix ('double', 'string', ...)."""
        if self.kind:
            return self.kind
        d = self.default
        if isinstance(d, bool):
            return 'bool'
        if isinstance(d, int):
            return 'int'
        if isinstance(d, float):
            return 'double'
        if isinstance(d, str):
            return 'string'
        raise TypeError(f'parameter {self.name}: give kind for default {d!r}')


def _positive(value) -> str | None:
    if not (math.isfinite(value) and value > 0.0):
        return f'must be a finite number > 0, got {value}'
    return None


def _in_range(lo: float, hi: float) -> Check:
    def check(value) -> str | None:
        if not (math.isfinite(value) and lo <= value <= hi):
            return f'must be in [{lo:g}, {hi:g}], got {value}'
        return None
    return check


def _at_least(lo: int, hi: int) -> Check:
    def check(value) -> str | None:
        if not lo <= value <= hi:
            return f'must be >= {lo} and <= {hi}, got {value}'
        return None
    return check


def _non_negative_at_most(hi: float) -> Check:
    def check(value) -> str | None:
        if not (math.isfinite(value) and 0.0 <= value <= hi):
            return f'must be a finite number >= 0 and <= {hi:g}, got {value}'
        return None
    return check


def _positive_at_most(hi: float) -> Check:
    def check(value) -> str | None:
        if not (math.isfinite(value) and 0.0 < value <= hi):
            return f'must be a finite number > 0 and <= {hi:g}, got {value}'
        return None
    return check


def _readable_file(value) -> str | None:
    if value == '':
        return None
    if not os.path.isfile(value):
        return f'is not a file: {value!r}'
    if not os.access(value, os.R_OK):
        return f'is not readable: {value!r}'
    return None


def _one_of(choices: tuple[str, ...]) -> Check:
    def check(value) -> str | None:
        if value not in choices:
            return f'must be one of {", ".join(choices)}; got {value!r}'
        return None
    return check


def _solver(value) -> str | None:
    from ik_node.solve_ik import methods
    return _one_of(methods())(value)


def _topic(value) -> str | None:
    if value == '':
        return None
    allowed = set('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/~')
    if not set(value) <= allowed or value[0].isdigit() or '//' in value \
            or value.endswith('/'):
        return f'is not a valid ROS topic name: {value!r}'
    return None


def _required_topic(value) -> str | None:
    if value == '':
        return 'must not be empty'
    return _topic(value)


def _finite_list(value) -> str | None:
    if not all(math.isfinite(v) for v in value):
        return f'must hold finite numbers only, got {list(value)}'
    return None


def _shapes(per: int, what: str) -> Check:
    """Check a flat list of ``per`` numbers per shape whose last ones are sizes > 0."""
    def check(value) -> str | None:
        if len(value) % per:
            return f'must hold {per} numbers per {what}, got {len(value)} numbers'
        reason = _finite_list(value)
        if reason:
            return reason
        sizes = [v for i, v in enumerate(value) if i % per >= 3]
        if any(v <= 0.0 for v in sizes):
            return f'sizes must be > 0, got {list(value)}'
        return None
    return check


# Changing one of these rebuilds the model (avoid_collisions loads the collision geometry).
MODEL_PARAMETERS = ('robot_description', 'urdf_file', 'base_link', 'tip_link',
                    'avoid_collisions', 'tip_links', 'tip_target_topics')

# ik_node.solve refuses real-valued options above 1e6 (their squares would overflow); the
# parameters that become solver options share the bound, so a value the node accepts never
# makes every later solve fail.
_MAX_OPTION = 1e6

_MODEL = (
    ParamSpec('robot_description', '',
              'URDF XML of the robot. Empty: read urdf_file, else the robot_description_topic.'),
    ParamSpec('robot_description_topic', topics.ROBOT_DESCRIPTION,
              'std_msgs/String topic (TRANSIENT_LOCAL, as robot_state_publisher publishes it) '
              'read when neither robot_description nor urdf_file is set.', _required_topic),
    ParamSpec('urdf_file', '',
              'Path of a URDF file, used when robot_description is empty.'),
)

# Teleop jogging (ik_node.ros.jog_input): the jog inputs and how they are read.
JOY_MAPPINGS = ('xbox', 'dualshock', 'spacemouse')


def _joy_mapping(value) -> str | None:
    if value in JOY_MAPPINGS:
        return None
    if value == '':
        return f'must be one of {", ".join(JOY_MAPPINGS)} or a YAML file, got an empty name'
    return _readable_file(value)


_JOG = (
    ParamSpec('jog_twist_topic', 'jog_twist',
              "geometry_msgs/TwistStamped jog: the tool origin's velocity, linear [m/s] and "
              'angular [rad/s], in the base frame or the tool frame (header frame_id: '
              'base_link or tip_link, with frame_prefix; empty: jog_frame). The arm brakes '
              'to rest jog_timeout after the last one (empty: off).', _topic),
    ParamSpec('jog_joint_topic', 'jog_joints',
              "sensor_msgs/JointState joint jog: the velocity field gives each named joint's "
              'velocity [rad/s or m/s] (names and velocities of equal length; joints not '
              'named stand still; position and effort are ignored) (empty: off).', _topic),
    ParamSpec('joy_topic', 'joy',
              'sensor_msgs/Joy gamepad or SpaceMouse jog, mapped to a tool twist by '
              'joy_mapping (empty: off).', _topic),
    ParamSpec('joy_mapping', 'xbox',
              'Axes and buttons of the Joy jog: xbox, dualshock, spacemouse (the shipped '
              'config/joy_*.yaml) or the path of a YAML file in their format.', _joy_mapping),
    ParamSpec('jog_frame', 'base',
              'The frame of a jog twist whose header frame_id is empty: base (base_link) or '
              'tool (tip_link).', _one_of(('base', 'tool'))),
    ParamSpec('jog_timeout', 0.1,
              'A jog command older than this [s] brakes the arm to rest within its limits '
              '(MoveIt Servo: 0.1); counted from when it was sent: its arrival less its '
              "lateness by stamp beyond its stream's usual delay (docs/jogging.md).",
              _positive_at_most(10.0)),
)

IK_NODE_PARAMETERS: tuple[ParamSpec, ...] = _MODEL + (
    ParamSpec('base_link', '',
              'Chain base link; targets are solved in its frame. Empty: the URDF root link.'),
    ParamSpec('tip_link', '',
              'Chain tip link (end effector). Empty: the leaf with the most actuated joints '
              'above it.'),
    ParamSpec('tip_links', [],
              'Several end effectors on one URDF tree (both hands of a torso): their tip '
              'links. Set, the tree base_link -> each of them is the arm: a target for one '
              'tip moves the whole tree, the other tips holding their poses (docs/node.md, '
              '"Several tips"). Empty: one chain to tip_link.', kind='string_array'),
    ParamSpec('tip_target_topics', [],
              'geometry_msgs/PoseStamped target topic of each of tip_links, in its order '
              '(empty: <tip link>/target_pose).', kind='string_array'),
    ParamSpec('solver', 'dls',
              'IK method: dls, fabrik, hybrid, jt, pinv or ccd.', _solver),
    ParamSpec('position_tolerance', 1e-5,
              'Position error [m] under which a solve succeeds.',
              _positive_at_most(_MAX_OPTION)),
    ParamSpec('orientation_tolerance', 1e-4,
              'Orientation error [rad] under which a solve succeeds.',
              _positive_at_most(_MAX_OPTION)),
    ParamSpec('reached_position_tolerance', 1e-3,
              'Distance [m] of the measured tool from the target within which ik_status says '
              '"target reached" (an arm settles within its repeatability, not the solver '
              'tolerance).', _positive_at_most(_MAX_OPTION)),
    ParamSpec('reached_orientation_tolerance', 1e-2,
              'The same for the orientation [rad].', _positive_at_most(_MAX_OPTION)),
    ParamSpec('position_only', False,
              'Ignore target orientations and solve for the position only.'),
    # An attempt runs all its iterations before the time budget is looked at again, so
    # the caps keep one solve (and the single-threaded node) from stalling for seconds.
    ParamSpec('max_iterations', 100,
              'Iteration cap of one solve attempt (1 to 10000).', _at_least(1, 10_000)),
    ParamSpec('max_attempts', 1,
              'Solve attempts per target (attempts after the first start from random '
              'seeds; 1 to 1000).', _at_least(1, 1000)),
    ParamSpec('timeout', 0.005,
              'Time budget of one solve [s], all attempts included (at most 1 s).',
              _positive_at_most(1.0)),
    ParamSpec('goal_search_timeout', 0.05,
              'Time budget [s] of the search for collision-free IK answers of a goal (a target '
              'that is not a small step of a stream; at most 1 s).', _positive_at_most(1.0)),
    ParamSpec('planning_timeout', 0.5,
              'Time budget [s] for a collision-free joint path to a goal whose straight path '
              'is blocked (OMPL RRT-Connect; at most 10 s); none in time: refused before the '
              'arm moves.', _positive_at_most(10.0)),
    ParamSpec('max_joint_change', 0.0,
              'Largest change of any joint [rad or m] an answer may make from where the arm '
              'is (0: any). Streamed targets (a dragged marker) then never swing the arm '
              'onto another IK branch: a target that needs more is answered '
              'beyond_max_joint_change and the arm goes as far as allowed.',
              _non_negative_at_most(_MAX_OPTION)),
    ParamSpec('damping', 1e-3,
              'Base damping lambda_0 of the damped least-squares step (dls); the solver raises '
              'it near singularities.', _non_negative_at_most(_MAX_OPTION)),
    ParamSpec('nullspace_limit_avoidance', 0.0,
              'Weight of the null-space objective keeping joints near mid-range '
              '(redundant arms, Jacobian solvers; 0 disables).',
              _non_negative_at_most(_MAX_OPTION)),
    ParamSpec('nullspace_rest_posture', 0.0,
              'Weight of the null-space objective pulling joints toward rest_positions '
              '(0 disables).', _non_negative_at_most(_MAX_OPTION)),
    ParamSpec('rest_positions', [],
              'Rest posture [rad or m] per chain joint, base to tip (empty: mid-range).',
              _finite_list, kind='double_array'),
    ParamSpec('nullspace_manipulability', 0.0,
              'Weight of the null-space objective keeping away from singularities '
              '(0 disables).', _non_negative_at_most(_MAX_OPTION)),
    ParamSpec('null_space_gain', 1.0,
              'Gain k of the null-space step -k (I - J+J) grad h.',
              _non_negative_at_most(_MAX_OPTION)),
    ParamSpec('output_rate', 100.0,
              'Rate [Hz] of the command timer: steady output in timer mode, and the approach '
              'steps toward a far solution in both modes.', _in_range(1.0, 2000.0)),
    ParamSpec('realtime_priority', 0,
              'SCHED_FIFO priority (1-99) of the control thread, which steps and publishes the '
              'commands, so other processes cannot hold it off (ros2_control uses 50); the '
              "node's other Python threads, which hold the GIL it needs, run at normal "
              'scheduling at nice -20 (real-time, a long goal search would trip the '
              "kernel's real-time throttling, which stops the control thread too); 0: "
              'normal scheduling. Needs the right to (root, or an rtprio limit); when it is '
              'refused the node logs why and runs at normal priority.', _at_least(0, 99)),
    ParamSpec('output_mode', 'immediate',
              'immediate: publish as soon as a target is solved, then at output_rate while '
              'approaching it; timer: publish at output_rate only, also when idle.',
              _one_of(OUTPUT_MODES)),
    ParamSpec('velocity_scale', 1.0,
              'Fraction of the URDF velocity limits the commands may use.',
              _in_range(1e-3, 1.0)),
    ParamSpec('default_velocity_limit', 1.0,
              'Velocity limit [rad/s or m/s] for joints whose URDF gives none.', _positive),
    ParamSpec('joint_limits_file', '',
              "Path of a joint_limits.yaml in MoveIt's format: acceleration and jerk limits "
              'per joint (has_acceleration_limits, max_acceleration, has_jerk_limits, '
              "max_jerk) and velocity limits below the URDF's (has_velocity_limits, "
              "max_velocity). Empty: the URDF's velocities and the default limits below.",
              _readable_file),
    ParamSpec('acceleration_scale', 1.0,
              'Fraction of the acceleration and jerk limits the commands may use.',
              _in_range(1e-3, 1.0)),
    ParamSpec('default_acceleration_limit', limits.DEFAULT_ACCELERATION,
              'Acceleration limit [rad/s^2 or m/s^2] for joints the joint_limits_file does '
              'not limit.', _positive_at_most(_MAX_OPTION)),
    ParamSpec('default_jerk_limit', limits.DEFAULT_JERK,
              'Jerk limit [rad/s^3 or m/s^3] for joints the joint_limits_file does not '
              'limit.', _positive_at_most(_MAX_OPTION)),
    ParamSpec('require_joint_states', True,
              'Publish nothing before the arm position is known from joint_states. If false, '
              'the arm is assumed at initial_positions until joint_states arrive.'),
    ParamSpec('initial_positions', [],
              'Assumed start position [rad or m] per chain joint, base to tip (empty: '
              'mid-range), used only when require_joint_states is false.', _finite_list,
              kind='double_array'),
    ParamSpec('joint_states_timeout', 0.5,
              'joint_states older than this [s] no longer seed the solver.', _positive),
    ParamSpec('avoid_collisions', True,
              'Keep the arm out of self-collision, below-floor and obstacle contact (the '
              'URDF collision geometry: bounding capsules, then the convex hulls they hold): '
              'solutions that collide are refused, and so is a step into contact.'),
    ParamSpec('floor', True,
              'A floor: the half-space below floor_height in the base frame is an obstacle.'),
    ParamSpec('floor_height', 0.0,
              'Height [m] of the floor in the base frame (0: the base plane).',
              _in_range(-100.0, 100.0)),
    ParamSpec('obstacle_spheres', [],
              'Static spheres in the base frame: x, y, z, radius [m] per sphere.',
              _shapes(4, 'sphere'), kind='double_array'),
    ParamSpec('obstacle_boxes', [],
              'Static axis-aligned boxes in the base frame: x, y, z (centre), size x, y, z [m] '
              'per box.', _shapes(6, 'box'), kind='double_array'),
    ParamSpec('max_following_error', 0.25,
              'Largest lead [rad] of a revolute joint command over the measured arm. Beyond '
              'it the arm is not following (stalled, e-stop): the node holds at the measured '
              'position and reports ERROR.', _positive_at_most(100.0)),
    ParamSpec('max_following_error_linear', 0.05,
              'The same for prismatic joints [m].', _positive_at_most(100.0)),
    ParamSpec('emergency_stop_scale', 2.0,
              'An obstacle that appears inside the braking distance: the most the stop may '
              'exceed the acceleration and jerk limits by, when no stop within them avoids '
              'contact (1: never; beyond it the arm holds short of contact, a velocity step, '
              'reported as ERROR).', _in_range(1.0, 100.0)),
    ParamSpec('singularity_slowdown', 17.0,
              'Jacobian condition number from which steps toward a singularity are slowed '
              '(MoveIt Servo: 17).', _in_range(1.0, 1e6)),
    ParamSpec('singularity_stop', 30.0,
              'Condition number at which motion toward a singularity is slowest (Servo stops '
              'there).', _in_range(1.0, 1e6)),
    ParamSpec('singularity_min_speed', 0.1,
              'Fraction of the velocity limits left at singularity_stop and beyond (0: stop, '
              'as Servo does; above 0 the arm creeps through instead of being stranded).',
              _in_range(0.0, 1.0)),
    ParamSpec('target_topic', topics.TARGET_POSE,
              'geometry_msgs/PoseStamped targets.', _required_topic),
    ParamSpec('goal_pose_topic', topics.GOAL_POSE,
              'PoseStamped targets from RViz 2D Goal Pose (empty: off).', _topic),
    ParamSpec('goal_pose_mode', 'planar',
              'planar: a 2D Goal Pose sets the tool x, y and yaw, keeping its height and tilt '
              '(RViz sends z = 0 and a yaw-only orientation); full: the pose as sent.',
              _one_of(GOAL_POSE_MODES)),
    ParamSpec('clicked_point_topic', topics.CLICKED_POINT,
              'geometry_msgs/PointStamped position-only targets from RViz Publish Point; the '
              'current tip orientation is kept (empty: off).', _topic),
    ParamSpec('joint_states_topic', topics.JOINT_STATES,
              'sensor_msgs/JointState feedback of the arm.', _required_topic),
    ParamSpec('command_topic', topics.JOINT_COMMANDS,
              'sensor_msgs/JointState commands (URDF joint names).', _required_topic),
    ParamSpec('trajectory_topic', '',
              'trajectory_msgs/JointTrajectory commands for a joint_trajectory_controller, '
              'e.g. /joint_trajectory_controller/joint_trajectory (empty: off).', _topic),
    ParamSpec('obstacles_topic', 'ik_obstacles',
              'visualization_msgs/MarkerArray of live obstacles (SPHERE, CUBE, CYLINDER '
              'markers in the base frame; DELETE and DELETEALL work); RViz can show the same '
              'topic (empty: off).', _topic),
    ParamSpec('forward_command_topic', '',
              'std_msgs/Float64MultiArray commands for a forward_command_controller, e.g. '
              '/forward_position_controller/commands (empty: off).', _topic),
    ParamSpec('forward_command_joints', [],
              'Joint order of forward_command_topic, as in the controller configuration '
              '(empty: the chain order).', kind='string_array'),
    ParamSpec('frame_prefix', '',
              "Prefix of the model's frame names in target headers, as robot_state_publisher "
              'gives them (e.g. arm1/ makes arm1/base_link the base frame).'),
    ParamSpec('status_topic', topics.IK_STATUS,
              "diagnostic_msgs/DiagnosticArray status of each target, and of the node's state "
              'every second (TRANSIENT_LOCAL: a late subscriber gets the latest).',
              _required_topic),
    ParamSpec('marker_topic', topics.IK_MARKERS,
              'visualization_msgs/MarkerArray of the target and reached poses (empty: off).',
              _topic),
    ParamSpec('interactive_marker', True,
              'Offer a 6-DOF interactive marker target (needs the interactive_markers '
              'package).'),
) + _JOG

SIM_ARM_PARAMETERS: tuple[ParamSpec, ...] = _MODEL + (
    ParamSpec('rate', 100.0, 'Simulation and joint_states rate [Hz].', _in_range(1.0, 2000.0)),
    ParamSpec('initial_positions', [],
              'Start position [rad or m] per actuated joint in URDF order (empty: 0 clipped '
              'into the limits).', _finite_list, kind='double_array'),
    ParamSpec('initial_joint_names', [],
              'Joint names for initial_positions when not all joints or not in URDF order.',
              kind='string_array'),
    ParamSpec('velocity_scale', 1.0,
              'Fraction of the URDF velocity limits the simulated joints move at.',
              _in_range(1e-3, 1.0)),
    ParamSpec('follow', 'velocity',
              'velocity: move toward each command within the velocity limits; instant: jump '
              'to each command (a position-controlled arm that executes whatever it gets, '
              'for testing what the IK node sends).', _one_of(('velocity', 'instant'))),
    ParamSpec('stalled', False,
              'Stop moving but keep publishing joint_states, as an arm on an e-stop does '
              '(settable at run time).'),
    ParamSpec('default_velocity_limit', 1.0,
              'Velocity limit [rad/s or m/s] for joints whose URDF gives none.', _positive),
    ParamSpec('command_topic', topics.JOINT_COMMANDS,
              'sensor_msgs/JointState position commands followed by the arm.', _required_topic),
    ParamSpec('joint_states_topic', topics.JOINT_STATES,
              'sensor_msgs/JointState of every moving joint, published at rate.',
              _required_topic),
)

TOPIC_PARAMETERS = tuple(p.name for p in IK_NODE_PARAMETERS if p.name.endswith('_topic'))


def defaults(specs: tuple[ParamSpec, ...]) -> dict[str, Any]:
    """Return {name: default} of a parameter table."""
    return {p.name: (list(p.default) if isinstance(p.default, list) else p.default)
            for p in specs}


def check_value(specs: tuple[ParamSpec, ...], name: str, value: Any) -> str | None:
    """Return why ``value`` is refused for parameter ``name``, or None if it is valid."""
    spec = next((p for p in specs if p.name == name), None)
    if spec is None:
        return f'unknown parameter {name!r}'
    if spec.check is None:
        return None
    reason = spec.check(value)
    return None if reason is None else f'{name} {reason}'


def check_values(specs: tuple[ParamSpec, ...], values: Mapping[str, Any]) -> str | None:
    """Return why a full set of values is refused (each value, then combinations), or None."""
    for name, value in values.items():
        reason = check_value(specs, name, value)
        if reason is not None:
            return reason
    base, tip = values.get('base_link'), values.get('tip_link')
    if base and tip and base == tip:
        return f'base_link and tip_link must differ, both are {base!r}'
    tips, tip_topics = values.get('tip_links') or [], values.get('tip_target_topics') or []
    if tip_topics and len(tip_topics) != len(tips):
        return (f'tip_target_topics must name one topic per tip of tip_links ({len(tips)}), '
                f'got {len(tip_topics)}')
    if tips and tip:
        return f'tip_links and tip_link {tip!r}: set one of them, not both'
    slow, stop = values.get('singularity_slowdown'), values.get('singularity_stop')
    if slow is not None and stop is not None and not slow < stop:
        return f'singularity_slowdown ({slow}) must be below singularity_stop ({stop})'
    return None


JACOBIAN_METHODS = ('dls', 'pinv', 'jt')


def topic_conflict(values: Mapping[str, Any], resolve: Callable[[str], str]) -> str | None:
    """
    Return why two topic parameters of ``values`` name the same topic, or None.

    ``resolve`` gives a topic's full name (a node's ``resolve_topic_name``: relative names
    follow its namespace); a name it cannot resolve is compared as written.
    """
    seen: dict[str, str] = {}
    for name in TOPIC_PARAMETERS:
        topic = values[name]
        if not topic:
            continue
        try:
            resolved = resolve(topic)
        except Exception:  # noqa: B902  (rclpy raises its own error types for bad names)
            resolved = topic
        if resolved in seen:
            return (f'{seen[resolved]} and {name} must name different topics, both are '
                    f'{resolved!r}')
        seen[resolved] = name
    return None


def solver_options(values: Mapping[str, Any], chain=None) -> dict[str, Any]:
    """
    Return the keyword options of :func:`ik_node.solve` for the ik_node parameter values.

    Every method gets the tolerances and budgets; the Jacobian methods (dls, pinv, jt) also
    get the damping and the null-space objectives, which need ``chain`` (an ik_node.Chain) for
    the size of the rest posture. Raises ValueError for a rest posture of the wrong size.
    """
    attempts = int(values['max_attempts'])
    opts: dict[str, Any] = {
        'position_tolerance': float(values['position_tolerance']),
        'orientation_tolerance': float(values['orientation_tolerance']),
        'max_iterations': int(values['max_iterations']),
        'max_attempts': attempts,
        'timeout': float(values['timeout']),
    }
    if values['max_joint_change'] > 0.0:
        opts['max_joint_change'] = float(values['max_joint_change'])
    if values['solver'] not in JACOBIAN_METHODS:
        return opts
    from ik_node.solvers.objectives import JointLimitAvoidance, Manipulability, RestPosture
    objectives: list[Any] = []
    if values['nullspace_limit_avoidance'] > 0.0:
        objectives.append(JointLimitAvoidance(weight=float(values['nullspace_limit_avoidance'])))
    if values['nullspace_rest_posture'] > 0.0 and chain is not None:
        rest = list(values['rest_positions']) or [float(v) for v in chain.mid]
        if len(rest) != chain.n:
            raise ValueError(f'rest_positions must have {chain.n} values (one per joint of '
                             f'{", ".join(chain.joint_names)}), got {len(rest)}')
        objectives.append(RestPosture(q_rest=tuple(rest),
                                      weight=float(values['nullspace_rest_posture'])))
    if values['nullspace_manipulability'] > 0.0:
        objectives.append(Manipulability(weight=float(values['nullspace_manipulability'])))
    opts.update(damping=float(values['damping']), restarts=attempts > 1,
                objectives=tuple(objectives), null_space_gain=float(values['null_space_gain']))
    return opts


def command_velocity_limits(velocity: ArrayLike, default: float, scale: float) -> np.ndarray:
    """
    Return (n,) command velocity limits [rad/s or m/s]: ``velocity`` x ``scale``.

    velocity: (n,) URDF limits; entries that are not finite and > 0 (no limit given) take
    ``default``. The one rule for the IK node's commands and the simulated arm's motion.
    """
    v = np.array(velocity, dtype=float).reshape(-1)
    v[~(np.isfinite(v) & (v > 0.0))] = float(default)
    return v * float(scale)


def velocity_limits(velocity: ArrayLike, values: Mapping[str, Any]) -> np.ndarray:
    """
    Return (n,) velocity limits from URDF limits ``velocity`` and a node's parameter values.

    Joints without a URDF limit take ``default_velocity_limit``; all are scaled by
    ``velocity_scale``. Both nodes (ik_node's commands, sim_arm's motion) use this.
    """
    return command_velocity_limits(velocity, values['default_velocity_limit'],
                                   values['velocity_scale'])


def limits_from_values(chain, values: Mapping[str, Any], robot: Any = None) -> JointLimits:
    """
    Return the command limits of ``chain`` (an ik_node.Chain) for ik_node parameter values.

    The URDF's velocities, the ``joint_limits_file`` (if set) and the
    ``default_*_limit`` values for what neither gives (:func:`ik_node.motion.limits.
    joint_limits`), scaled by ``velocity_scale`` and ``acceleration_scale``
    (:meth:`~ik_node.motion.limits.JointLimits.scaled`). ``robot``: every joint of the URDF
    (a RobotTree), which the file may name; by default read from the chain's URDF. Raises
    JointLimitsError naming the joint and the field (or the file), so a bad file is refused
    at start and on ``ros2 param set``.
    """
    source = values['joint_limits_file'] or None
    full = limits.joint_limits(chain, source,
                               default_acceleration=values['default_acceleration_limit'],
                               default_jerk=values['default_jerk_limit'],
                               default_velocity=values['default_velocity_limit'], robot=robot)
    return full.scaled(values['velocity_scale'], values['acceleration_scale'])
