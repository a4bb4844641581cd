# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The compiled stacked-task damped least squares on a tree, with restarts under a budget.

Each task (a tip's target or hold, :class:`ik_node.tree.records.TreeTasks`) contributes its
rows, weighted::

    e_i = [w_p,i (p*_i - p_i) / L ; w_o,i log(R*_i R_i^T)],   J_i = diag(w_p,i / L, w_o,i) J_tip_i

L the tree's ``length_scale`` [m]. FK and the Jacobian of each tip are the single-chain
kernels (:func:`ik_node.model.kinematics.tip_and_jacobian`) on the tree's joint vector, so a
shared joint gets one column that every tip below it fills.

One level (no priorities): dq = M J^T (J M J^T + λ² I)^-1 e, M the 0/1 mask of joints not
locked on a limit (:func:`ik_node.spatial.linalg.damped_least_squares_wide`). Several levels: level
k is solved in the null space of the levels before it (Siciliano and Slotine)::

    dq_k = dq_{k-1} + N_{k-1} (J_k N_{k-1})^#λ (e_k - J_k dq_{k-1}),   N_k = N_{k-1} - P_k

P_k the projector onto the row space of J_k N_{k-1}; the residual of a task of a lower level
is clamped to ``clamp`` (after Buss), so its step stays where the linearisation holds.

Levenberg-Marquardt: λ² = μ (E + λ₀²), E half the squared residual of the tasks not yet met;
a step is taken when it lowers the levels' costs compared level by level (a task within
both tolerances counts 0, so a met primary does not veto a step that helps the next level);
a step that fails is tried again with the first level's part alone, then refused (μ grows).
A joint on a limit that the step pushes further out is locked and the step solved again.
An attempt stops when every task is met, at the iteration cap or the deadline, or after
three accepted steps in a row that each lower the cost by less than 1 % while the first
level is unmet (a local minimum: a restart costs less than the crawl).

Null-space objectives (:mod:`ik_node.solvers.objectives`): once every task is met,
``secondary_iter`` more steps add -k (I - J⁺J) ∇h (capped at ``max_step``) to the DLS step
and are kept while every task stays within its tolerances.

