# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Chain.collisions / min_distance / path_collides on the collision_arm and demo arms."""

import copy
from pathlib import Path
import pickle

from ik_node import Box, Chain, Cylinder, HalfSpace, IKInputError, share_path, Sphere
from ik_node.collision import kernels
from ik_node.collision.srdf import read_disabled_pairs
import numpy as np
import pytest

URDF = Path(__file__).parent / 'urdf' / 'collision_arm.urdf'
FLOOR = HalfSpace((0, 0, 1), 0.0, name='floor')


@pytest.fixture(scope='module')
def chain():
    return Chain.from_urdf(URDF, 'base_link', 'tip')


def _T(xyz=(0, 0, 0)):
    T = np.eye(4)
    T[:3, 3] = xyz
    return T


def _world_shapes(chain, q, finger=0.01):
    """Each link's primitives as obstacle shapes at their world pose (independent FK path)."""
    F = chain.frames(q)          # link1..link4 frames, then tip
    link = {'base_link': np.eye(4), 'link1': F[0], 'link2': F[1], 'link3': F[2],
            'link4': F[3], 'tool': F[4]}
    link['finger'] = link['tool'] @ _T((finger, 0, 0.1))
    return {
        'base_link': [Box(_T((0, 0, 0.05)), (0.2, 0.2, 0.1))],
        'link1': [Cylinder(link['link1'] @ _T((0, 0, 0.05)), 0.05, 0.1)],
        'link2': [Box(link['link2'] @ _T((0, 0, 0.2)), (0.06, 0.06, 0.4))],
        'link3': [Cylinder(link['link3'] @ _T((0, 0, 0.15)), 0.04, 0.3),
                  Sphere((link['link3'] @ _T((0, 0, 0.3)))[:3, 3], 0.045)],
        'link4': [Box(link['link4'] @ _T((0, 0, 0.03)), (0.06, 0.06, 0.06))],
        'tool': [Box(link['tool'] @ _T((0, 0, 0.05)), (0.02, 0.02, 0.1))],
        'finger': [Box(link['finger'] @ _T((0, 0, 0.01)), (0.01, 0.01, 0.02))],
    }


def _samples(shape, rng, k=150):
    """Points inside a shape: its corners/extremes and random interior points."""
    if isinstance(shape, Sphere):
        d = rng.normal(size=(k, 3))
        d /= np.linalg.norm(d, axis=1)[:, None]
        return np.array(shape.center) + shape.radius * d * rng.uniform(0, 1, (k, 1)) ** 0.1
    T = shape.pose
    if isinstance(shape, Box):
        h = 0.5 * np.array(shape.size)
        local = rng.uniform(-h, h, (k, 3))
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1)
                            for sz in (-1, 1)]) * h
        local = np.vstack([local, corners])
    else:
        a = rng.uniform(0, 2 * np.pi, k)
        r = shape.radius * rng.uniform(0, 1, k) ** 0.2
        z = rng.uniform(-0.5, 0.5, k) * shape.length
        local = np.stack([r * np.cos(a), r * np.sin(a), z], axis=1)
    return local @ T[:3, :3].T + T[:3, 3]


def _true_contacts(chain, q, obstacles, rng):
    """Pairs some sampled point of one lies inside the other: real contacts (a subset)."""
    shapes = _world_shapes(chain, q)
    pts = {link: np.vstack([_samples(s, rng) for s in ss]) for link, ss in shapes.items()}
    model = chain.collision_setup.model
    moving = [lk for lk, k in model.group.items() if k >= 0]

    def inside(points, targets):
        return any(min(kernels.shape_sdf(t.row, *p) for t in targets) < -1e-9
                   for p in points)
    found = set()
    for a, b in model.checked_pairs:
        if inside(pts[a], shapes[b]) or inside(pts[b], shapes[a]):
            found.add((a, b))
    for o in obstacles:
        for lk in moving:
            if inside(pts[lk], [o]):
                found.add((lk, o.name))
    return found


def test_never_misses_a_contact_of_the_real_primitives(chain):
    rng = np.random.default_rng(4)
    ball = Sphere((0.3, 0.0, 0.45), 0.12, name='ball')
    shelf = Box(_T((-0.3, 0.2, 0.3)), (0.3, 0.3, 0.04), name='shelf')
    obstacles = [FLOOR, ball, shelf]
    real = 0
    for _ in range(60):
        q = chain.random_q(rng)
        reported = set(chain.collisions(q, obstacles))
        truth = _true_contacts(chain, q, obstacles, rng)
        assert truth <= reported, (q, truth - reported)
        real += len(truth)
        assert (chain.min_distance(q, obstacles).distance <= kernels.SLACK) == bool(reported)
    assert real > 20       # the sample does exercise contacts


def test_groups_tool_past_the_tip_and_held_finger(chain):
    model = chain.collision_setup.model
    assert model.group['base_link'] == -1
    assert model.group['tool'] == model.group['finger'] == model.group['link4'] == 3
    assert model.held == {'finger_joint': 0.01}     # 0 clipped into [0.01, 0.03]
    # Arm folded down onto the floor: the tool past the tip is reported.
    q = np.array([0.0, 2.0, 1.0, 0.0])
    assert ('tool', 'floor') in chain.collisions(q, [FLOOR])


