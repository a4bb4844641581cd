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
import warnings

from ik_node.collision import kernels
from ik_node.collision.exact import exact_links
from ik_node.collision.geometry import read_link_geometry
from ik_node.collision.model import build_model, held_values, link_capsules, link_groups
from ik_node.collision.pairs import (adjacent_pairs, bound_always_pairs, exact_parting,
                                     sample_configurations)
from ik_node.collision.shapes import obstacle_names, pack_obstacles, Shape
from ik_node.collision.srdf import read_disabled_pairs, srdf_text, SrdfSource
from ik_node.errors import CollisionModelWarning, IKInputError
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


class PackedObstacles(NamedTuple):
    """An obstacle list as the kernels take it, and the pair each result code names."""

    rows: np.ndarray      # (o, ROW_SIZE)
    names: tuple          # (o,) obstacle names
    pair_names: tuple     # code -> (link, link or obstacle name), see kernels.contacts


# Packed obstacle lists kept per chain (the solver's, the node's, a user's): a few at most.
_PACKED_KEEP = 8


class CollisionSetup:
    """
    The loaded geometry and the current CollisionModel of one chain.

    ``disabled`` is the matrix in force {pair: reason}; ``bound_always`` holds the checked
    pairs whose bounds touch at every sample of the default matrix although their exact
    geometry parts somewhere {pair: why}, each also warned about (CollisionModelWarning).
    """

    def __init__(self, chain, source: CollisionSource):
        """Read the URDF's collision geometry and decide the checked pairs."""
        from ik_node.model.urdf import _parse, read_robot
        self.source = source
        self.robot = read_robot(source.urdf_text)
        parsed = _parse(source.urdf_text)
        self.geometry = read_link_geometry(parsed, source.urdf_dir, source.package_dirs)
        self.capsules_by_link = link_capsules(self.geometry)
        self.bound_always: dict[frozenset, str] = {}
        held = held_values(self.robot, chain, source.held)
        if source.srdf is not None:
            self.disabled = read_disabled_pairs(source.srdf)
        else:
            self.disabled = self.default_disabled(chain, held)
        self.model = build_model(self.robot, chain, self.capsules_by_link,
                                 frozenset(self.disabled), held)
        self._packed: dict[tuple, PackedObstacles] = {}

    def default_disabled(self, chain, held: dict) -> dict:
        """
        Return the default matrix {pair: reason} (see :mod:`ik_node.collision.pairs`).

        Pairs whose bounds touch at every sample are candidates; the exact geometry disables
        those that touch at every sample too. The links of the others get tighter bounds
        (``self.capsules_by_link``), and a pair whose tighter bounds still touch everywhere
        goes to ``self.bound_always`` with a warning: it stays checked.
        """
        disabled = dict.fromkeys(adjacent_pairs(self.robot, set(self.capsules_by_link)),
                                 'Adjacent')
        trial = build_model(self.robot, chain, self.capsules_by_link, frozenset(disabled),
                            held)
        qs = sample_configurations(chain, seed=self.source.sample_seed)
        candidates = bound_always_pairs(chain, trial, qs)
        if not candidates:
            return disabled
        involved = frozenset().union(*candidates)
        exact = exact_links(chain, {link: self.geometry[link] for link in involved},
                            link_groups(self.robot, chain, held))
        why: dict[frozenset, str] = {}
        if exact is None:
            why = dict.fromkeys(candidates, 'python-fcl is not installed, so contact at '
                                'every sample cannot be confirmed on the exact geometry')
        else:
            untestable = {p for p in candidates if p & exact.untestable}
            for p in untestable:
                link = sorted(p & exact.untestable)[0]
                why[p] = f'link {link!r} has a mesh without faces, which cannot be tested'
            for p, parted in exact_parting(exact, candidates - untestable, qs).items():
                if parted is None:
                    disabled[p] = 'Always'
                else:
                    why[p] = (f'its geometry parts at {_q_text(qs[parted])} (sample {parted} '
                              f'of {len(qs)})')
        if not why:
            return disabled
        # Tighter bounds on the links of the pairs that stay checked; keep those that still
        # touch everywhere for the warning.
        self.capsules_by_link = link_capsules(self.geometry,
                                              frozenset().union(*why))
        trial = build_model(self.robot, chain, self.capsules_by_link, frozenset(disabled),
                            held)
        still = bound_always_pairs(chain, trial, qs) & set(why)
        self.bound_always = {p: why[p] for p in sorted(still, key=sorted)}
        if self.bound_always:
            lines = '; '.join(f'{" / ".join(sorted(p))}: {r}'
                              for p, r in self.bound_always.items())
            warnings.warn(
                f'robot {self.robot.name!r}: the collision bounds of {len(self.bound_always)} '
                f'checked pair(s) touch in every sampled configuration, but their URDF '
                f'geometry is not shown to, so they stay checked and are reported in contact '
                f'wherever their bounds touch ({lines}). Disable them in an SRDF if that is '
                f'what you want, or give the links geometry that parts.',
                CollisionModelWarning, stacklevel=2)
        return disabled

    def hold(self, chain, values: Mapping[str, float]) -> None:
        """Rebuild the model with joints outside the chain held at ``values``."""
        held = held_values(self.robot, chain, values)
        self.model = build_model(self.robot, chain, self.capsules_by_link,
                                 frozenset(self.disabled), held)
        self._packed.clear()

    def srdf(self) -> str:
        """Return the disabled-pair matrix in force as SRDF text."""
        return srdf_text(self.robot.name, self.disabled)

    def packed(self, obstacles: Optional[Sequence[Shape]]) -> PackedObstacles:
        """
        Return ``obstacles`` packed for the kernels, cached on the obstacle objects.

        Shapes are immutable and compare by identity, so the tuple of the objects is the
        key: the same shapes in a new list hit the cache, a new or rebuilt shape misses it.
        """
        if obstacles is None:
            key: tuple = ()
        elif isinstance(obstacles, Shape):
            key = (obstacles,)
        else:
            key = tuple(obstacles)
        try:
            return self._packed[key]
        except KeyError:
            pass
        except TypeError:   # an unhashable entry: not a shape, pack_obstacles names it
            pack_obstacles(key)
        # Left writable: the solver's kernels take rows of this type (one compiled version).
        rows = pack_obstacles(key)
        names = obstacle_names(key)
        model = self.model
        caps = model.capsules
        link = model.capsule_link
        pair_names = tuple((link[a], link[b]) for a, b in caps.pairs.tolist())
        pair_names += tuple((link[c], name) for c in caps.moving.tolist() for name in names)
        packed = PackedObstacles(rows, names, pair_names)
        if len(self._packed) >= _PACKED_KEEP:
            self._packed.clear()
        self._packed[key] = packed
        return packed


