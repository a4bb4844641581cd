# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Obstacle shapes in the base_link frame: HalfSpace, Sphere, Box and Cylinder.

Every shape is an immutable record checked at construction (a NaN, a negative size or a pose
that is not rigid raises IKInputError) and packed once into a row of ``ROW_SIZE`` floats, the
form the compiled checks take:

``[kind, a, b, c, R (9, row major), t (3)]`` with kind ``HALF_SPACE`` (a: offset, normal in
the rotation's first column), ``SPHERE`` (a: radius, centre in t), ``BOX`` (a, b, c: half
sizes) or ``CYLINDER`` (a: radius, b: half length along the local z axis), R and t the
shape's pose in the base frame.
"""

from dataclasses import dataclass, field
import math
from typing import Sequence

from ik_node.errors import IKInputError
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['HalfSpace', 'Sphere', 'Box', 'Cylinder', 'Shape', 'pack_obstacles',
           'obstacle_names', 'HALF_SPACE', 'SPHERE', 'BOX', 'CYLINDER', 'ROW_SIZE']

HALF_SPACE = 0
SPHERE = 1
BOX = 2
CYLINDER = 3
ROW_SIZE = 16


def _vector(value: ArrayLike, name: str, shape: tuple) -> np.ndarray:
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise IKInputError(f'{name} must be numbers of shape {shape}: {exc}') from exc
    if a.shape != shape:
        raise IKInputError(f'{name} must have shape {shape}, got {a.shape}')
    if not np.all(np.isfinite(a)):
        raise IKInputError(f'{name} is not finite: {a.tolist()}')
    return a


def _size(value, name: str, allow_zero: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError) as exc:
        raise IKInputError(f'{name} must be a number [m], got {value!r}') from exc
    if not math.isfinite(v) or v < 0.0 or (v == 0.0 and not allow_zero):
        bound = '>= 0' if allow_zero else '> 0'
        raise IKInputError(f'{name} must be finite and {bound} [m], got {value!r}')
    return v


def _pose(value: ArrayLike, name: str) -> np.ndarray:
    T = _vector(value, name, (4, 4))
    R = T[:3, :3]
    if (np.max(np.abs(T[3] - (0.0, 0.0, 0.0, 1.0))) > 1e-9
            or np.max(np.abs(R @ R.T - np.eye(3))) > 1e-6 or np.linalg.det(R) < 0.0):
        raise IKInputError(f'{name} must be a rigid (4, 4) transform (orthonormal rotation, '
                           'last row 0 0 0 1)')
    return T


def _row(kind: int, a: float, b: float, c: float, T: np.ndarray) -> np.ndarray:
    row = np.zeros(ROW_SIZE)
    row[0] = kind
    row[1:4] = (a, b, c)
    row[4:13] = T[:3, :3].ravel()
    row[13:16] = T[:3, 3]
    row.setflags(write=False)
    return row


class Shape:
    """Base of the obstacle shapes; ``row`` is the packed form the kernels take."""

    row: np.ndarray
    name: str


@dataclass(frozen=True, eq=False)
class HalfSpace(Shape):
    """The solid {p : n·p < offset}; free space is where n·p >= offset [m] (base frame)."""

    normal: ArrayLike = (0.0, 0.0, 1.0)
    offset: float = 0.0
    name: str = ''
    row: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        """Check the normal (normalised here) and the offset."""
        n = _vector(self.normal, 'HalfSpace normal', (3,))
        norm = float(np.linalg.norm(n))
        if norm < 1e-9:
            raise IKInputError('HalfSpace normal must not be zero')
        n = n / norm
        offset = float(_vector(self.offset, 'HalfSpace offset', ()))
        # The rotation's first column carries the unit normal.
        T = np.eye(4)
        T[:3, 0] = n
        object.__setattr__(self, 'normal', tuple(n))
        object.__setattr__(self, 'offset', offset)
        object.__setattr__(self, 'row', _row(HALF_SPACE, offset, 0.0, 0.0, T))


@dataclass(frozen=True, eq=False)
class Sphere(Shape):
    """A ball of ``radius`` [m] at ``center`` (base frame)."""

    center: ArrayLike = (0.0, 0.0, 0.0)
    radius: float = 0.1
    name: str = ''
    row: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        """Check the centre and radius (> 0)."""
        c = _vector(self.center, 'Sphere center', (3,))
        r = _size(self.radius, 'Sphere radius')
        T = np.eye(4)
        T[:3, 3] = c
        object.__setattr__(self, 'center', tuple(c))
        object.__setattr__(self, 'radius', r)
        object.__setattr__(self, 'row', _row(SPHERE, r, 0.0, 0.0, T))


@dataclass(frozen=True, eq=False)
class Box(Shape):
    """A box of full ``size`` (x, y, z) [m] centred at ``pose`` (4, 4, base frame)."""

    pose: ArrayLike = field(default_factory=lambda: np.eye(4))
    size: Sequence[float] = (0.1, 0.1, 0.1)
    name: str = ''
    row: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        """Check the pose (rigid) and the sizes (> 0)."""
        T = _pose(self.pose, 'Box pose')
        s = _vector(self.size, 'Box size', (3,))
        half = [0.5 * _size(v, f'Box size[{i}]') for i, v in enumerate(s)]
        T.setflags(write=False)
        object.__setattr__(self, 'pose', T)
        object.__setattr__(self, 'size', tuple(2.0 * h for h in half))
        object.__setattr__(self, 'row', _row(BOX, half[0], half[1], half[2], T))


@dataclass(frozen=True, eq=False)
class Cylinder(Shape):
    """A solid cylinder of ``radius`` and ``length`` [m] along the z axis of ``pose``."""

    pose: ArrayLike = field(default_factory=lambda: np.eye(4))
    radius: float = 0.05
    length: float = 0.1
    name: str = ''
    row: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        """Check the pose (rigid), radius and length (> 0)."""
        T = _pose(self.pose, 'Cylinder pose')
        r = _size(self.radius, 'Cylinder radius')
        length = _size(self.length, 'Cylinder length')
        T.setflags(write=False)
        object.__setattr__(self, 'pose', T)
        object.__setattr__(self, 'radius', r)
        object.__setattr__(self, 'length', length)
        object.__setattr__(self, 'row', _row(CYLINDER, r, 0.5 * length, 0.0, T))


_KIND_NAMES = {HALF_SPACE: 'half_space', SPHERE: 'sphere', BOX: 'box', CYLINDER: 'cylinder'}


def obstacle_names(obstacles: Sequence[Shape]) -> tuple[str, ...]:
    """Return each obstacle's name, or '<kind> <index>' for an unnamed one."""
    return tuple(o.name or f'{_KIND_NAMES[int(o.row[0])]} {i}' for i, o in enumerate(obstacles))


def pack_obstacles(obstacles: Sequence[Shape] | None) -> np.ndarray:
    """Return the (k, ROW_SIZE) rows of ``obstacles``; IKInputError for a non-shape."""
    if obstacles is None:
        return np.zeros((0, ROW_SIZE))
    if isinstance(obstacles, Shape):
        obstacles = (obstacles,)
    rows = []
    for i, o in enumerate(obstacles):
        if not isinstance(o, Shape):
            raise IKInputError(f'obstacles[{i}] must be a HalfSpace, Sphere, Box or Cylinder, '
                               f'got {type(o).__name__}')
        rows.append(o.row)
    if not rows:
        return np.zeros((0, ROW_SIZE))
    return np.ascontiguousarray(np.stack(rows))
