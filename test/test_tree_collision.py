# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The collision model of a URDF tree and tree solves with avoid_collisions."""

import time

from conftest import URDF_DIR
import fcl
from ik_node import HalfSpace, IKInputError, Sphere
from ik_node.collision.exact import _fcl_geometry
from ik_node.collision.geometry import read_link_geometry
from ik_node.collision.joint_tree import tree_frames
from ik_node.model.link_tree import RobotTree
from ik_node.model.urdf import _parse, read_robot
from ik_node.tree import solve_tree, TreeChain, TreeSolveOptions, TreeSolver
from ik_node.tree.collision import JointTreeView
import numpy as np
import pytest
from test_tree_solve import inner_q, left_arm_stretched

URDF = URDF_DIR / 'torso_two_arms.urdf'
FLOOR = HalfSpace((0, 0, 1), 0.0, name='floor')
HANDS = ['left_hand', 'right_hand']


@pytest.fixture(scope='module')
def tree() -> TreeChain:
    return TreeChain.from_urdf(URDF, 'base_link', HANDS)


class ExactCheck:
    """python-fcl on the URDF's collision shapes, posed by :class:`RobotTree` (its own FK)."""

    def __init__(self, tree: TreeChain):
        self.tree = tree
        self.robot = RobotTree.from_urdf(URDF)
        geometry = read_link_geometry(_parse(URDF.read_text()), URDF.parent, ())
        self.shapes = {link: [(s.origin, _fcl_geometry(fcl, s)) for s in shapes]
                       for link, shapes in geometry.items()}
        self.pairs = tree.collision_setup.model.checked_pairs
        self.floor = fcl.CollisionObject(fcl.Halfspace(np.array([0.0, 0.0, 1.0]), 0.0),
                                         fcl.Transform())

    def _objects(self, q) -> dict:
        positions = self.tree.positions(q)
        out = {}
        for link, shapes in self.shapes.items():
            T = self.robot.link_pose('base_link', link, positions)
            out[link] = [fcl.CollisionObject(g, fcl.Transform((T @ o)[:3, :3], (T @ o)[:3, 3]))
                         for o, g in shapes]
        return out

    def contacts(self, q, floor: bool = False) -> list:
        """Return the checked link pairs (and links on the floor) in contact at q."""
        objects = self._objects(q)
        hit = [(a, b) for a, b in self.pairs
               if any(fcl.collide(x, y, fcl.CollisionRequest(), fcl.CollisionResult())
                      for x in objects[a] for y in objects[b])]
        if floor:
            moving = set(self.tree.collision_setup.model.group) - {'base_link'}
            hit += [(link, 'floor') for link in sorted(moving)
                    if self.tree.collision_setup.model.group[link] >= 0
                    and any(fcl.collide(x, self.floor, fcl.CollisionRequest(),
                                        fcl.CollisionResult()) for x in objects[link])]
        return hit


@pytest.fixture(scope='module')
def exact(tree) -> ExactCheck:
    return ExactCheck(tree)


def crossed(tree) -> np.ndarray:
    """Return joint values with both upper arms swung in across each other (in contact)."""
    q = tree.mid.copy()
    q[tree.joint_names.index('l_shoulder_yaw')] = -0.75
    q[tree.joint_names.index('r_shoulder_yaw')] = 0.75
    return q


def free_targets(tree, exact, count, rng, obstacles=(FLOOR,)) -> list:
    """Return (q, tip poses) of joint values clear of contact by both checks."""
    out = []
    while len(out) < count:
        q = tree.random_q(rng)
        if not tree.collisions(q, obstacles) and not exact.contacts(q, floor=True):
            out.append((q, tree.fk(q)))
    return out


def test_the_model_holds_every_link_of_the_tree_with_pairs_across_branches(tree):
    model = tree.collision_setup.model
    checked = {frozenset(p) for p in model.checked_pairs}
    assert frozenset(HANDS) in checked                              # hand against hand
    assert frozenset(('torso_link', 'r_forearm')) in checked        # an arm against the torso
    assert frozenset(('l_upper_arm', 'r_upper_arm')) in checked
    # Adjacent links are never checked, nor two links moved by the same joint.
    assert frozenset(('l_forearm', 'left_hand')) not in checked
    assert frozenset(('torso_link', 'l_upper_arm')) not in checked
    assert model.disabled_pairs == frozenset(tree.collision_setup.disabled)
    # The head (off the tree) and the fingers past the left hand are held: they ride on the
    # torso and on the left wrist.
    assert model.group['head_link'] == model.group['torso_link'] >= 0
    assert model.group['l_finger_a'] == model.group['left_hand'] >= 0
    assert set(model.held) == {'head_pan', 'l_finger_a_joint', 'l_finger_b_joint'}