def _q_text(q: np.ndarray) -> str:
    return 'q = [' + ', '.join(f'{v:.3f}' for v in q) + ']'


def _fast_q(chain, q) -> np.ndarray:
    """Return ``q`` as the kernels take it: a float (n,) array passes as it is."""
    # The checks are meant for the solver loop: such an array skips the generic input check
    # (the kernels refuse non-finite values themselves, then check_q names the bad value).
    # (Writable too: a read-only array is another argument type, compiled once more.)
    if (type(q) is np.ndarray and q.dtype == np.float64 and q.shape == (chain.n,)
            and q.flags.writeable):
        return q
    return chain.check_q(q)


def collisions(chain, q, obstacles=None) -> list:
    """Return [(link, link or obstacle name), ...] of the pairs in contact at ``q``."""
    q = _fast_q(chain, q)
    setup = chain.collision_setup
    packed = setup.packed(obstacles)
    codes = kernels.contacts(*setup.model.flat, q, packed.rows)
    if codes.shape[0] == 0:
        return []
    if codes[0] < 0:
        chain.check_q(q)   # raises, naming the bad value
    names = packed.pair_names
    # Several capsules of one link pair give one entry, in the kernel's order.
    return list(dict.fromkeys([names[c] for c in codes.tolist()]))


def min_distance(chain, q, obstacles=None) -> Clearance:
    """Return the smallest signed clearance [m] over checked pairs at ``q``, and its pair."""
    q = _fast_q(chain, q)
    setup = chain.collision_setup
    packed = setup.packed(obstacles)
    d_self, i_self, d_obs, i_obs = kernels.closest(*setup.model.flat, q, packed.rows)
    if i_self == -2:
        chain.check_q(q)   # raises, naming the bad value
    if i_self >= 0 and not d_obs < d_self:
        return Clearance(float(d_self), packed.pair_names[i_self])
    if i_obs >= 0:
        p = setup.model.capsules.pairs.shape[0]
        return Clearance(float(d_obs), packed.pair_names[p + i_obs])
    return Clearance(math.inf, ())


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
    rows = setup.packed(obstacles).rows
    s = kernels.path_contact(*setup.model.flat, qa, qb, rows, setup.model.sweep, float(step),
                             float(resolution))
    return None if s < 0.0 else float(s)


def samples_collide(chain, q_a, q_b, step: float, obstacles=None) -> bool:
    """Return True when a sample of q_a -> q_b (at most ``step`` apart) is in contact."""
    setup = chain.collision_setup
    rows = setup.packed(obstacles).rows
    # Copies: writable whatever the caller passes (the planner's states, the chain's read-only
    # limits), so that the kernel has one compiled version, the one ik-compile compiles.
    return kernels.samples_contact(*setup.model.flat, np.array(q_a, dtype=float),
                                   np.array(q_b, dtype=float), rows, float(step)) >= 0.0


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
