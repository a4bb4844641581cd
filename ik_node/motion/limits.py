# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The limits a joint command must respect: velocity, acceleration and jerk of each joint.

:func:`joint_limits` puts them together for the actuated joints of a chain:

velocity      the URDF's ``<limit velocity=..>`` (``chain.velocity``); a joint whose URDF
              gives none (or 0) takes ``default_velocity``; the file may lower it per joint.
acceleration  the file's ``max_acceleration`` (and ``max_deceleration``, see below), else
              ``default_acceleration``. A URDF has no acceleration limits.
jerk          the file's ``max_jerk``, else ``default_jerk``.

The file is MoveIt's ``joint_limits.yaml`` (the ros2_control ``joint_limits`` keys)::

    default_velocity_scaling_factor: 0.1        # optional, checked, not used (see below)
    default_acceleration_scaling_factor: 0.1
    joint_limits:
      elbow_joint:
        has_velocity_limits: true               # the flag puts the value in force
        max_velocity: 3.15                      # [rad/s or m/s], may only lower the URDF's
        has_acceleration_limits: true
        max_acceleration: 5.0                   # [rad/s^2 or m/s^2]
        has_jerk_limits: true
        max_jerk: 500.0                         # [rad/s^3 or m/s^3]

Rules, chosen so that a file never says more than the node does:

- A value is in force when its flag is true; ``has_X_limits: false`` means the file gives none
  for X (the URDF's or the default applies: a jerk-limited trajectory needs finite limits).
  MoveIt writes ``has_acceleration_limits: false`` with ``max_acceleration: 0``: accepted. A
  value without its flag is refused (MoveIt would ignore it, and so the file would mean
  something else there), and so is a true flag without its value.
- In force, limits are finite numbers > 0. YAML numbers only: a string (also ``'1e3'``, which
  YAML 1.1 reads as text) or a bool is refused. xacro's ``!degrees`` / ``!radians`` tags on a
  number are read (the UR description packages use them). A key given twice is refused.
- ``max_velocity`` may lower the URDF's velocity, not raise it (the URDF states what the
  hardware does; the node's guards rely on it). ``min_position`` / ``max_position`` are not
  applied (the node keeps the URDF's position limits): a range that contains the URDF's is
  accepted, a narrower one is refused, with the advice to narrow the URDF instead.
- ``max_deceleration`` (either sign: ros2_control writes it > 0, Pilz < 0) lowers the
  acceleration limit: the limits here are symmetric. ``has_effort_limits`` / ``max_effort``
  are checked and not used (the node commands positions, not efforts).
- ``default_velocity_scaling_factor`` / ``default_acceleration_scaling_factor`` must be in
  (0, 1] and are not used: they are MoveIt's scaling for a request that gives none, and the
  node's ``velocity_scale`` / ``acceleration_scale`` always give one (see
  :meth:`JointLimits.scaled`).
- Every joint of the URDF may be listed (MoveIt files list grippers): joints off the chain
  and fixed joints are checked and not used. A name that is no joint of the URDF is refused.
- A mimic joint in the chain moves at ``|multiplier|`` times its master: its limits (the
  file's, and its URDF velocity) bound the master's at ``limit / |multiplier|``. Defaults do
  not: they are for the actuated joints.

Every problem raises :class:`ik_node.errors.JointLimitsError` naming the joint and the field,
or the file. Nothing here imports rclpy.
"""

from dataclasses import dataclass
import math
import os
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, TYPE_CHECKING, Union

from ik_node.errors import JointLimitsError
import numpy as np
from numpy.typing import ArrayLike
import yaml

if TYPE_CHECKING:
    from ik_node.model.chain import Chain
    from ik_node.model.urdf import JointSpec

__all__ = ['JointLimits', 'joint_limits', 'read_limits_file', 'DEFAULT_VELOCITY',
           'DEFAULT_ACCELERATION', 'DEFAULT_JERK']

# Defaults for what neither the URDF nor the file gives (per joint, [rad or m] per s^k).
# Velocity: the node's long-standing default_velocity_limit. Acceleration: the conservative
# 5 rad/s^2 of Universal Robots' MoveIt configuration (ur_moveit_config) for every UR joint:
# half of MoveIt's Ruckig default (10), a quarter to two thirds of the Franka arm's hardware
# limits (7.5-20), five times MoveIt's TOTG fallback (1 rad/s^2). Jerk: MoveIt's
# Ruckig default (1000 rad/s^3), below every Franka joint's hardware limit (3750-10000); with
# 5 rad/s^2 the acceleration ramps in 5 ms.
DEFAULT_VELOCITY = 1.0
DEFAULT_ACCELERATION = 5.0
DEFAULT_JERK = 1000.0

# A file position range may fall short of the URDF's by this much [rad or m] (degrees
# rounded to a few digits) and still count as containing it.
POSITION_ROUNDING = 1e-5

Source = Union[None, str, os.PathLike, Mapping[str, Any]]

# flag -> the value keys it puts in force
_FLAGS = {
    'has_position_limits': ('min_position', 'max_position'),
    'has_velocity_limits': ('max_velocity',),
    'has_acceleration_limits': ('max_acceleration',),
    'has_deceleration_limits': ('max_deceleration',),
    'has_jerk_limits': ('max_jerk',),
    'has_effort_limits': ('max_effort',),
}
_POSITIVE = ('max_velocity', 'max_acceleration', 'max_jerk', 'max_effort')
_KEYS = tuple(key for flag, keys in _FLAGS.items() for key in (flag,) + keys)
_SCALING = ('default_velocity_scaling_factor', 'default_acceleration_scaling_factor')
_TOP_KEYS = ('joint_limits',) + _SCALING


@dataclass(frozen=True, eq=False)
class JointLimits:
    """
    Velocity, acceleration and jerk limits of named joints, all finite and > 0.

    names: (n,) joint names. velocity [rad/s or m/s], acceleration [rad/s^2 or m/s^2], jerk
    [rad/s^3 or m/s^3]: read-only (n,) float arrays in ``names`` order (the arrays given are
    copied). The limits are symmetric: |v| <= velocity, |a| <= acceleration, |j| <= jerk.
    """

    names: tuple[str, ...]
    velocity: np.ndarray
    acceleration: np.ndarray
    jerk: np.ndarray

    def __post_init__(self) -> None:
        """Check the names and limits; store read-only copies of the arrays."""
        names = tuple(self.names)
        if not all(isinstance(name, str) for name in names):
            raise JointLimitsError(f'joint names must be strings, got {list(names)}')
        if len(set(names)) != len(names):
            twice = sorted({name for name in names if names.count(name) > 1})
            raise JointLimitsError(f'joint names must be unique, {twice} appear twice')
        object.__setattr__(self, 'names', names)
        for field in ('velocity', 'acceleration', 'jerk'):
            object.__setattr__(self, field, _limit_array(names, field, getattr(self, field)))

    @property
    def n(self) -> int:
        """Return the number of joints."""
        return len(self.names)

    def scaled(self, velocity_scale: float, acceleration_scale: float) -> 'JointLimits':
        """
        Return these limits scaled: velocity, and acceleration and jerk alike.

        velocity x ``velocity_scale``; acceleration and jerk x ``acceleration_scale``; each
        scale in (0, 1]. Jerk follows the acceleration scale: the time a profile takes to
        ramp its acceleration up (acceleration / jerk) stays the same, so a profile keeps its
        shape, and a gentler acceleration also changes more gently. (MoveIt's Ruckig
        smoothing leaves jerk unscaled; the velocity scale alone leaves acceleration and jerk
        as they are, as MoveIt's does.)
        """
        for name, scale in (('velocity_scale', velocity_scale),
                            ('acceleration_scale', acceleration_scale)):
            if not (_is_finite(scale) and 0.0 < scale <= 1.0):
                raise JointLimitsError(f'{name} must be a number in (0, 1], got {scale!r}')
        return JointLimits(self.names, self.velocity * float(velocity_scale),
                           self.acceleration * float(acceleration_scale),
                           self.jerk * float(acceleration_scale))

    def select(self, names: Sequence[str]) -> 'JointLimits':
        """Return the limits of the joints ``names``, in that order."""
        index = {name: i for i, name in enumerate(self.names)}
        missing = [name for name in names if name not in index]
        if missing:
            raise JointLimitsError(f'no limits for joints {missing} (limits are for '
                                   f'{", ".join(self.names)})')
        rows = [index[name] for name in names]
        return JointLimits(tuple(names), self.velocity[rows], self.acceleration[rows],
                           self.jerk[rows])

    def __repr__(self) -> str:
        """Show every joint's three limits."""
        rows = ', '.join(f'{name}: {v:g}/{a:g}/{j:g}' for name, v, a, j
                         in zip(self.names, self.velocity, self.acceleration, self.jerk))
        return f'JointLimits(velocity/acceleration/jerk {{{rows}}})'


def joint_limits(chain: 'Chain', source: Source = None,
                 default_acceleration: float = DEFAULT_ACCELERATION,
                 default_jerk: float = DEFAULT_JERK,
                 default_velocity: float = DEFAULT_VELOCITY,
                 robot: Any = None) -> JointLimits:
    """
    Return the limits of the actuated joints of ``chain`` (``chain.joint_names`` order).

    source: None (URDF velocities and the defaults), a joint_limits.yaml file path, its YAML
    text, or the mapping it holds (format and rules: module docstring). default_*: limits
    [per s, s^2, s^3] of joints that neither the URDF nor the file limits; finite and > 0.
    robot: every joint of the URDF (an :class:`ik_node.model.link_tree.RobotTree`, a
    :class:`ik_node.model.urdf.RobotSpec` or a sequence of :class:`ik_node.model.urdf.JointSpec`),
    which the file may name; by default read from the URDF the chain was built from
    (``Chain.from_urdf``), else only the chain's own joints. Raises JointLimitsError.
    """
    defaults = {}
    for name, value in (('default_velocity', default_velocity),
                        ('default_acceleration', default_acceleration),
                        ('default_jerk', default_jerk)):
        if not (_is_finite(value) and value > 0.0):
            raise JointLimitsError(f'{name} must be a finite number > 0, got {value!r}')
        defaults[name] = float(value)
    entries, where = _read(source)
    specs = _robot_joints(chain, robot)
    names = tuple(chain.joint_names)
    moving = tuple(chain.moving_joint_names)
    known = set(specs) if specs is not None else set(moving)
    for joint in entries:
        if joint not in known:
            shown = ', '.join(sorted(known)[:20]) + (', ...' if len(known) > 20 else '')
            whose = (f'robot {chain.robot_name!r}' if specs is not None else
                     "this chain (pass robot= to allow the URDF's other joints)")
            raise JointLimitsError(f'{where}: joint_limits names joint {joint!r}, which is '
                                   f'not a joint of {whose} (joints: {shown})')
    velocity = np.array(chain.velocity, dtype=float)
    velocity[~(np.isfinite(velocity) & (velocity > 0.0))] = defaults['default_velocity']
    acceleration = np.full(len(names), defaults['default_acceleration'])
    jerk = np.full(len(names), defaults['default_jerk'])
    for i, joint in enumerate(names):
        entry = entries.get(joint, {})
        _check_position(where, joint, entry, chain.lower[i], chain.upper[i])
        urdf_velocity = float(chain.velocity[i])
        if 'max_velocity' in entry:
            velocity[i] = _lowered_velocity(where, joint, entry['max_velocity'], urdf_velocity)
        acceleration[i] = _acceleration(entry, acceleration[i])
        jerk[i] = entry.get('max_jerk', jerk[i])
    # Mimic joints of the chain: each bounds its master at limit / |multiplier|.
    for k, joint in enumerate(moving):
        if joint in names:
            continue
        master, mult = int(chain.joint_index[k]), abs(float(chain.joint_multiplier[k]))
        entry = entries.get(joint, {})
        spec = specs.get(joint) if specs is not None else None
        urdf_velocity = spec.velocity if spec is not None else math.inf
        if spec is not None:
            _check_position(where, joint, entry, spec.lower, spec.upper)
        v = urdf_velocity
        if 'max_velocity' in entry:
            v = _lowered_velocity(where, joint, entry['max_velocity'], urdf_velocity)
        a = _acceleration(entry, math.inf)
        j = entry.get('max_jerk', math.inf)
        if mult > 0.0:
            velocity[master] = min(velocity[master], v / mult)
            acceleration[master] = min(acceleration[master], a / mult)
            jerk[master] = min(jerk[master], j / mult)
    return JointLimits(names, velocity, acceleration, jerk)


def read_limits_file(source: Source) -> dict[str, dict[str, float]]:
    """
    Return {joint: {key: value}} of the limits a joint_limits source puts in force.

    Only keys whose flag is true are returned (``max_velocity`` when ``has_velocity_limits``
    is true, ...); every entry is checked (module docstring). source: None (returns {}), a
    file path, YAML text (a str with a newline, ': ' or a leading '{') or a mapping. The
    joint names are not checked against a robot here (:func:`joint_limits` does that).
    """
    return _read(source)[0]


def _read(source: Source) -> tuple[dict[str, dict[str, float]], str]:
    """Return (read_limits_file(source), how to name the source in messages)."""
    document, where = _document(source)
    if document is None:
        return {}, where
    if not isinstance(document, Mapping):
        raise JointLimitsError(f'{where} must be a mapping with a joint_limits key, got '
                               f'{_kind(document)}')
    unknown = [key for key in document if key not in _TOP_KEYS]
    if unknown:
        raise JointLimitsError(f'{where}: unknown key {unknown[0]!r} (known: '
                               f'{", ".join(_TOP_KEYS)})')
    for key in _SCALING:
        if key in document:
            value = document[key]
            if not (_is_finite(value) and 0.0 < value <= 1.0):
                raise JointLimitsError(f'{where}: {key} must be a number in (0, 1], got '
                                       f'{_shown(value)}')
    table = document.get('joint_limits', {})
    if not isinstance(table, Mapping):
        raise JointLimitsError(f'{where}: joint_limits must be a mapping {{joint: {{limit: '
                               f'value}}}}, got {_kind(table)}')
    entries = {}
    for joint, entry in table.items():
        if not isinstance(joint, str):
            raise JointLimitsError(f'{where}: joint names must be strings, got {joint!r}')
        entries[joint] = _entry(where, joint, entry)
    return entries, where


def _entry(where: str, joint: str, entry: Any) -> dict[str, float]:
    """Return the in-force values of one joint's entry, checked."""
    if not isinstance(entry, Mapping):
        raise JointLimitsError(f'{where}: the limits of joint {joint!r} must be a mapping of '
                               f'limit keys, got {_kind(entry)}')
    for key in entry:
        if key not in _KEYS:
            raise JointLimitsError(f'{where}: joint {joint!r} has an unknown key {key!r} '
                                   f'(known: {", ".join(_KEYS)})')
    found: dict[str, float] = {}
    for flag, keys in _FLAGS.items():
        if flag in entry and not isinstance(entry[flag], bool):
            raise JointLimitsError(f'{where}: {flag} of joint {joint!r} must be true or false, '
                                   f'got {_shown(entry[flag])}')
        on = entry.get(flag, False)
        for key in keys:
            if key not in entry:
                if on:
                    raise JointLimitsError(f'{where}: joint {joint!r} has {flag}: true but no '
                                           f'{key}')
                continue
            if flag not in entry:
                raise JointLimitsError(f'{where}: joint {joint!r} gives {key} without {flag} '
                                       f'(add {flag}: true; MoveIt ignores the value without '
                                       'it)')
            value = entry[key]
            if not _is_number(value):
                raise JointLimitsError(f'{where}: {key} of joint {joint!r} must be a number, '
                                       f'got {_shown(value)}')
            if not _is_finite(value):
                raise JointLimitsError(f'{where}: {key} of joint {joint!r} must be finite, '
                                       f'got {_shown(value)}')
            if not on:
                continue
            if key in _POSITIVE and not value > 0.0:
                raise JointLimitsError(f'{where}: {key} of joint {joint!r} must be > 0, got '
                                       f'{value}')
            if key == 'max_deceleration' and value == 0.0:
                raise JointLimitsError(f'{where}: max_deceleration of joint {joint!r} must not '
                                       'be 0')
            found[key] = float(value)
    if 'min_position' in found and not found['min_position'] <= found['max_position']:
        raise JointLimitsError(f'{where}: min_position of joint {joint!r} '
                               f'({found["min_position"]}) is above its max_position '
                               f'({found["max_position"]})')
    return found


def _acceleration(entry: Mapping[str, float], otherwise: float) -> float:
    """Return the acceleration limit of an entry: max_acceleration, lowered by deceleration."""
    a = entry.get('max_acceleration', otherwise)
    if 'max_deceleration' in entry:
        a = min(a, abs(entry['max_deceleration']))
    return a


def _lowered_velocity(where: str, joint: str, value: float, urdf: float) -> float:
    """Return a file's max_velocity; refuse one above the URDF's."""
    if math.isfinite(urdf) and value > urdf:
        raise JointLimitsError(f'{where}: max_velocity of joint {joint!r} ({value:g}) is '
                               f"above the URDF's velocity limit ({urdf:g}): the file may only "
                               'lower it (raise it in the URDF)')
    return value


def _check_position(where: str, joint: str, entry: Mapping[str, float], lower: float,
                    upper: float) -> None:
    """Refuse a file position range narrower than the URDF's (it would not be applied)."""
    for key, bound, narrower in (('min_position', lower, lambda v, b: v > b),
                                 ('max_position', upper, lambda v, b: v < b)):
        if key not in entry:
            continue
        value = entry[key]
        limit = bound + (POSITION_ROUNDING if key == 'min_position' else -POSITION_ROUNDING)
        if narrower(value, limit):
            raise JointLimitsError(f'{where}: {key} of joint {joint!r} ({value:g}) narrows '
                                   f"the URDF's position limits [{lower:g}, {upper:g}]; the "
                                   "node keeps the URDF's: narrow them in the URDF")


def _robot_joints(chain: Any, robot: Any) -> Optional[dict[str, 'JointSpec']]:
    """Return {name: JointSpec} of every joint of the robot, or None if unknown."""
    if robot is not None:
        joints = getattr(robot, 'joints', robot)
        return {j.name: j for j in joints}
    # Chain.from_urdf keeps the URDF text for the collision model; the chain itself keeps
    # only its own joints. (Reading it again costs a few ms, once per limits set.)
    text = getattr(getattr(chain, '_collision_source', None), 'urdf_text', None)
    if text:
        from ik_node.model.urdf import read_robot     # (imports numba: only when needed)
        return {j.name: j for j in read_robot(text).joints}
    return None


def _document(source: Source) -> tuple[Any, str]:
    """Return (the parsed document, how to name the source in messages)."""
    if source is None:
        return None, 'joint limits'
    if isinstance(source, Mapping):
        return source, 'joint limits'
    if isinstance(source, str) and ('\n' in source or ': ' in source
                                    or source.lstrip().startswith('{')):
        document = _parse(source, 'joint limits YAML')
        return document, 'joint limits YAML'
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        where = f'joint limits file {str(path)!r}'
        if str(source) == '':
            raise JointLimitsError('joint limits file: the path is empty')
        try:
            text = path.read_text(encoding='utf-8')
        except UnicodeDecodeError as exc:
            raise JointLimitsError(f'{where} is not UTF-8 text: {exc.reason} at byte '
                                   f'{exc.start}') from exc
        except (OSError, ValueError) as exc:    # ValueError: a NUL in the path
            reason = getattr(exc, 'strerror', None) or str(exc)
            raise JointLimitsError(f'cannot read {where}: {reason}') from exc
        document = _parse(text, where)
        if document is None:
            raise JointLimitsError(f'{where} is empty (expected a mapping with a joint_limits '
                                   'key)')
        return document, where
    raise JointLimitsError('joint limits must be a file path, YAML text or a mapping, got '
                           f'{type(source).__name__}')


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing repeated keys, reading xacro's angle tags."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == 'tag:yaml.org,2002:merge':
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                repeated = key in seen
            except TypeError:   # an unhashable key: the base class says so
                break
            if repeated:
                raise yaml.constructor.ConstructorError(
                    None, None, f'key {key!r} appears twice in one mapping',
                    key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _angle_tag(factor: float):
    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> float:
        text = loader.construct_scalar(node)
        try:
            value = float(text)
        except ValueError:
            raise yaml.constructor.ConstructorError(
                None, None, f'{node.tag} takes a number, got {text!r}', node.start_mark)
        return value * factor
    return construct


_Loader.add_constructor('!degrees', _angle_tag(math.pi / 180.0))
_Loader.add_constructor('!radians', _angle_tag(1.0))


def _parse(text: str, where: str) -> Any:
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        problem = getattr(exc, 'problem', None) or str(exc)
        at = f' (line {mark.line + 1}, column {mark.column + 1})' if mark is not None else ''
        raise JointLimitsError(f'{where} is not valid YAML: {problem}{at}') from exc


def _limit_array(names: tuple[str, ...], field: str, values: ArrayLike) -> np.ndarray:
    """Return ``values`` as a read-only (n,) array of finite limits > 0."""
    try:
        a = np.array(values, dtype=float)
    except (TypeError, ValueError, OverflowError) as exc:
        raise JointLimitsError(f'{field} limits must be numbers: {exc}') from exc
    if a.shape != (len(names),):
        raise JointLimitsError(f'{field} limits must have shape ({len(names)},) for joints '
                               f'{list(names)}, got {a.shape}')
    bad = ~(np.isfinite(a) & (a > 0.0))
    if np.any(bad):
        i = int(np.argmax(bad))
        raise JointLimitsError(f'{field} limit of joint {names[i]!r} must be a finite number '
                               f'> 0, got {a[i]}')
    a.setflags(write=False)     # a is a fresh copy: the caller's array stays writable
    return a


def _is_number(value: Any) -> bool:
    """Return True for an int or float that is not a bool."""
    return isinstance(value, (int, float, np.integer, np.floating)) \
        and not isinstance(value, (bool, np.bool_))


def _is_finite(value: Any) -> bool:
    """Return True for a number (not a bool) that is finite as a float."""
    if not _is_number(value):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:       # an int beyond the float range
        return False


def _kind(value: Any) -> str:
    return 'nothing' if value is None else f'{type(value).__name__} {_shown(value)}'


def _shown(value: Any) -> str:
    """Return a value as a message shows it, with a hint for YAML 1.1's number traps."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + '...'
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return f'the string {text}'
        return (f'the string {text} (YAML 1.1 reads 1e3 or 1.0e3 as text: write 1000.0 or '
                '1.0e+3)')
    if isinstance(value, bool):
        return f'the bool {text}'
    return text