def test_held_joint_moves_the_finger():
    chain = Chain.from_urdf(URDF, 'base_link', 'tip', held_joints={'finger_joint': 0.03})
    q = np.zeros(4)
    # The finger box spans x in [0.025, 0.035] when held at 0.03, [0.005, 0.015] at 0.01.
    ball = Sphere((0.05, 0.0, 1.12), 0.02, name='ball')
    assert chain.collisions(q, [ball]) == [('finger', 'ball')]
    chain.hold_joints({'finger_joint': 0.01})
    assert chain.collisions(q, [ball]) == []
    with pytest.raises(Exception, match='joint2'):
        chain.hold_joints({'joint2': 0.0})


def test_links_no_joint_moves_are_not_reported(chain):
    raised = HalfSpace((0, 0, 1), 0.08, name='raised floor')   # cuts the pedestal only
    assert chain.collisions(np.zeros(4), [raised]) == []
    assert chain.min_distance(np.zeros(4), [raised]).pair[0] != 'base_link'


def test_default_matrix_and_srdf_round_trip(chain):
    setup = chain.collision_setup
    assert setup.disabled[frozenset(('base_link', 'link1'))] == 'Adjacent'
    assert setup.disabled[frozenset(('link3', 'link4'))] == 'Adjacent'
    assert frozenset(('link4', 'tool')) in setup.disabled       # through geometry-less tip
    text = chain.disabled_pairs_srdf()
    assert set(read_disabled_pairs(text)) == set(setup.disabled)
    again = Chain.from_urdf(URDF, 'base_link', 'tip', srdf=text)
    assert again.collision_setup.model.checked_pairs == setup.model.checked_pairs
    # An SRDF that disables a pair removes it from the check.
    pair = setup.model.checked_pairs[0]
    fewer = Chain.from_urdf(URDF, 'base_link', 'tip', srdf=text.replace(
        '</robot>', f'<disable_collisions link1="{pair[0]}" link2="{pair[1]}"/></robot>'))
    assert pair not in fewer.collision_setup.model.checked_pairs


def test_sampled_always_pairs_are_written_to_the_srdf():
    # A cover ball on link1 at joint2's axis overlaps link2's root at every joint2 angle.
    text = URDF.read_text().replace('meshes/wrist.obj', str(URDF.parent / 'meshes' / 'wrist.obj'))
    text = text.replace('</robot>', """
  <link name="cover">
    <collision><geometry><sphere radius="0.06"/></geometry></collision>
  </link>
  <joint name="cover_joint" type="fixed">
    <parent link="link1"/><child link="cover"/><origin xyz="0 0 0.1"/>
  </joint>
</robot>""")
    chain = Chain.from_urdf(text, 'base_link', 'tip')
    setup = chain.collision_setup
    assert setup.disabled[frozenset(('cover', 'link2'))] == 'Always'
    assert setup.disabled[frozenset(('cover', 'link1'))] == 'Adjacent'
    srdf = chain.disabled_pairs_srdf()
    assert '<disable_collisions link1="cover" link2="link2" reason="Always" />' in srdf
    assert read_disabled_pairs(srdf) == setup.disabled
    assert ('cover', 'link2') not in setup.model.checked_pairs
    again = Chain.from_urdf(text, 'base_link', 'tip', srdf=srdf)
    assert again.collision_setup.model.checked_pairs == setup.model.checked_pairs


def test_fast_queries_match_the_full_distances(chain):
    """The contacts and closest kernels skip and stop early, yet answer as distances()."""
    rng = np.random.default_rng(8)
    obstacles = [FLOOR, Sphere((0.3, 0.0, 0.45), 0.12, name='ball'),
                 Box(_T((-0.3, 0.2, 0.3)), (0.3, 0.3, 0.04), name='shelf'),
                 Cylinder(_T((0.2, -0.25, 0.4)), 0.05, 0.6, name='post')]
    setup = chain.collision_setup
    packed = setup.packed(obstacles)
    F, K = setup.model.flat
    p = setup.model.capsules.pairs.shape[0]
    for _ in range(300):
        q = chain.random_q(rng)
        d_self, d_obs, _ = kernels.distances(F, K, q, packed.rows, np.inf)
        full = np.concatenate([d_self, d_obs.ravel()])
        codes = kernels.contacts(F, K, q, packed.rows)
        assert set(codes.tolist()) == set(np.flatnonzero(full <= kernels.SLACK).tolist())
        ds, i_s, do, i_o = kernels.closest(F, K, q, packed.rows)
        assert ds == pytest.approx(d_self.min(), abs=1e-12)
        assert do == pytest.approx(d_obs.min(), abs=1e-12)
        assert d_self[i_s] == pytest.approx(ds, abs=1e-12)
        assert full[p + i_o] == pytest.approx(do, abs=1e-12)
        clearance = chain.min_distance(q, obstacles)
        assert clearance.distance == pytest.approx(full.min(), abs=1e-12)
        assert min(full[k] for k, pair in enumerate(packed.pair_names)
                   if pair == clearance.pair) == pytest.approx(full.min(), abs=1e-12)


