# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The kinematic chain: joint limits, forward kinematics and the Jacobian of a URDF arm."""

import math
import os
from typing import Mapping, NamedTuple, Optional, Sequence, Union

from ik_node._jit import njit, readonly
from ik_node.collision import checker
from ik_node.errors import IKInputError, URDFError
from ik_node.model import kinematics
from ik_node.model.urdf import ChainSpec, load_urdf_text, read_chain
from ik_node.solvers.target_records import Limits
from ik_node.target_checks import not_finite_error
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['Chain', 'JointVector', 'FoldedJoints', 'fold_joints']


@njit
def _all_finite(a):
    """Return True when every entry of the (n,) array ``a`` is finite (no NaN or Inf)."""
    for x in a:
        if not math.isfinite(x):
            return False
    return True


class JointVector:
    """
    Joint-vector helpers: checks, limits, clipping and random draws.

    For a kinematic model with ``n``, ``joint_names``, ``lower``, ``upper`` and
    ``continuous``: :class:`Chain` and :class:`ik_node.tree.chain.TreeChain`.
    """

    n: int
    joint_names: tuple
    lower: np.ndarray
    upper: np.ndarray
    continuous: np.ndarray

    def check_q(self, q: ArrayLike, name: str = 'q') -> np.ndarray:
        """Return ``q`` as a new float (n,) array; IKInputError for a bad shape or NaN/Inf."""
        a = self.q_array(q, name)
        if not _all_finite(a):
            raise not_finite_error(a, name)
        return a

    def q_array(self, q: ArrayLike, name: str = 'q') -> np.ndarray:
        """Return ``q`` as a new float (n,) array, not yet checked for NaN/Inf (check_q)."""
        try:
            a = np.array(q, dtype=float)
        except (TypeError, ValueError) as exc:
            raise IKInputError(f'{name} must be {self.n} numbers: {exc}') from exc
        if a.shape != (self.n,):
            raise IKInputError(f'{name} must have shape ({self.n},) for joints '
                               f'{list(self.joint_names)}, got {a.shape}')
        return a

    def within_limits(self, q: ArrayLike, tol: float = 1e-9) -> bool:
        """Return True when ``q`` is finite and inside [lower - tol, upper + tol]."""
        a = np.asarray(q, dtype=float)
        return bool(a.shape == (self.n,) and np.all(np.isfinite(a))
                    and np.all(a >= self.lower - tol) and np.all(a <= self.upper + tol))

    def clip(self, q: ArrayLike) -> np.ndarray:
        """Return ``q`` clamped into the joint limits (a new array)."""
        return np.clip(self.check_q(q), self.lower, self.upper)

    def random_q(self, rng: np.random.Generator, count: Optional[int] = None) -> np.ndarray:
        """
        Return joint values drawn uniformly within the limits (+-pi for continuous).

        (n,), or (count, n) when ``count`` is given: the same doubles, in the same order, as
        ``count`` calls without it.
        """
        lo = np.where(self.continuous, -math.pi, self.lower)
        hi = np.where(self.continuous, math.pi, self.upper)
        return rng.uniform(lo, hi, size=None if count is None else (count, self.n))


def _arrays_in(state, seen: Optional[set] = None):
    """
    Yield the numpy arrays that ``state`` holds, in an order a copy of it keeps.

    Walks dicts, lists and tuples (records too) and the attributes of ik_node's own objects
    (the collision setup and its model), each object once. A deep copy or a pickle round
    trip keeps this structure and order, so the k-th array of a copy is the k-th of its
    original (:meth:`Chain.__setstate__`).
    """
    seen = set() if seen is None else seen
    if id(state) in seen:
        return
    seen.add(id(state))
    if isinstance(state, np.ndarray):
        yield state
    elif isinstance(state, dict):
        for value in state.values():
            yield from _arrays_in(value, seen)
    elif isinstance(state, (list, tuple)):
        for value in state:
            yield from _arrays_in(value, seen)
    elif type(state).__module__.startswith('ik_node.') and hasattr(state, '__dict__'):
        yield from _arrays_in(vars(state), seen)


def _readonly_ordinals(state: dict) -> list:
    """Return the positions of the read-only arrays in :func:`_arrays_in`'s order."""
    return [k for k, a in enumerate(_arrays_in(state)) if not a.flags.writeable]


