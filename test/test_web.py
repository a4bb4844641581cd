# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The web view without a browser: model loading, the arm following targets, the playground."""

import math

from ik_node import IKInputError, SolveOptions, URDFError
from ik_node.web.app import start
from ik_node.web.ik_view import home_pose
from ik_node.web.playground import CONSTRAINT_KINDS, Playground, PlaygroundConfig
from ik_node.web.robot import demo_arm_path, load_robot
import numpy as np
from numpy.testing import assert_allclose
import pytest
from web_helpers import free_port

URDF = """<?xml version="1.0"?>
<robot name="meshy">
  <link name="base"><visual><geometry><mesh filename="{mesh}"/></geometry></visual></link>
  <link name="l1"><visual><geometry><box size="0.1 0.1 0.3"/></geometry></visual></link>
  <link name="tip"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="tip"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
</robot>
"""


def test_demo_arm_is_found_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    robot = load_robot(demo_arm_path())
    assert robot.chain.base_link == 'base_link' and robot.chain.tip_link == 'tool0'
    assert robot.chain.n == 6 and robot.warnings == []


def test_bad_urdf_is_refused_with_a_clear_message(tmp_path):
    with pytest.raises(URDFError, match='does not exist'):
        load_robot(tmp_path / 'nope.urdf')
    bad = tmp_path / 'bad.urdf'
    bad.write_text('<robot name="x"><link name="a"></robot')
    with pytest.raises(URDFError, match='bad.urdf'):
        load_robot(bad)
    good = tmp_path / 'arm.urdf'
    good.write_text(URDF.format(mesh='base.stl'))
    with pytest.raises(URDFError, match='nowhere'):
        load_robot(good, tip='nowhere')


def test_missing_mesh_is_named_and_the_rest_of_the_arm_loads(tmp_path):
    path = tmp_path / 'arm.urdf'
    path.write_text(URDF.format(mesh='meshes/base.stl'))
    robot = load_robot(path)
    assert robot.chain.joint_names == ('j1', 'j2')
    assert len(robot.warnings) == 1 and 'meshes/base.stl' in robot.warnings[0]
    assert "'base'" in robot.warnings[0]


def test_the_page_shows_the_arm_at_once_and_says_while_the_kernels_compile(monkeypatch):
    # A fresh install compiles for a minute or two: held here by a gate before the real
    # warm-up, and _jit reporting 'not compiled'.
    from ik_node.web import ik_view
    gate = __import__('threading').Event()
    real = ik_view.warm_up

    def held(chain):
        gate.wait(10.0)
        real(chain)
    monkeypatch.setattr(ik_view._jit, 'compiled', lambda: False)
    monkeypatch.setattr(ik_view, 'warm_up', held)
    app = start(port=free_port())
    try:
        view = app.view
        assert app.error is None and view.display is not None    # drawn before the kernels
        assert view.readout.content == ik_view.COMPILING and not view.ready.is_set()
        gate.set()
        assert view.ready.wait(30.0)
        assert view.readout.content != ik_view.COMPILING and math.isfinite(view.ready_in)
        drawn = view.wait_for(view.set_target(view.chain.fk(view.q)))
        assert drawn is not None and drawn.result.success
    finally:
        gate.set()
        app.close()


@pytest.fixture(scope='module')
def arm_app():
    app = start(port=free_port())
    assert app.error is None
    yield app
    app.close()


def test_arm_follows_targets_and_says_when_one_is_out_of_reach(arm_app, rng):
    view = arm_app.view
    chain = view.chain
    for _ in range(5):
        q = np.clip(view.q + rng.uniform(-0.3, 0.3, chain.n), chain.lower, chain.upper)
        T = chain.fk(q)
        drawn = view.wait_for(view.set_target(T))
        assert drawn is not None and drawn.result.success
        assert_allclose(chain.fk(view.q)[:3, 3], T[:3, 3], atol=1e-3)
        assert drawn.latency < 1.0
    far = chain.fk(view.q)
    far[:3, 3] = [3.0, 0.0, 0.5]
    drawn = view.wait_for(view.set_target(far))
    assert not drawn.result.success
    assert 'NOT REACHABLE' in view.readout.content
    # stretched towards it: the tip is on the target's side and about one reach away
    tip = chain.fk(view.q)[:3, 3]
    assert tip[0] > 0.6 and drawn.result.position_error == pytest.approx(
        np.linalg.norm(far[:3, 3] - tip))


