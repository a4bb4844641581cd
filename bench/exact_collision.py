# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Exact mesh collision checking with pinocchio + coal, the reference of bench_collision.py.

Benchmark only (``pip install pin`` in the bench venv); the package never imports it. The
pinocchio model is read from the same URDF with its collision meshes; the pairs checked are
exactly those ik_node checks (``chain.collision_setup.model.checked_pairs``, link level), plus
each obstacle against each link that a chain joint moves, so the two checks answer the same
question.
"""

import numpy as np

__all__ = ['ExactChecker']


class ExactChecker:
    """pinocchio/coal collision and distance on the ik_node chain's pairs and obstacles."""

    def __init__(self, chain, urdf_path: str, package_dirs, obstacles=()):
        """Load the URDF with collision meshes and register the pairs ik_node checks."""
        import coal
        import pinocchio as pin
        self.pin = pin
        self.model = pin.buildModelFromUrdf(urdf_path)
        self.geom = pin.buildGeomFromUrdf(self.model, urdf_path, pin.GeometryType.COLLISION,
                                          package_dirs=[str(d) for d in package_dirs])
        setup = chain.collision_setup
        frames = self.model.frames
        link_of = [frames[g.parentFrame].name for g in self.geom.geometryObjects]
        names = [f'obstacle {i}' for i in range(len(obstacles))]
        for i, o in enumerate(obstacles):
            shape, M = _coal_shape(coal, pin, o)
            self.geom.addGeometryObject(pin.GeometryObject(names[i], 0, 0, M, shape))
            link_of.append(names[i])
        checked = {frozenset(p) for p in setup.model.checked_pairs}
        moving = {lk for lk, k in setup.model.group.items() if k >= 0}
        n_geom = len(self.geom.geometryObjects)
        for a in range(n_geom):
            for b in range(a + 1, n_geom):
                la, lb = link_of[a], link_of[b]
                obstacle_pair = (la in names) != (lb in names) and (la in moving or lb in moving)
                if frozenset((la, lb)) in checked or obstacle_pair:
                    self.geom.addCollisionPair(pin.CollisionPair(a, b))
        self.link_of = link_of
        self.data = self.model.createData()
        self.gdata = pin.GeometryData(self.geom)
        # ik_node's q order -> pinocchio's configuration vector; other joints at 0 clipped.
        self.q_pin0 = np.clip(np.zeros(self.model.nq), self.model.lowerPositionLimit,
                              self.model.upperPositionLimit)
        self.index = [self.model.joints[self.model.getJointId(name)].idx_q
                      for name in chain.joint_names]
        self.n_pairs = len(self.geom.collisionPairs)

    def _q(self, q: np.ndarray) -> np.ndarray:
        qp = self.q_pin0.copy()
        qp[self.index] = q
        return qp

    def collides(self, q: np.ndarray) -> bool:
        """Return True when any registered pair is in contact at ik_node's ``q``."""
        return bool(self.pin.computeCollisions(self.model, self.data, self.geom, self.gdata,
                                               self._q(q), True))

    def min_distance(self, q: np.ndarray) -> tuple:
        """Return (smallest distance [m] over the pairs, its pair of link names)."""
        self.pin.computeDistances(self.model, self.data, self.geom, self.gdata, self._q(q))
        d = [r.min_distance for r in self.gdata.distanceResults]
        k = int(np.argmin(d))
        cp = self.geom.collisionPairs[k]
        return float(d[k]), (self.link_of[cp.first], self.link_of[cp.second])


def _coal_shape(coal, pin, o):
    kind = int(o.row[0])
    R = o.row[4:13].reshape(3, 3)
    t = o.row[13:16]
    if kind == 0:
        n = np.array(o.normal)
        return coal.Halfspace(n, float(o.offset)), pin.SE3.Identity()
    if kind == 1:
        return coal.Sphere(float(o.radius)), pin.SE3(np.eye(3), t.copy())
    if kind == 2:
        return coal.Box(*[float(s) for s in o.size]), pin.SE3(R.copy(), t.copy())
    return coal.Cylinder(float(o.radius), float(o.length)), pin.SE3(R.copy(), t.copy())
