# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Read the ``<collision>`` geometry of every link of a URDF.

Boxes, cylinders and spheres are taken as they are; meshes (STL, DAE, OBJ, ... whatever
trimesh reads) are loaded with trimesh and kept as their vertices, scaled by the URDF's
``scale``. A mesh name is resolved in this order:

1. ``package://<pkg>/<rest>``: ``<dir>/<pkg>/<rest>`` or ``<dir>/<rest>`` for each of
   ``package_dirs`` (a directory that holds packages, or the package directory itself when its
   name is ``<pkg>``), then the ament index (``ament_index_python``, present only where ROS is
   installed);
2. ``file://<path>`` and plain paths: absolute, or relative to the URDF file's directory.

A mesh that cannot be found or read is refused: URDFError names the link and the file. A
model with a hole where a link should be would let the solver put that link anywhere.
"""

from dataclasses import dataclass
import os
from pathlib import Path
from typing import cast, Optional, Sequence

from ik_node.errors import URDFError
from ik_node.model.urdf import _origin_matrix
import numpy as np

__all__ = ['LinkShape', 'read_link_geometry', 'resolve_mesh_path']

BOX = 'box'
CYLINDER = 'cylinder'
SPHERE = 'sphere'
MESH = 'mesh'


@dataclass(frozen=True)
class LinkShape:
    """
    One ``<collision>`` element of a link, in the link frame.

    ``kind`` is 'box' (params: full sizes x, y, z [m]), 'cylinder' (radius, length along z),
    'sphere' (radius) or 'mesh' (``vertices`` (v, 3) [m], already scaled, ``faces`` (f, 3)
    vertex indices); ``origin`` (4, 4)
    places it in the link frame. ``source`` names the mesh file, for messages.
    """

    link: str
    kind: str
    origin: np.ndarray
    params: tuple = ()
    vertices: Optional[np.ndarray] = None
    faces: Optional[np.ndarray] = None
    source: str = ''


def _ament_share(package: str) -> Optional[Path]:
    try:
        from ament_index_python.packages import get_package_share_directory
    except ImportError:  # ROS is not installed: only package_dirs resolve package://
        return None
    try:
        return Path(get_package_share_directory(package))
    except Exception:  # PackageNotFoundError, and anything a broken index raises
        return None


def resolve_mesh_path(uri: str, urdf_dir: Optional[Path],
                      package_dirs: Sequence[os.PathLike] = ()) -> Optional[Path]:
    """Return the file a URDF mesh name refers to, or None when it is not found."""
    if uri.startswith('package://'):
        rest = uri[len('package://'):]
        package, _, relative = rest.partition('/')
        candidates = []
        for d in package_dirs:
            d = Path(d)
            candidates += [d / package / relative, d / relative]
            if d.name == package:
                candidates.append(d / relative)
        share = _ament_share(package)
        if share is not None:
            candidates.append(share / relative)
        for c in candidates:
            if c.is_file():
                return c
        return None
    path = Path(uri[len('file://'):] if uri.startswith('file://') else uri)
    if not path.is_absolute() and urdf_dir is not None:
        path = urdf_dir / path
    return path if path.is_file() else None


def _load_mesh(path: Path, scale) -> tuple[np.ndarray, np.ndarray]:
    import trimesh
    # force='mesh' returns a Trimesh; trimesh.load is typed with their common base class.
    loaded = cast('trimesh.Trimesh', trimesh.load(str(path), force='mesh', process=False))
    vertices = np.asarray(loaded.vertices, dtype=float)
    if vertices.ndim != 2 or vertices.shape[0] == 0:
        raise ValueError('the file holds no vertices')
    if scale is not None:
        vertices = vertices * np.asarray(scale, dtype=float)
    if not np.all(np.isfinite(vertices)):
        raise ValueError('vertices are not finite')
    faces = np.asarray(loaded.faces, dtype=np.int64).reshape(-1, 3)
    return vertices, faces


def _shape(link: str, collision, urdf_dir, package_dirs) -> Optional[LinkShape]:
    from urdf_parser_py import urdf as urdf_mod
    geometry = collision.geometry
    if geometry is None:
        return None
    try:
        origin = _origin_matrix(collision.origin)
    except ValueError as exc:
        raise URDFError(f'link {link!r}: collision {exc}') from exc
    where = f'link {link!r} collision {type(geometry).__name__.lower()}'

    def size(values, names):
        try:
            out = tuple(float(v) for v in values)
        except (TypeError, ValueError) as exc:
            raise URDFError(f'{where}: {names} must be numbers') from exc
        if len(out) != len(names.split()) or not all(np.isfinite(out)) or min(out) < 0.0:
            raise URDFError(f'{where}: {names} must be finite and >= 0, got {list(values)}')
        return out

    if isinstance(geometry, urdf_mod.Box):
        return LinkShape(link, BOX, origin, size(geometry.size or (), 'x y z'))
    if isinstance(geometry, urdf_mod.Cylinder):
        return LinkShape(link, CYLINDER, origin,
                         size((geometry.radius, geometry.length), 'radius length'))
    if isinstance(geometry, urdf_mod.Sphere):
        return LinkShape(link, SPHERE, origin, size((geometry.radius,), 'radius'))
    if isinstance(geometry, urdf_mod.Mesh):
        uri = geometry.filename or ''
        path = resolve_mesh_path(uri, urdf_dir, package_dirs)
        if path is None:
            raise URDFError(
                f'{where}: mesh file {uri!r} not found (package_dirs '
                f'{[str(d) for d in package_dirs]}, URDF directory '
                f'{str(urdf_dir) if urdf_dir else None}); give package_dirs or fix the path')
        try:
            vertices, faces = _load_mesh(path, geometry.scale)
        except Exception as exc:  # trimesh raises many types for unreadable files
            raise URDFError(f'{where}: cannot read mesh {str(path)!r}: {exc}') from exc
        return LinkShape(link, MESH, origin, (), vertices, faces, str(path))
    raise URDFError(f'{where}: unsupported geometry {type(geometry).__name__}')


def read_link_geometry(robot, urdf_dir: Optional[Path] = None,
                       package_dirs: Sequence[os.PathLike] = ()) -> dict[str, list]:
    """
    Return {link name: [LinkShape, ...]} for the links of a parsed urdf_parser_py robot.

    Links without ``<collision>`` elements are left out. URDFError for a missing or
    unreadable mesh (naming link and file) or a bad size.
    """
    out = {}
    for link in robot.links:
        shapes = []
        for collision in getattr(link, 'collisions', None) or ():
            s = _shape(link.name, collision, urdf_dir, package_dirs)
            if s is not None:
                shapes.append(s)
        if shapes:
            out[link.name] = shapes
    return out