class FoldedJoints(NamedTuple):
    """
    The moving joints of a serial path with the fixed ones folded into their successors.

    origins (m, 4, 4): each moving joint's origin, the fixed joints before it folded in;
    axes (m, 3), types (m,) (kinematics.JOINT_*), and entry, multiplier, offset (m,): the
    joint-vector entry each follows (a mimic joint its master's); moving: the m JointSpecs;
    tip (4, 4): the fixed joints after the last moving one.
    """

    origins: np.ndarray
    axes: np.ndarray
    types: np.ndarray
    entry: np.ndarray
    multiplier: np.ndarray
    offset: np.ndarray
    moving: tuple
    tip: np.ndarray


def fold_joints(joints, by_name: Mapping, names: Sequence[str]) -> FoldedJoints:
    """
    Return the :class:`FoldedJoints` of the serial path ``joints``.

    by_name: every joint of the robot by name (a mimic joint's master may lie off the path);
    names: the joint vector's names, which ``entry`` points into.
    """
    origins, axes, types, index, mult, offset, moving = [], [], [], [], [], [], []
    pending = np.eye(4)
    for j in joints:
        if j.joint_type == 'fixed':
            pending = pending @ j.origin
            continue
        idx, mul, off = Chain._resolve_mimic(j, by_name, names)
        origins.append(pending @ j.origin)
        pending = np.eye(4)
        axes.append(j.axis)
        types.append(kinematics.JOINT_PRISMATIC if j.joint_type == 'prismatic'
                     else kinematics.JOINT_REVOLUTE)
        index.append(idx)
        mult.append(mul)
        offset.append(off)
        moving.append(j)
    return FoldedJoints(np.array(origins), np.array(axes, dtype=float),
                        np.array(types, dtype=np.int64), np.array(index, dtype=np.int64),
                        np.array(mult, dtype=float), np.array(offset, dtype=float),
                        tuple(moving), pending)