def test_the_joint_tree_frames_match_the_urdf_link_poses(tree, rng):
    view = JointTreeView(tree, read_robot(URDF))
    robot = RobotTree.from_urdf(URDF)
    child = {j.name: j.child for j in robot.joints}
    m = len(view.moving_joint_names)
    parent, end = view.joint_tree
    # Depth first, parents first: each subtree is one run of rows.
    assert all(parent[k] < k for k in range(m))
    assert all(parent[k] < 0 or end[parent[k]] >= end[k] for k in range(m))
    for _ in range(5):
        q = tree.random_q(rng)
        R, p, z = np.empty((m + 1, 3, 3)), np.empty((m + 1, 3)), np.empty((m, 3))
        tree_frames(view.model, parent, q, R, p, z)
        for k, name in enumerate(view.moving_joint_names):
            T = robot.link_pose('base_link', child[name], tree.positions(q))
            np.testing.assert_allclose(R[k], T[:3, :3], atol=1e-12)
            np.testing.assert_allclose(p[k], T[:3, 3], atol=1e-12)


def test_the_check_never_misses_an_exact_contact(tree, exact, rng):
    found = 0
    for _ in range(300):
        q = tree.random_q(rng)
        truth = {frozenset(p) for p in exact.contacts(q)}
        reported = {frozenset(p) for p in tree.collisions(q)}
        assert truth <= reported, q
        found += bool(truth)
    # Crossed arms are in contact across branches, and the distance says how deep.
    assert ('l_upper_arm', 'r_upper_arm') in tree.collisions(crossed(tree))
    assert tree.min_distance(crossed(tree)).distance < 0.0
    assert found >= 10


def test_a_path_between_contact_free_ends_through_contact_is_caught(tree):
    # Two poses clear of contact (found by a seeded search) whose straight joint path runs
    # through contact on the way.
    q_a = np.array([0.17, 2.27, 0.99, 0.77, -0.26, -0.05, 0.23, 1.87, 1.78, -2.35])
    q_b = np.array([0.04, 1.18, -0.82, -0.55, -1.63, -2.71, -1.17, 1.0, 0.54, -0.27])
    assert not tree.collisions(q_a) and not tree.collisions(q_b)
    s = np.linspace(0.0, 1.0, 201)
    assert any(tree.collisions(q_a + t * (q_b - q_a)) for t in s)
    assert tree.path_collides(q_a, q_b)
    # Lifting the torso from q_a, 6 cm clear, is certified clear.
    q_c = q_a.copy()
    q_c[tree.joint_names.index('torso_lift')] = 0.25
    assert tree.min_distance(q_a).distance > 0.05
    assert not tree.path_collides(q_a, q_c)


@pytest.mark.parametrize('method', ['dls', 'fabrik'])
def test_answers_are_collision_free_by_the_exact_check(tree, exact, rng, method):
    opts = TreeSolveOptions(avoid_collisions=True, obstacles=[FLOOR], timeout=0.5,
                            max_attempts=40)
    solver = TreeSolver(tree, opts, method)
    solved = 0
    for q, T in free_targets(tree, exact, 15, rng):
        # From crossed arms: the plain answer near the seed is often in contact.
        r = solver.solve(dict(zip(HANDS, T)), crossed(tree))
        assert tree.within_limits(r.q)
        if r.success:
            solved += 1
            assert exact.contacts(r.q, floor=True) == []
            assert tree.collisions(r.q, [FLOOR]) == []
            assert r.clearance == pytest.approx(tree.min_distance(r.q, [FLOOR]).distance)
            assert r.clearance >= 0.0 and len(r.closest_pair) == 2
            np.testing.assert_allclose(tree.fk(r.q)[:, :3, 3], T[:, :3, 3], atol=1e-3)
    assert solved >= 12


def test_a_plain_answer_in_contact_is_avoided(tree, exact, rng):
    # Where the answer without collisions crosses the arms, the collision-aware one does not.
    avoided = 0
    for q, T in free_targets(tree, exact, 40, rng):
        targets = dict(zip(HANDS, T[:, :3, 3]))
        plain = solve_tree(tree, targets, crossed(tree),
                           TreeSolveOptions(max_attempts=1, timeout=10.0))
        if not (plain.success and tree.collisions(plain.q, [FLOOR])):
            continue
        safe = solve_tree(tree, targets, crossed(tree),
                          TreeSolveOptions(avoid_collisions=True, obstacles=[FLOOR],
                                           timeout=0.5, max_attempts=40))
        assert not safe.success or exact.contacts(safe.q, floor=True) == []
        avoided += safe.success
    assert avoided >= 3