:func:`tree_drive` runs attempts from the seed, then from the rows of a start table, until
one meets every task, ``max_attempts`` ran or the budget is spent; it ranks failed attempts
by the number of tasks met, then by the levels' costs.
"""

import math
from typing import NamedTuple

from ik_node._jit import monotonic_clock, njit
from ik_node.model import kinematics
from ik_node.solvers.dls import tip_error
from ik_node.solvers.objectives import objective_gradient
from ik_node.spatial.linalg import cholesky_solve_in_place, damped_least_squares_wide
import numpy as np

__all__ = ['tree_attempt', 'tree_attempt_within', 'tree_drive']

_now = monotonic_clock()

_MU_MIN = 1e-3
_MU_MAX = 1e8
# An attempt stops after this many accepted steps in a row that each lower the summed cost
# by less than this ratio of itself: a local minimum or a tip stretched toward a target out
# of reach, where a restart costs less than the crawl (as a single chain's pose attempt).
_STALL_RATIO = 1e-2
_STALL_COUNT = 3


class _Work(NamedTuple):
    """The FK and error arrays of one joint vector (two of them: current and trial)."""

    R: np.ndarray       # (t, m_max + 1, 3, 3) frames of every tip's chain
    p: np.ndarray       # (t, m_max + 1, 3)
    z: np.ndarray       # (t, m_max, 3)
    J: np.ndarray       # (t, 6, n) Jacobian of every tip
    err: np.ndarray     # (k, 6) unweighted error of every task
    perr: np.ndarray    # (k,) [m]
    oerr: np.ndarray    # (k,) [rad]
    met: np.ndarray     # (k,) bool
    cost: np.ndarray    # (levels,) squared weighted residual of the unmet tasks


@njit
def _work(models, tasks, n):
    """Return a fresh :class:`_Work` for ``models`` and ``tasks``."""
    t = len(models)
    m_max = 0
    for i in range(t):
        m_max = max(m_max, models[i].types.shape[0])
    k = tasks.tip.shape[0]
    return _Work(np.empty((t, m_max + 1, 3, 3)), np.empty((t, m_max + 1, 3)),
                 np.empty((t, max(m_max, 1), 3)), np.zeros((t, 6, n)), np.zeros((k, 6)),
                 np.zeros(k), np.zeros(k), np.zeros(k, dtype=np.bool_),
                 np.zeros(tasks.level_rows.shape[0] - 1))


@njit
def _evaluate(models, tasks, params, q, w):
    """Fill ``w`` at ``q``: FK, Jacobians, errors, met flags, costs; return every task met."""
    n = q.shape[0]
    for i in range(len(models)):
        kinematics.tip_and_jacobian(models[i], n, q, w.R[i], w.p[i], w.z[i], w.J[i])
    done = True
    for k in range(tasks.tip.shape[0]):
        i = tasks.tip[k]
        d0, d1, d2, r0, r1, r2 = tip_error(w.p[i], w.R[i], tasks.tip_frame[k],
                                           tasks.position[k], tasks.rotation[k],
                                           tasks.pose[k])
        w.err[k, 0] = d0
        w.err[k, 1] = d1
        w.err[k, 2] = d2
        w.err[k, 3] = r0
        w.err[k, 4] = r1
        w.err[k, 5] = r2
        w.perr[k] = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
        w.oerr[k] = math.sqrt(r0 * r0 + r1 * r1 + r2 * r2)
        w.met[k] = ((not tasks.check_p[k] or w.perr[k] <= params.tol_p)
                    and (not tasks.check_o[k] or w.oerr[k] <= params.tol_o))
        done = done and w.met[k]
    w.cost[:] = 0.0
    for r in range(tasks.row_task.shape[0]):
        k = tasks.row_task[r]
        if not w.met[k]:
            v = tasks.row_weight[r] * w.err[k, tasks.row_comp[r]]
            w.cost[tasks.level[k]] += v * v
    return done


@njit
def _lower(a, b):
    """Return True when the level costs ``a`` come before ``b`` (the first difference)."""
    for i in range(a.shape[0]):
        if a[i] < b[i]:
            return True
        if a[i] > b[i]:
            return False
    return False


@njit
def _count(flags):
    c = 0
    for i in range(flags.shape[0]):
        c += 1 if flags[i] else 0
    return c


@njit
def _fill_rows(tasks, params, w, Jw, e, size):
    """Fill the weighted rows Jw (r, n) and e (r,) from ``w``; lower levels' tasks clamped."""
    n = Jw.shape[1]
    size[:] = 0.0
    for r in range(tasks.row_task.shape[0]):
        k = tasks.row_task[r]
        i = tasks.tip[k]
        c = tasks.row_comp[r]
        s = tasks.row_weight[r]
        e[r] = s * w.err[k, c]
        size[k] += e[r] * e[r]
        for j in range(n):
            Jw[r, j] = s * w.J[i, c, j]
    for r in range(tasks.row_task.shape[0]):
        k = tasks.row_task[r]
        norm = math.sqrt(size[k])
        if tasks.level[k] > 0 and norm > params.clamp:
            e[r] *= params.clamp / norm


@njit
def _levels_step(tasks, Jw, e, mask, lam2, dq, dq0):
    """
    Fill dq with the prioritised damped step and dq0 with its first level's part; return ok.

    N starts as diag(mask) and loses the row space of each level's J_k N (SVD) in turn.
    """
    n = dq.shape[0]
    levels = tasks.level_rows.shape[0] - 1
    N = np.diag(mask.copy())
    dq[:] = 0.0
    for lv in range(levels):
        a, b = tasks.level_rows[lv], tasks.level_rows[lv + 1]
        Jl = np.ascontiguousarray(Jw[a:b])
        A = Jl @ N
        H = A @ A.T
        for i in range(b - a):
            H[i, i] += lam2
        y, ok = cholesky_solve_in_place(H, e[a:b] - Jl @ dq)
        if not ok:
            return False
        dq += A.T @ y
        if lv == 0:
            dq0[:] = dq
        if lv < levels - 1:
            _, s, Vt = np.linalg.svd(A, full_matrices=False)
            tol = 1e-9 * max(1.0, s[0] if s.shape[0] else 1.0)
            for k in range(s.shape[0]):
                if s[k] > tol:
                    for i in range(n):
                        for j in range(n):
                            N[i, j] -= Vt[k, i] * Vt[k, j]
    # A locked joint stays exactly still (the SVD leaves rounding in its column).
    for i in range(n):
        if mask[i] == 0.0:
            dq[i] = 0.0
            dq0[i] = 0.0
    return True


