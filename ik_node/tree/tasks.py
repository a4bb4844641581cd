# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
From ``{tip: target}`` to the tasks of a tree solve, and from a joint vector to its result.

A tip with a target is a task at its priority; a target beyond its tip's reach bound
(``TreeChain.tip_reach``) goes one level below every other task, so the tip stretches
toward it in the null space of the tips it could drag off theirs. A tip without a target is
held at its pose at the seed (a task at the targets' last level) or left free.
"""

from dataclasses import dataclass, replace
import math
from typing import Mapping

from ik_node.errors import IKInputError
from ik_node.result import STATUS_NOT_CONVERGED, STATUS_REACHED
from ik_node.spatial.rotations import rotation_vector_from_matrix
from ik_node.tree.chain import TreeChain
from ik_node.tree.records import TreeTasks
from ik_node.tree.targets import (MODE_FREE, MODE_HOLD, MODE_TARGET, TipResult, TipTarget,
                                  TreeIKResult)
import numpy as np

__all__ = ['Task', 'tasks_of', 'task_record', 'errors', 'met', 'demoted', 'result_of',
           'count_met']


@dataclass(frozen=True)
class Task:
    """A tip's task: the tip's index, its target, its mode ('target' or 'hold')."""

    tip: int
    target: TipTarget
    mode: str


def tasks_of(tree: TreeChain, targets: Mapping, q0: np.ndarray, untargeted: str) -> list[Task]:
    """Return the tasks of ``targets`` {tip: TipTarget, pose or None}, holds added."""
    if not isinstance(targets, Mapping):
        raise IKInputError('targets must be a mapping {tip link: pose or TipTarget}')
    given: dict[int, TipTarget] = {}
    for key, value in targets.items():
        i = tree.tip_index(key)
        if i in given:
            raise IKInputError(f'tip {tree.tip_links[i]!r} has two targets')
        if value is None:
            continue
        given[i] = value if isinstance(value, TipTarget) else TipTarget(value)
    if not given:
        raise IKInputError(f'no tip has a target (tips: {list(tree.tip_links)})')
    last = max(t.priority for t in given.values())
    tasks = []
    for i, t in sorted(given.items()):
        p0, reach = tree.tip_reach[i]
        point = t.pose if t.position_only else t.pose[:3, 3]
        if np.linalg.norm(point - p0) > reach:
            t = replace(t, priority=last + 1)
        tasks.append(Task(i, t, MODE_TARGET))
    if untargeted == MODE_HOLD:
        T0 = tree.fk(q0)
        for i in range(len(tree.tip_links)):
            if i not in given:
                tasks.append(Task(i, TipTarget(T0[i], priority=last), MODE_HOLD))
    return tasks


def task_record(tree: TreeChain, tasks: list[Task]) -> TreeTasks:
    """Return the :class:`TreeTasks` record of ``tasks`` (levels dense, rows by level)."""
    levels = sorted({t.target.priority for t in tasks})
    level_of = {p: k for k, p in enumerate(levels)}
    L = tree.length_scale
    rows: list[list[tuple[int, int, float]]] = [[] for _ in levels]
    for k, t in enumerate(tasks):
        wp, wo = t.target.position_weight / L, t.target.orientation_weight
        comps = [(c, wp) for c in range(3) if wp > 0.0]
        if not t.target.position_only and wo > 0.0:
            comps += [(c, wo) for c in range(3, 6)]
        rows[level_of[t.target.priority]] += [(k, c, w) for c, w in comps]
    flat = [r for level in rows for r in level]
    goals = [(t.target.pose, np.eye(3)) if t.target.position_only
             else (t.target.pose[:3, 3], t.target.pose[:3, :3]) for t in tasks]
    return TreeTasks(
        tip=np.array([t.tip for t in tasks], dtype=np.int64),
        tip_frame=np.array([tree.tip_models[t.tip].types.shape[0] for t in tasks],
                           dtype=np.int64),
        position=np.array([g[0] for g in goals], dtype=float).reshape(-1, 3),
        rotation=np.array([g[1] for g in goals], dtype=float).reshape(-1, 3, 3),
        pose=np.array([not t.target.position_only for t in tasks], dtype=np.bool_),
        level=np.array([level_of[t.target.priority] for t in tasks], dtype=np.int64),
        check_p=np.array([t.target.position_weight > 0.0 for t in tasks], dtype=np.bool_),
        check_o=np.array([not t.target.position_only and t.target.orientation_weight > 0.0
                          for t in tasks], dtype=np.bool_),
        row_task=np.array([r[0] for r in flat], dtype=np.int64),
        row_comp=np.array([r[1] for r in flat], dtype=np.int64),
        row_weight=np.array([r[2] for r in flat], dtype=float),
        level_rows=np.cumsum([0] + [len(level) for level in rows]).astype(np.int64))


def errors(tasks: list[Task], T: np.ndarray) -> list[tuple[float, float]]:
    """Return (position error [m], orientation error [rad] or nan) of each task at poses T."""
    out = []
    for task in tasks:
        goal, Ti = task.target.pose, T[task.tip]
        if task.target.position_only:
            out.append((float(np.linalg.norm(goal - Ti[:3, 3])), math.nan))
        else:
            w = rotation_vector_from_matrix(np.ascontiguousarray(goal[:3, :3] @ Ti[:3, :3].T))
            out.append((float(np.linalg.norm(goal[:3, 3] - Ti[:3, 3])),
                        float(np.linalg.norm(w))))
    return out


def met(target: TipTarget, dp: float, do: float, tol_p: float, tol_o: float) -> bool:
    """Return True when errors (dp [m], do [rad]) meet the tolerances of the rows asked for."""
    position = target.position_weight == 0.0 or dp <= tol_p
    orientation = math.isnan(do) or target.orientation_weight == 0.0 or do <= tol_o
    return bool(position and orientation)


def demoted(tree: TreeChain, tasks: list[Task], q: np.ndarray, tol_p: float,
            tol_o: float) -> list[Task] | None:
    """
    Return ``tasks`` with the ones missed at ``q`` one level below the rest, or None.

    None when no task or every task is met at q: nothing to keep in place, or nothing left.
    """
    ok = [met(t.target, dp, do, tol_p, tol_o)
          for t, (dp, do) in zip(tasks, errors(tasks, tree.fk(q)))]
    if not any(ok) or all(ok):
        return None
    last = max(t.target.priority for t in tasks)
    return [t if good else Task(t.tip, replace(t.target, priority=last + 1), t.mode)
            for t, good in zip(tasks, ok)]


def result_of(tree: TreeChain, tasks: list[Task], q: np.ndarray, tolerances: tuple,
              counts: tuple, method: str) -> TreeIKResult:
    """
    Return the result of joint vector ``q``, judged by FK against every task.

    tolerances: (tol_p [m], tol_o [rad]); counts: (iterations, attempts).
    """
    by_tip = {t.tip: (t, err) for t, err in zip(tasks, errors(tasks, tree.fk(q)))}
    tips = []
    for i, name in enumerate(tree.tip_links):
        if i not in by_tip:
            tips.append(TipResult(name, MODE_FREE, True, math.nan, math.nan))
            continue
        task, (dp, do) = by_tip[i]
        tips.append(TipResult(name, task.mode, met(task.target, dp, do, *tolerances), dp, do))
    success = all(r.success for r in tips)
    missed = [f'{r.tip_link} ({r.position_error:.3g} m, {r.orientation_error:.3g} rad)'
              for r in tips if not r.success]
    return TreeIKResult(q=q, success=success, tips=tuple(tips), iterations=counts[0],
                        attempts=counts[1],
                        status=STATUS_REACHED if success else STATUS_NOT_CONVERGED,
                        message='' if success else 'tips off their targets: '
                        + ', '.join(missed), method=method)


def count_met(tree: TreeChain, tasks: list[Task], q: np.ndarray, tolerances: tuple) -> int:
    """Return how many of ``tasks`` are within ``tolerances`` (tol_p, tol_o) at ``q``."""
    return sum(met(t.target, dp, do, *tolerances)
               for t, (dp, do) in zip(tasks, errors(tasks, tree.fk(q))))