def test_a_clear_first_answer_is_the_plain_one_and_one_in_contact_is_retried(tree, exact, rng):
    # The driver's lazy clearance: each start is tried without the clearance first.
    clear = retried = 0
    for q, T in free_targets(tree, exact, 30, rng, obstacles=()):
        targets = dict(zip(HANDS, T[:, :3, 3]))
        plain = solve_tree(tree, targets, crossed(tree),
                           TreeSolveOptions(max_attempts=1, timeout=10.0))
        safe = solve_tree(tree, targets, crossed(tree),
                          TreeSolveOptions(avoid_collisions=True, max_attempts=40, timeout=1.0))
        if not plain.success:
            continue
        if not tree.collisions(plain.q):
            np.testing.assert_array_equal(safe.q, plain.q)
            assert safe.attempts == 1
            clear += 1
        else:
            assert safe.attempts >= 2
            assert not safe.success or tree.collisions(safe.q) == []
            retried += 1
    assert clear >= 5 and retried >= 3, (clear, retried)


def test_hands_asked_into_each_other_are_refused_with_the_pair(tree):
    # Both hands to one point in front of the torso: met only with the hands in contact.
    q = tree.mid.copy()
    point = np.array([0.45, 0.0, 0.95])
    targets = {'left_hand': point, 'right_hand': point + [0.0, 0.0, 0.01]}
    plain = solve_tree(tree, targets, q, TreeSolveOptions(max_attempts=5, timeout=10.0))
    assert plain.success and tree.collisions(plain.q)
    r = solve_tree(tree, targets, q, TreeSolveOptions(avoid_collisions=True, timeout=0.1))
    assert not r.success and r.status == 'blocked'
    # The best attempt is reported: both hands there, in contact, and the pair named.
    assert all(t.position_error <= 1e-5 for t in r.tips) and r.clearance < 0.0
    a, b = tree.collisions(r.q)[0]
    assert f'{a} collides with {b}' in r.message


def test_an_obstacle_keeps_a_hand_out(tree, exact, rng):
    q, T = free_targets(tree, exact, 1, np.random.default_rng(7))[0]
    ball = Sphere(T[0, :3, 3] + [0.0, 0.0, 0.12], 0.05, name='ball')
    opts = TreeSolveOptions(avoid_collisions=True, obstacles=[FLOOR, ball], timeout=0.5)
    r = solve_tree(tree, dict(zip(HANDS, T)), tree.mid, opts)
    if r.success:
        assert tree.collisions(r.q, [FLOOR, ball]) == []
    else:
        assert r.status == 'blocked' and 'ball' in r.message


def test_the_budget_and_attempts_are_kept_and_an_unreachable_tip_reports_its_best(tree, rng):
    q0 = inner_q(tree, rng)
    far = np.array([3.0, 2.0, 1.0])
    near = tree.fk(q0)[1, :3, 3] + [0.05, -0.05, 0.02]
    targets = {'left_hand': far, 'right_hand': near}
    # A budget no attempt count reaches here: the same attempts on a loaded machine (the
    # default 50 ms ran one attempt of three beside a busy process).
    r = solve_tree(tree, targets, q0, TreeSolveOptions(avoid_collisions=True, obstacles=[FLOOR],
                                                       max_attempts=3, timeout=10.0))
    assert not r.success and r.attempts == 3
    opts = TreeSolveOptions(avoid_collisions=True, obstacles=[FLOOR], max_iterations=500,
                            max_attempts=30, timeout=30.0)
    r = solve_tree(tree, targets, q0, opts)
    assert not r.success and r.status == 'not_converged'
    assert r.tip('right_hand').success and tree.collisions(r.q, [FLOOR]) == []
    # The best attempt is reported: the left arm stretched toward its target as far as its
    # own joints allow, while the shared torso serves the right hand.
    assert left_arm_stretched(tree, r.q, far)
    assert 'left_hand' in r.message and 'right_hand' not in r.message
    solver = TreeSolver(tree, TreeSolveOptions(timeout=0.02, max_attempts=10 ** 6,
                                               avoid_collisions=True), 'dls')
    solver.solve({'left_hand': far}, tree.mid)           # loads the kernels
    t0 = time.perf_counter()
    r = solver.solve({'left_hand': far, 'right_hand': near}, tree.mid)
    assert time.perf_counter() - t0 < 0.02 + 0.5
    assert 1 <= r.attempts < 10 ** 6


def test_bad_collision_input_is_refused_with_the_option_named(tree):
    with pytest.raises(IKInputError, match='obstacles needs avoid_collisions'):
        TreeSolveOptions(obstacles=[FLOOR])
    with pytest.raises(IKInputError, match='collision_margin'):
        TreeSolveOptions(avoid_collisions=True, collision_margin=0.0)
    with pytest.raises(IKInputError, match='collision_weight'):
        TreeSolveOptions(avoid_collisions=True, collision_weight=-1.0)
    with pytest.raises(IKInputError, match='avoid_collisions'):
        TreeSolveOptions(avoid_collisions='yes')
    with pytest.raises(IKInputError, match='obstacle'):
        TreeSolver(tree, TreeSolveOptions(avoid_collisions=True, obstacles=['floor']))
    bare = TreeChain(read_robot(URDF), 'base_link', HANDS)
    with pytest.raises(IKInputError, match='no collision geometry'):
        TreeSolver(bare, TreeSolveOptions(avoid_collisions=True))