class _Scratch(NamedTuple):
    """The step's arrays: weighted rows, gram, joint mask, step, first level's step."""

    Jw: np.ndarray      # (r, n)
    e: np.ndarray       # (r,)
    G: np.ndarray       # (r, r)
    y: np.ndarray       # (r,)
    size: np.ndarray    # (k,)
    mask: np.ndarray    # (n,) 1.0 free, 0.0 locked on a limit
    dq: np.ndarray      # (n,)
    dq0: np.ndarray     # (n,)


@njit
def _scratch(tasks, n):
    r = tasks.row_task.shape[0]
    return _Scratch(np.zeros((r, n)), np.zeros(r), np.zeros((r, r)), np.zeros(r),
                    np.zeros(tasks.tip.shape[0]), np.ones(n), np.zeros(n), np.zeros(n))


@njit
def _step(tasks, limits, q, lam2, s):
    """
    Fill s.dq (and s.dq0) with the damped step from the rows in ``s``; return ok.

    Joints on a limit that the step pushes further out are locked (s.mask) and the step is
    solved again, twice at most.
    """
    levels = tasks.level_rows.shape[0] - 1
    s.mask[:] = 1.0
    ok = False
    for _ in range(3):
        if levels == 1:
            ok = damped_least_squares_wide(s.Jw, s.e, s.mask, lam2, s.G, s.y, s.dq)
            s.dq0[:] = s.dq
        else:
            ok = _levels_step(tasks, s.Jw, s.e, s.mask, lam2, s.dq, s.dq0)
        if not ok:
            return False
        locked = False
        for i in range(q.shape[0]):
            if s.mask[i] > 0.0 and ((q[i] <= limits.lower[i] and s.dq[i] < 0.0)
                                    or (q[i] >= limits.upper[i] and s.dq[i] > 0.0)):
                s.mask[i] = 0.0
                locked = True
        if not locked:
            break
    return ok


@njit
def _add_null_step(models, limits, obj, params, q, Jw, scale, dq):
    """
    Add -scale k (I - J⁺J) ∇h, capped at scale max_step, to dq.

    Nothing when J (r, n) has no null space (r >= n).
    """
    n = q.shape[0]
    r = Jw.shape[0]
    if r >= n:
        return
    g = objective_gradient(models[0], n, q, limits.lower, limits.upper, obj.joint)
    for i in range(len(models)):
        g += objective_gradient(models[i], n, q, limits.lower, limits.upper, obj.model)
    H = Jw @ Jw.T
    eps = 1e-12 * max(np.trace(H), 1e-300)
    for i in range(r):
        H[i, i] += eps
    y, ok = cholesky_solve_in_place(H, Jw @ g)
    if not ok:
        return
    step = -scale * params.k_null * (g - Jw.T @ y)
    norm = math.sqrt(step @ step)
    if norm > scale * params.max_step:
        step *= scale * params.max_step / norm
    dq += step


@njit
def _try_steps(models, limits, tasks, params, q, s, cur, new, q_new):
    """
    Evaluate q + dq, then (several levels) q + dq0, into ``new``; return (accepted, done).

    A step is accepted when it meets every task or lowers the level costs of ``cur``; at
    the goal (secondary steps) only when it keeps every task met.
    """
    levels = tasks.level_rows.shape[0] - 1
    at_goal = _count(cur.met) == cur.met.shape[0]
    for trial in range(2 if levels > 1 else 1):
        for i in range(q.shape[0]):
            d = s.dq[i] if trial == 0 else s.dq0[i]
            q_new[i] = min(max(q[i] + d, limits.lower[i]), limits.upper[i])
        done = _evaluate(models, tasks, params, q_new, new)
        if done or (not at_goal and _lower(new.cost, cur.cost)):
            return True, done
    return False, False


