# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Adapters that give each peer IK solver one call shape for the benchmark.

Every adapter is built as ``Peer(urdf, base_link, tip_link)`` (``urdf`` a path or XML text)
and offers

- ``name``: str; ``settings``: dict of the options in force, for the report;
- ``modes``: the target kinds it accepts, ``'pose'`` ((4, 4) pose) and/or ``'position'``
  ((3,) position), both in the base_link frame [m];
- ``joint_names``: actuated joints in URDF chain order base -> tip, the order of every q;
- ``solve(target, q_seed) -> q (n,) or None``: one IK call from the seed; None when the peer
  itself reports failure. Success is never taken from the peer: the benchmark judges q with
  its own FK (``targets.judge``);
- ``fk(q) -> (4, 4)``: the peer's own FK, used only to check that its joint order and model
  agree with the benchmark's (:func:`fk_disagreement`).

Peers and the settings used (the benchmark's tolerances are 1 mm and 0.01 rad):

- ``trac_ik`` (pytracik): TRAC-IK's defaults, Speed mode, 5 ms timeout, eps 1e-5, which is
  tighter than ours. Its binding takes no Cartesian bounds, so pose targets only. It runs
  KDL and NLopt in two threads at once. The joint limits are set from the URDF's ``<limit>``
  after loading, since pytracik's own reading of them is wrong (see ``TracIkPeer``).
- ``rtb_lm`` (roboticstoolbox-python ``ETS.ik_LM``, C++): Chan's LM, k = 1, ilimit 30
  iterations per search, slimit 100 searches (random restarts after the seed), joint limits
  enforced. Its stop rule is E = 0.5 |e|^2 < tol over the 6-vector (position [m] and
  angle-axis [rad]) error; tol = 5e-7 is the loosest value whose stop guarantees |e| <= 1 mm,
  so both of ours hold. Position targets use the mask (1, 1, 1, 0, 0, 0).
- ``ikpy``: scipy ``least_squares`` (trf) with the joint limits as bounds, one start, scipy's
  default tolerances and budget; ``orientation_mode='all'`` for poses (residual: position [m]
  and the 9 rotation-matrix entries), ``None`` for positions. It has no success flag, so its
  answer is always returned for judging.
"""

import contextlib
import io
import math
import os
from pathlib import Path
import sys
import tempfile
from typing import Union
import warnings
import xml.etree.ElementTree as ET

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    'TracIkPeer', 'RtbLmPeer', 'IkpyPeer', 'PEERS', 'make_peers', 'fk_disagreement',
    'chain_path', 'quat_xyzw_from_matrix',
]

UrdfSource = Union[str, os.PathLike]


def _urdf_text(urdf: UrdfSource) -> str:
    text = os.fspath(urdf)
    return text if text.lstrip().startswith('<') else Path(text).read_text()


def _strip_geometry(text: str) -> str:
    """Drop visual/collision elements: mesh names play no part in IK."""
    root = ET.fromstring(text)
    for link in root.iter('link'):
        for tag in ('visual', 'collision'):
            for element in link.findall(tag):
                link.remove(element)
    return ET.tostring(root, encoding='unicode')


def chain_path(urdf: UrdfSource, base_link: str, tip_link: str) -> tuple:
    """
    Return (joints, links) from base_link to tip_link as URDF XML elements.

    ``joints[i]`` connects ``links[i]`` to ``links[i + 1]``; ``links[0]`` is base_link.
    """
    root = ET.fromstring(_urdf_text(urdf))
    by_child = {j.find('child').get('link'): j for j in root.findall('joint')}
    joints, link = [], tip_link
    while link != base_link:
        if link not in by_child:
            raise ValueError(f'no chain from {base_link!r} to {tip_link!r}')
        joint = by_child[link]
        joints.append(joint)
        link = joint.find('parent').get('link')
    joints.reverse()
    links = [base_link] + [j.find('child').get('link') for j in joints]
    return joints, links


def _actuated_names(joints) -> tuple:
    return tuple(j.get('name') for j in joints
                 if j.get('type') != 'fixed' and j.find('mimic') is None)


def quat_xyzw_from_matrix(R: ArrayLike) -> tuple:
    """Return the unit quaternion (x, y, z, w) of a rotation matrix (Shepperd's method)."""
    R = np.asarray(R, dtype=float)
    m00, m01, m02 = R[0, 0], R[0, 1], R[0, 2]
    m10, m11, m12 = R[1, 0], R[1, 1], R[1, 2]
    m20, m21, m22 = R[2, 0], R[2, 1], R[2, 2]
    trace = m00 + m11 + m22
    if trace > 0.0:
        s = 2.0 * math.sqrt(trace + 1.0)
        w, x, y, z = 0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s
    elif m00 > m11 and m00 > m22:
        s = 2.0 * math.sqrt(1.0 + m00 - m11 - m22)
        w, x, y, z = (m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s
    elif m11 > m22:
        s = 2.0 * math.sqrt(1.0 + m11 - m00 - m22)
        w, x, y, z = (m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s
    else:
        s = 2.0 * math.sqrt(1.0 + m22 - m00 - m11)
        w, x, y, z = (m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    return x / norm, y / norm, z / norm, w / norm


def _target_kind(target: np.ndarray) -> str:
    if target.shape == (4, 4):
        return 'pose'
    if target.shape == (3,):
        return 'position'
    raise ValueError(f'target must be (4, 4) or (3,), got {target.shape}')


# KDL's notice for a URDF whose root link has an inertia (every arm of the set has one): it is
# harmless for IK, unformatted ('%s') and printed by C++ straight to the process's stderr.
_KDL_NOTICE = b'root link %s has an inertia'


@contextlib.contextmanager
def _kdl_notice_dropped():
    """Run the block with C++ stdout and stderr captured; pass on all but KDL's notice."""
    import ctypes
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    with tempfile.TemporaryFile() as caught:
        for fd in saved:
            os.dup2(caught.fileno(), fd)
        try:
            yield
        finally:
            libc.fflush(None)       # what C's stdio still buffers goes to the capture
            for fd, old in saved.items():
                os.dup2(old, fd)
                os.close(old)
            caught.seek(0)
            for line in caught.read().splitlines(keepends=True):
                if _KDL_NOTICE not in line:
                    os.write(2, line)


class TracIkPeer:
    """TRAC-IK through pytracik (KDL Newton with random restarts racing NLopt SQP)."""

    name = 'trac_ik'
    modes = ('pose',)

    def __init__(self, urdf: UrdfSource, base_link: str, tip_link: str,
                 timeout: float = 0.005, epsilon: float = 1e-5,
                 solve_type: str = 'Speed') -> None:
        import pytracik
        self._pytracik = pytracik
        text = _urdf_text(urdf)
        joints, _ = chain_path(text, base_link, tip_link)
        self.joint_names = _actuated_names(joints)
        with _kdl_notice_dropped():
            self._solver = pytracik.TRAC_IK(base_link, tip_link, text, float(timeout),
                                            float(epsilon),
                                            getattr(pytracik.SolveType, solve_type))
        n = pytracik.get_num_joints(self._solver)
        if n != len(self.joint_names):
            raise ValueError(f'TRAC-IK sees {n} joints, the URDF chain has '
                             f'{len(self.joint_names)}')
        # pytracik's URDF reader takes the <safety_controller> soft limits as 0 (every Panda
        # joint came out as [0, 0]) and keeps limits in single precision, so the URDF's hard
        # limits are set again here, in double precision. Continuous joints keep TRAC-IK's own
        # +-FLT_MAX, which is how it recognises them.
        lower = np.array(pytracik.get_joint_lower_bounds(self._solver))
        upper = np.array(pytracik.get_joint_upper_bounds(self._solver))
        actuated = [j for j in joints if j.get('type') not in ('fixed', 'continuous')
                    and j.find('mimic') is None]
        for joint in actuated:
            i = self.joint_names.index(joint.get('name'))
            lower[i] = float(joint.find('limit').get('lower', 0.0))
            upper[i] = float(joint.find('limit').get('upper', 0.0))
        pytracik.set_joint_limits(self._solver, lower.tolist(), upper.tolist())
        self.lower = np.array(pytracik.get_joint_lower_bounds(self._solver))
        self.upper = np.array(pytracik.get_joint_upper_bounds(self._solver))
        self.settings = {'solve_type': solve_type, 'timeout_s': timeout, 'epsilon': epsilon}

    def solve(self, target: ArrayLike, q_seed: ArrayLike):
        """Solve for a (4, 4) pose target from q_seed (n,); None if TRAC-IK fails."""
        target = np.asarray(target, dtype=float)
        if _target_kind(target) != 'pose':
            raise ValueError('trac_ik (pytracik) takes pose targets only')
        x, y, z, w = quat_xyzw_from_matrix(target[:3, :3])
        seed = np.array(q_seed, dtype=float)
        r = self._pytracik.ik(self._solver, seed, target[0, 3], target[1, 3], target[2, 3],
                              x, y, z, w)
        return np.array(r[1:]) if r[0] >= 0 else None

    def fk(self, q: ArrayLike) -> np.ndarray:
        """Return TRAC-IK's KDL forward kinematics, (4, 4)."""
        return np.asarray(self._pytracik.fk(self._solver, np.array(q, dtype=float)))


class RtbLmPeer:
    """Robotics Toolbox for Python, ``ETS.ik_LM`` (C++ Levenberg-Marquardt)."""

    name = 'rtb_lm'
    modes = ('pose', 'position')

    def __init__(self, urdf: UrdfSource, base_link: str, tip_link: str,
                 tol: float = 5e-7, ilimit: int = 30, slimit: int = 100,
                 method: str = 'chan', k: float = 1.0, joint_limits: bool = True) -> None:
        from roboticstoolbox.models.URDF.URDFRobot import URDF_file
        from roboticstoolbox.robot.Robot import Robot
        text = _urdf_text(urdf)
        joints, _ = chain_path(text, base_link, tip_link)
        self.joint_names = _actuated_names(joints)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            elinks, robot_name, _ = URDF_file(io.StringIO(_strip_geometry(text)))
            robot = Robot(elinks, name=robot_name)
            self._ets = robot.ets(start=base_link, end=tip_link)
        if self._ets.n != len(self.joint_names):
            raise ValueError(f'rtb sees {self._ets.n} joints, the URDF chain has '
                             f'{len(self.joint_names)}')
        self.lower, self.upper = (np.array(row) for row in self._ets.qlim)
        self._options = {'ilimit': ilimit, 'slimit': slimit, 'tol': tol,
                         'joint_limits': joint_limits, 'k': k, 'method': method}
        self._mask = {'pose': np.ones(6), 'position': np.array([1., 1., 1., 0., 0., 0.])}
        self.settings = dict(self._options)

    def solve(self, target: ArrayLike, q_seed: ArrayLike):
        """Solve for a (4, 4) pose or (3,) position from q_seed (n,); None on failure."""
        target = np.asarray(target, dtype=float)
        kind = _target_kind(target)
        if kind == 'position':
            T = np.eye(4)
            T[:3, 3] = target
        else:
            T = np.ascontiguousarray(target)
        # A fresh writable copy: the C++ binding refuses read-only arrays (ik_node.Chain.mid).
        sol = self._ets.ik_LM(T, q0=np.array(q_seed, dtype=float), mask=self._mask[kind],
                              **self._options)
        return np.array(sol.q) if sol.success else None

    def fk(self, q: ArrayLike) -> np.ndarray:
        """Return the toolbox's forward kinematics, (4, 4)."""
        return np.asarray(self._ets.eval(np.array(q, dtype=float)))


class IkpyPeer:
    """ikpy: scipy least_squares on the chain read from the URDF, one start."""

    name = 'ikpy'
    modes = ('pose', 'position')

    def __init__(self, urdf: UrdfSource, base_link: str, tip_link: str,
                 optimizer: str = 'least_squares') -> None:
        from ikpy.chain import Chain
        from ikpy.link import OriginLink, URDFLink
        from ikpy.urdf.URDF import get_urdf_parameters
        text = _urdf_text(urdf)
        joints, links = chain_path(text, base_link, tip_link)
        if any(j.find('mimic') is not None for j in joints):
            raise ValueError('ikpy has no mimic joints')
        self.joint_names = _actuated_names(joints)
        # ikpy follows the path given, then keeps going to a leaf: keep only our joints.
        path = [links[0]]
        for joint, link in zip(joints, links[1:]):
            path += [joint.get('name'), link]
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            ik_links = get_urdf_parameters(io.StringIO(text), base_elements=path)[:len(joints)]
            if ik_links and ik_links[-1].joint_type != 'fixed':
                ik_links.append(URDFLink(name='tip', origin_translation=[0, 0, 0],
                                         origin_orientation=[0, 0, 0], joint_type='fixed'))
            mask = [False] + [link.joint_type != 'fixed' for link in ik_links]
            self._chain = Chain([OriginLink()] + ik_links, active_links_mask=mask,
                                name=base_link + '->' + tip_link)
        self._mask = np.array(mask)
        names = tuple(link.name for link, m in zip(self._chain.links, mask) if m)
        if names != self.joint_names:
            raise ValueError(f'ikpy joint order {names} differs from the URDF {self.joint_names}')
        bounds = np.array([link.bounds for link, m in zip(self._chain.links, mask) if m], float)
        self.lower, self.upper = bounds[:, 0], bounds[:, 1]
        self._optimizer = optimizer
        self.settings = {'optimizer': optimizer, 'pose': "orientation_mode='all'",
                         'position': 'orientation_mode=None', 'tolerances': 'scipy defaults'}

    def _full(self, q: ArrayLike) -> np.ndarray:
        full = np.zeros(self._mask.size)
        full[self._mask] = np.asarray(q, dtype=float)
        return full

    def solve(self, target: ArrayLike, q_seed: ArrayLike):
        """Solve for a (4, 4) pose or (3,) position from q_seed (n,); always returns q."""
        target = np.asarray(target, dtype=float)
        kind = _target_kind(target)
        if kind == 'position':
            frame = np.eye(4)
            frame[:3, 3] = target
            mode = None
        else:
            frame, mode = target, 'all'
        full = self._chain.inverse_kinematics_frame(
            frame, initial_position=self._full(q_seed), orientation_mode=mode,
            optimizer=self._optimizer)
        return np.asarray(full, dtype=float)[self._mask]

    def fk(self, q: ArrayLike) -> np.ndarray:
        """Return ikpy's forward kinematics, (4, 4)."""
        return np.asarray(self._chain.forward_kinematics(self._full(q)), dtype=float)


PEERS = {cls.name: cls for cls in (TracIkPeer, RtbLmPeer, IkpyPeer)}


def make_peers(urdf: UrdfSource, base_link: str, tip_link: str, names=None) -> tuple:
    """Build the peers that load; return ({name: peer}, {name: reason it did not load})."""
    peers, missing = {}, {}
    for name in names or PEERS:
        try:
            peers[name] = PEERS[name](urdf, base_link, tip_link)
        except Exception as error:  # a peer that cannot load is reported, not fatal
            missing[name] = f'{type(error).__name__}: {error}'
    return peers, missing


def fk_disagreement(peer, chain, n: int = 20, seed: int = 1) -> float:
    """
    Largest |peer.fk(q) - chain.fk(q)| entry over n random q within limits.

    Near 0 confirms that the peer orders joints as ``chain.joint_names`` and reads the same
    kinematics; any joint-order mix-up shows up as an error of centimetres or more.
    """
    if tuple(peer.joint_names) != tuple(chain.joint_names):
        return math.inf
    lo = np.where(np.isfinite(chain.lower), chain.lower, -np.pi)
    hi = np.where(np.isfinite(chain.upper), chain.upper, np.pi)
    rng = np.random.default_rng(seed)
    return max(float(np.abs(peer.fk(q) - chain.fk(q)).max())
               for q in rng.uniform(lo, hi, size=(n, lo.size)))
