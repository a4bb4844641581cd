# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
FABRIK on a URDF tree: sub-bases at the centroid of their branches, mapped to joint angles.

The points of the tree are the origins of its moving joints, each once (a shared torso
joint is one point), and the tips; :class:`TreeFabrik` lists them parents first. One
iteration (Aristidou and Lasenby 2011, section 4.2, on joint points as
:mod:`ik_node.solvers.arm_fabrik` does for one chain):

- forward pass, from the tips toward the roots: a tip with a task goes to its target; for a
  pose task its last joint's origin is carried rigidly by the target frame (it is fixed in
  the tip frame). Every active point proposes to its parent the point at their current
  distance on the line toward the parent's current place; a point with several active
  branches (a sub-base: the torso of two arms, the palm joint of several fingers) takes
  the centroid of their proposals, then proposes to its own parent in turn.
- backward pass, from the roots outward, on joint values: each joint takes the angle (or
  displacement) about its axis that best aligns the active points below it with their
  forward-pass places in least squares (:func:`ik_node.solvers.arm_fabrik._align_joint`,
  two virtual points per pose task aligning the tip frames), clamped into its limits
  (``_set_joint``); forward kinematics then moves every point below it. The backward pass
  therefore yields a valid q, and its FK is what is judged, never the FABRIK points.

An attempt runs ``fabrik_iterations`` such iterations (fewer once every task is met) from
its start and keeps the best q by the tasks' costs, compared level by level; when it falls
short, the tree's damped least squares (:func:`ik_node.tree.dls.tree_attempt`) polishes it
from there, for orientation and priorities, as the single-chain ``hybrid`` does. Restarts
and the budget are those of ``dls``.
"""

from typing import Any, NamedTuple

from ik_node._jit import njit, readonly, solving_clock
from ik_node.model import kinematics
from ik_node.model.urdf import chain_of
from ik_node.solvers.arm_fabrik import _align_joint, _set_joint, ArmPoints
from ik_node.tree.chain import TreeChain
from ik_node.tree.dls import _evaluate, _lower, _work, tree_attempt_within
from ik_node.tree.records import TreeTasks
import numpy as np

__all__ = ['TreeFabrik', 'fabrik_record', 'fabrik_attempt', 'fabrik_drive']

# Offset of the two virtual points of a pose task along its tip frame's x and y axes, in
# units of the tree's length_scale (0.1 m on a 1 m arm, as the single chain's default).
_VIRTUAL_OFFSET = 0.1
# Weight of a tip (and its virtual points) against a joint point in the alignment.
_TIP_WEIGHT = 4.0


class TreeFabrik(NamedTuple):
    """
    The points of a tree for FABRIK, parents first: N nodes, t tips.

    node_tip (N,): a tip whose chain holds the node; node_k (N,): the node's frame in that
    chain's FK (its moving joint index, or the joint count for the tip itself); parent (N,)
    (-1 for a root); q_index (N,): the joint's entry of q (-1 for a tip node); mult,
    joint_type (N,): its mimic multiplier and type; follower (N,): a mimic joint whose
    master comes first (moved by it, never aligned); tip_node (t,): each tip's node;
    sub_start (N + 1,), sub_nodes: the nodes below each node (CSR); tip_below (N, t): the
    tips that move with each node (below it, or below a joint mimicking it); s_virtual [m],
    tip_weight: the alignment's virtual points.
    """

    node_tip: np.ndarray
    node_k: np.ndarray
    parent: np.ndarray
    q_index: np.ndarray
    mult: np.ndarray
    joint_type: np.ndarray
    follower: np.ndarray
    tip_node: np.ndarray
    sub_start: np.ndarray
    sub_nodes: np.ndarray
    tip_below: np.ndarray
    s_virtual: float
    tip_weight: float


def fabrik_record(tree: TreeChain) -> TreeFabrik:
    """Return the :class:`TreeFabrik` of ``tree``: its joints once each, then its tips."""
    key_of: dict = {}
    node_tip: list[int] = []
    node_k: list[int] = []
    parent: list[int] = []
    q_index: list[int] = []
    mult: list[float] = []
    jtype: list[int] = []
    tip_node: list[int] = []
    for i, tip in enumerate(tree.tip_links):
        model = tree.tip_models[i]
        names = [j.name for j in chain_of(tree._robot, tree.base_link, tip).joints
                 if j.joint_type != 'fixed']
        up = -1
        for k, name in enumerate(names):
            if name not in key_of:
                key_of[name] = len(node_tip)
                node_tip.append(i)
                node_k.append(k)
                parent.append(up)
                q_index.append(int(model.index[k]))
                mult.append(float(model.mult[k]))
                jtype.append(int(model.types[k]))
            up = key_of[name]
        tip_node.append(len(node_tip))
        node_tip.append(i)
        node_k.append(len(names))
        parent.append(up)
        q_index.append(-1)
        mult.append(0.0)
        jtype.append(0)
    N = len(node_tip)
    follower = [q_index[a] >= 0 and q_index[a] in q_index[:a] for a in range(N)]
    below: list[list[int]] = [[] for _ in range(N)]
    tip_below = np.zeros((N, len(tree.tip_links)), dtype=np.bool_)
    for a in range(N - 1, -1, -1):
        if q_index[a] < 0:
            tip_below[a, node_tip[a]] = True
        if parent[a] >= 0:
            below[parent[a]] += [a] + below[a]
            tip_below[parent[a]] |= tip_below[a]
    # A joint also moves the tips of the joints that mimic it in other branches.
    for a in range(N):
        for t, cols in enumerate(tree.tip_joints):
            if q_index[a] >= 0 and q_index[a] in cols:
                tip_below[a, t] = True
    starts = np.cumsum([0] + [len(b) for b in below])
    return TreeFabrik(
        readonly(np.array(node_tip, dtype=np.int64)), readonly(np.array(node_k, dtype=np.int64)),
        readonly(np.array(parent, dtype=np.int64)), readonly(np.array(q_index, dtype=np.int64)),
        readonly(np.array(mult)), readonly(np.array(jtype, dtype=np.int64)),
        readonly(np.array(follower, dtype=np.bool_)), readonly(np.array(tip_node, np.int64)),
        readonly(starts.astype(np.int64)),
        readonly(np.array([x for b in below for x in b], dtype=np.int64)),
        readonly(tip_below), _VIRTUAL_OFFSET * tree.length_scale, _TIP_WEIGHT)


@njit
def _point(w, fab, a, out):
    """Copy node a's current point (FK in ``w``) into out (3,)."""
    i, k = fab.node_tip[a], fab.node_k[a]
    for c in range(3):
        out[c] = w.p[i, k, c]