def test_fast_arm_pose_matches_yourdfpy(arm_app, rng):
    display, urdf = arm_app.view.display, arm_app.view.robot.urdf
    assert display.frames is not None    # the fast path is in use
    for _ in range(5):
        cfg = rng.uniform(-3.0, 3.0, len(urdf.actuated_joint_names))
        urdf.update_cfg(cfg)
        joints = list(urdf.joint_map.values())
        for i, T in display.transforms(cfg):
            assert_allclose(T, urdf.get_transform(joints[i].child, joints[i].parent),
                            atol=1e-12)


def test_controls_change_the_solver_and_refuse_bad_values(arm_app):
    view = arm_app.view
    c = view.controls
    T = view.chain.fk(view.q)
    for method in ('ccd', 'pinv', 'dls'):
        c.method.value = method
        assert c.apply() is None
        assert view.wait_for(view.set_target(T)).result.method == method
    c.position_only.value = True
    assert c.apply() is None
    drawn = view.wait_for(view.set_target(T))
    assert math.isnan(drawn.result.orientation_error)
    c.position_only.value = False
    c.position_tolerance.value = 0.0
    msg = c.apply()
    assert msg is not None and 'position_tolerance' in msg and c.error.visible
    assert c.settings.options['position_tolerance'] == pytest.approx(
        SolveOptions().position_tolerance)      # the previous value stays
    c.position_tolerance.value = 1.0
    c.limit_weight.value = -1.0
    assert 'weight' in c.apply()
    c.limit_weight.value = 0.5
    assert c.apply() is None and not c.error.visible
    assert len(c.settings.options['objectives']) == 1


def test_unloadable_urdf_gives_an_error_page_not_a_blank_one(tmp_path):
    bad = tmp_path / 'bad.urdf'
    bad.write_text('not xml at all')
    app = start(urdf=str(bad), port=free_port())
    try:
        assert app.view is None and 'bad.urdf' in app.error
    finally:
        app.close()


@pytest.mark.parametrize('kind', CONSTRAINT_KINDS)
def test_playground_passes_keep_lengths_and_constraints(kind, rng):
    pg = Playground(PlaygroundConfig(n_links=5, constraint=kind))
    for _ in range(3):
        pg.move_target(0, rng.uniform([-0.3, -0.3, 0.2], [0.3, 0.3, 0.6]))
        s = pg.step('forward')
        assert_allclose(pg.wish.points[-1], pg.targets[0])
        s = pg.step('backward')
        assert pg.wish is None and s.passes >= 2
        assert s.length_error < 1e-9 and s.violation < 1e-9
        assert_allclose(pg.points[0], pg.root)
    s = pg.solve()
    assert s.length_error < 1e-9 and s.violation < 1e-9


def test_playground_tree_root_and_refused_settings(rng):
    pg = Playground(PlaygroundConfig(end_effectors=3, n_links=3, branch_links=2))
    assert pg.is_tree and len(pg.leaves) == 3
    pg.move_root([0.05, 0.0, 0.0])
    s = pg.solve()
    assert_allclose(pg.points[0], [0.05, 0.0, 0.0])
    assert s.length_error < 1e-9 and s.text in ('reached', 'stalled', 'max_iterations')
    with pytest.raises(IKInputError, match='single-pass'):
        pg.step('forward')
    for bad in ({'lengths': (-1.0,)}, {'n_links': 0}, {'tolerance': -1.0},
                {'cone_angle': 2.0}, {'constraint': 'glue'}):
        with pytest.raises(IKInputError):
            pg.with_config(**bad)


