# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The default pair matrix: "always in contact" decided on the exact URDF geometry."""

import warnings

from ik_node import Chain, share_path
from ik_node.collision.exact import exact_links
from ik_node.collision.model import build_model, link_capsules, link_groups
from ik_node.collision.pairs import (adjacent_pairs, bound_always_pairs, exact_parting,
                                     sample_configurations)
from ik_node.errors import CollisionModelWarning
import numpy as np
import pytest
import yaml

DEMO_START = share_path('config/sim_arm.yaml')


def _exact(chain):
    setup = chain.collision_setup
    return exact_links(chain, setup.geometry, link_groups(setup.robot, chain, setup.model.held))


def _touching_exactly(chain, q):
    """Return the checked pairs whose URDF geometry touches at ``q`` (FCL)."""
    exact = _exact(chain)
    exact.pose(q)
    return [p for p in chain.collision_setup.model.checked_pairs if exact.touching(*p)]


def _unmerged_bound_always(chain):
    """Return the pairs the capsules alone (the rule before exact geometry) call "always"."""
    setup = chain.collision_setup
    adjacent = frozenset(adjacent_pairs(setup.robot, set(setup.geometry)))
    trial = build_model(setup.robot, chain, link_capsules(setup.geometry), adjacent,
                        setup.model.held)
    return bound_always_pairs(chain, trial, sample_configurations(chain))


@pytest.fixture(scope='module')
def demo():
    with warnings.catch_warnings():
        warnings.simplefilter('error', CollisionModelWarning)
        chain = Chain.from_urdf(share_path(), 'base_link', 'tool0')
        chain.collision_setup
    return chain


def test_demo_arm_disables_adjacent_pairs_only(demo):
    setup = demo.collision_setup
    assert set(setup.disabled.values()) == {'Adjacent'}
    assert setup.bound_always == {}
    assert ('base_link', 'upper_arm_link') in setup.model.checked_pairs
    # Every pair of links in two groups is checked unless a joint joins them.
    assert len(setup.model.checked_pairs) == 15


def test_demo_arm_geometry_touches_itself_only_at_the_hubs(demo):
    """Exactly: no non-adjacent pair always touches; adjacent ones only at shared joints."""
    setup = demo.collision_setup
    everything = build_model(setup.robot, demo, setup.capsules_by_link, frozenset(),
                             setup.model.held)
    pairs = [frozenset(p) for p in everything.checked_pairs]
    qs = sample_configurations(demo)
    first_parting = exact_parting(_exact(demo), pairs, qs)
    hubs = {frozenset(('shoulder_link', 'upper_arm_link')),
            frozenset(('forearm_link', 'upper_arm_link'))}
    assert {p for p, i in first_parting.items() if i is None} == hubs
    # The runtime bounds see the stacked housings part too.
    assert bound_always_pairs(demo, everything, qs) == hubs


def test_demo_arm_rest_poses_are_collision_free(demo):
    params = yaml.safe_load(DEMO_START.read_text())['/**']['ros__parameters']
    start = dict(zip(params['initial_joint_names'], params['initial_positions']))
    poses = {'zero': np.zeros(demo.n),
             'mid-range': 0.5 * (demo.lower + demo.upper),
             'sim_arm start': np.array([start[j] for j in demo.joint_names])}
    for name, q in poses.items():
        assert demo.collisions(q) == [], name
        assert demo.min_distance(q).distance > 0.0, name
        assert _touching_exactly(demo, q) == [], name


def test_upper_arm_driven_into_the_base_is_reported(demo):
    down = np.array([0.0, 0.5 * np.pi, 0.0, 0.0, 0.0, 0.0])   # upper arm straight down
    assert demo.frames(down)[2][2, 3] < 0.0                    # the elbow under the pedestal
    assert ('base_link', 'upper_arm_link') in demo.collisions(down)
    assert ('base_link', 'upper_arm_link') in _touching_exactly(demo, down)
    assert demo.path_collides(np.zeros(demo.n), down)
    # Lifting the arm clear of the pedestal frees the pair again.
    up = np.array([0.0, -0.5 * np.pi, 0.0, 0.0, 0.0, 0.0])
    assert demo.collisions(up) == []


