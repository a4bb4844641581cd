# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The one restart driver, compiled: attempts from the seed, then from random starts.

:func:`drive` solves one target with a method's attempts (:func:`run_attempt_of`):

- budget: ``max_attempts`` and a deadline over all attempts (the first always runs);
- starts: the seed first, then the rows of a table of random draws (:class:`DriverRecords`),
  within ``max_joint_change`` of the seed when that is set;
- the final check: the q an attempt returns, clamped into the limits and wrapped toward the
  seed, judged by forward kinematics against the tolerances and, with ``avoid_collisions``,
  the collision model (:func:`ik_node.solvers.final_check.judge`); a kernel's own claim is
  never trusted;
- joints the task leaves free go back to the seed while the check still passes
  (:func:`_keep_seed_joints`); with ``max_joint_change`` an answer beyond it is brought back
  within it and judged again (:func:`_judged`);
- ranking of failed attempts: position first (errors within tolerance count as equal), then
  orientation; the choice among solutions: the one nearest the seed in weighted distance;
- out of reach: a target beyond the reach bound gets one attempt; beyond the stretched reach,
  two position attempts (from where the attempt ended and from the seed) give the best
  stretched pose; position attempts stretching to the same distance from several starts in a
  row (no joint held by a limit) end the solve; a pose attempt that misses the point probes
  the point with position attempts, and pose attempts resume from where one meets it;
