# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Collision queries of a chain: contacts, signed clearance with the closest pair, path checks.

These are what ``Chain.collisions``, ``Chain.min_distance`` and ``Chain.path_collides`` run.
The model is built on first use from the URDF the chain was read from (meshes are loaded
then) and kept; ``Chain.hold_joints`` rebuilds it for new values of the joints outside the
chain.
"""

from dataclasses import dataclass
import math
import os
from pathlib import Path
from typing import Mapping, NamedTuple, Optional, Sequence

from ik_node.collision import kernels
from ik_node.collision.geometry import read_link_geometry
from ik_node.collision.model import build_model, held_values, link_capsules
from ik_node.collision.pairs import adjacent_pairs, always_touching_pairs
from ik_node.collision.shapes import obstacle_names, pack_obstacles, Shape
from ik_node.collision.srdf import read_disabled_pairs, srdf_text, SrdfSource
from ik_node.errors import IKInputError
import numpy as np

__all__ = ['CollisionSource', 'CollisionSetup', 'Clearance', 'collisions', 'min_distance',
           'path_collides']


@dataclass(frozen=True)
class CollisionSource:
    """Where a chain's collision geometry comes from (kept by ``Chain.from_urdf``)."""

    urdf_text: str
    urdf_dir: Optional[Path]
    srdf: Optional[SrdfSource] = None
    package_dirs: tuple = ()
    held: Optional[Mapping[str, float]] = None
    sample_seed: int = 0


class Clearance(NamedTuple):
    """Signed clearance [m] (negative: overlap) and the closest pair (link, link or obstacle)."""

    distance: float
    pair: tuple


class CollisionSetup:
    """The loaded geometry and the current CollisionModel of one chain."""

    def __init__(self, chain, source: CollisionSource):
        """Read the URDF's collision geometry and decide the checked pairs."""
        from ik_node.urdf import _parse, read_robot
        self.source = source
        self.robot = read_robot(source.urdf_text)
        parsed = _parse(source.urdf_text)
        geometry = read_link_geometry(parsed, source.urdf_dir, source.package_dirs)
        self.capsules_by_link = link_capsules(geometry)
        held = held_values(self.robot, chain, source.held)
        if source.srdf is not None:
            self.disabled = read_disabled_pairs(source.srdf)
        else:
            self.disabled = self.default_disabled(chain, held)
        self.model = build_model(self.robot, chain, self.capsules_by_link,
                                 frozenset(self.disabled), held)
        self._last_obstacles: tuple[Shape, ...] = ()
        self._last_rows = pack_obstacles(())
        self._last_names: tuple[str, ...] = ()

    def default_disabled(self, chain, held: dict) -> dict:
        """Return the default matrix {pair: reason} (see :mod:`ik_node.collision.pairs`)."""
        disabled = dict.fromkeys(adjacent_pairs(self.robot, set(self.capsules_by_link)),
                                 'Adjacent')
        trial = build_model(self.robot, chain, self.capsules_by_link, frozenset(disabled),
                            held)
        for p in always_touching_pairs(chain, trial, seed=self.source.sample_seed):
            disabled[p] = 'Always'
        return disabled

    def hold(self, chain, values: Mapping[str, float]) -> None:
        """Rebuild the model with joints outside the chain held at ``values``."""
        held = held_values(self.robot, chain, values)
        self.model = build_model(self.robot, chain, self.capsules_by_link,
                                 frozenset(self.disabled), held)

    def srdf(self) -> str:
        """Return the disabled-pair matrix in force as SRDF text."""
        return srdf_text(self.robot.name, self.disabled)

    def obstacles(self, obstacles: Optional[Sequence[Shape]]) -> tuple:
        """Return (rows (k, 16), names) of ``obstacles``; the last list is kept packed."""
        if obstacles is None:
            obstacles = ()
        elif isinstance(obstacles, Shape):
            obstacles = (obstacles,)
        last = self._last_obstacles
        if len(obstacles) == len(last) and all(a is b for a, b in zip(obstacles, last)):
            return self._last_rows, self._last_names
        rows = pack_obstacles(obstacles)
        names = obstacle_names(obstacles)
        self._last_obstacles = tuple(obstacles)
        self._last_rows, self._last_names = rows, names
        return rows, names


