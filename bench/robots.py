# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Locate the benchmark robots and give them a forward-kinematics model.

The three reference arms come from PyPI packages installed for the benchmark only
(``bench/requirements.txt``), never from the package itself:

- ``panda``: example-robot-data ``panda_description/urdf/panda.urdf``,
  panda_link0 -> panda_link8 (the flange), 7 revolute joints.
- ``ur5``: example-robot-data ``ur_description/urdf/ur5_robot.urdf``,
  base_link -> tool0, 6 revolute joints (limits +-2 pi, elbow +-pi).
- ``iiwa14``: rtb-data ``kuka_description/kuka_lbr_iiwa/urdf/lbr_iiwa_14_r820.urdf``,
  base_link -> tool0, 7 revolute joints.

rtb-data ships the iiwa both as xacro and as the URDF xacro made from it; the URDF is used,
and the xacro is expanded with ``xacrodoc`` (a dependency of roboticstoolbox-python) only when
the URDF is missing. The project's own arms are found with :func:`bundled_robots`.

Success is judged by forward kinematics that belong to the benchmark, not to a peer:
:func:`load_chain` returns ``ik_node.Chain`` when it can be imported and otherwise
:class:`ReferenceChain`, a small independent model read with urdf_parser_py. Keeping the
reference model also lets the benchmark check ``ik_node``'s own FK against it.
"""

from dataclasses import dataclass
import importlib.metadata
import io
import os
from pathlib import Path
import sys
from typing import Union

import numpy as np

__all__ = [
    'ROBOT_NAMES', 'RobotSpec', 'get_robot', 'bundled_robots', 'read_urdf_text',
    'ReferenceChain', 'load_chain',
]

UrdfSource = Union[str, os.PathLike]

ROBOT_NAMES = ('panda', 'ur5', 'iiwa14')

_ERD_FILES = {
    'panda': ('panda_description/urdf/panda.urdf', 'panda_link0', 'panda_link8'),
    'ur5': ('ur_description/urdf/ur5_robot.urdf', 'base_link', 'tool0'),
}
_IIWA_DIR = ('xacro', 'kuka_description', 'kuka_lbr_iiwa')
_IIWA_URDF = 'urdf/lbr_iiwa_14_r820.urdf'
_IIWA_XACRO = 'urdf/lbr_iiwa_14_r820.xacro'
_IIWA_PACKAGE = 'kuka_lbr_iiwa_support'   # the name its xacro uses in $(find ...)


@dataclass(frozen=True)
class RobotSpec:
    """A benchmark robot: its URDF (a file path or XML text) and the chain to solve."""

    name: str
    urdf: str
    base_link: str
    tip_link: str
    source: str

    @property
    def urdf_text(self) -> str:
        """Return the URDF as XML text, whichever form ``urdf`` has."""
        return read_urdf_text(self.urdf)


def read_urdf_text(urdf: UrdfSource) -> str:
    """Return URDF XML text from a path or from text that already is XML."""
    text = os.fspath(urdf)
    if text.lstrip().startswith('<'):
        return text
    return Path(text).read_text()


def _example_robot_data_file(relative: str) -> Path:
    """
    Find a file of the example-robot-data wheel by the end of its path.

    Version 6 of the wheel is a cmeel package with no Python module: its robots live under
    ``cmeel.prefix/share/example-robot-data/robots``. Searching the wheel's file list keeps
    this independent of that prefix.
    """
    dist = importlib.metadata.distribution('example-robot-data')
    for entry in dist.files or ():
        if entry.as_posix().endswith('/robots/' + relative):
            path = Path(dist.locate_file(entry))
            if path.is_file():
                return path
    raise FileNotFoundError(
        f'example-robot-data {dist.version} has no robots/{relative}')


def _rtb_data_dir() -> Path:
    import rtbdata
    return Path(rtbdata.__file__).resolve().parent.joinpath(*_IIWA_DIR)


def _expand_iiwa_xacro(package_dir: Path) -> str:
    """
    Expand the iiwa xacro with xacrodoc.

    The xacro includes its macro through ``$(find kuka_lbr_iiwa_support)``, a name rtb-data
    does not use, so it is aliased to the directory; mesh ``package://`` names are left as
    they are, since meshes play no part in IK.
    """
    from xacrodoc import packages, XacroDoc
    packages.update_package_cache({_IIWA_PACKAGE: str(package_dir)})
    doc = XacroDoc.from_file(str(package_dir / _IIWA_XACRO), resolve_packages=False)
    return doc.to_urdf_string()


def get_robot(name: str, expand_xacro: bool = False) -> RobotSpec:
    """
    Return the URDF and chain of a reference robot ('panda', 'ur5' or 'iiwa14').

    ``expand_xacro=True`` makes the iiwa come from its xacro (as XML text) even though a
    pre-expanded URDF is shipped next to it; both describe the same kinematics.
    """
    if name in _ERD_FILES:
        relative, base, tip = _ERD_FILES[name]
        path = _example_robot_data_file(relative)
        version = importlib.metadata.version('example-robot-data')
        return RobotSpec(name, str(path), base, tip, f'example-robot-data {version}')
    if name == 'iiwa14':
        package_dir = _rtb_data_dir()
        version = importlib.metadata.version('rtb-data')
        urdf_file = package_dir / _IIWA_URDF
        if urdf_file.is_file() and not expand_xacro:
            return RobotSpec(name, str(urdf_file), 'base_link', 'tool0', f'rtb-data {version}')
        text = _expand_iiwa_xacro(package_dir)
        return RobotSpec(name, text, 'base_link', 'tool0', f'rtb-data {version} (xacro)')
    raise KeyError(f'unknown robot {name!r}; known: {", ".join(ROBOT_NAMES)}')


def _parse(urdf: UrdfSource):
    """Parse with urdf_parser_py, keeping its warnings about unknown tags off stderr."""
    from urdf_parser_py.urdf import URDF
    text = read_urdf_text(urdf)
    saved, sys.stderr = sys.stderr, io.StringIO()
    try:
        return URDF.from_xml_string(text.encode())
    finally:
        sys.stderr = saved


def _movable_depth_leaf(robot) -> tuple:
    """Return (root link, the leaf link reached through the most movable joints)."""
    root = robot.get_root()
    best = (-1, root)
    stack = [(root, 0)]
    while stack:
        link, depth = stack.pop()
        children = robot.child_map.get(link, [])
        if not children and depth > best[0]:
            best = (depth, link)
        for joint_name, child in children:
            moves = robot.joint_map[joint_name].type != 'fixed'
            stack.append((child, depth + int(moves)))
    return root, best[1]


def bundled_robots(urdf_dir: UrdfSource | None = None) -> list:
    """
    Return a RobotSpec for every ``*.urdf`` the project bundles in ``config/urdf``.

    The chain runs from the root link to the leaf reached through the most movable joints
    (the first such leaf on a tie), which is the arm's tip for a plain arm with or without a
    gripper. A file that fails to parse is skipped.
    """
    if urdf_dir is None:
        urdf_dir = Path(__file__).resolve().parent.parent / 'config' / 'urdf'
    specs = []
    for path in sorted(Path(urdf_dir).glob('*.urdf')):
        try:
            robot = _parse(path)
        except Exception:  # a malformed file is not a benchmark robot
            continue
        base, tip = _movable_depth_leaf(robot)
        specs.append(RobotSpec(path.stem, str(path), base, tip, 'ik_node config/urdf'))
    return specs


def _rpy_matrix(rpy) -> np.ndarray:
    """Rotation of URDF roll-pitch-yaw: Rz(yaw) @ Ry(pitch) @ Rx(roll)."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def _axis_angle_matrix(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues' rotation about a unit axis."""
    x, y, z = axis
    c, s = np.cos(angle), np.sin(angle)
    C = 1.0 - c
    return np.array([
        [c + x * x * C, x * y * C - z * s, x * z * C + y * s],
        [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
        [z * x * C - y * s, z * y * C + x * s, c + z * z * C],
    ])


class ReferenceChain:
    """
    Independent FK of the serial chain base_link -> tip_link, for judging peers.

    Only what judging needs: ``joint_names``, ``n``, ``lower``, ``upper`` and ``mid`` (n,)
    [rad or m], ``continuous`` (n,) bool, ``fk(q) -> (4, 4)`` and ``within_limits``. Mimic
    joints follow ``multiplier * q[leader] + offset``; continuous joints have infinite limits
    and mid-range 0.
    """

    def __init__(self, urdf: UrdfSource, base_link: str, tip_link: str) -> None:
        robot = _parse(urdf)
        self.base_link, self.tip_link = base_link, tip_link
        names = robot.get_chain(base_link, tip_link, joints=True, links=False, fixed=True)
        joints = [robot.joint_map[name] for name in names]
        actuated = [j for j in joints if j.type != 'fixed' and j.mimic is None]
        self.joint_names = tuple(j.name for j in actuated)
        self.n = len(actuated)
        index = {name: i for i, name in enumerate(self.joint_names)}
        lower, upper, continuous = [], [], []
        for joint in actuated:
            cont = joint.type == 'continuous' or joint.limit is None
            continuous.append(cont)
            lower.append(-np.inf if cont else float(joint.limit.lower))
            upper.append(np.inf if cont else float(joint.limit.upper))
        self.lower = np.array(lower)
        self.upper = np.array(upper)
        self.continuous = np.array(continuous)
        self.mid = np.where(self.continuous, 0.0, 0.5 * (self.lower + self.upper))
        # One entry per joint of the chain: (origin (4, 4), kind, axis, index, mult, offset)
        self._steps = []
        for joint in joints:
            origin = np.eye(4)
            if joint.origin is not None:
                origin[:3, :3] = _rpy_matrix(joint.origin.rpy or (0.0, 0.0, 0.0))
                origin[:3, 3] = joint.origin.xyz or (0.0, 0.0, 0.0)
            if joint.type == 'fixed':
                self._steps.append((origin, 'fixed', None, -1, 0.0, 0.0))
                continue
            axis = np.array(joint.axis if joint.axis is not None else (1.0, 0.0, 0.0), float)
            axis /= np.linalg.norm(axis)
            kind = 'prismatic' if joint.type == 'prismatic' else 'revolute'
            if joint.mimic is None:
                self._steps.append((origin, kind, axis, index[joint.name], 1.0, 0.0))
            else:
                self._steps.append((origin, kind, axis, index[joint.mimic.joint],
                                    float(joint.mimic.multiplier or 1.0),
                                    float(joint.mimic.offset or 0.0)))

    def fk(self, q) -> np.ndarray:
        """Return the (4, 4) pose of tip_link in base_link for joint values q (n,)."""
        q = np.asarray(q, dtype=float)
        if q.shape != (self.n,):
            raise ValueError(f'q has shape {q.shape}, expected ({self.n},)')
        T = np.eye(4)
        for origin, kind, axis, i, mult, offset in self._steps:
            T = T @ origin
            if kind == 'fixed':
                continue
            value = mult * q[i] + offset
            motion = np.eye(4)
            if kind == 'revolute':
                motion[:3, :3] = _axis_angle_matrix(axis, value)
            else:
                motion[:3, 3] = axis * value
            T = T @ motion
        return T

    def within_limits(self, q, tol: float = 1e-9) -> bool:
        """Whether q (n,) lies within [lower - tol, upper + tol]."""
        q = np.asarray(q, dtype=float)
        return bool(np.all(q >= self.lower - tol) and np.all(q <= self.upper + tol))


def load_chain(spec: RobotSpec, prefer_ik_node: bool = True):
    """
    Return the FK model that judges success: ``ik_node.Chain`` or a ReferenceChain.

    ``ik_node.Chain.from_urdf`` is used when the package imports and provides it; either
    model offers ``joint_names``, ``n``, ``lower``, ``upper``, ``mid``, ``fk`` and
    ``within_limits``.
    """
    if prefer_ik_node:
        try:
            from ik_node.model.chain import Chain
        except ImportError:
            pass
        else:
            return Chain.from_urdf(spec.urdf, spec.base_link, spec.tip_link)
    return ReferenceChain(spec.urdf, spec.base_link, spec.tip_link)