# Two small prongs on the base, a bar turning between them: the prongs' capsules merge into
# one whose hull holds the bar at every angle, but the boxes touch only when the bar lies
# across the gap.
FORK = """<?xml version="1.0"?>
<robot name="fork">
  <link name="base_link">
    <collision><origin xyz="0 0.0175 0.2"/><geometry><box size="0.02 0.01 0.02"/></geometry>
    </collision>
    <collision><origin xyz="0 -0.0175 0.2"/><geometry><box size="0.02 0.01 0.02"/></geometry>
    </collision>
  </link>
  <link name="arm">
    <collision><origin xyz="0.3 0 0"/><geometry><sphere radius="0.01"/></geometry></collision>
  </link>
  <link name="bar">
    <collision><origin xyz="0 0 0.2"/><geometry><box size="0.03 0.006 0.006"/></geometry>
    </collision>
  </link>
  <joint name="turn" type="revolute">
    <parent link="base_link"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-3.14" upper="3.14" effort="1" velocity="1"/>
  </joint>
  <joint name="spin" type="revolute">
    <parent link="arm"/><child link="bar"/><axis xyz="0 0 1"/>
    <limit lower="-3.14" upper="3.14" effort="1" velocity="1"/>
  </joint>
</robot>
"""


def test_pair_whose_boxes_part_is_kept_checked_with_tighter_bounds():
    with warnings.catch_warnings():
        warnings.simplefilter('error', CollisionModelWarning)
        chain = Chain.from_urdf(FORK, 'base_link', 'bar')
        setup = chain.collision_setup
    # The merged capsules touch the bar in every sample: the old rule disabled the pair.
    assert _unmerged_bound_always(chain) == {frozenset(('base_link', 'bar'))}
    assert frozenset(('base_link', 'bar')) not in setup.disabled
    assert ('base_link', 'bar') in setup.model.checked_pairs
    assert setup.bound_always == {}
    assert len(setup.capsules_by_link['base_link']) == 2      # one capsule per prong now
    along, across = np.array([0.0, 0.0]), np.array([0.0, 0.5 * np.pi])
    assert chain.collisions(along) == [] and _touching_exactly(chain, along) == []
    assert chain.collisions(across) == [('base_link', 'bar')]
    assert _touching_exactly(chain, across) == [('base_link', 'bar')]
    # The runtime bound never misses a contact of the boxes.
    rng = np.random.default_rng(3)
    for q in chain.random_q(rng, 200):
        if _touching_exactly(chain, q):
            assert chain.collisions(q) == [('base_link', 'bar')]


def test_pair_whose_geometry_always_touches_is_disabled():
    # A bar that reaches into both prongs at every angle: a cross of two boxes.
    cross = FORK.replace('<box size="0.03 0.006 0.006"/></geometry>',
                         '<box size="0.03 0.006 0.006"/></geometry></collision>\n'
                         '    <collision><origin xyz="0 0 0.2"/>'
                         '<geometry><box size="0.006 0.03 0.006"/></geometry>')
    chain = Chain.from_urdf(cross, 'base_link', 'bar')
    setup = chain.collision_setup
    assert setup.disabled[frozenset(('base_link', 'bar'))] == 'Always'
    assert ('base_link', 'bar') not in setup.model.checked_pairs
    assert '<disable_collisions link1="bar" link2="base_link" reason="Always" />' \
        in chain.disabled_pairs_srdf()


# A probe sliding 0.5-3 mm from a cylinder, facing a corner of the 12-sided prism that bounds
# the cylinder: the bound touches at every sample, the cylinder never.
CORNER = """<?xml version="1.0"?>
<robot name="corner">
  <link name="base_link">
    <collision><geometry><cylinder radius="0.1" length="0.1"/></geometry></collision>
  </link>
  <link name="slider">
    <collision><origin xyz="0 0 0.5"/><geometry><sphere radius="0.005"/></geometry></collision>
  </link>
  <link name="probe">
    <collision><geometry><sphere radius="0.01"/></geometry></collision>
  </link>
  <joint name="slide" type="prismatic">
    <parent link="base_link"/><child link="slider"/><axis xyz="1 0 0"/>
    <limit lower="0.1105" upper="0.113" effort="1" velocity="1"/>
  </joint>
  <joint name="probe_mount" type="fixed">
    <parent link="slider"/><child link="probe"/>
  </joint>
</robot>
"""


def test_pair_whose_bounds_always_touch_stays_checked_and_is_warned_about():
    chain = Chain.from_urdf(CORNER, 'base_link', 'probe')
    with pytest.warns(CollisionModelWarning, match=r'base_link / probe: its geometry parts'):
        setup = chain.collision_setup
    pair = frozenset(('base_link', 'probe'))
    assert pair not in setup.disabled
    assert ('base_link', 'probe') in setup.model.checked_pairs
    assert list(setup.bound_always) == [pair]
    q = np.array([0.112])
    assert _touching_exactly(chain, q) == []
    assert chain.collisions(q) == [('base_link', 'probe')]   # what the warning announces
