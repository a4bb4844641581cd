# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The voxel grid of a reachability map and its set of tool orientations."""

from dataclasses import dataclass
import math
import os
from typing import Optional, Sequence

from ik_node.errors import IKInputError
import numpy as np

__all__ = ['Grid', 'approach_rotations', 'map_memory', 'available_memory']


@dataclass(frozen=True)
class Grid:
    """
    An axis-aligned voxel grid: ``shape`` (nx, ny, nz) voxels of edge ``resolution`` [m].

    origin (3,) [m]: the lower corner of the grid, in the base_link frame. Voxel (i, j, k)
    has its centre at origin + (i + 0.5, j + 0.5, k + 0.5) * resolution.
    """

    origin: np.ndarray
    resolution: float
    shape: tuple

    @classmethod
    def around(cls, chain, resolution: float,
               bounds: Optional[Sequence[float]] = None) -> 'Grid':
        """
        Return the grid of ``resolution`` [m] over ``bounds`` (xmin ymin zmin xmax ymax zmax).

        Default bounds: the cube around the chain's reach bound (every reachable point).
        """
        if not (isinstance(resolution, (int, float)) and math.isfinite(resolution)
                and resolution > 0.0):
            raise IKInputError(f'resolution must be a number > 0 [m], got {resolution!r}')
        if bounds is None:
            lo = np.asarray(chain.reach_origin) - chain.reach
            hi = np.asarray(chain.reach_origin) + chain.reach
        else:
            b = np.asarray(bounds, dtype=float)
            if b.shape != (6,) or not np.all(np.isfinite(b)) or np.any(b[3:] <= b[:3]):
                raise IKInputError('bounds must be xmin ymin zmin xmax ymax zmax with each '
                                   f'max > min, got {list(bounds)}')
            lo, hi = b[:3], b[3:]
        shape = tuple(int(max(1, math.ceil((hi[i] - lo[i]) / resolution - 1e-9)))
                      for i in range(3))
        return cls(np.array(lo, dtype=float), float(resolution), shape)

    @property
    def size(self) -> int:
        """Return the number of voxels."""
        return self.shape[0] * self.shape[1] * self.shape[2]

    def centres(self, start: int = 0, stop: Optional[int] = None) -> np.ndarray:
        """Return the (v, 3) centres [m] of voxels start..stop-1 in C order of ``shape``."""
        idx = np.arange(start, self.size if stop is None else stop)
        ijk = np.stack(np.unravel_index(idx, self.shape), axis=1)
        return self.origin + (ijk + 0.5) * self.resolution


def approach_rotations(directions: int, rolls: int = 1) -> np.ndarray:
    """
    Return (directions * rolls, 3, 3) tool rotations spread over the sphere.

    The tool z axis (the approach direction) takes ``directions`` points of a Fibonacci
    sphere (nearly uniform); about each, ``rolls`` turns of the tool, evenly spaced in 2π.
    """
    if directions < 1 or rolls < 1:
        raise IKInputError('directions and rolls must be >= 1')
    i = np.arange(directions) + 0.5
    z = 1.0 - 2.0 * i / directions
    phi = math.pi * (1.0 + math.sqrt(5.0)) * i
    r = np.sqrt(1.0 - z * z)
    d = np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)
    out = []
    for a in d:
        helper = np.array([1.0, 0.0, 0.0]) if abs(a[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
        x = np.cross(helper, a)
        x /= np.linalg.norm(x)
        y = np.cross(a, x)
        for k in range(rolls):
            t = 2.0 * math.pi * k / rolls
            xr = math.cos(t) * x + math.sin(t) * y
            out.append(np.stack([xr, np.cross(a, xr), a], axis=1))
    return np.array(out)


def map_memory(grid: Grid, orientations: int) -> int:
    """Return the bytes a map of ``grid`` takes: a mask per orientation and a fraction."""
    return grid.size * (orientations + 8)


def available_memory() -> int:
    """Return the memory [bytes] the system can give now (MemAvailable; else physical)."""
    try:
        with open('/proc/meminfo') as f:
            for line in f:
                if line.startswith('MemAvailable:'):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES'))