def test_command_reports_a_bad_urdf_in_the_terminal_and_keeps_serving(tmp_path):
    import subprocess
    import sys
    import time
    import urllib.request
    bad = tmp_path / 'bad.urdf'
    bad.write_text('<robot name="x"><link name="a"/></robot>')   # no joint: no chain
    port = free_port()
    proc = subprocess.Popen([sys.executable, '-m', 'ik_node.web.app', '--urdf', str(bad),
                             '--port', str(port)], stderr=subprocess.PIPE, text=True)
    try:
        line = ''
        deadline = time.monotonic() + 60.0
        while 'ik-web: error' not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
        assert 'ik-web: error' in line and 'bad.urdf' in line
        with urllib.request.urlopen(f'http://127.0.0.1:{port}/', timeout=10) as r:
            assert r.status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serves_on_localhost_by_default(arm_app):
    assert arm_app.server.get_host() == '127.0.0.1'
    assert arm_app.url.startswith('http://127.0.0.1:')


def test_obstacles_floor_and_avoidance_reach_the_solver_and_contacts_turn_red(arm_app):
    view, chain = arm_app.view, arm_app.view.chain
    col, c = view.collision, view.controls
    q_free = home_pose(chain)
    T_free = chain.fk(q_free)
    assert T_free[2, 3] > 0.2
    # A pose with the arm under the floor plane (z = 0 of the base), the shoulder turned
    # down to just above level (further down, the upper arm enters the pedestal): with
    # avoidance off it is drawn, and the contact is named and shown red.
    q_low = q_free.copy()
    q_low[1] += 0.5
    T_low = chain.fk(q_low)
    assert T_low[2, 3] < -0.05
    col.floor.value = True
    assert c.apply() is None and 'obstacles' not in c.settings.options
    drawn = view.wait_for(view.set_target(T_low))
    assert drawn.result.success and not drawn.held
    assert 'floor' in {name for pair in drawn.contacts for name in pair}, drawn.contacts
    assert 'in contact' in view.readout.content and 'floor' in col.contacts.content
    assert col._floor_node.color == (220, 40, 40)
    # Avoidance on: the solver gets the floor; a free target is reached without contact...
    col.avoid.value = True
    assert c.apply() is None
    assert c.settings.options['avoid_collisions'] is True
    assert [s.name for s in c.settings.options['obstacles']] == ['floor']
    drawn = view.wait_for(view.set_target(T_free))
    assert drawn.result.success and drawn.contacts == () and not drawn.held
    assert col._floor_node.color != (220, 40, 40)
    # ... and a target under the floor is refused as blocked: the arm stays where it was.
    q_before = view.q.copy()
    drawn = view.wait_for(view.set_target(T_low))
    assert drawn.result.status == 'blocked' and drawn.held and drawn.contacts == ()
    assert_allclose(view.q, q_before)
    assert 'BLOCKED' in view.readout.content
    # An obstacle on the free target: avoided with avoidance on (blocked, arm kept), in
    # contact and red with it off. The arm first goes to the low pose (the floor off), so
    # that the pose it is kept at does not touch the obstacle.
    col.floor.value = False
    c.apply()
    drawn = view.wait_for(view.set_target(T_low))
    assert drawn.result.success and drawn.contacts == ()
    assert col.add(T_free[:3, 3], radius=0.05) == 1
    assert [s.name for s in c.settings.options['obstacles']] == ['obstacle 1']
    drawn = view.wait_for(view.set_target(T_free))
    assert drawn.result.status == 'blocked' and drawn.contacts == ()
    col.avoid.value = False
    c.apply()
    drawn = view.wait_for(view.set_target(T_free))
    assert 'obstacle 1' in {name for pair in drawn.contacts for name in pair}, drawn.contacts
    assert col._spheres[0][1].color == (220, 40, 40)
    # Dragged away (what its gizmo sends), the target is reached without contact.
    col.avoid.value = True
    c.apply()
    col.move(0, T_free[:3, 3] + [0.0, 0.0, 0.6])
    assert c.settings.options['obstacles'][0].center[2] == pytest.approx(T_free[2, 3] + 0.6)
    drawn = view.wait_for(view.set_target(T_free))
    assert drawn.result.success and drawn.contacts == ()
    assert_allclose(chain.fk(view.q)[:3, 3], T_free[:3, 3], atol=1e-3)
    col.clear()
    col.avoid.value = False
    assert c.apply() is None and 'obstacles' not in c.settings.options