- a rescue attempt (a method's local attempt from the seed, :data:`ATTEMPT_RESCUE`) right
  after the method's own attempt from the seed failed on a target near the seed's tip;
- the status (:data:`CODE_REACHED` ...); :mod:`ik_node.solvers.outcome` words it.

The driver's numbers are in :class:`DriverParams`, the arm's records and the collision model
in :class:`DriverRecords`. An attempt is :func:`run_attempt_of`: a built-in method's kernel
(:func:`ik_node.solvers.attempts.method_attempt`, one compiled driver for them all), or a
registered method's Python attempt, for which this same code runs as Python
(:mod:`ik_node.solvers.registered`). Plain Python (numba off) runs this same source.

A tree of several tips (:mod:`ik_node.tree.drive`) goes through this same driver: its
attempts (:class:`ik_node.tree.drive.TreeRun` as ``ctx``) and its goal
(:class:`ik_node.tree.drive.TreeGoal`, judged over every tip's task) are told apart by their
types, and its DriverParams switch off what only one tip has (a reach bound, probes of the
point, the rescue): budget, starts, the lazy clearance, the final check, the ranking of
failed attempts (tips missed, then position beyond the tolerances summed over the tips,
then orientation: :func:`ik_node.tree.drive.tree_judge`),
the choice among solutions, the same-end stop and the status are the ones below.
"""

import math
from typing import NamedTuple

from ik_node._jit import JIT_ENABLED, monotonic_clock, njit, njit_inline
from ik_node.model import kinematics
from ik_node.solvers.attempts import FAMILY_JACOBIAN, method_attempt, MethodAttempts
from ik_node.solvers.codes import (ATTEMPT_LAZY, ATTEMPT_MAIN, ATTEMPT_PROBE,
                                   ATTEMPT_RESCUE, CODE_BLOCKED,
                                   CODE_NOT_CONVERGED, CODE_OUT_OF_REACH, CODE_POSITION_ONLY,
                                   CODE_REACHED, CODE_TOO_FAR)
from ik_node.solvers.final_check import fk_scratch, is_tree_goal, judge
from ik_node.solvers.joint_wrap import wrap_in_place
from ik_node.solvers.target_records import Limits
import numpy as np

__all__ = ['DriverParams', 'CollisionCheck', 'DriverRecords', 'Outcome', 'Answer', 'drive',
           'run_attempt_of', 'SAME_END_ATTEMPTS', 'SAME_END_RELATIVE', 'UNDERACTUATED_TRIES',
           'FAR_PROBES', 'RESCUE_NEAR', 'on_a_limit', 'pushed_past_a_limit']

_now = monotonic_clock()

# Position attempts that miss the point by the same distance (to this relative precision),
# with no joint held by a limit, from this many starts in a row mean the target is out of
# reach: the arm stretches to the same pose whichever way it starts. An attempt that ends
# with a joint held by a limit resets the count: on arms such as the PUMA 560 or the KR 210,
# position attempts toward reachable points often end at the same joint-limit local minimum
# from many starts. Six, not four: near the edge of a KR 210's workspace about 40% of
# position attempts toward a reachable point end at one interior local minimum (0.4^6 = 0.4%
# against 2.6% of such targets wrongly given up).
SAME_END_ATTEMPTS = 6
SAME_END_RELATIVE = 1e-3
# With n < 6 a pose is met only where the joints can take its orientation: once this many
# attempts reached the point but not the orientation, more restarts would only polish it at
# the cost of the whole timeout. Reachable poses of the SO-101 (n = 5) whose orientation
# the position-first pass still misses from some starts: 1.1% of 1000 stay unmet after 8
# such attempts, 0.1% after 16, none after 24.
UNDERACTUATED_TRIES = 16
# Position attempts toward a target beyond the stretched reach (the best stretched pose).
FAR_PROBES = 2
# How near the seed's tip a target must be for a rescue attempt [fraction of the arm's
# length]: a warm-started small step (tracking), where a far branch would be a jump.
RESCUE_NEAR = 0.02


class DriverParams(NamedTuple):
    """
    The driver's numbers, the same for every target of a solve.

    tol_p [m], tol_o [rad]: tolerances. max_attempts, solutions: the options; restarts: the
    option. max_change [rad or m]: ``max_joint_change`` (inf: none). reach_origin (3,),
    reach [m]: the chain's reach bound; stretched [m]: the distance from reach_origin past
    the stretched reach (:func:`ik_node.solvers.stretched_reach.stretched_bound`);
    length_scale [m]: the arm's length. w (n,): joint weights of the choice among solutions;
    wide (n,): revolute joints spanning more than a turn. rescue: the method has a rescue attempt.
    """

    tol_p: float
    tol_o: float
    max_attempts: int
    solutions: int
    restarts: bool
    max_change: float
    reach_origin: np.ndarray
    reach: float
    stretched: float
    length_scale: float
    w: np.ndarray
    wide: np.ndarray
    rescue: bool


class CollisionCheck(NamedTuple):
    """The collision model of the final check: on, (F, K) of the model, obstacle rows."""

    on: bool
    F: np.ndarray
    K: np.ndarray
    obstacles: np.ndarray


class DriverRecords(NamedTuple):
    """
    The arm's records of one solve: model, limits, random starts, params, collisions.

    starts (k, n): draws within the limits (before the seed is added to continuous joints);
    with a finite ``params.max_change``, offsets from the seed in +-max_change.
    """

    model: kinematics.ChainModel
    limits: Limits
    starts: np.ndarray
    params: DriverParams
    collide: CollisionCheck


class Outcome(NamedTuple):
    """
    What :func:`drive` found: counts, status code, errors of the answer, and why not better.

    blocked: an answer within tolerance collided (the last such q is in ``q_blocked``);
    too_far_joint, too_far_change: the joint and distance [rad or m] of the nearest answer
    within tolerance beyond max_joint_change (-1, inf: none); rescued: the answer is the
    rescue attempt's.
    """

    success: bool
    attempts: int
    iterations: int
    code: int
    position_error: float
    orientation_error: float
    blocked: bool
    too_far_joint: int
    too_far_change: float
    rescued: bool


@njit
def _keep_seed_joints(rec, tgt, q, q0, perr, oerr, fk):
    """
    Put joints of solution q back at the seed, one at a time, while the check still passes.

    A solution from a random start (or a kernel that turned a joint the task does not
    constrain) would otherwise move such joints for nothing. Returns the errors of q.
    """
    for i in range(q.shape[0]):
        if q[i] != q0[i]:
            old = q[i]
            q[i] = q0[i]
            p2, o2, ok, _ = judge(rec, tgt, q, fk)
            if ok:
                perr, oerr = p2, o2
            else:
                q[i] = old
    return perr, oerr


@njit
def _farthest_joint(q, q0):
    """Return (index, distance) of the joint of q farthest from q0."""
    j = 0
    change = -1.0
    for i in range(q.shape[0]):
        d = abs(q[i] - q0[i])
        if d > change:
            j, change = i, d
    return j, change


@njit
def _held_by_a_limit(model, limits, q, position, length_scale):
    """
    Return True when a joint of q sits on a limit that keeps the tip from ``position``.

    That is, the descent direction of the position error, Jᵀe, pushes the joint outward (a
    local minimum made by the limit). A joint on a limit with no such push (a UR elbow
    stretched straight at -2π) holds nothing.
    """
    if not on_a_limit(q, limits):
        return False
    n = q.shape[0]
    J = kinematics.jacobian(model, n, q)
    T = kinematics.tip_pose(model, q)
    e = np.empty(3)
    for k in range(3):
        e[k] = position[k] - T[k, 3]
    eps = 1e-3 * math.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) * length_scale
    g = np.empty(n)
    for i in range(n):
        g[i] = J[0, i] * e[0] + J[1, i] * e[1] + J[2, i] * e[2]
    return pushed_past_a_limit(q, limits, g, eps)


@njit
def on_a_limit(q, limits):
    """Return True when a joint of q (n,) sits on its lower or upper limit (Limits)."""
    for i in range(q.shape[0]):
        if q[i] <= limits.lower[i] or q[i] >= limits.upper[i]:
            return True
    return False


@njit
def pushed_past_a_limit(q, limits, g, eps):
    """
    Return True when g (n,) pushes a joint of q that sits on a limit outward by over eps.

    g: a descent direction of the position error; such a push is a local minimum made by
    that limit.
    """
    for i in range(q.shape[0]):
        if ((q[i] <= limits.lower[i] and g[i] < -eps)
                or (q[i] >= limits.upper[i] and g[i] > eps)):
            return True
    return False


@njit
def _same_end(ends, count, tol_p):
    """Return True when the last SAME_END_ATTEMPTS position attempts ended at one distance."""
    if count < SAME_END_ATTEMPTS:
        return False
    lo = np.inf
    hi = -np.inf
    for k in range(count - SAME_END_ATTEMPTS, count):
        lo = min(lo, ends[k])
        hi = max(hi, ends[k])
    return hi - lo <= SAME_END_RELATIVE * hi + 0.1 * tol_p


@njit
def _near_seed(model, q0, position, near):
    """Return True when the tip at q0 is within ``near`` [m] of ``position``."""
    T = kinematics.tip_pose(model, q0)
    d0 = T[0, 3] - position[0]
    d1 = T[1, 3] - position[1]
    d2 = T[2, 3] - position[2]
    return math.sqrt(d0 * d0 + d1 * d1 + d2 * d2) <= near


@njit
def _start(rec, q0, row):
    """Return the start of a restart from row ``row`` of the table of draws."""
    draw = rec.starts[row]
    lower = rec.limits.lower
    upper = rec.limits.upper
    start = np.empty(q0.shape[0])
    near = rec.params.max_change < np.inf
    for i in range(q0.shape[0]):
        if near:
            start[i] = min(max(q0[i] + draw[i], lower[i]), upper[i])
        elif rec.limits.continuous[i]:
            # Continuous joints are drawn in +-pi around the seed, not around 0.
            start[i] = draw[i] + q0[i]
        else:
            start[i] = draw[i]
    return start


@njit
def _reach(prm, position):
    """Return (beyond the reach bound, beyond the stretched reach) of a target position."""
    d0 = position[0] - prm.reach_origin[0]
    d1 = position[1] - prm.reach_origin[1]
    d2 = position[2] - prm.reach_origin[2]
    distance = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    return distance > prm.reach + prm.tol_p, distance > prm.stretched + prm.tol_p


@njit
def _status(prm, pose, n, beyond, stretched, perr, held, blocked):
    """Return the status code of a solve that found no solution."""
    code = CODE_OUT_OF_REACH if (beyond or stretched) else CODE_NOT_CONVERGED
    if code == CODE_NOT_CONVERGED and pose and n < 6 and perr <= prm.tol_p:
        code = CODE_POSITION_ONLY
    if held and not beyond:
        # Attempts were held near the seed: an end they share is no proof of reach.
        code = CODE_TOO_FAR
    if blocked and code == CODE_NOT_CONVERGED:
        code = CODE_BLOCKED
    return code


def _is_tree_run(ctx) -> bool:
    """Return True when ``ctx`` (a record, or its numba type) is a tree's TreeRun."""
    from ik_node.tree.drive import TreeRun
    return isinstance(ctx, TreeRun) or getattr(ctx, 'instance_class', None) is TreeRun


def run_attempt_of(rec, ctx, kind, tgt, start, deadline):
    """
    Run one attempt of the method whose records ``ctx`` holds; return (q, iterations).

    ctx: a built-in method's :class:`ik_node.solvers.attempts.MethodAttempts` (compiled:
    numba takes the overload below), a tree's :class:`ik_node.tree.drive.TreeRun`, or a
    registered method's attempts, which run as Python (``ctx.run(kind, tgt, start,
    deadline)``, :mod:`ik_node.solvers.registered`).
    """
    if isinstance(ctx, MethodAttempts):
        return method_attempt(rec, ctx, kind, tgt, start, deadline)
    if _is_tree_run(ctx):
        from ik_node.tree.drive import tree_attempt_of
        return tree_attempt_of(rec, ctx, kind, tgt, start, deadline)
    return ctx.run(kind, tgt, start, deadline)


if JIT_ENABLED:
    from numba.extending import overload

    # Two overloads, one per ctx type (numba takes the one that returns an implementation).
    # numba compiles an overload's implementation on its own before it inlines it, so an
    # inlined one costs a whole compile of all it calls (about 5 s for either kind of ctx).
    # A built-in method's attempt is inlined all the same, like the attempt it calls: a call
    # would count references to every array of rec and ctx.
    @overload(run_attempt_of, inline='always')
    def _run_attempt_of_compiled(rec, ctx, kind, tgt, start, deadline):
        if _is_tree_run(ctx):
            return None

        def run(rec, ctx, kind, tgt, start, deadline):
            return method_attempt(rec, ctx, kind, tgt, start, deadline)
        return run

    # A tree's attempt is a call, whose body is the one the overload compiles: no wrapper
    # around a wrapper, each of which would compile (and optimise) all the tree's attempt
    # code once more.
    @overload(run_attempt_of)
    def _run_tree_attempt_compiled(rec, ctx, kind, tgt, start, deadline):
        if not _is_tree_run(ctx):
            return None
        from ik_node.tree.drive import tree_attempt_of
        return tree_attempt_of


def lazy_clearance(ctx) -> bool:
    """
    Return True when the method of ``ctx`` tries each start without the clearance first.

    That is a Jacobian method, or a tree, with ``avoid_collisions``: an answer that collides
    is then tried again from the same start, with the clearance.
    """
    if isinstance(ctx, MethodAttempts):
        return ctx.family == FAMILY_JACOBIAN and ctx.jacobian.pose.lazy_on
    if _is_tree_run(ctx):
        return bool(ctx.collide.on)
    return False


if JIT_ENABLED:
    @overload(lazy_clearance, inline='always')
    def _lazy_clearance_compiled(ctx):
        if _is_tree_run(ctx):
            def lazy_tree(ctx):
                return ctx.collide.on
            return lazy_tree

        def lazy(ctx):
            return ctx.family == FAMILY_JACOBIAN and ctx.jacobian.pose.lazy_on
        return lazy


def held_by_a_limit(rec, tgt, q) -> bool:
    """
    Return True when a joint of q sits on a limit that keeps the tip(s) from the target.

    One tip's Target: :func:`_held_by_a_limit`; a tree's goal:
    :func:`ik_node.tree.drive.tree_held_by_a_limit` (the tips' position errors summed).
    """
    if is_tree_goal(tgt):
        from ik_node.tree.drive import tree_held_by_a_limit
        return tree_held_by_a_limit(rec, tgt, q)
    return _held_by_a_limit(rec.model, rec.limits, q, tgt.position, rec.params.length_scale)


if JIT_ENABLED:
    @overload(held_by_a_limit)
    def _held_by_a_limit_compiled(rec, tgt, q):
        if is_tree_goal(tgt):
            from ik_node.tree.drive import tree_held_by_a_limit
            return tree_held_by_a_limit     # (itself, not a wrapper: see judge's overload)

        def held(rec, tgt, q):
            return _held_by_a_limit(rec.model, rec.limits, q, tgt.position,
                                    rec.params.length_scale)
        return held


@njit_inline
def _judged(rec, tgt, q, q0, restore, fk):
    """
    Judge an attempt's q: return (q, perr, oerr, ok, hit, far_joint, far).

    The q is clamped into the limits, wrapped toward q0 and judged
    (:func:`ik_node.solvers.final_check.judge`: hit, within tolerance but in contact); a
    solution gets its free joints back at the seed when ``restore``; a q beyond max_change
    is brought back within it and judged again (far_joint, far: its farthest joint and
    distance before; -1, 0 if none).
    """
    lim = rec.limits
    q = np.minimum(np.maximum(q, lim.lower), lim.upper)
    wrap_in_place(q, q0, lim.continuous, rec.params.wide, lim.lower, lim.upper)
    perr, oerr, ok, hit = judge(rec, tgt, q, fk)
    if ok and restore:
        perr, oerr = _keep_seed_joints(rec, tgt, q, q0, perr, oerr, fk)
    far_joint, far = -1, 0.0
    bound = rec.params.max_change
    if bound < np.inf:
        j, change = _farthest_joint(q, q0)
        if change > bound:
            # Beyond max_joint_change: not an answer; what is left of it within the bound
            # is a failed attempt like any other.
            far_joint, far = j, (change if ok else np.inf)
            q = np.minimum(np.maximum(q, q0 - bound), q0 + bound)
            perr, oerr, ok, hit = judge(rec, tgt, q, fk)
    return q, perr, oerr, ok, hit, far_joint, far


@njit
def _record_end(rec, tgt, q, perr, ends, count):
    """
    Record where a failed position attempt ended; return the count of ends in a row.

    An attempt whose q has a joint held by a limit (a local minimum other starts may avoid)
    restarts the count instead.
    """
    if held_by_a_limit(rec, tgt, q):
        return 0
    ends[count] = perr
    return count + 1


@njit_inline
def _next_start(rec, q0, next_q, has_next, from_seed, draws, rescue):
    """
    Return (start, draws) of the next attempt.

    A rescue's or the first from the seed, a probe's or a resumed pose attempt's from
    ``next_q`` (when ``has_next``), else the table's next row (``draws`` counts the rows
    taken; a rescue takes one too).
    """
    if rescue:
        return q0.copy(), draws + 1
    if has_next:
        return next_q.copy(), draws
    if from_seed:
        return q0.copy(), draws
    return _start(rec, q0, draws), draws + 1


@njit
def _weighted_distance(w, q, q0):
    """Return sum_i w_i (q_i - q0_i)^2, the distance of the choice among solutions."""
    d = 0.0
    for i in range(q.shape[0]):
        d += w[i] * (q[i] - q0[i]) ** 2
    return d


class Answer(NamedTuple):
    """
    The answer so far of :func:`drive` (its q is in q_out).

    solutions: solutions found; distance: the chosen solution's weighted distance from the
    seed; rescued: it is the rescue attempt's. Before any solution, have: a failed attempt
    is kept, ranked by (rank_p, rank_o): its position error beyond the tolerance, then its
    orientation error. perr [m], oerr [rad]: the kept q's errors.
    """

    solutions: int
    distance: float
    rescued: bool
    have: bool
    rank_p: float
    rank_o: float
    perr: float
    oerr: float


@njit_inline
def _offer_solution(ans, w, q, q0, q_out, errors, rescue):
    """
    Return the Answer after solution q: kept in q_out when nearest the seed so far.

    w (n,): the joint weights of the distance; errors: (perr, oerr) of q; rescue: q is the
    rescue attempt's.
    """
    d = _weighted_distance(w, q, q0)
    if d < ans.distance:
        q_out[:] = q
        return Answer(ans.solutions + 1, d, rescue, ans.have, ans.rank_p, ans.rank_o,
                      errors[0], errors[1])
    return Answer(ans.solutions + 1, ans.distance, ans.rescued, ans.have, ans.rank_p,
                  ans.rank_o, ans.perr, ans.oerr)


@njit_inline
def _offer_failure(ans, q, q_out, perr, oerr, tol_p):
    """
    Return the Answer after failed attempt q: kept in q_out when it ranks best so far.

    Ranking: position first (errors within tolerance count as equal), then orientation; no
    failed attempt is kept once a solution is found.
    """
    k0 = max(perr - tol_p, 0.0)
    if ans.solutions == 0 and (not ans.have or k0 < ans.rank_p
                               or (k0 == ans.rank_p and oerr < ans.rank_o)):
        q_out[:] = q
        return Answer(ans.solutions, ans.distance, ans.rescued, True, k0, oerr, perr, oerr)
    return ans


@njit_inline
def _attempt_budget(rec, beyond):
    """Return the most attempts of a solve: one beyond the reach bound, never past the table."""
    prm = rec.params
    max_att = prm.max_attempts if (prm.restarts and not beyond) else 1
    return min(max_att, rec.starts.shape[0] + 1)


@njit_inline
def _kind(use_rescue, probing, keep_clear):
    """Return the ATTEMPT_* kind of the next attempt (keep_clear: a lazy one collided)."""
    if use_rescue:
        return ATTEMPT_RESCUE
    if probing:
        return ATTEMPT_PROBE
    return ATTEMPT_MAIN if keep_clear else ATTEMPT_LAZY


@njit
def drive(rec, ctx, tgts, q0, q_out, q_blocked, deadline):
    """
    Solve one target from seed q0 (n,) with the attempts of ``ctx``; return an Outcome.

    rec: DriverRecords; ctx: the method's attempts (:func:`run_attempt_of`); tgts: (Target,
    its point's). q_out (n,): the answer (else the best failed attempt); q_blocked (n,): the
    last answer within tolerance that collided; deadline [s of the kernels' clock].
    """
    prm, tgt, n = rec.params, tgts[0], q0.shape[0]
    beyond, past_stretched = _reach(prm, tgt.position)
    max_att = _attempt_budget(rec, beyond)
    fk, ends = fk_scratch(rec.model), np.empty(max_att)
    next_q, first_q = q0.copy(), np.empty(n)     # first_q: the start of the attempt running
    attempts = iterations = point_reached = far_probes = 0
    # (not the literal 0: numba would compile _start and _record_end for Literal[int](0) too)
    draws = n_ends = np.int64(0)
    ans = Answer(0, np.inf, False, False, np.inf, np.inf, 0.0, 0.0)
    tf_joint, tf_change, keep_clear = -1, np.inf, False
    stretched = position_met = probing = has_next = use_rescue = blocked = held = False
    while attempts < max_att and (attempts == 0 or _now() < deadline):
        attempts += 1
        kind = _kind(use_rescue, probing, keep_clear)
        from_seed = attempts == 1 or use_rescue
        start, draws = _next_start(rec, q0, next_q, has_next, from_seed, draws, use_rescue)
        has_next = use_rescue = keep_clear = False
        first_q[:] = start
        q, it = run_attempt_of(rec, ctx, kind, tgts[1] if kind == ATTEMPT_PROBE else tgt,
                               start, deadline)
        q, perr, oerr, ok, hit, far_joint, far = _judged(rec, tgt, q, q0, attempts > 1, fk)
        iterations += it
        held = held or far_joint >= 0
        if far_joint >= 0 and far < tf_change:
            tf_joint, tf_change = far_joint, far
        if ok:
            ans = _offer_solution(ans, prm.w, q, q0, q_out, (perr, oerr),
                                  kind == ATTEMPT_RESCUE)
            if ans.solutions >= prm.solutions or from_seed:
                break
            continue
        blocked = blocked or hit
        if hit:
            q_blocked[:] = q
        ans = _offer_failure(ans, q, q_out, perr, oerr, prm.tol_p)
        if hit and kind == ATTEMPT_LAZY and lazy_clearance(ctx):
            has_next = keep_clear = True    # the same start again, keeping clear this time
            next_q[:] = first_q
            continue
        if not position_met and not beyond and perr > prm.tol_p and past_stretched:
            # Beyond the stretched reach: position attempts from where this one ended and
            # from the seed give the best stretched pose, then no more restarts.
            far_probes += 1
            if far_probes > FAR_PROBES:
                stretched = True
                break
            probing = has_next = True
            next_q[:] = q if far_probes == 1 else q0
            continue
        if (prm.rescue and attempts == 1 and not beyond
                and _near_seed(rec.model, q0, tgt.position, RESCUE_NEAR * prm.length_scale)):
            use_rescue = True
            continue
        if perr <= prm.tol_p or position_met:
            if perr <= prm.tol_p and probing:
                # The point is reachable: back to pose attempts, from where it is met.
                probing, has_next = False, True
                next_q[:] = q
            position_met = True
            point_reached += 1
            if tgt.pose and n < 6 and point_reached >= UNDERACTUATED_TRIES:
                break
            continue
        if tgt.pose and not probing:
            probing = True
            continue
        n_ends = _record_end(rec, tgt, q, perr, ends, n_ends)
        if _same_end(ends, n_ends, prm.tol_p):
            stretched = True
            break
    code = CODE_REACHED if ans.solutions > 0 else _status(prm, tgt.pose, n, beyond, stretched,
                                                          ans.perr, held, blocked)
    return Outcome(ans.solutions > 0, attempts, iterations, code, ans.perr, ans.oerr, blocked,
                   tf_joint, tf_change, ans.rescued)
