# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Collision-free joint paths: OMPL's RRT-Connect on the chain's collision model.

:func:`plan_path` asks OMPL (PyPI ``ompl``) for a path from a start to any of a target's IK
answers in the joint-limit box, with :meth:`ik_node.Chain.collisions` as the state check.
Edges are first checked by samples 0.05 rad (or m) apart (cheap: the trees grow far in the
time); every edge of that answer is then certified by :meth:`ik_node.Chain.path_collides`
(no contact between samples is missed), and an edge it cannot clear is planned again with
the certified check as OMPL's edge check; if that fails, the whole query is. Every edge of
a returned path is checked again here, so a path returned is free by the library's own
model. An arm that starts in contact first backs out along the direction that raises its
clearance (:func:`escape_contact`): it may always move away from a contact, never deeper.

OMPL objects live only inside one call and are released before it returns: nothing of them
is left for the interpreter's exit (nanobind reports objects alive then), and OMPL's log is
kept to warnings and errors.
"""

from dataclasses import dataclass
import math
import time
from typing import Any, Sequence

from ik_node.collision import checker
from ik_node.model.chain import Chain
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['PlannedPath', 'plan_path', 'escape_contact', 'path_touches', 'warm_up', 'EDGE_STEP']

# Edge checks sample at most this far apart [rad or m] before the certified refinement.
EDGE_STEP = 0.05
# An escape moves in steps of this size [rad or m], at most this many.
_ESCAPE_STEP = 0.01
_ESCAPE_STEPS = 200
# ... until every pair is this far [m] apart (a pose just out of contact leaves no edge that
# the certified check can clear).
_ESCAPE_MARGIN = 0.005
# An edge that starts in contact is followed in steps of this size [rad or m] until clear.
_LEAVE_STEP = 0.005
# Continuous joints are planned within this far [rad] around the start and the goal.
_CONTINUOUS_SLACK = math.pi
# RRT-Connect's longest edge [rad or m]: OMPL's default (a fifth of the box's diagonal, about
# 6 rad for a 6-joint arm with +-2 pi limits) makes each edge check cost milliseconds.
_RANGE = 0.8
# While planning, the certified edge check refines intervals no finer than this [rad or m]
# (a stretch it cannot clear then counts as blocked: conservative, and cheaper near contacts
# than the final check's 1e-3).
_PLAN_RESOLUTION = 0.002
# Planning tries: first with the sampled edge check (samples EDGE_STEP apart: several times
# cheaper, so the trees grow further in the time), every edge of its answer then certified;
# if that fails, with the certified check on every edge the planner tries.
_PLAN_MODES = (False, True)
# Shortcut tries after a path is found (each an edge check).
_SHORTCUT_STEPS = 40
# OMPL's random generators are process-wide and take a seed only before their first use.
_SEEDED: list = []


@dataclass(frozen=True)
class PlannedPath:
    """
    The outcome of :func:`plan_path`.

    waypoints: (m, n) joint vectors from the start to the goal (both included), every edge
    free; None when no path was found. reason: why not ('' when found). time: the wall time
    spent [s]; checks: state and edge checks made; goal: the index of the goal reached among
    those asked for (-1 when none).
    """

    waypoints: np.ndarray | None
    reason: str
    time: float
    checks: int
    goal: int = -1

    @property
    def found(self) -> bool:
        """Return True when a path was found."""
        return self.waypoints is not None


def _in_contact(chain: Chain, q: np.ndarray, obstacles: Sequence) -> list:
    return chain.collisions(q, obstacles)


def path_touches(chain: Chain, waypoints: ArrayLike, obstacles: Sequence = ()) -> str:
    """
    Return why the polyline ``waypoints`` (m, n) may touch something, or '' if it is free.

    An edge that starts in contact (an arm trapped at the margin) may leave it: sampled
    every 5 mrad, the summed overlap of the pairs in contact must never rise until it is
    clear; from there on, and on every later edge, the certified check must find it free.
    """
    w = np.asarray(waypoints, dtype=float)
    for i in range(w.shape[0] - 1):
        a, b = w[i], w[i + 1]
        start = _in_contact(chain, a, obstacles)
        if start:
            a, why = _leave_contact(chain, a, b, obstacles)
            if why:
                return why
            if a is None:
                continue        # the edge ends while still backing out
        if chain.path_collides(a, b, EDGE_STEP, obstacles):
            hit = _first_contact(chain, a, b, obstacles)
            return f'{hit[0]} would touch {hit[1]}' if hit else 'a contact is possible'
    return ''


def _leave_contact(chain: Chain, a: np.ndarray, b: np.ndarray, obstacles: Sequence
                   ) -> tuple[np.ndarray | None, str]:
    """
    Follow a -> b (a in contact) while in contact; return (the first clear sample, why not).

    The first clear sample is None when b itself is still in contact (every sample backing
    out); ``why`` says where the edge would go deeper ('' if it does not).
    """
    steps = max(1, int(math.ceil(np.max(np.abs(b - a)) / _LEAVE_STEP)))
    over = _overlap(chain, a, obstacles)
    pairs = _in_contact(chain, a, obstacles)
    for k in range(1, steps + 1):
        q = a + (k / steps) * (b - a)
        if not _in_contact(chain, q, obstacles):
            return q, ''
        o = _overlap(chain, q, obstacles)
        if o > over + 1e-12:
            return None, f'{pairs[0][0]} would go deeper into {pairs[0][1]}'
        over = o
    return None, ''


def _first_contact(chain: Chain, a: np.ndarray, b: np.ndarray, obstacles: Sequence):
    """Return the first pair in contact on the segment a -> b, sampled finely, or None."""
    steps = max(2, int(math.ceil(np.max(np.abs(b - a)) / 0.005)) + 1)
    for s in np.linspace(0.0, 1.0, steps):
        pairs = _in_contact(chain, a + s * (b - a), obstacles)
        if pairs:
            return pairs[0]
    return None


def _pair_distances(chain: Chain, q: np.ndarray, obstacles: Sequence, cutoff: float = 0.01
                    ) -> np.ndarray:
    """Return the signed distance [m] of every checked pair at ``q`` (exact up to ``cutoff``)."""
    from ik_node.collision import kernels
    setup = chain.collision_setup
    rows = setup.packed(obstacles).rows
    d_self, d_obs, _ = kernels.distances(*setup.model.flat, chain.clip(q), rows, cutoff)
    return np.concatenate([d_self, np.asarray(d_obs).ravel()])


def _overlap(chain: Chain, q: np.ndarray, obstacles: Sequence, margin: float = 0.0) -> float:
    """Return how far [m] (>= 0, summed) the checked pairs at ``q`` are within the margin."""
    d = _pair_distances(chain, q, obstacles, margin)
    return float(-np.sum(np.minimum(d - margin, 0.0)))


def _descend(chain: Chain, q: np.ndarray, obstacles: Sequence, margin: float
             ) -> tuple[np.ndarray, float] | None:
    """Return one step that lowers :func:`_overlap` (and its value), or None."""
    d = _overlap(chain, q, obstacles, margin)
    n, h = chain.n, 1e-5
    grad = np.array([(_overlap(chain, q + h * e, obstacles, margin) - d) / h
                     for e in np.eye(n)])
    norm = float(np.max(np.abs(grad)))
    directions = [-grad / norm] if norm > 0.0 and math.isfinite(norm) else []
    deepest = chain.min_distance(q, obstacles).distance
    # ... up the clearance of the deepest pair.
    up = np.array([(chain.min_distance(chain.clip(q + h * e), obstacles).distance - deepest) / h
                   for e in np.eye(n)])
    top = float(np.max(np.abs(up)))
    if top > 0.0 and math.isfinite(top):
        directions.append(up / top)
        if directions[0] is not directions[-1]:
            mix = directions[0] + up / top
            directions.append(mix / max(float(np.max(np.abs(mix))), 1e-12))
    pushed = _push_all(chain, q, obstacles, h)
    if pushed is not None:
        directions.append(pushed)
    directions += list(np.eye(n)) + list(-np.eye(n))
    best = None
    for size in _ESCAPE_STEP * 0.5 ** np.arange(5):
        for u in directions:
            step = chain.clip(q + size * u)
            d_new = _overlap(chain, step, obstacles, margin)
            if d_new < d and (best is None or d_new < best[1]):
                best = (step, d_new)
        if best is not None:
            return best
    return None


def _push_all(chain: Chain, q: np.ndarray, obstacles: Sequence, h: float
              ) -> np.ndarray | None:
    """
    Return the joint direction that raises every pair in (or at) contact at the same rate.

    u = G^T (G G^T)^-1 1 with G the finite-difference gradients of those pairs' distances:
    where the deepest pair changes (two pairs in contact at once), the gradient of the
    clearance alone may deepen the other one.
    """
    d0 = _pair_distances(chain, q, obstacles)
    near = np.flatnonzero(d0 <= 1e-3)
    if near.size == 0:
        return None
    G = np.array([(_pair_distances(chain, q + h * e, obstacles)[near] - d0[near]) / h
                  for e in np.eye(chain.n)]).T
    try:
        lam = np.linalg.solve(G @ G.T + 1e-9 * np.eye(near.size), np.ones(near.size))
    except np.linalg.LinAlgError:
        return None
    u = G.T @ lam
    top = float(np.max(np.abs(u)))
    return u / top if top > 0.0 and math.isfinite(top) else None


def escape_contact(chain: Chain, q: ArrayLike, obstacles: Sequence = ()) -> np.ndarray | None:
    """
    Return a short polyline (m, n) from ``q`` (in contact) to a clear pose, or None.

    Each step (inside the joint limits) is the best, by the summed overlap of the pairs in
    contact it reaches, of the descent of that overlap, the ascent of the clearance (the
    deepest pair), a direction raising every pair in contact at once, their mix, and a move
    of each joint alone either way, halved while none lowers the overlap: every step lowers
    it, so the arm never goes deeper into its contacts as a whole (one pair of several may
    deepen a little while the others part). Once clear, a few more steps
    go on the same way while the clearance rises, up to 5 mm.
    """
    q = chain.clip(q)
    path = [q]
    for _ in range(_ESCAPE_STEPS):
        if not _in_contact(chain, q, obstacles):
            break
        step = _descend(chain, q, obstacles, 0.0)
        if step is None:
            return None
        q = step[0]
        path.append(q)
    else:
        return None
    # Clear, but barely: go on the way the last step went while the clearance rises.
    clearance = chain.min_distance(q, obstacles).distance
    way = path[-1] - path[-2] if len(path) > 1 else np.zeros(chain.n)
    for _ in range(_ESCAPE_STEPS // 4):
        if clearance >= _ESCAPE_MARGIN or not np.any(way):
            break
        nxt = chain.clip(q + way)
        d = chain.min_distance(nxt, obstacles).distance
        if d <= clearance:
            break
        q, clearance = nxt, d
        path.append(q)
    return np.array(path)


def _push_clear(chain: Chain, q: np.ndarray, obstacles: Sequence) -> np.ndarray:
    """
    Return a short polyline (m, n) from a clear ``q`` to up to 5 mm of clearance.

    A start that is clear by a hair leaves no edge the certified check can clear at the
    planner's resolution; steps up the finite-difference gradient of the clearance (the
    closest pair's distance), each kept only if it raises it, give it room (best effort:
    it stops where no step helps).
    """
    path = [q]
    d = chain.min_distance(q, obstacles).distance
    h = 1e-5
    for _ in range(_ESCAPE_STEPS // 10):
        if d >= _ESCAPE_MARGIN:
            break
        grad = np.array([(chain.min_distance(chain.clip(q + h * e), obstacles).distance - d)
                         / h for e in np.eye(chain.n)])
        norm = float(np.max(np.abs(grad)))
        if norm == 0.0 or not math.isfinite(norm):
            break
        for size in _ESCAPE_STEP * 0.5 ** np.arange(4):
            step = chain.clip(q + size * grad / norm)
            d_new = chain.min_distance(step, obstacles).distance
            if d_new > d and not _in_contact(chain, step, obstacles):
                break
        else:
            break
        q, d = step, d_new
        path.append(q)
    return np.array(path)


def _bounds(chain: Chain, q_start: np.ndarray, goals: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """Return the planning box: the limits, turning joints within a turn of start and goals."""
    lo, hi = np.array(chain.lower, dtype=float), np.array(chain.upper, dtype=float)
    turn = np.asarray(chain.continuous) | np.asarray(chain.wide_revolute)
    ends = np.vstack([q_start[None, :], goals])
    lo[turn] = np.maximum(lo[turn], ends.min(axis=0)[turn] - _CONTINUOUS_SLACK)
    hi[turn] = np.minimum(hi[turn], ends.max(axis=0)[turn] + _CONTINUOUS_SLACK)
    return lo, hi


def plan_path(chain: Chain, q_start: ArrayLike, q_goal: ArrayLike, obstacles: Sequence = (),
              timeout: float = 0.2, seed: int | None = 0) -> PlannedPath:
    """
    Plan a collision-free joint path from ``q_start`` to ``q_goal`` within ``timeout`` [s].

    ``q_start`` is an (n,) joint vector inside the limits; ``q_goal`` one (n,) or several
    (k, n) (the IK answers of one target: a path to any of them will do, nearest first for
    the straight line; one query grows toward all of them, so an answer no path reaches
    does not use up the time). Continuous joints are unwrapped as they are meant to be
    travelled; goals in contact are left out. A start in contact backs out first
    (:func:`escape_contact`). seed: OMPL's random seed (None: OMPL's own), so that one
    problem gives one answer.
    """
    t0 = time.perf_counter()
    q_start = chain.check_q(q_start, 'q_start')
    asked = np.asarray(q_goal, dtype=float)
    asked = asked.reshape(1, -1) if asked.ndim == 1 else asked
    goals = [chain.check_q(g, 'q_goal') for g in asked]
    checks = [0]
    clear = [k for k, g in enumerate(goals) if not _in_contact(chain, g, obstacles)]
    if not clear:
        pairs = _in_contact(chain, goals[0], obstacles)
        return PlannedPath(None, f'the goal is in contact ({pairs[0][0]} with '
                                 f'{pairs[0][1]})', time.perf_counter() - t0, len(goals))
    head = q_start[None, :]
    if _in_contact(chain, q_start, obstacles):
        escape = escape_contact(chain, q_start, obstacles)
        if escape is None:
            return PlannedPath(None, 'the arm is in contact and no motion raises its '
                                     'clearance', time.perf_counter() - t0, 1)
        head = escape
    elif chain.min_distance(q_start, obstacles).distance < _ESCAPE_MARGIN:
        head = _push_clear(chain, q_start, obstacles)
        if path_touches(chain, head, obstacles):
            head = q_start[None, :]
    start = head[-1]
    for k in clear:
        checks[0] += 1
        if not chain.path_collides(start, goals[k], EDGE_STEP, obstacles):
            return PlannedPath(np.vstack([head, goals[k][None, :]]), '',
                               time.perf_counter() - t0, checks[0], k)
    reason = f'no collision-free path found in {timeout * 1e3:.0f} ms'
    targets = np.array([goals[k] for k in clear])
    deadline = t0 + timeout
    for attempt, certified in enumerate(_PLAN_MODES):
        remaining = deadline - time.perf_counter()
        if remaining <= 0.0:
            break
        attempt_seed = None if seed is None else seed + attempt
        middle = _ompl_path(chain, start, targets, obstacles, remaining, attempt_seed, checks,
                            certified)
        if middle is not None and not certified:
            middle = _repair(chain, middle, obstacles, deadline, attempt_seed, checks)
        if middle is None:
            if not certified:
                continue
            break
        # The escape from a contact stays as it is (each of its steps lowers the overlap;
        # a longer edge from contact may wiggle deeper between its checks).
        clear_from = next((k for k, q in enumerate(head)
                           if not _in_contact(chain, q, obstacles)), len(head) - 1)
        waypoints = np.vstack([head[:clear_from],
                               _shortcut(chain, np.vstack([head[clear_from:-1], middle]),
                                         obstacles, deadline, checks)])
        failed = path_touches(chain, waypoints, obstacles)
        reached = clear[int(np.argmin(np.max(np.abs(targets - middle[-1]), axis=1)))]
        if not failed:
            return PlannedPath(waypoints, '', time.perf_counter() - t0, checks[0], reached)
        reason = f'the planned paths failed the certified check ({failed})'
    return PlannedPath(None, reason, time.perf_counter() - t0, checks[0])


def warm_up(chain: Chain) -> None:
    """
    Import OMPL and load the planner's edge-check kernels now, planning one short free edge.

    For start-up: loaded by the first goal planned, they held the GIL, and with it the
    command thread, for up to 17 ms at a time (OMPL's import, numba's cache loads). OMPL is
    seeded as the first plan seeds it, so that a problem still gets the same path.
    """
    rng = np.random.default_rng(0)
    q = np.array(chain.mid, dtype=float)
    for _ in range(100):
        near = chain.clip(q + 0.05)
        if not _in_contact(chain, q, ()) and not _in_contact(chain, near, ()):
            chain.min_distance(q, ())
            _overlap(chain, q, ())
            for certified in _PLAN_MODES:
                _ompl_path(chain, q, near[None, :], (), 0.05, 0, [0], certified)
            return
        q = chain.random_q(rng)


def _shortcut(chain: Chain, path: np.ndarray, obstacles: Sequence, deadline: float,
              checks: list) -> np.ndarray:
    """
    Return ``path`` with waypoints skipped where a straight edge past them is free.

    Greedy from the start (clear): from each kept waypoint, the farthest later one it
    reaches by an edge :func:`path_touches` finds clear (tried farthest first, while there is
    time). The arm stops at every waypoint (straight segments rest to rest), so each one
    dropped saves a stop: a push away from a near contact is made of 1 cm steps, OMPL's own
    shortcuts ran with the sampled check, and repaired edges add waypoints of their own.
    """
    if path.shape[0] <= 2:
        return path
    out, i = [path[0]], 0
    while i < path.shape[0] - 1:
        nxt = i + 1
        for j in range(path.shape[0] - 1, i + 1, -1):
            if time.perf_counter() >= deadline:
                break
            checks[0] += 1
            if not path_touches(chain, path[[i, j]], obstacles):
                nxt = j
                break
        out.append(path[nxt])
        i = nxt
    return np.array(out)


def _repair(chain: Chain, path: np.ndarray, obstacles: Sequence, deadline: float,
            seed: int | None, checks: list) -> np.ndarray | None:
    """
    Return ``path`` with every edge the certified check cannot clear planned again, or None.

    A path found with sampled edges may pass a contact between samples, or too close for
    the certified check to clear; such an edge is replaced by a path between its two ends
    planned with certified edges (a short problem), within the time left.
    """
    out = [path[0]]
    for a, b in zip(path[:-1], path[1:]):
        checks[0] += 1
        if chain.path_collides(a, b, EDGE_STEP, obstacles):
            left = deadline - time.perf_counter()
            detour = None if left <= 0.0 else _ompl_path(chain, a, b[None, :], obstacles, left,
                                                         seed, checks, True)
            if detour is None:
                return None
            out.extend(detour[1:-1])
        out.append(b)
    return np.array(out)


def _ompl_path(chain: Chain, start: np.ndarray, goals: np.ndarray, obstacles: Sequence,
               timeout: float, seed: int | None, checks: list, certified: bool
               ) -> np.ndarray | None:
    """
    Return OMPL's simplified path (m, n) start -> one of goals (k, n), or None.

    certified: edges by the certified check (else by samples EDGE_STEP apart).
    """
    from ompl import base as ob, geometric as og, util as ou
    ou.setLogLevel(ou.LOG_WARN)
    if seed is not None and not _SEEDED:
        # OMPL seeds its generators once per process (a later setSeed only logs an error).
        ou.RNG.setSeed(int(seed) + 1)
        _SEEDED.append(True)
    n = chain.n
    lo, hi = _bounds(chain, start, goals)
    # RRT-Connect given no valid goal state waits for one until its timeout, in native code
    # that holds the GIL: the control thread, which needs it, would stop for that long.
    ends = np.vstack([start[None, :], goals])
    valid = [bool(np.all((lo <= q) & (q <= hi))) and not _in_contact(chain, q, obstacles)
             for q in ends]
    checks[0] += len(valid)
    if not valid[0] or not any(valid[1:]):
        return None
    goals = goals[np.array(valid[1:])]
    space = ob.RealVectorStateSpace(n)
    bounds = ob.RealVectorBounds(n)
    for i in range(n):
        bounds.setLow(i, float(lo[i]))
        bounds.setHigh(i, float(hi[i]))
    space.setBounds(bounds)
    setup = og.SimpleSetup(space)
    info = setup.getSpaceInformation()

    def as_array(state: Any) -> np.ndarray:
        return np.array([state[i] for i in range(n)])

    def state_free(state: Any) -> bool:
        checks[0] += 1
        return not _in_contact(chain, as_array(state), obstacles)

    class _Edges(ob.MotionValidator):
        """The edge check: certified, refining no finer than _PLAN_RESOLUTION, or sampled."""

        def checkMotion(self, a: Any, b: Any, *rest: Any) -> bool:  # noqa: N802 (OMPL's)
            checks[0] += 1
            if certified:
                return not checker.path_collides(chain, as_array(a), as_array(b), EDGE_STEP,
                                                 obstacles, _PLAN_RESOLUTION)
            return not checker.samples_collide(chain, as_array(a), as_array(b), EDGE_STEP,
                                               obstacles)

    setup.setStateValidityChecker(state_free)
    edges = _Edges(info)
    info.setMotionValidator(edges)
    s = space.allocState()
    for i in range(n):
        s[i] = float(start[i])
    setup.addStartState(s)
    goal_states = ob.GoalStates(info)
    for goal in goals:
        g = space.allocState()
        for i in range(n):
            g[i] = float(goal[i])
        goal_states.addState(g)
    setup.setGoal(goal_states)
    planner = og.RRTConnect(info)
    planner.setRange(_RANGE)
    setup.setPlanner(planner)
    status = setup.solve(max(timeout, 1e-3))
    path = None
    if setup.haveExactSolutionPath():
        # Shortcuts with a bounded number of edge checks (OMPL's timed simplification runs
        # over its time when each check costs a fraction of a millisecond).
        p = setup.getSolutionPath()
        simplifier = og.PathSimplifier(info)
        simplifier.reduceVertices(p, _SHORTCUT_STEPS, _SHORTCUT_STEPS // 2)
        simplifier.ropeShortcutPath(p)
        del simplifier
        path = np.array([[p.getState(k)[i] for i in range(n)]
                         for k in range(p.getStateCount())])
        end = int(np.argmin(np.max(np.abs(goals - path[-1]), axis=1)))
        path[0], path[-1] = start, goals[end]   # exactly, not as OMPL's doubles round-trip
    del status, setup, planner, info, edges, space, bounds, s, g, goal_states
    return path