@njit
def tree_attempt(models, limits, tasks, params, obj, q_init, deadline):
    """
    Run one attempt from ``q_init`` (n,); return (q, iterations, done, tasks met, costs).

    done: every task met; costs (levels,): the levels' costs at q.

    models: the tips' ChainModel tuple; limits: Limits; tasks: TreeTasks; params:
    TreeParams; obj: TreeObjectives; deadline [s of the kernels' clock].
    """
    n = q_init.shape[0]
    cur = _work(models, tasks, n)
    new = _work(models, tasks, n)
    s = _scratch(tasks, n)
    q = np.minimum(np.maximum(q_init, limits.lower), limits.upper)
    q_new = np.empty(n)
    done = _evaluate(models, tasks, params, q, cur)
    mu, stall, it, extra = 1.0, 0, 0, 0
    # The null-space step's scale: halved when a secondary step leaves the tolerances (its
    # second-order drift), grown again after one that keeps them.
    null_scale = 1.0
    while it < params.max_iter and (it == 0 or _now() < deadline):
        if done and (not params.objectives_on or extra >= params.secondary_iter):
            break
        it += 1
        _fill_rows(tasks, params, cur, s.Jw, s.e, s.size)
        E = 0.5 * cur.cost.sum()
        if not _step(tasks, limits, q, mu * (E + params.lam0 * params.lam0), s):
            mu = min(mu * 10.0, _MU_MAX)
            continue
        if done:
            extra += 1
            _add_null_step(models, limits, obj, params, q, s.Jw, null_scale, s.dq)
        total = cur.cost.sum()
        accepted, done_new = _try_steps(models, limits, tasks, params, q, s, cur, new, q_new)
        if not accepted:
            if done:
                null_scale *= 0.5
                continue
            mu = mu * 10.0
            if mu >= _MU_MAX:
                break
            continue
        gain = (total - new.cost.sum()) / max(total, 1e-300)
        q[:] = q_new
        cur, new = new, cur
        done = done_new
        # Only while the first level is unmet: below a met first level, a tip stretching
        # toward a target out of reach crawls by nature and is left to go on.
        stall = stall + 1 if gain < _STALL_RATIO and cur.cost[0] > 0.0 else 0
        if stall >= _STALL_COUNT:
            break
        mu = max(mu * 0.3, _MU_MIN)
        null_scale = min(null_scale * 1.5, 1.0)
    return q, it, done, _count(cur.met), cur.cost.copy()


@njit
def tree_attempt_within(models, limits, tasks, params, obj, q_init, timeout):
    """:func:`tree_attempt` with a budget of ``timeout`` [s] from when the kernel starts."""
    return tree_attempt(models, limits, tasks, params, obj, q_init, _now() + timeout)


@njit
def tree_drive(models, limits, tasks, params, obj, starts, q_seed, timeout):
    """
    Solve with attempts from ``q_seed``, then from the rows of ``starts`` (k, n), in turn.

    Stops when an attempt meets every task, after ``max_attempts`` or once ``timeout`` [s]
    has passed since the call (the first attempt always runs; an attempt stops at the
    deadline). Returns (best q, every task met, attempts, iterations): the best of the
    attempts by tasks met, then by the levels' costs.
    """
    deadline = _now() + timeout
    best_q = np.minimum(np.maximum(q_seed, limits.lower), limits.upper)
    best_met = -1
    best_cost = np.full(tasks.level_rows.shape[0] - 1, np.inf)
    best_done = False
    attempts, iterations = 0, 0
    while attempts < params.max_attempts and (attempts == 0 or _now() < deadline):
        if attempts == 0:
            start = q_seed
        elif starts.shape[0] > 0:
            start = starts[(attempts - 1) % starts.shape[0]]
        else:
            break
        q, it, done, met, cost = tree_attempt(models, limits, tasks, params, obj, start,
                                              deadline)
        attempts += 1
        iterations += it
        if met > best_met or (met == best_met and _lower(cost, best_cost)):
            best_q, best_met, best_cost, best_done = q, met, cost, done
        if done:
            break
    return best_q, best_done, attempts, iterations