@njit
def _forward(fab, tasks, w, task_of, f):
    """Fill f (N, 3) with the forward pass's places of the active nodes; return active."""
    N = fab.parent.shape[0]
    acc = np.zeros((N, 3))
    cnt = np.zeros(N)
    pa = np.empty(3)
    pi = np.empty(3)
    for a in range(N - 1, -1, -1):
        k = task_of[a]
        if k >= 0:
            for c in range(3):
                f[a, c] = tasks.position[k, c]
        elif cnt[a] > 0.0:
            for c in range(3):
                f[a, c] = acc[a, c] / cnt[a]
        else:
            continue
        j = fab.parent[a]
        if j < 0:
            continue
        cnt[j] += 1.0
        _point(w, fab, j, pa)
        _point(w, fab, a, pi)
        if k >= 0 and tasks.pose[k]:
            # The last joint's origin rides on the tip frame: carried by the target frame.
            t = fab.node_tip[a]
            m = fab.node_k[a]
            for c in range(3):
                acc[j, c] += tasks.position[k, c]
                for r in range(3):
                    v = 0.0
                    for s in range(3):
                        v += w.R[t, m, s, r] * (pa[s] - pi[s])
                    acc[j, c] += tasks.rotation[k, c, r] * v
            continue
        d = np.sqrt(((pi - pa) ** 2).sum())
        v = pa - f[a]
        nv = np.sqrt((v ** 2).sum())
        for c in range(3):
            acc[j, c] += f[a, c] + (d * v[c] / nv if nv > 0.0 else 0.0)
    return cnt > 0.0


@njit
def _align_node(fab, tasks, w, task_of, active, f, a, buf):
    """Return joint node a's motion aligning the active points below it with f (least sq.)."""
    P, Z, TY, TG, W, VP, VT = buf
    i, k = fab.node_tip[a], fab.node_k[a]
    for c in range(3):
        P[0, c] = w.p[i, k, c]
        Z[0, c] = w.z[i, k, c]
    TY[0] = fab.joint_type[a]
    cnt, nv = 1, 0
    for s in range(fab.sub_start[a], fab.sub_start[a + 1]):
        b = fab.sub_nodes[s]
        if not (active[b] or task_of[b] >= 0):
            continue
        _point(w, fab, b, P[cnt])
        TG[cnt] = f[b]
        W[cnt] = fab.tip_weight if task_of[b] >= 0 else 1.0
        cnt += 1
        t_k = task_of[b]
        if t_k >= 0 and tasks.pose[t_k]:
            t, m = fab.node_tip[b], fab.node_k[b]
            for v in range(2):
                for c in range(3):
                    VP[nv, c] = w.p[t, m, c] + fab.s_virtual * w.R[t, m, c, v]
                    VT[nv, c] = tasks.position[t_k, c] + fab.s_virtual * tasks.rotation[t_k, c, v]
                nv += 1
    # _align_joint reads p, z, tgt, weights, vp and vt of the record; its frames R_a and Rt
    # are not read, and VP / VT stand in for them (no allocation per joint and pass).
    pts = ArmPoints(VP, P[:cnt], Z, VT, VP, VT, TG[:cnt], W[:cnt])
    return _align_joint(0, pts, TY, nv, fab.tip_weight, 1)


