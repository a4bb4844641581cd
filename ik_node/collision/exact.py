# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Exact contact of the URDF's own collision geometry, with FCL (python-fcl).

The runtime check works on bounds (:mod:`ik_node.collision.bounds`): they never miss a
contact, but they report some that the geometry does not have. Deciding that a pair is in
contact "always" needs the geometry itself, so this module poses the URDF's boxes,
cylinders and spheres as they are and its meshes as triangle sets (FCL ``BVHModel``), and asks
FCL whether two links touch.

A mesh is its surface here: a shape entirely inside a closed mesh, touching no triangle, is
not reported. That errs on the side of "apart", which keeps a pair checked, never the other
way round.

python-fcl is a dependency of the package; where it cannot be imported (a platform without a
wheel) :func:`exact_links` returns None and no pair is ever disabled as "always in contact".
"""

from typing import Iterable, Optional

from ik_node.collision.geometry import BOX, CYLINDER, LinkShape, MESH, SPHERE
from ik_node.model import kinematics
import numpy as np

__all__ = ['ExactLinks', 'exact_links']


def _fcl_geometry(fcl, shape: LinkShape):
    if shape.kind == BOX:
        return fcl.Box(*shape.params)
    if shape.kind == CYLINDER:
        return fcl.Cylinder(*shape.params)
    if shape.kind == SPHERE:
        return fcl.Sphere(shape.params[0])
    assert shape.kind == MESH and shape.vertices is not None
    faces = shape.faces if shape.faces is not None else np.zeros((0, 3), dtype=np.int64)
    if faces.shape[0] == 0:
        return None   # a point set has no surface to test: its pairs cannot be confirmed
    mesh = fcl.BVHModel()
    mesh.beginModel(shape.vertices.shape[0], faces.shape[0])
    mesh.addSubModel(np.ascontiguousarray(shape.vertices, dtype=float),
                     np.ascontiguousarray(faces, dtype=np.int32))
    mesh.endModel()
    return mesh


class ExactLinks:
    """
    The links' URDF collision geometry as FCL objects, posed at a configuration.

    ``geometry`` is {link: [LinkShape, ...]} (:func:`ik_node.collision.geometry.
    read_link_geometry`); ``groups`` is {link: (anchor, T_anchor_link (4, 4))}
    (:func:`ik_node.collision.model.link_groups`). Call :meth:`pose` with a joint vector,
    then :meth:`touching` for link pairs.
    """

    def __init__(self, fcl, chain, geometry: dict, groups: dict):
        """Build one FCL object per shape; a link with an untestable shape is marked."""
        self._fcl = fcl
        self._model = chain.model
        m = self._model[0].shape[0]
        self._R = np.empty((m + 1, 3, 3))
        self._p = np.empty((m + 1, 3))
        self._z = np.empty((m, 3))
        self._request = fcl.CollisionRequest()
        self._objects: dict[str, list] = {}
        self.untestable: set = set()
        for link, shapes in geometry.items():
            if link not in groups:
                continue
            anchor, T_link = groups[link]
            objects = []
            for shape in shapes:
                geom = _fcl_geometry(fcl, shape)
                if geom is None:
                    self.untestable.add(link)
                    continue
                T = T_link @ shape.origin
                objects.append((anchor, T, fcl.CollisionObject(geom, fcl.Transform())))
            self._objects[link] = objects

    def pose(self, q: np.ndarray, links: Optional[Iterable[str]] = None) -> None:
        """Place the shapes of ``links`` (default: all) at joint vector ``q`` (n,) [rad or m]."""
        kinematics.forward_kinematics(self._model, np.ascontiguousarray(q, dtype=float),
                                      self._R, self._p, self._z)
        for link in self._objects if links is None else links:
            for anchor, T, obj in self._objects.get(link, ()):
                if anchor < 0:
                    R, t = T[:3, :3], T[:3, 3]
                else:
                    R = self._R[anchor] @ T[:3, :3]
                    t = self._R[anchor] @ T[:3, 3] + self._p[anchor]
                obj.setTransform(self._fcl.Transform(R, t))

    def touching(self, link_a: str, link_b: str) -> bool:
        """Return True when some shape of ``link_a`` touches some shape of ``link_b``."""
        fcl = self._fcl
        for _, _, a in self._objects.get(link_a, ()):
            for _, _, b in self._objects.get(link_b, ()):
                if fcl.collide(a, b, self._request, fcl.CollisionResult()):
                    return True
        return False


def exact_links(chain, geometry: dict, groups: dict) -> Optional[ExactLinks]:
    """Return the ExactLinks of ``geometry``, or None when python-fcl cannot be imported."""
    try:
        import fcl
    except ImportError:
        return None
    return ExactLinks(fcl, chain, geometry, groups)
