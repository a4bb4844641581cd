# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""URDF collision geometry: primitives, meshes and their names, bounding capsules."""

from pathlib import Path
import shutil

from ik_node import Chain, URDFError
from ik_node.collision.bounds import capsules_of_mesh, cylinder_points
from ik_node.collision.geometry import read_link_geometry, resolve_mesh_path
from ik_node.model.urdf import _parse
import numpy as np
import pytest

URDF = Path(__file__).parent / 'urdf' / 'collision_arm.urdf'


def test_reads_every_kind_of_element():
    geometry = read_link_geometry(_parse(URDF.read_text()), URDF.parent)
    kinds = {link: [s.kind for s in shapes] for link, shapes in geometry.items()}
    assert kinds == {'base_link': ['box'], 'link1': ['cylinder'], 'link2': ['box'],
                     'link3': ['cylinder', 'sphere'], 'link4': ['mesh'], 'tool': ['box'],
                     'finger': ['box']}
    mesh = geometry['link4'][0]
    assert mesh.vertices.shape == (8, 3) and mesh.faces.shape == (12, 3)
    np.testing.assert_allclose(np.abs(mesh.vertices), 0.03)
    np.testing.assert_allclose(mesh.origin[:3, 3], [0.0, 0.0, 0.03])


def _with_mesh(uri: str) -> str:
    return URDF.read_text().replace('meshes/wrist.obj', uri)


def test_package_uri_resolves_through_package_dirs(tmp_path):
    pkg = tmp_path / 'share' / 'arm_description' / 'meshes'
    pkg.mkdir(parents=True)
    shutil.copy(URDF.parent / 'meshes' / 'wrist.obj', pkg / 'wrist.obj')
    text = _with_mesh('package://arm_description/meshes/wrist.obj')
    assert resolve_mesh_path('package://arm_description/meshes/wrist.obj', None,
                             [tmp_path / 'share']) == pkg / 'wrist.obj'
    chain = Chain.from_urdf(text, 'base_link', 'tip', package_dirs=[tmp_path / 'share'])
    assert 'link4' in chain.collision_setup.model.links


def test_missing_mesh_names_link_and_file():
    chain = Chain.from_urdf(_with_mesh('package://nowhere/meshes/gone.stl'), 'base_link',
                            'tip')
    with pytest.raises(URDFError, match=r'link4.*package://nowhere/meshes/gone\.stl'):
        chain.collisions(np.zeros(4))


def test_unreadable_mesh_is_refused(tmp_path):
    bad = tmp_path / 'bad.stl'
    bad.write_bytes(b'\x00\x01 not a mesh')
    chain = Chain.from_urdf(_with_mesh(str(bad)), 'base_link', 'tip')
    with pytest.raises(URDFError, match='link4'):
        chain.min_distance(np.zeros(4))


def _inside_capsule(p, a, b, r):
    ab = b - a
    t = np.clip((p - a) @ ab / max(ab @ ab, 1e-300), 0.0, 1.0)
    return np.linalg.norm(p - (a + t[:, None] * ab), axis=1) <= r + 1e-12


def test_mesh_capsules_contain_every_triangle():
    rng = np.random.default_rng(3)
    # A bent, elongated mesh: random points on an L shape, triangles between neighbours.
    v = np.vstack([rng.uniform([0, 0, 0], [0.3, 0.05, 0.05], (40, 3)),
                   rng.uniform([0.25, 0, 0], [0.3, 0.3, 0.05], (40, 3))])
    faces = rng.integers(0, len(v), (120, 3))
    caps = capsules_of_mesh(v, faces, 3)
    w = rng.dirichlet(np.ones(3), (120, 50))          # points inside each triangle
    pts = np.einsum('fkj,fjd->fkd', w, v[faces]).reshape(-1, 3)
    inside = np.zeros(len(pts), dtype=bool)
    for (a, b, r), _ in caps:
        inside |= _inside_capsule(pts, a, b, r)
    assert inside.all()


def test_cylinder_hull_points_contain_the_cylinder():
    pts = cylinder_points(0.1, 0.4)
    angles = np.linspace(0, 2 * np.pi, 721)
    # Every rim direction's support of the prism reaches at least the radius.
    support = np.max(np.stack([np.cos(angles), np.sin(angles)], axis=1) @ pts[:, :2].T, axis=1)
    assert np.all(support >= 0.1 - 1e-12)
    assert pts[:, 2].min() == pytest.approx(-0.2) and pts[:, 2].max() == pytest.approx(0.2)


@pytest.mark.parametrize('old, new', [
    ('<box size="0.06 0.06 0.4"/>', '<box size="0.06 -0.06 0.4"/>'),
    ('<box size="0.06 0.06 0.4"/>', '<box size="0.06 nan 0.4"/>'),
    ('<cylinder radius="0.04" length="0.3"/>', '<cylinder radius="-0.04" length="0.3"/>'),
    ('<sphere radius="0.045"/>', '<sphere radius="nan"/>'),
])
def test_bad_urdf_sizes_name_the_link(old, new):
    text = URDF.read_text()
    assert old in text
    chain = Chain.from_urdf(text.replace(old, new), 'base_link', 'tip')
    # A bad URDF is a URDFError (the package's rule for unusable models), naming the link.
    with pytest.raises(URDFError, match=r"link '(link2|link3)'.*finite and >= 0"):
        chain.collisions(np.zeros(4))
