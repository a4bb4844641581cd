# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""FABRIK on a URDF tree: the point tree, the forward pass, solves checked by FK."""

from conftest import URDF_DIR
from ik_node.tree.chain import TreeChain
from ik_node.tree.fabrik import _forward, fabrik_attempt, fabrik_record
from ik_node.tree.options import TreeSolveOptions
from ik_node.tree.solve import params_of, solve_tree, TreeSolver
from ik_node.tree.targets import MODE_HOLD, TipTarget
from ik_node.tree.tasks import task_record, tasks_of
import numpy as np
import pytest

URDF = URDF_DIR / 'torso_two_arms.urdf'
HANDS = ['left_hand', 'right_hand']


@pytest.fixture(scope='module')
def tree() -> TreeChain:
    return TreeChain.from_urdf(URDF, 'base_link', HANDS)


def inner_q(tree, rng):
    """Return joint values away from the limits and from the straight (singular) elbows."""
    q = np.clip(tree.random_q(rng), tree.lower + 0.2, tree.upper - 0.2)
    for name in ('l_elbow', 'r_elbow'):
        k = tree.joint_names.index(name)
        q[k] = np.sign(q[k] or 1.0) * max(abs(q[k]), 0.4)
    return q


def test_the_point_tree_holds_each_joint_once_parents_first(tree):
    fab = fabrik_record(tree)
    joints = fab.q_index[fab.q_index >= 0]
    # Every joint of the tree once (no mimic joint on these paths), then one node per tip.
    assert sorted(joints.tolist()) == list(range(tree.n))
    assert np.all(fab.parent < np.arange(fab.parent.size))
    assert fab.q_index[fab.tip_node].tolist() == [-1, -1]
    # The two hands branch off the last shared joint: that node has both tips below it.
    last_shared = int(np.flatnonzero(fab.tip_below.all(axis=1)).max())
    assert fab.q_index[last_shared] == tree.shared_joints.max()
    kids = np.flatnonzero(fab.parent == last_shared)
    assert len(kids) == 2


def test_the_forward_pass_leaves_points_that_meet_their_targets_in_place(tree, rng):
    from ik_node.tree.dls import _evaluate, _work
    q = inner_q(tree, rng)
    T = tree.fk(q)
    targets = {'left_hand': T[0, :3, 3], 'right_hand': T[1]}
    rec = task_record(tree, tasks_of(tree, targets, q, MODE_HOLD))
    fab = fabrik_record(tree)
    opts = TreeSolveOptions()
    w = _work(tree.tip_record, rec, tree.n)
    _evaluate(tree.tip_record, rec, params_of(opts, False, 1), q, w)
    task_of = np.full(fab.parent.size, -1)
    task_of[fab.tip_node[rec.tip]] = np.arange(rec.tip.size)
    f = np.zeros((fab.parent.size, 3))
    active = _forward(fab, rec, w, task_of, f)
    # Every proposal (and so every sub-base's centroid) is the point's current place.
    points = np.array([w.p[fab.node_tip[a], fab.node_k[a]] for a in range(fab.parent.size)])
    assert active[fab.parent[fab.tip_node]].all()
    np.testing.assert_allclose(f[active], points[active], atol=1e-12)


def test_fabrik_iterations_alone_bring_both_hands_to_position_targets(tree, rng):
    fab = fabrik_record(tree)
    solver = TreeSolver(tree, TreeSolveOptions(position_tolerance=1e-3))
    params = params_of(solver.options, False, 1)._replace(max_iter=200)
    met = 0
    for _ in range(10):
        T = tree.fk(inner_q(tree, rng))
        rec = task_record(tree, tasks_of(tree, {'left_hand': T[0, :3, 3],
                                                'right_hand': T[1, :3, 3]}, tree.mid, 'hold'))
        q0 = tree.mid.copy()
        before = np.linalg.norm(tree.fk(q0)[:, :3, 3] - T[:, :3, 3], axis=1).max()
        q, _, done = fabrik_attempt(tree.tip_record, solver.limits, rec, fab, params, q0)
        after = np.linalg.norm(tree.fk(q)[:, :3, 3] - T[:, :3, 3], axis=1).max()
        assert tree.within_limits(q)
        assert after < before
        if done:
            met += 1
            assert after <= 1e-3
    assert met >= 7


def test_fabrik_solves_both_hands_full_poses_checked_by_fk(tree, rng):
    # 10 joints for 12 pose rows: the answers are isolated points, found from nearby.
    opts = TreeSolveOptions(max_attempts=20, timeout=10.0)     # attempts, not time, decide
    for _ in range(5):
        q = inner_q(tree, rng)
        T = tree.fk(q)
        r = solve_tree(tree, {'left_hand': T[0], 'right_hand': T[1]},
                       q + rng.normal(0.0, 0.1, tree.n), opts, method='fabrik')
        assert r.success, r.message
        assert r.method == 'fabrik' and tree.within_limits(r.q)
        Tq = tree.fk(r.q)
        np.testing.assert_allclose(Tq[:, :3, 3], T[:, :3, 3], atol=1e-5)


def test_fabrik_holds_a_tip_without_a_target_and_stretches_an_unreachable_one(tree, rng):
    q0 = inner_q(tree, rng)
    T0 = tree.fk(q0)
    near = T0[0, :3, 3] + [0.03, 0.02, 0.0]
    # Attempts, not time, decide (a busy machine ran one attempt in the default 50 ms).
    r = solve_tree(tree, {'left_hand': near}, q0,
                   TreeSolveOptions(max_attempts=20, timeout=10.0), method='fabrik')
    assert r.success, r.message
    assert r.tip('right_hand').mode == MODE_HOLD
    np.testing.assert_allclose(tree.fk(r.q)[1, :3, 3], T0[1, :3, 3], atol=1e-5)
    far = np.array([3.0, 2.0, 1.0])
    r = solve_tree(tree, {'left_hand': TipTarget(far), 'right_hand': T0[1, :3, 3]}, q0,
                   TreeSolveOptions(max_attempts=5, timeout=10.0), method='fabrik')
    assert not r.success and r.tip('right_hand').success
    assert r.tip('left_hand').position_error < np.linalg.norm(far - T0[0, :3, 3]) - 0.1


@pytest.mark.parametrize('method', ['dls', 'fabrik'])
def test_nested_sub_bases_and_a_mimic_across_fingers(rng, method):
    # Four tips: both hands and two fingers of the left hand, finger b mimicking finger a:
    # the torso is the sub-base of the arms, the left wrist that of its hand and fingers.
    tips = ['left_hand', 'right_hand', 'l_finger_a_tip', 'l_finger_b_tip']
    tree = TreeChain.from_urdf(URDF, 'base_link', tips)
    # Attempts, not time, decide (beside a busy process the default 50 ms cut a run short).
    solver = TreeSolver(tree, TreeSolveOptions(max_attempts=50, timeout=10.0), method)
    solved = 0
    for _ in range(6):
        T = tree.fk(inner_q(tree, rng))
        r = solver.solve({t: T[i, :3, 3] for i, t in enumerate(tips)}, tree.mid)
        assert tree.within_limits(r.q)
        if r.success:
            solved += 1
            np.testing.assert_allclose(tree.fk(r.q)[:, :3, 3], T[:, :3, 3], atol=1e-5)
    assert solved >= 5
