# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Read the serial chain base_link -> tip_link out of a URDF with urdf_parser_py.

urdf_parser_py (``urdfdom_py``) is the parser ROS itself ships; this module only walks its
joint graph, checks what the solvers rely on, and returns plain numbers. Every problem is a
URDFError that names the joint or link at fault.
"""

from dataclasses import dataclass
import math
import os
from pathlib import Path
from typing import Union

from ik_node.errors import URDFError
from ik_node.spatial.rpy import matrix_from_rpy
import numpy as np

__all__ = ['JointSpec', 'RobotSpec', 'ChainSpec', 'read_robot', 'read_chain', 'load_urdf_text']

UrdfSource = Union[str, os.PathLike]

_ACTUATED = ('revolute', 'continuous', 'prismatic')
_SUPPORTED = _ACTUATED + ('fixed',)
# Joints a robot may have off the solved chain (a mobile base, say); never inside a chain.
_KNOWN = _SUPPORTED + ('floating', 'planar')
# No robot arm has a link offset or a prismatic stroke of 10 km; a value beyond it is a typo or
# an exporter's placeholder (1e308), and would put the arm's own poses outside what solve()
# accepts as a target (target_checks.MAX_TARGET_DISTANCE, 1000 km, for up to 100 such values).
MAX_LENGTH = 1e4


@dataclass(frozen=True)
class JointSpec:
    """One joint of the chain as the URDF gives it (limits in rad or m)."""

    name: str
    joint_type: str
    parent: str
    child: str
    origin: np.ndarray          # (4, 4) parent link -> joint frame
    axis: np.ndarray            # (3,) unit axis in the joint frame
    lower: float
    upper: float
    velocity: float             # inf when the URDF gives none (or 0)
    mimic_joint: str | None = None
    mimic_multiplier: float = 1.0
    mimic_offset: float = 0.0

    @property
    def moves(self) -> bool:
        """Return True for revolute, continuous and prismatic joints."""
        return self.joint_type in _ACTUATED


@dataclass(frozen=True)
class RobotSpec:
    """Every link and joint of a URDF robot, in file order."""

    name: str
    links: tuple[str, ...]
    joints: tuple[JointSpec, ...]


@dataclass(frozen=True)
class ChainSpec:
    """The joints from base_link to tip_link, base first."""

    robot_name: str
    base_link: str
    tip_link: str
    joints: tuple[JointSpec, ...]
    links: tuple[str, ...]      # every link of the model, for frame look-ups


def load_urdf_text(urdf: UrdfSource) -> str:
    """Return URDF XML text from a robot_description string or a file path."""
    if isinstance(urdf, os.PathLike):
        path = Path(urdf)
    elif isinstance(urdf, str):
        if urdf.lstrip().startswith('<'):
            return urdf
        path = Path(urdf)
    else:
        raise URDFError(f'URDF must be an XML string or a file path, got {type(urdf).__name__}')
    try:
        return path.read_text(encoding='utf-8')
    except OSError as exc:
        raise URDFError(f'cannot read URDF file {str(path)!r}: {exc.strerror}') from exc
    except UnicodeDecodeError as exc:
        raise URDFError(f'URDF file {str(path)!r} is not UTF-8 text: {exc.reason} at byte '
                        f'{exc.start}') from exc


def _urdfdom_view(text: str) -> bytes:
    """
    Return the URDF bytes with what urdfdom ignores (or takes as optional) taken out.

    urdfdom, the C++ parser of ROS (robot_state_publisher, MoveIt, TRAC-IK, pinocchio),
    builds the model without <transmission> elements (ros_control reads them on its own, in
    several formats, e.g. PR2's ``<transmission type="...">``) and reads a material's
    <texture> filename only when there is one. urdf_parser_py is stricter on both, so both
    are removed here: a URDF that urdfdom loads loads here too.
    """
    from lxml import etree
    # Bytes, not str: lxml refuses a str that carries an encoding declaration.
    parser = etree.XMLParser(remove_comments=True, resolve_entities=False)
    root = etree.fromstring(text.encode('utf-8'), parser)
    changed = False
    for node in root.findall('transmission'):
        root.remove(node)
        changed = True
    for node in root.iter('texture'):
        if node.get('filename') is None:
            node.getparent().remove(node)
            changed = True
    return etree.tostring(root) if changed else text.encode('utf-8')


def _parse(text: str):
    from urdf_parser_py import urdf as urdf_mod
    from urdf_parser_py.xml_reflection import core
    # urdf_parser_py reports unknown tags (gazebo, transmission extras) through its error
    # hook, which prints to stderr; they are not errors for the solver, so the hook drops
    # them for the duration of the parse (and the process's stderr is left alone).
    saved = core.on_error
    core.on_error = _ignore_notice
    try:
        return urdf_mod.URDF.from_xml_string(_urdfdom_view(text))
    except Exception as exc:  # lxml, ParseError, AssertionError, ...
        msg = str(exc).strip().replace('\n', ' ')
        raise URDFError(f'malformed URDF: {msg}') from exc
    finally:
        core.on_error = saved


def _ignore_notice(message: str) -> None:
    """Drop a notice of urdf_parser_py about a tag or attribute the solver does not use."""


def _origin_matrix(origin) -> np.ndarray:
    T = np.eye(4)
    if origin is None:
        return T
    xyz = origin.xyz if origin.xyz is not None else (0.0, 0.0, 0.0)
    rpy = origin.rpy if origin.rpy is not None else (0.0, 0.0, 0.0)
    T[:3, :3] = matrix_from_rpy(*map(float, rpy))
    T[:3, 3] = [float(v) for v in xyz]
    if not np.all(np.isfinite(T)):
        raise ValueError('origin is not finite')
    if np.max(np.abs(T[:3, 3])) > MAX_LENGTH:
        raise ValueError(f'origin xyz {T[:3, 3].tolist()} is more than {MAX_LENGTH:g} m away')
    return T


def _joint_spec(j) -> JointSpec:
    if j.type not in _KNOWN:
        raise URDFError(f'joint {j.name!r} has unknown type {j.type!r}')
    try:
        origin = _origin_matrix(j.origin)
    except ValueError as exc:
        raise URDFError(f'joint {j.name!r}: {exc}') from exc
    axis = np.array([1.0, 0.0, 0.0]) if j.axis is None else np.asarray(j.axis, dtype=float)
    lower, upper, velocity = -math.inf, math.inf, math.inf
    if j.type in _ACTUATED:
        norm = float(np.linalg.norm(axis))
        if not np.all(np.isfinite(axis)) or norm < 1e-9:
            raise URDFError(f'joint {j.name!r} has an invalid axis {axis.tolist()}')
        axis = axis / norm
        lim = j.limit
        if j.type != 'continuous':
            if lim is None or lim.lower is None or lim.upper is None:
                raise URDFError(f'{j.type} joint {j.name!r} needs <limit lower=.. upper=..>')
            lower, upper = float(lim.lower), float(lim.upper)
            if not (math.isfinite(lower) and math.isfinite(upper)) or lower > upper:
                raise URDFError(f'joint {j.name!r} has invalid limits [{lower}, {upper}]')
            if j.type == 'prismatic' and max(abs(lower), abs(upper)) > MAX_LENGTH:
                raise URDFError(f'prismatic joint {j.name!r} has limits [{lower:g}, {upper:g}] m, '
                                f'beyond +-{MAX_LENGTH:g} m')
        if lim is not None and lim.velocity is not None and float(lim.velocity) > 0.0:
            velocity = float(lim.velocity)
    mimic = getattr(j, 'mimic', None)
    if mimic is not None:
        for attr in ('multiplier', 'offset'):
            value = getattr(mimic, attr)
            if value is not None and not math.isfinite(float(value)):
                raise URDFError(f'mimic joint {j.name!r} has a non-finite {attr} ({value})')
            if value is not None and abs(float(value)) > MAX_LENGTH:
                raise URDFError(f'mimic joint {j.name!r} has a {attr} of {float(value):g}, '
                                f'beyond +-{MAX_LENGTH:g}')
    return JointSpec(
        name=j.name, joint_type=j.type, parent=j.parent, child=j.child, origin=origin,
        axis=axis, lower=lower, upper=upper,
        velocity=velocity,
        mimic_joint=None if mimic is None else mimic.joint,
        mimic_multiplier=1.0 if mimic is None or mimic.multiplier is None
        else float(mimic.multiplier),
        mimic_offset=0.0 if mimic is None or mimic.offset is None else float(mimic.offset))


def read_robot(urdf: UrdfSource) -> RobotSpec:
    """Parse ``urdf`` (XML text or a file path) into every link and joint, checked."""
    robot = _parse(load_urdf_text(urdf))
    links = tuple(link.name for link in robot.links)
    children: dict[str, str] = {}
    for j in robot.joints:
        if j.child not in links or j.parent not in links:
            missing = j.child if j.child not in links else j.parent
            raise URDFError(f'joint {j.name!r} refers to link {missing!r}, which is not defined')
        if j.child in children:
            raise URDFError(f'link {j.child!r} has two parent joints '
                            f'({children[j.child]!r} and {j.name!r}): not a tree')
        children[j.child] = j.name
    return RobotSpec(name=robot.name, links=links,
                     joints=tuple(_joint_spec(j) for j in robot.joints))


def read_chain(urdf: UrdfSource, base_link: str, tip_link: str) -> ChainSpec:
    """Parse ``urdf`` and return the joints from ``base_link`` down to ``tip_link``."""
    robot = read_robot(urdf)
    return chain_of(robot, base_link, tip_link)


def chain_of(robot: RobotSpec, base_link: str, tip_link: str) -> ChainSpec:
    """Return the joints of ``robot`` from ``base_link`` down to ``tip_link``."""
    links = robot.links
    for role, name in (('base_link', base_link), ('tip_link', tip_link)):
        if name not in links:
            shown = ', '.join(links[:12]) + (', ...' if len(links) > 12 else '')
            raise URDFError(f'{role} {name!r} is not a link of robot {robot.name!r} '
                            f'(links: {shown})')
    parent_joint = {j.child: j for j in robot.joints}
    walk = []
    link, seen = tip_link, {tip_link}
    while link != base_link:
        j = parent_joint.get(link)
        if j is None:
            raise URDFError(f'tip_link {tip_link!r} is not below base_link {base_link!r} '
                            f'in robot {robot.name!r}')
        walk.append(j)
        link = j.parent
        if link in seen:
            raise URDFError(f'the joints above link {tip_link!r} form a cycle through '
                            f'link {link!r}')
        seen.add(link)
    joints = tuple(reversed(walk))
    for j in joints:
        if j.joint_type not in _SUPPORTED:
            raise URDFError(f'joint {j.name!r} has type {j.joint_type!r}; a chain supports '
                            f'{", ".join(_SUPPORTED)}')
    if not any(j.moves and j.mimic_joint is None for j in joints):
        raise URDFError(f'the chain {base_link!r} -> {tip_link!r} has no actuated joint')
    return ChainSpec(robot_name=robot.name, base_link=base_link, tip_link=tip_link,
                     joints=joints, links=links)