@njit
def _refresh(models, fab, a, q, w):
    """Run FK again for every tip that moves with node a (after its joint moved)."""
    n = q.shape[0]
    for t in range(len(models)):
        if fab.tip_below[a, t]:
            kinematics.tip_and_jacobian(models[t], n, q, w.R[t], w.p[t], w.z[t], w.J[t])


@njit
def fabrik_attempt(models, limits, tasks, fab, params, q_init):
    """
    Run ``iterations`` FABRIK iterations (params.max_iter) from ``q_init``.

    Returns (best q by the level costs, iterations, every task met at it).
    """
    n = q_init.shape[0]
    N = fab.parent.shape[0]
    task_of = np.full(N, -1, dtype=np.int64)
    for k in range(tasks.tip.shape[0]):
        task_of[fab.tip_node[tasks.tip[k]]] = k
    w = _work(models, tasks, n)
    q = np.minimum(np.maximum(q_init, limits.lower), limits.upper)
    done = _evaluate(models, tasks, params, q, w)
    best_q, best_cost = q.copy(), w.cost.copy()
    f = np.zeros((N, 3))
    size = N + 2 * tasks.tip.shape[0] + 1
    buf = (np.zeros((size, 3)), np.zeros((1, 3)), np.zeros(1, dtype=np.int64),
           np.zeros((size, 3)), np.zeros(size), np.zeros((2 * tasks.tip.shape[0] + 1, 3)),
           np.zeros((2 * tasks.tip.shape[0] + 1, 3)))
    idx, mul = np.zeros(1, dtype=np.int64), np.ones(1)
    it = 0
    while not done and it < params.max_iter:
        it += 1
        active = _forward(fab, tasks, w, task_of, f)
        for a in range(N):
            if fab.q_index[a] < 0 or fab.follower[a] or not active[a]:
                continue
            dv = _align_node(fab, tasks, w, task_of, active, f, a, buf)
            idx[0], mul[0] = fab.q_index[a], fab.mult[a]
            if _set_joint(q, 0, dv, idx, mul, limits.lower, limits.upper,
                          limits.continuous) != 0.0:
                _refresh(models, fab, a, q, w)
        done = _evaluate(models, tasks, params, q, w)
        if done or _lower(w.cost, best_cost):
            best_q[:] = q
            best_cost[:] = w.cost
    return best_q, it, done


def fabrik_drive(solver, tasks: list, start: np.ndarray) -> tuple:
    """
    Run FABRIK attempts, each polished by the tree DLS; (q, done, attempts, iterations).

    solver: the :class:`ik_node.tree.solve.TreeSolver` (tree, options, start table, limits,
    objectives); attempts as in :func:`ik_node.tree.dls.tree_drive`: the seed, then the
    start table's rows, until one meets every task, ``max_attempts`` or ``timeout``.
    """
    from ik_node.tree.solve import params_of
    from ik_node.tree.tasks import task_record
    tree, opts = solver.tree, solver.options
    # The budget counts solving, not the loading of a kernel on its first call.
    began = solving_clock()
    rec: TreeTasks = task_record(tree, tasks)
    fab = solver.fabrik_record()
    obj = solver.objectives
    params = params_of(opts, solver.objectives_on, 1)
    fparams = params._replace(max_iter=int(opts.fabrik_iterations))
    best: Any = None
    iterations, attempts = 0, 0
    while attempts < opts.max_attempts:
        left = opts.timeout - (solving_clock() - began)
        if attempts > 0 and left <= 0.0:
            break
        if attempts == 0:
            q0 = np.array(start, dtype=float)
        elif len(solver.starts):
            q0 = solver.starts[(attempts - 1) % len(solver.starts)]
        else:
            break
        q, it, done = fabrik_attempt(tree.tip_models, solver.limits, rec, fab, fparams, q0)
        attempts += 1
        iterations += int(it)
        if not done or params.objectives_on:
            left = max(opts.timeout - (solving_clock() - began), 0.0)
            q, it, done, met, cost = tree_attempt_within(tree.tip_models, solver.limits, rec,
                                                         params, obj, q, left)
            iterations += int(it)
        else:
            met, cost = len(tasks), np.zeros(rec.level_rows.size - 1)
        rank = (-int(met), tuple(cost))
        if best is None or rank < best[0]:
            best = (rank, q, bool(done))
        if done:
            break
    return best[1], best[2], attempts, iterations
