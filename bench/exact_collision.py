# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Exact mesh collision checking with pinocchio + coal, the reference of the benchmarks.

Benchmark only (``pip install pin`` in the bench venv); the package never imports it. The
pinocchio model is read from the URDF with its collision meshes. Two choices of pairs:

- ``pairs=None`` (bench_collision.py): exactly the link pairs ik_node checks
  (``chain.collision_setup.model.checked_pairs``) plus each obstacle against each link a chain
  joint moves, so the two checks answer the same question;
- ``pairs=reference_pairs(...)`` (bench_goal_motion.py): geometry pairs chosen from the URDF
  geometry alone, independent of ik_node's collision model (see :func:`reference_pairs`), plus
  each obstacle against every geometry a joint moves. A judge of what the node commands must
  not take its pair matrix from the node.

Obstacles are ik_node shapes (``HalfSpace``, ``Sphere``, ``Box``, ``Cylinder``), read through
their public fields.
"""

from typing import Iterable, Sequence

import numpy as np

__all__ = ['ExactChecker', 'reference_pairs']


def _load(urdf_path: str, package_dirs):
    import pinocchio as pin
    model = pin.buildModelFromUrdf(urdf_path)
    geom = pin.buildGeomFromUrdf(model, urdf_path, pin.GeometryType.COLLISION,
                                 package_dirs=[str(d) for d in package_dirs])
    return pin, model, geom


def _configuration_index(model, joint_names: Sequence[str]) -> list[int]:
    return [model.joints[model.getJointId(name)].idx_q for name in joint_names]


def reference_pairs(urdf_path: str, package_dirs, joint_names: Sequence[str],
                    configs: int = 500, seed: int = 0) -> list[tuple[str, str]]:
    """
    Return the self-collision pairs worth checking, as (geometry name, geometry name).

    Decided on the URDF's own collision geometry (meshes and primitives, exact), not on any
    bound: every pair of geometries on bodies that move relative to each other, less the pairs
    whose bodies are one joint apart (a parent and its child) and less the pairs in contact in
    every one of ``configs`` random configurations (joints ``joint_names`` uniform within the
    URDF limits, seeded; other joints at 0 clipped into their limits): those overlap by
    construction, and checking them would call every pose a contact. Bodies are pinocchio's:
    links on fixed joints belong to the body of the joint that moves them.
    """
    pin, model, geom = _load(urdf_path, package_dirs)
    objects = geom.geometryObjects
    parents = list(model.parents)
    candidates = []
    for a in range(len(objects)):
        for b in range(a + 1, len(objects)):
            ja, jb = objects[a].parentJoint, objects[b].parentJoint
            if ja == jb or parents[ja] == jb or parents[jb] == ja:
                continue
            candidates.append((a, b))
    for a, b in candidates:
        geom.addCollisionPair(pin.CollisionPair(a, b))
    data, gdata = model.createData(), pin.GeometryData(geom)
    index = _configuration_index(model, joint_names)
    # Unbounded (continuous) joints are drawn in one turn each way.
    lower = np.maximum(model.lowerPositionLimit[index], -2 * np.pi)
    upper = np.minimum(model.upperPositionLimit[index], 2 * np.pi)
    q0 = np.clip(np.zeros(model.nq), model.lowerPositionLimit, model.upperPositionLimit)
    rng = np.random.default_rng(seed)
    always = np.ones(len(candidates), dtype=bool)
    for _ in range(configs):
        q = q0.copy()
        q[index] = rng.uniform(lower, upper)
        pin.computeCollisions(model, data, geom, gdata, q, False)
        always &= np.array([r.isCollision() for r in gdata.collisionResults])
        if not always.any():
            break
    return [(objects[a].name, objects[b].name)
            for (a, b), overlap in zip(candidates, always) if not overlap]


class ExactChecker:
    """pinocchio/coal collision and distance on a chain's pairs and obstacles."""

    def __init__(self, chain, urdf_path: str, package_dirs, obstacles=(),
                 pairs: Iterable[tuple[str, str]] | None = None):
        """
        Load the URDF with collision meshes and register the pairs to check.

        chain: gives ``joint_names`` (ik_node's order of ``q``), and with ``pairs=None`` the
        link pairs ik_node checks. pairs: geometry-name pairs (:func:`reference_pairs`).
        """
        import coal
        pin, self.model, self.geom = _load(urdf_path, package_dirs)
        self.pin = pin
        frames = self.model.frames
        objects = self.geom.geometryObjects
        link_of = [frames[g.parentFrame].name for g in objects]
        n_urdf = len(objects)
        names = [getattr(o, 'name', '') or f'obstacle {i}' for i, o in enumerate(obstacles)]
        for i, o in enumerate(obstacles):
            shape, M = _coal_shape(coal, pin, o)
            self.geom.addGeometryObject(pin.GeometryObject(names[i], 0, 0, M, shape))
            link_of.append(names[i])
        if pairs is None:
            setup = chain.collision_setup
            checked = {frozenset(p) for p in setup.model.checked_pairs}
            moving = {lk for lk, k in setup.model.group.items() if k >= 0}
            for a in range(n_urdf):
                for b in range(a + 1, n_urdf):
                    if frozenset((link_of[a], link_of[b])) in checked:
                        self.geom.addCollisionPair(pin.CollisionPair(a, b))
            movers = [a for a in range(n_urdf) if link_of[a] in moving]
        else:
            by_name = {objects[a].name: a for a in range(n_urdf)}
            for first, second in pairs:
                self.geom.addCollisionPair(pin.CollisionPair(by_name[first], by_name[second]))
            movers = [a for a in range(n_urdf) if objects[a].parentJoint > 0]
        for k in range(n_urdf, n_urdf + len(obstacles)):
            for a in movers:
                self.geom.addCollisionPair(pin.CollisionPair(a, k))
        self.link_of = link_of
        self.data = self.model.createData()
        self.gdata = pin.GeometryData(self.geom)
        # ik_node's q order -> pinocchio's configuration vector; other joints at 0 clipped.
        self.q_pin0 = np.clip(np.zeros(self.model.nq), self.model.lowerPositionLimit,
                              self.model.upperPositionLimit)
        self.index = _configuration_index(self.model, chain.joint_names)
        self.n_pairs = len(self.geom.collisionPairs)

    def _q(self, q: np.ndarray) -> np.ndarray:
        qp = self.q_pin0.copy()
        qp[self.index] = q
        return qp

    def collides(self, q: np.ndarray) -> bool:
        """Return True when any registered pair is in contact at ik_node's ``q``."""
        return bool(self.pin.computeCollisions(self.model, self.data, self.geom, self.gdata,
                                               self._q(q), True))

    def contacts(self, q: np.ndarray) -> list[tuple[str, str]]:
        """Return the link (or obstacle) name pairs in contact at ``q``, sorted, no repeats."""
        self.pin.computeCollisions(self.model, self.data, self.geom, self.gdata, self._q(q),
                                   False)
        found = set()
        for cp, r in zip(self.geom.collisionPairs, self.gdata.collisionResults):
            if r.isCollision():
                found.add(tuple(sorted((self.link_of[cp.first], self.link_of[cp.second]))))
        return sorted(found)

    def min_distance(self, q: np.ndarray) -> tuple:
        """Return (smallest distance [m] over the pairs, its pair of link names)."""
        self.pin.computeDistances(self.model, self.data, self.geom, self.gdata, self._q(q))
        d = [r.min_distance for r in self.gdata.distanceResults]
        k = int(np.argmin(d))
        cp = self.geom.collisionPairs[k]
        return float(d[k]), (self.link_of[cp.first], self.link_of[cp.second])


def _coal_shape(coal, pin, o):
    """Return (coal shape, placement) of an ik_node obstacle, from its public fields."""
    kind = type(o).__name__
    if kind == 'HalfSpace':
        return coal.Halfspace(np.array(o.normal, dtype=float), float(o.offset)), pin.SE3.Identity()
    if kind == 'Sphere':
        return coal.Sphere(float(o.radius)), pin.SE3(np.eye(3), np.array(o.center, dtype=float))
    T = np.array(o.pose, dtype=float)
    M = pin.SE3(T[:3, :3].copy(), T[:3, 3].copy())
    if kind == 'Box':
        return coal.Box(*[float(s) for s in o.size]), M
    if kind == 'Cylinder':
        return coal.Cylinder(float(o.radius), float(o.length)), M
    raise TypeError(f'obstacle of unknown kind {kind}')
