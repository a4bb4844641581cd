# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
From a far target to a collision-free joint path: IK answers near the arm, then a path.

:func:`plan_goal` is what the node does with a goal (an RViz click, a topic message, the
browser page) that is not a small step of a stream:

1. collision-free IK answers within the search budget, from the arm first (the answer on
   the arm's own branch), then from random starts (other branches), nearest first by the
   weighted joint distance;
2. the first answer whose straight joint path is free (certified edge check) is taken;
3. else a path around the obstacles is planned (:func:`ik_node.motion.planner.plan_path`,
   OMPL) to any of the answers (one query toward all), within the planning budget;
4. else the goal is refused, with the reason, before the arm moves.
"""

from dataclasses import dataclass
import time
from typing import Any, Mapping, Sequence

from ik_node.model.chain import Chain
from ik_node.motion import planner
from ik_node.motion.motion_kinds import DIRECT, PENDING, PLANNED, REFUSED, SUPERSEDED
from ik_node.motion.planner import path_touches, plan_path
from ik_node.motion.tree_arm import solve_on
from ik_node.result import (IKResult, STATUS_BLOCKED, STATUS_NOT_CONVERGED, STATUS_OUT_OF_REACH,
                            STATUS_POSITION_ONLY)
from ik_node.solvers.joint_wrap import wrap_continuous
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['GoalPlan', 'plan_goal', 'warm_up', 'DIRECT', 'PLANNED', 'REFUSED', 'PENDING',
           'SUPERSEDED']

# Two answers closer than this [rad or m] in every joint are the same answer.
_SAME_ANSWER = 0.05
# Answers tried for a free straight path, and to plan to.
_CANDIDATES = 4


@dataclass(frozen=True)
class GoalPlan:
    """
    How a goal is reached, or why not.

    kind: DIRECT (the straight joint line), PLANNED (around obstacles) or REFUSED.
    waypoints: (m, n) joint vectors from the start to the answer (m = 2 for DIRECT); None
    when refused. result: the IK answer taken (when refused, the solver's best answer).
    reason: why refused ('' otherwise); blocked: why the nearest answer's straight path is
    not free ('' if it is). answers: distinct IK answers found. search_time, plan_time [s].
    """

    kind: str
    waypoints: np.ndarray | None
    result: IKResult
    reason: str
    blocked: str
    answers: int
    search_time: float
    plan_time: float


def _usable(result: IKResult) -> bool:
    return bool(result.success) or result.status == STATUS_POSITION_ONLY


def _refusal(result: IKResult, attempts: int, budget: float) -> str:
    if result.status == STATUS_BLOCKED:
        return (f'no collision-free answer in {attempts} attempt(s) within '
                f'{budget * 1e3:.0f} ms ({result.message})')
    if result.status == STATUS_OUT_OF_REACH:
        return (f'target out of reach (the closest pose found is {result.position_error:.4f} m '
                'away)')
    if result.status == STATUS_NOT_CONVERGED:
        return (f'no answer within the tolerances in {attempts} attempt(s) and '
                f'{budget * 1e3:.0f} ms (best {result.position_error:.4f} m away)')
    return f'target not reached by the solver ({result.status}: {result.message})'


class _Answers:
    """Collision-free IK answers of one target, found on demand within one deadline."""

    def __init__(self, chain: Chain, target: np.ndarray, q_start: np.ndarray, method: str,
                 options: Mapping[str, Any], deadline: float):
        self.chain, self.target, self.q_start, self.method = chain, target, q_start, method
        self.options, self.deadline = dict(options), deadline
        self.found: list[IKResult] = []
        self.attempts = 0
        self.failure: IKResult | None = None
        self._rng = np.random.default_rng(int(options.get('rng_seed') or 0) + 1)

    def first(self) -> IKResult | None:
        """Return the answer from the arm (its own branch), or None (see :attr:`failure`)."""
        r = self._solve(self.q_start, self.options.get('rng_seed'))
        return r

    def more(self) -> None:
        """Look for answers from random starts until _CANDIDATES or the deadline."""
        while len(self.found) < _CANDIDATES and self.deadline - time.perf_counter() > 1e-4:
            self._solve(self.chain.random_q(self._rng), int(self._rng.integers(2**31)))
        weights = self.options.get('joint_weights')
        w = np.ones(self.chain.n) if weights is None else np.asarray(weights, dtype=float)
        self.found.sort(key=lambda r: float(np.sum(w * np.abs(r.q - self.q_start))))

    def _solve(self, q0: np.ndarray, seed: Any) -> IKResult | None:
        opts = dict(self.options)
        opts['timeout'] = max(self.deadline - time.perf_counter(), 1e-4)
        opts['rng_seed'] = seed
        r = solve_on(self.chain, self.target, q0=q0, method=self.method, **opts)
        self.attempts += int(r.attempts)
        if not _usable(r):
            # The refusal tells the attempt from the arm: it had the whole budget (a restart
            # after it gets what is left). A tree's best attempt keeps the tips it can.
            if self.failure is None:
                self.failure = r
            return None
        q = _near(self.chain, self.q_start, np.asarray(r.q, dtype=float))
        if any(np.max(np.abs(q - f.q)) <= _SAME_ANSWER for f in self.found):
            return None
        r = _with_q(r, q)
        self.found.append(r)
        return r


def _near(chain: Chain, q_ref: np.ndarray, q: np.ndarray) -> np.ndarray:
    """
    Return ``q`` with whole turns moved to lie nearest ``q_ref``: the same pose.

    Continuous joints always, revolute joints with more than a turn of range (a UR joint in
    [-2π, 2π]) as far as their limits allow: an answer from a random start otherwise keeps
    that start's turn, a long way round (and often through the floor) from the arm.
    """
    return wrap_continuous(np.asarray(q, dtype=float), q_ref, chain.continuous, chain)


def _plan_rounds(chain: Chain, q_start: np.ndarray, found: list, weights: Any) -> list:
    """
    Return the planning rounds [(goals (k, n), the answer index of each goal)].

    First the answers, then per joint their turns the other way round. An answer's joints
    with more than a turn of range are wrapped to lie nearest the arm; the same pose a turn
    the other way (one such joint +-2π, within its limits) is another goal, often the free
    one: the base turned the other way round an obstacle. One round per such joint (its
    box spans that joint's range only), nearest round first by the weighted joint distance
    of its nearest goal.
    """
    w = np.ones(chain.n) if weights is None else np.asarray(weights, dtype=float)
    rounds = [(np.array([r.q for r in found]), list(range(len(found))))]
    turned = []
    for j in np.flatnonzero(chain.wide_revolute):
        goals, owner = [], []
        for k, r in enumerate(found):
            for turn in (-2.0 * np.pi, 2.0 * np.pi):
                q = r.q.copy()
                q[j] += turn
                if chain.lower[j] <= q[j] <= chain.upper[j]:
                    goals.append(q)
                    owner.append(k)
        if goals:
            near = min(float(np.sum(w * np.abs(g - q_start))) for g in goals)
            turned.append((near, np.array(goals), owner))
    turned.sort(key=lambda e: e[0])
    return rounds + [(g, o) for _, g, o in turned]


def _with_q(result: IKResult, q: np.ndarray) -> IKResult:
    from dataclasses import replace
    return replace(result, q=q)


def plan_goal(chain: Chain, target: ArrayLike, q_start: ArrayLike, method: str,
              options: Mapping[str, Any], obstacles: Sequence = (),
              search_budget: float = 0.05, plan_budget: float = 0.5) -> GoalPlan:
    """
    Choose a collision-free answer for ``target`` and a free path to it from ``q_start``.

    target: (4, 4) pose or (3,) position in the base frame. options: the solver options (the
    node's); collision avoidance with ``obstacles`` is added. search_budget, plan_budget [s]:
    the time for IK answers and for path checks and planning. See the module docstring.
    """
    t0 = time.perf_counter()
    q_start = chain.check_q(q_start, 'q_start')
    opts = dict(options)
    opts.update(avoid_collisions=True, obstacles=list(obstacles))
    opts.pop('max_joint_change', None)      # a goal may be far: the path decides
    opts['max_attempts'] = max(int(opts.get('max_attempts', 1)), 1000)
    answers = _Answers(chain, np.asarray(target, dtype=float), q_start, method, opts,
                       t0 + search_budget)
    nearest = answers.first()
    if nearest is not None:
        path = np.array([q_start, nearest.q])
        blocked = path_touches(chain, path, obstacles)
        if not blocked:
            t1 = time.perf_counter()
            return GoalPlan(DIRECT, path, nearest, '', '', 1, t1 - t0, 0.0)
    else:
        blocked = ''
    answers.more()
    t1 = time.perf_counter()
    found = answers.found
    if not found:
        failure = answers.failure
        assert failure is not None
        return GoalPlan(REFUSED, None, failure, _refusal(failure, answers.attempts,
                                                         search_budget), '', 0, t1 - t0, 0.0)
    for r in found:
        if r is nearest:
            continue
        why = path_touches(chain, np.array([q_start, r.q]), obstacles)
        if not why:
            return GoalPlan(DIRECT, np.array([q_start, r.q]), r, '', blocked, len(found),
                            t1 - t0, time.perf_counter() - t1)
        blocked = blocked or why
    reason = ''
    # The answers first (a small box around them) with half the time, then their turns the
    # other way, one joint at a time, sharing the rest.
    rounds = _plan_rounds(chain, q_start, found, options.get('joint_weights'))
    for i, (goals, owner) in enumerate(rounds):
        left = plan_budget - (time.perf_counter() - t1)
        if left <= 1e-3:
            break
        share = left / 2.0 if i == 0 and len(rounds) > 1 else left / (len(rounds) - i)
        planned = plan_path(chain, q_start, goals, obstacles, timeout=share)
        if planned.waypoints is not None:
            taken = _with_q(found[owner[planned.goal]], planned.waypoints[-1])
            return GoalPlan(PLANNED, planned.waypoints, taken, '', blocked, len(found),
                            t1 - t0, time.perf_counter() - t1)
        reason = reason or planned.reason
    reason = (f'no collision-free path found in {plan_budget * 1e3:.0f} ms to '
              f'{len(found)} collision-free answer(s); the straight path is blocked: {blocked}'
              + (f' ({reason})' if reason and 'no collision-free path' not in reason else ''))
    return GoalPlan(REFUSED, None, found[0], reason, blocked, len(found), t1 - t0,
                    time.perf_counter() - t1)


def warm_up(chain: Chain, method: str, options: Mapping[str, Any]) -> None:
    """
    Load everything a goal search and a plan run now: the collision-aware solve and OMPL.

    For start-up: the goal search runs on a thread of its own, but loading kernels and
    importing OMPL hold the GIL, and with it the command thread, for up to 17 ms at a time.
    """
    q = np.array(chain.mid, dtype=float)
    pose = chain.fk(q)
    targets = [pose] if pose.ndim == 3 else [pose, pose[:3, 3]]     # a tree: poses only
    for target in targets:
        plan_goal(chain, target, q, method, options, (), 0.05, 0.0)
    planner.warm_up(chain)