def test_packed_obstacles_are_cached_on_the_shapes(chain):
    ball = Sphere((0.3, 0.0, 0.45), 0.12, name='ball')
    setup = chain.collision_setup
    first = setup.packed([FLOOR, ball])
    assert setup.packed((FLOOR, ball)) is first          # same shapes, new container
    other = setup.packed([FLOOR, Sphere((0.3, 0.0, 0.45), 0.12, name='ball')])
    assert other is not first and other.names == first.names
    assert setup.packed(None).rows.shape == (0, 16)
    with pytest.raises(IKInputError):
        setup.packed([FLOOR, [0, 0, 1]])


def _arrays(value, seen):
    """Every numpy array reachable from value (containers and ik_node objects), once."""
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    elif type(value).__module__.startswith('ik_node.') and hasattr(value, '__dict__'):
        value = list(vars(value).values())
    elif not isinstance(value, (list, tuple)):
        return []
    return [a for v in value for a in _arrays(v, seen)]


def test_copies_keep_the_collision_arrays_read_only():
    original = Chain.from_urdf(URDF, 'base_link', 'tip')
    q = original.mid + 0.1
    original.collision_setup.packed([FLOOR])
    expected = original.collisions(q, [FLOOR])
    frozen = [a for a in _arrays(original.collision_setup, set()) if not a.flags.writeable]
    assert len(frozen) > 5 and original.collision_setup.model.flat[0].flags.writeable is False
    for other in (copy.deepcopy(original), pickle.loads(pickle.dumps(original))):
        setup = other.collision_setup
        assert setup is not original.collision_setup
        copied = [a for a in _arrays(setup, set()) if not a.flags.writeable]
        assert len(copied) == len(frozen)
        assert not any(a.flags.writeable for a in (*setup.model.flat, setup.model.sweep))
        with pytest.raises(ValueError):
            setup.model.flat[0][0] = 0.0
        assert other.collisions(q, [FLOOR]) == expected


def test_path_check_finds_an_obstacle_between_free_ends(chain):
    q_a = np.array([-1.0, 0.8, 0.0, 0.0])
    q_b = np.array([1.0, 0.8, 0.0, 0.0])
    ball = Sphere(chain.fk([0.0, 0.8, 0.0, 0.0])[:3, 3], 0.04, name='ball')
    assert chain.collisions(q_a, [ball]) == [] and chain.collisions(q_b, [ball]) == []
    assert chain.path_collides(q_a, q_b, obstacles=[ball])
    assert chain.path_collides(q_a, q_b, step=10.0, obstacles=[ball])   # found by halving
    assert not chain.path_collides(q_a, q_a + 0.05, obstacles=[ball])


def test_path_check_is_conservative_against_dense_samples(chain):
    rng = np.random.default_rng(5)
    obstacles = [FLOOR, Sphere((0.25, 0.1, 0.5), 0.1)]
    for _ in range(25):
        q_a = chain.random_q(rng)
        q_b = q_a + rng.uniform(-0.6, 0.6, 4)
        q_b = np.clip(q_b, chain.lower, chain.upper)
        dense = any(chain.collisions(q_a + s * (q_b - q_a), obstacles)
                    for s in np.linspace(0, 1, 200))
        if dense:
            assert chain.path_collides(q_a, q_b, obstacles=obstacles)


def test_bad_input(chain):
    with pytest.raises(IKInputError):
        chain.collisions([0.0, np.nan, 0.0, 0.0])
    with pytest.raises(IKInputError):
        chain.collisions(np.zeros(3))
    with pytest.raises(IKInputError):
        chain.collisions(np.zeros(4), obstacles=[(0, 0, 1)])
    with pytest.raises(IKInputError):
        chain.path_collides(np.zeros(4), np.ones(4), step=0.0)
    from ik_node.model.urdf import read_chain
    with pytest.raises(IKInputError, match='from_urdf'):
        Chain(read_chain(URDF, 'base_link', 'tip')).collisions(np.zeros(4))


def test_path_check_of_a_six_joint_arm_misses_no_contact_of_dense_samples():
    """Self pairs bound only the joints between their links: still no contact missed."""
    demo = Chain.from_urdf(share_path(), 'base_link', 'tool0')
    rng = np.random.default_rng(11)
    obstacles = [FLOOR, Sphere((0.3, 0.1, 0.35), 0.08, name='ball')]
    touched = {'self': 0, 'world': 0}
    while min(touched.values()) < 8:
        q_a = demo.random_q(rng)
        if demo.collisions(q_a, obstacles):
            continue
        q_b = demo.clip(q_a + rng.uniform(-0.8, 0.8, demo.n))
        hits = [pair for s in np.linspace(0.0, 1.0, 400)
                for pair in demo.collisions(q_a + s * (q_b - q_a), obstacles)]
        if not hits:
            continue
        touched['world' if hits[0][1] in ('floor', 'ball') else 'self'] += 1
        assert demo.path_collides(q_a, q_b, obstacles=obstacles), (q_a, q_b, hits[0])