def collisions(chain, q, obstacles=None) -> list:
    """Return [(link, link or obstacle name), ...] of the pairs in contact at ``q``."""
    # The check is meant for the solver loop: a float (n,) array skips the generic input
    # check (the kernel refuses non-finite values itself).
    if not (type(q) is np.ndarray and q.dtype == np.float64 and q.shape == (chain.n,)):
        q = chain.check_q(q)
    setup = chain.collision_setup
    rows, names = setup.obstacles(obstacles)
    codes = kernels.contacts(*setup.model.flat, q, rows)
    if codes.shape[0] == 0:
        return []
    if codes[0] < 0:
        chain.check_q(q)   # raises, naming the bad value
    model = setup.model
    caps = model.capsules
    p = caps.pairs.shape[0]
    out = []
    for code in codes.tolist():
        if code < p:
            pair = (model.capsule_link[caps.pairs[code, 0]],
                    model.capsule_link[caps.pairs[code, 1]])
        else:
            i, o = divmod(code - p, len(names))
            pair = (model.capsule_link[caps.moving[i]], names[o])
        if pair not in out:
            out.append(pair)
    return out


def min_distance(chain, q, obstacles=None) -> Clearance:
    """Return the smallest signed clearance [m] over checked pairs at ``q``, and its pair."""
    qa = chain.check_q(q)
    setup = chain.collision_setup
    rows, names = setup.obstacles(obstacles)
    model = setup.model
    d_self, d_obs, _ = kernels.distances(*model.flat, qa, rows, math.inf)
    best = Clearance(math.inf, ())
    caps = model.capsules
    if d_self.size:
        i = int(np.argmin(d_self))
        best = Clearance(float(d_self[i]), (model.capsule_link[caps.pairs[i, 0]],
                                            model.capsule_link[caps.pairs[i, 1]]))
    if d_obs.size:
        m, o = np.unravel_index(int(np.argmin(d_obs)), d_obs.shape)
        if d_obs[m, o] < best.distance:
            best = Clearance(float(d_obs[m, o]), (model.capsule_link[caps.moving[m]], names[o]))
    return best


def path_collides(chain, q_a, q_b, step: float = 0.05, obstacles=None,
                  resolution: float = 1e-3) -> bool:
    """Return True when contact cannot be ruled out anywhere on the segment q_a -> q_b."""
    return path_contact(chain, q_a, q_b, step, obstacles, resolution) is not None


def path_contact(chain, q_a, q_b, step: float = 0.05, obstacles=None,
                 resolution: float = 1e-3) -> Optional[float]:
    """Return the first fraction s of q_a -> q_b where contact is possible, or None."""
    qa = chain.check_q(q_a, 'q_a')
    qb = chain.check_q(q_b, 'q_b')
    for name, v in (('step', step), ('resolution', resolution)):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0.0):
            raise IKInputError(f'{name} must be a number > 0 [rad or m], got {v!r}')
    setup = chain.collision_setup
    rows, _ = setup.obstacles(obstacles)
    s = kernels.path_contact(*setup.model.flat, qa, qb, rows, setup.model.lever, float(step),
                             float(resolution))
    return None if s < 0.0 else float(s)


def source_from(urdf, urdf_text: str, srdf, package_dirs, held) -> CollisionSource:
    """Return the CollisionSource of a URDF given as a path or as XML text."""
    urdf_dir = None
    if isinstance(urdf, os.PathLike) or (isinstance(urdf, str)
                                         and not urdf.lstrip().startswith('<')):
        urdf_dir = Path(urdf).resolve().parent
    if isinstance(package_dirs, (str, os.PathLike)):
        package_dirs = (package_dirs,)
    return CollisionSource(urdf_text, urdf_dir, srdf, tuple(package_dirs or ()),
                           dict(held) if held else None)