class Chain(JointVector):
    """
    A serial chain base_link -> tip_link with n actuated joints.

    Joint values ``q`` are (n,) arrays in ``joint_names`` order, [rad] for revolute and
    continuous joints, [m] for prismatic ones. Mimic joints are not part of ``q``: they follow
    their master joint, and their limits narrow the master's.
    """

    def __init__(self, spec: ChainSpec):
        """Build the chain from a parsed :class:`ik_node.model.urdf.ChainSpec`."""
        self.robot_name = spec.robot_name
        self.base_link = spec.base_link
        self.tip_link = spec.tip_link
        self.links = spec.links
        actuated = [j for j in spec.joints if j.joint_type != 'fixed' and j.mimic_joint is None]
        names = [j.name for j in actuated]
        self.joint_names = tuple(names)
        self.n = len(names)
        lower = np.array([j.lower for j in actuated])
        upper = np.array([j.upper for j in actuated])
        velocity = np.array([j.velocity for j in actuated])
        self.continuous = readonly(np.array([j.joint_type == 'continuous' for j in actuated]))
        self.prismatic = readonly(np.array([j.joint_type == 'prismatic' for j in actuated]))
        by_name = {j.name: j for j in spec.joints}

        folded = fold_joints(spec.joints, by_name, names)
        for k, j in enumerate(folded.moving):
            if j.mimic_joint is not None and j.joint_type != 'continuous':
                self._narrow_master(j, int(folded.entry[k]), float(folded.multiplier[k]),
                                    float(folded.offset[k]), lower, upper)
        origins_arr, pending = folded.origins, folded.tip
        self.moving_joint_names = tuple(j.name for j in folded.moving)
        self.joint_axes = readonly(folded.axes)
        self.joint_types = readonly(folded.types)
        self.joint_index = readonly(folded.entry)
        self.joint_multiplier = readonly(folded.multiplier)
        self.joint_offset = readonly(folded.offset)
        self.joint_origins = readonly(origins_arr)
        self.tip_offset = readonly(pending)
        self.lower = readonly(lower)
        self.upper = readonly(upper)
        self.velocity = readonly(velocity)
        mid = 0.5 * (np.where(self.continuous, 0.0, lower) + np.where(self.continuous, 0.0, upper))
        self.mid = readonly(mid)
        # Revolute joints whose range spans more than a turn: the same pose repeats 2π apart.
        self.wide_revolute = readonly(~self.prismatic & ~self.continuous
                                      & (upper - lower > 2.0 * math.pi))
        # The limits record the kernels take.
        self.limits = Limits(self.lower, self.upper, self.continuous)
        self.reach_origin, self.reach = self._reach_bound(origins_arr, pending, spec.joints)
        # The arm's length [m]: the solvers measure position errors in units of it, so their
        # damping and thresholds act alike on a small arm and a large one.
        self.length_scale = max(self.reach, 1e-3)
        # Collision geometry: set by from_urdf, loaded on first use (collision_setup).
        self._collision_source: Optional[checker.CollisionSource] = None
        self._collision_setup: Optional[checker.CollisionSetup] = None
        # The solvers ik_node.solve made for this chain, by method and options as given
        # (ik_node.solver.solver_for); not pickled or copied.
        self._solvers: dict = {}
        # The tuple the numba kernels take; built once, reused by every solve.
        self.model = kinematics.ChainModel(
            readonly(origins_arr[:, :3, :3]), readonly(origins_arr[:, :3, 3]),
            self.joint_axes, self.joint_types,
            self.joint_index, self.joint_multiplier, self.joint_offset,
            readonly(pending[:3, :3]), readonly(pending[:3, 3]))

    @staticmethod
    def _reach_bound(origins: np.ndarray, tip: np.ndarray, joints) -> tuple[np.ndarray, float]:
        """
        Return (p0, r): the tip never gets farther than r [m] from p0, the first joint.

        r adds up the lengths of the rigid offsets after the first moving joint and the
        largest travel of each prismatic joint: a bound, not the exact workspace.
        """
        p0 = origins[0, :3, 3].copy()
        reach = float(np.linalg.norm(tip[:3, 3]))
        reach += sum(float(np.linalg.norm(origins[k, :3, 3])) for k in range(1, len(origins)))
        for j in joints:
            if j.joint_type == 'prismatic':
                reach += max(abs(j.lower), abs(j.upper))
        return readonly(p0), reach

    @staticmethod
    def _resolve_mimic(j, by_name, names) -> tuple[int, float, float]:
        mul, off, seen = 1.0, 0.0, set()
        while j.mimic_joint is not None:
            if j.name in seen:
                raise URDFError(f'mimic joints form a cycle through {j.name!r}')
            seen.add(j.name)
            master = by_name.get(j.mimic_joint)
            if master is None:
                raise URDFError(f'mimic joint {j.name!r} follows {j.mimic_joint!r}, which is '
                                'not an actuated joint of this chain')
            if master.joint_type == 'fixed':
                raise URDFError(f'mimic joint {j.name!r} follows fixed joint {master.name!r}')
            # value = m1 * (m2 * q + o2) + o1
            off = off + mul * j.mimic_offset
            mul = mul * j.mimic_multiplier
            j = master
        return names.index(j.name), mul, off

    @staticmethod
    def _narrow_master(j, idx, mul, off, lower, upper) -> None:
        if mul == 0.0:
            return
        a = (j.lower - off) / mul
        b = (j.upper - off) / mul
        lo, hi = min(a, b), max(a, b)
        lower[idx] = max(lower[idx], lo)
        upper[idx] = min(upper[idx], hi)
        if lower[idx] > upper[idx]:
            raise URDFError(f'the limits of mimic joint {j.name!r} leave its master no range')

    @classmethod
    def from_urdf(cls, urdf: Union[str, os.PathLike], base_link: str, tip_link: str,
                  srdf: Union[str, os.PathLike, None] = None,
                  package_dirs: Sequence[Union[str, os.PathLike]] = (),
                  held_joints: Optional[Mapping[str, float]] = None) -> 'Chain':
        """
        Build the chain ``base_link`` -> ``tip_link`` from URDF XML text or a file path.

        The collision arguments are used on the first collision query (geometry is loaded
        then, see :mod:`ik_node.collision`): ``srdf`` (XML text or path) gives the disabled
        pairs (default: :mod:`ik_node.collision.pairs`); ``package_dirs`` resolve
        ``package://`` mesh names; ``held_joints`` {name: value} holds joints outside the
        chain (default: 0 clipped into their limits).
        """
        text = load_urdf_text(urdf)
        chain = cls(read_chain(text, base_link, tip_link))
        chain._collision_source = checker.source_from(urdf, text, srdf, package_dirs,
                                                      held_joints)
        return chain

    @property
    def collision_setup(self) -> 'checker.CollisionSetup':
        """Return the collision model (built and cached on first use)."""
        if self._collision_setup is None:
            if self._collision_source is None:
                raise IKInputError('this chain was not read with Chain.from_urdf: it has no '
                                   'collision geometry')
            self._collision_setup = checker.CollisionSetup(self, self._collision_source)
        return self._collision_setup

    def collisions(self, q: ArrayLike, obstacles: Sequence = ()) -> list[tuple[str, str]]:
        """
        Return the pairs in contact at ``q``: [(link, link or obstacle name), ...].

        The check is conservative (bounding capsules): it never misses a contact of the
        URDF's collision geometry and may report a near miss. Obstacles are
        ik_node.HalfSpace, Sphere, Box or Cylinder in the base_link frame; an unnamed one is
        reported as '<kind> <index>'.
        """
        return checker.collisions(self, q, obstacles)

    def min_distance(self, q: ArrayLike, obstacles: Sequence = ()) -> 'checker.Clearance':
        """Return (signed clearance [m], closest pair) at ``q``; < 0 means contact."""
        return checker.min_distance(self, q, obstacles)

    def path_collides(self, q_a: ArrayLike, q_b: ArrayLike, step: float = 0.05,
                      obstacles: Sequence = ()) -> bool:
        """
        Return True when the joint-space segment q_a -> q_b may touch something.

        Checked at most ``step`` [rad or m] apart first, then every stretch that a bound on
        link motion cannot clear is halved down to 1e-3 (see
        :func:`ik_node.collision.kernels.path_contact`): no contact between samples is missed.
        """
        return checker.path_collides(self, q_a, q_b, step, obstacles)

    def hold_joints(self, values: Mapping[str, float]) -> None:
        """Hold joints outside the chain (fingers, another arm) at ``values`` [rad or m]."""
        self.collision_setup.hold(self, values)

    def disabled_pairs_srdf(self) -> str:
        """Return the disabled-pair matrix in force as SRDF text."""
        return self.collision_setup.srdf()

    def __getstate__(self) -> dict:
        """
        Return the state to pickle or copy: all but the solvers kept by ik_node.solve.

        It names the read-only arrays (pickling and deep copies make arrays writable), so
        that a chain unpickled or copied has the kernels' types of the original: a writable
        array is another numba type, for which every solver kernel would compile again.
        """
        state = {**self.__dict__, '_solvers': {}}
        return {**state, '_readonly': _readonly_ordinals(state)}

    def __setstate__(self, state: dict) -> None:
        """Restore a state of :meth:`__getstate__`, its read-only arrays read-only again."""
        state = dict(state)
        ordinals = set(state.pop('_readonly', ()))
        self.__dict__.update(state)
        for k, a in enumerate(_arrays_in(state)):
            if k in ordinals:
                a.setflags(write=False)

    def __repr__(self) -> str:
        """Name the robot, the two ends and the joint count."""
        return (f'Chain({self.robot_name!r}, {self.base_link!r} -> {self.tip_link!r}, '
                f'n={self.n})')

    def fk(self, q: ArrayLike) -> np.ndarray:
        """Return the (4, 4) pose of tip_link in the base_link frame at joint values ``q``."""
        return kinematics.tip_pose(self.model, self.check_q(q))

    def jacobian(self, q: ArrayLike) -> np.ndarray:
        """Return the (6, n) geometric Jacobian of the tip origin, base frame, rows [v; w]."""
        return kinematics.jacobian(self.model, self.n, self.check_q(q))

    def frames(self, q: ArrayLike) -> np.ndarray:
        """Return (m + 1, 4, 4): each moving joint frame after its motion, then the tip."""
        qa = self.check_q(q)
        m = len(self.moving_joint_names)
        R = np.empty((m + 1, 3, 3))
        p = np.empty((m + 1, 3))
        z = np.empty((m, 3))
        kinematics.forward_kinematics(self.model, qa, R, p, z)
        T = np.zeros((m + 1, 4, 4))
        T[:, :3, :3] = R
        T[:, :3, 3] = p
        T[:, 3, 3] = 1.0
        return T
