# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Several tip targets on one :class:`ik_node.tree.chain.TreeChain`: a stacked DLS solve.

This is the **reference implementation** of the stacked Jacobian solve, in plain numpy, to
prove the tree model; it belongs in the one compiled driver (:mod:`ik_node.solvers`) and
will move there, with the driver's budget, ranking and null-space objectives.

Each tip with a task contributes six rows (three for a position-only target)::

    e_i = [w_p,i (p*_i - p_i) / L ; w_o,i log(R*_i R_i^T)],   J_i = diag(w_p,i / L, w_o,i) J_tip_i

with L the tree's ``length_scale`` [m], so position and orientation errors weigh alike on a
hand and on a humanoid. Tasks of one priority level are stacked and solved together by
damped least squares, dq = J^T (J J^T + λ² I)^-1 e; a later level is solved in the null space
of the levels before it (Siciliano and Slotine's recursion)::

    dq_k = dq_{k-1} + N_{k-1} (J_k N_{k-1})^#λ (e_k - J_k dq_{k-1}),   N_k = N_{k-1} - P_k

where P_k projects onto the row space of J_k N_{k-1}; the residuals of the levels after the
first are clamped to 0.1 (after Buss), so a far target's null-space step stays where the
linearisation holds. λ adapts (Levenberg-Marquardt): a step that does not lower the levels'
errors, compared level by level (a task counts as zero once within tolerance), is tried again
without the lower levels' part, then refused and λ grows; an accepted step shrinks λ. When λ
passes ``max_damping`` before the budget is spent, the attempt goes on from its best pose,
nudged (three times at most). A joint at a limit that the step pushes further out is locked
for that step.

Reachability: a target beyond its tip's reach bound (``TreeChain.tip_reach``) is put below
every other task, and an attempt that ends with some tips met and others not goes on once
more with the missed ones below the met ones. An unreachable tip therefore stretches toward
its target in the null space of the others: they keep their targets wherever their own
joints can make up for the shared ones.
"""

from dataclasses import dataclass, replace
import math
from typing import Mapping, Optional, Union

from ik_node.errors import IKInputError
from ik_node.options import DEFAULT_ORIENTATION_TOLERANCE, DEFAULT_POSITION_TOLERANCE
from ik_node.result import STATUS_NOT_CONVERGED, STATUS_REACHED
from ik_node.rotations import rotation_vector_from_matrix
from ik_node.tree.chain import TreeChain
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['TipTarget', 'TipResult', 'TreeIKResult', 'TreeSolveOptions', 'solve_tree',
           'MODE_TARGET', 'MODE_HOLD', 'MODE_FREE']

# TipResult.mode: what a tip was asked to do.
MODE_TARGET = 'target'
MODE_HOLD = 'hold'
MODE_FREE = 'free'


@dataclass(frozen=True)
class TipTarget:
    """
    What one tip should reach: a (4, 4) pose or a (3,) position [m] in the base_link frame.

    ``position_weight`` and ``orientation_weight`` (>= 0, not both 0) scale the tip's rows;
    ``priority`` 0 is solved first, 1 in the null space of 0, and so on.
    """

    pose: np.ndarray
    position_weight: float = 1.0
    orientation_weight: float = 1.0
    priority: int = 0

    def __post_init__(self):
        """Check and freeze the target: IKInputError for a bad shape, NaN or weight."""
        a = np.array(self.pose, dtype=float)
        if a.shape not in ((4, 4), (3,)) or not np.all(np.isfinite(a)):
            raise IKInputError(f'a tip target must be a finite (4, 4) pose or (3,) position, '
                               f'got shape {a.shape}')
        a.setflags(write=False)
        object.__setattr__(self, 'pose', a)
        for name in ('position_weight', 'orientation_weight'):
            w = getattr(self, name)
            if not (isinstance(w, (int, float)) and math.isfinite(w) and w >= 0.0):
                raise IKInputError(f'{name} must be a finite number >= 0, got {w!r}')
        if self.position_weight == 0.0 and (a.shape == (3,) or self.orientation_weight == 0.0):
            raise IKInputError('a tip target with every weight 0 asks for nothing')
        if not isinstance(self.priority, int) or self.priority < 0:
            raise IKInputError(f'priority must be an int >= 0, got {self.priority!r}')

    @property
    def position_only(self) -> bool:
        """Return True for a (3,) position target (no orientation rows)."""
        return self.pose.shape == (3,)


@dataclass(frozen=True)
class TreeSolveOptions:
    """
    Options of :func:`solve_tree`.

    Tolerances [m], [rad] as :class:`ik_node.SolveOptions`; ``max_iterations`` per attempt;
    ``max_attempts`` starts (the seed, then random joint values from ``seed``);
    ``untargeted``: 'hold' keeps a tip without a target at its pose at the seed (a task at
    the last priority level of the targets), 'free' lets it move. ``damping`` λ₀ and
    ``max_damping`` bound λ (dimensionless: errors are in units of ``length_scale``).
    """

    position_tolerance: float = DEFAULT_POSITION_TOLERANCE
    orientation_tolerance: float = DEFAULT_ORIENTATION_TOLERANCE
    max_iterations: int = 200
    max_attempts: int = 1
    untargeted: str = MODE_HOLD
    damping: float = 1e-4
    max_damping: float = 1e3
    seed: int = 0

    def __post_init__(self):
        """Raise IKInputError naming the option for a value out of range."""
        for name in ('position_tolerance', 'orientation_tolerance', 'damping', 'max_damping'):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0.0):
                raise IKInputError(f'option {name} must be a finite number > 0, got {v!r}')
        for name in ('max_iterations', 'max_attempts'):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise IKInputError(f'option {name} must be an int >= 1, got {v!r}')
        if self.untargeted not in (MODE_HOLD, MODE_FREE):
            raise IKInputError(f"option untargeted must be 'hold' or 'free', "
                               f'got {self.untargeted!r}')
        if self.max_damping < self.damping:
            raise IKInputError('option max_damping must be at least damping')


@dataclass(frozen=True)
class TipResult:
    """
    One tip's outcome: errors by FK of the result's ``q`` against its task.

    ``mode`` is 'target', 'hold' (the pose at the seed) or 'free' (no task: errors nan,
    success True). ``orientation_error`` is nan for a position-only target.
    """

    tip_link: str
    mode: str
    success: bool
    position_error: float
    orientation_error: float


@dataclass(frozen=True)
class TreeIKResult:
    """
    Outcome of :func:`solve_tree`.

    ``q`` (n,) the best joint vector found (inside the limits, read-only); ``success`` when
    every tip with a task (targets and holds) is within both tolerances; ``tips`` one
    :class:`TipResult` per tip in ``tip_links`` order; ``position_error`` and
    ``orientation_error`` the largest over the tips with a task (nan when none has one).
    """

    q: np.ndarray
    success: bool
    tips: tuple
    iterations: int
    attempts: int
    status: str
    message: str = ''
    method: str = 'tree_dls'

    def __post_init__(self):
        """Freeze ``q``."""
        q = np.array(self.q, dtype=float)
        q.setflags(write=False)
        object.__setattr__(self, 'q', q)

    def tip(self, tip_link: str) -> TipResult:
        """Return the result of the tip named ``tip_link``."""
        for r in self.tips:
            if r.tip_link == tip_link:
                return r
        raise IKInputError(f'{tip_link!r} is not a tip of this result '
                           f'(tips: {[r.tip_link for r in self.tips]})')

    @property
    def position_error(self) -> float:
        """Return the largest position error [m] over the tips with a task."""
        values = [r.position_error for r in self.tips if r.mode != MODE_FREE]
        return max(values) if values else math.nan

    @property
    def orientation_error(self) -> float:
        """Return the largest orientation error [rad] over the tips with an orientation."""
        values = [r.orientation_error for r in self.tips
                  if r.mode != MODE_FREE and not math.isnan(r.orientation_error)]
        return max(values) if values else math.nan


@dataclass(frozen=True)
class _Task:
    """A tip's task as the iteration uses it."""

    tip: int
    target: TipTarget
    mode: str


def _tasks(tree: TreeChain, targets: Mapping, q0: np.ndarray,
           untargeted: str) -> list[_Task]:
    """Return the tasks of ``targets`` {tip: TipTarget or pose}, holds added."""
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
            # Out of any reach: below every other task, so it stretches toward its target in
            # the null space of the tips it could drag off theirs.
            t = replace(t, priority=last + 1)
        tasks.append(_Task(i, t, MODE_TARGET))
    if untargeted == MODE_HOLD:
        T0 = tree.fk(q0)
        for i in range(len(tree.tip_links)):
            if i not in given:
                tasks.append(_Task(i, TipTarget(T0[i], priority=last), MODE_HOLD))
    return tasks


def _errors(tasks: list[_Task], T: np.ndarray) -> list[tuple[float, float]]:
    """Return (position error [m], orientation error [rad] or nan) of each task at poses T."""
    out = []
    for task in tasks:
        goal = task.target.pose
        Ti = T[task.tip]
        if task.target.position_only:
            out.append((float(np.linalg.norm(goal - Ti[:3, 3])), math.nan))
        else:
            w = rotation_vector_from_matrix(np.ascontiguousarray(goal[:3, :3] @ Ti[:3, :3].T))
            out.append((float(np.linalg.norm(goal[:3, 3] - Ti[:3, 3])),
                        float(np.linalg.norm(w))))
    return out


def _met(target: TipTarget, dp: float, do: float, opts: TreeSolveOptions) -> bool:
    """Return True when errors (dp [m], do [rad]) meet the tolerances of the rows asked for."""
    position = target.position_weight == 0.0 or dp <= opts.position_tolerance
    orientation = (math.isnan(do) or target.orientation_weight == 0.0
                   or do <= opts.orientation_tolerance)
    return bool(position and orientation)


class _Problem:
    """The tasks grouped by level, with the weighted residual and Jacobian of each level."""

    def __init__(self, tree: TreeChain, tasks: list[_Task], opts: TreeSolveOptions):
        self.tree = tree
        self.tasks = tasks
        self.opts = opts
        self.levels = sorted({t.target.priority for t in tasks})
        L = tree.length_scale
        # Per task: the rows of the tip's 6 it uses and their weights.
        self.rows: list[np.ndarray] = []
        self.weights: list[np.ndarray] = []
        for t in tasks:
            wp, wo = t.target.position_weight / L, t.target.orientation_weight
            if t.target.position_only or wo == 0.0:
                self.rows.append(np.arange(3))
                self.weights.append(np.full(3, wp))
            elif wp == 0.0:
                self.rows.append(np.arange(3, 6))
                self.weights.append(np.full(3, wo))
            else:
                self.rows.append(np.arange(6))
                self.weights.append(np.array([wp] * 3 + [wo] * 3))

    def residuals(self, T: np.ndarray) -> list[np.ndarray]:
        """Return each task's weighted residual e_i."""
        out = []
        for t, rows, w in zip(self.tasks, self.rows, self.weights):
            goal, Ti = t.target.pose, T[t.tip]
            e = np.zeros(6)
            if t.target.position_only:
                e[:3] = goal - Ti[:3, 3]
            else:
                e[:3] = goal[:3, 3] - Ti[:3, 3]
                e[3:] = rotation_vector_from_matrix(
                    np.ascontiguousarray(goal[:3, :3] @ Ti[:3, :3].T))
            out.append(w * e[rows])
        return out

    def merit(self, T: np.ndarray) -> tuple[tuple[float, ...], bool]:
        """
        Return (the cost of each level, every task within tolerance) at tip poses ``T``.

        A task's cost is its squared weighted residual; a task within both tolerances
        counts 0, so a met primary task does not veto steps that help the next level.
        """
        cost = dict.fromkeys(self.levels, 0.0)
        done = True
        for t, e, (dp, do) in zip(self.tasks, self.residuals(T), _errors(self.tasks, T)):
            if not _met(t.target, dp, do, self.opts):
                done = False
                cost[t.target.priority] += float(e @ e)
        return tuple(cost[k] for k in self.levels), done

    def step(self, q: np.ndarray, T: np.ndarray, J: np.ndarray, lam: float) -> np.ndarray:
        """
        Return (levels, n): each level's part of the damped step at ``q``, summed = dq.

        Joints at a limit that the summed step pushes further out are locked and the step
        is solved again (at most three times).
        """
        tree = self.tree
        lock = np.zeros(tree.n, dtype=bool)
        es = self.residuals(T)
        for k, t in enumerate(self.tasks):
            size = float(np.linalg.norm(es[k]))
            if t.target.priority != self.levels[0] and size > _LOWER_LEVEL_CLAMP:
                # Clamped (Buss): a far target of a lower level pulls no harder than one a
                # short step away, so its null-space step stays where the linearisation holds.
                es[k] = es[k] * (_LOWER_LEVEL_CLAMP / size)
        for _ in range(3):
            parts = self._levels_step(J, es, lam, lock)
            dq = parts.sum(axis=0)
            out = (((q <= tree.lower + 1e-12) & (dq < 0.0))
                   | ((q >= tree.upper - 1e-12) & (dq > 0.0))) & ~lock
            if not out.any():
                break
            lock |= out
        return parts

    def _levels_step(self, J: np.ndarray, es: list[np.ndarray], lam: float,
                     lock: np.ndarray) -> np.ndarray:
        n = self.tree.n
        N = np.diag((~lock).astype(float))
        dq = np.zeros(n)
        parts = np.zeros((len(self.levels), n))
        for li, level in enumerate(self.levels):
            blocks = [(k, t) for k, t in enumerate(self.tasks) if t.target.priority == level]
            Jl = np.vstack([self.weights[k][:, None] * J[6 * t.tip + self.rows[k]]
                            for k, t in blocks])
            el = np.concatenate([es[k] for k, _ in blocks])
            A = Jl @ N
            r = el - Jl @ dq
            H = A @ A.T + lam * lam * np.eye(A.shape[0])
            parts[li] = N @ (A.T @ np.linalg.solve(H, r))
            dq = dq + parts[li]
            # Remove the row space of A from the null space left to the next levels.
            _, s, Vt = np.linalg.svd(A, full_matrices=False)
            rank = int(np.sum(s > 1e-9 * max(1.0, s[0] if s.size else 1.0)))
            V = Vt[:rank].T
            N = N - V @ V.T
        return parts


def solve_tree(tree: TreeChain, targets: Mapping[str, Union[ArrayLike, TipTarget, None]],
               q0: Optional[ArrayLike] = None,
               options: Optional[TreeSolveOptions] = None) -> TreeIKResult:
    """
    Solve IK for several tips of ``tree`` at once (reference implementation, see module doc).

    targets: {tip link: (4, 4) pose, (3,) position [m] (base_link frame) or TipTarget};
    None or a missing tip means no target (held or free, ``options.untargeted``). q0: (n,)
    seed [rad or m], clipped into the limits; None starts at mid-range. Unreachable targets
    give ``success=False`` and the best attempt, never an exception; misuse (an unknown tip,
    a bad shape, NaN) raises IKInputError.
    """
    opts = TreeSolveOptions() if options is None else options
    if not isinstance(opts, TreeSolveOptions):
        raise IKInputError('options must be a TreeSolveOptions')
    start = tree.mid.copy() if q0 is None else tree.clip(tree.check_q(q0, 'q0'))
    tasks = _tasks(tree, targets, start, opts.untargeted)
    problem = _Problem(tree, tasks, opts)
    rng = np.random.default_rng(opts.seed)
    best_q, best_merit, best_done, iterations, attempts = start, None, False, 0, 0
    for attempt in range(opts.max_attempts):
        q = start if attempt == 0 else tree.random_q(rng)
        q, merit, done, used = _attempt(problem, q, rng)
        iterations += used
        attempts += 1
        if best_merit is None or merit < best_merit:
            best_q, best_merit, best_done = q, merit, done
        if done:
            break
    if not best_done:
        # Some tips met, some not: once more from the best pose with the missed ones one
        # level below the rest, so they stretch on in the null space of the met ones.
        polish = _demoted(problem, best_q)
        if polish is not None:
            q, merit, done, used = _attempt(polish, best_q, rng)
            iterations += used
            if _count_met(polish, q) >= _count_met(problem, best_q):
                best_q = q
    return _result(tree, problem, best_q, iterations, attempts)


def _count_met(problem: _Problem, q: np.ndarray) -> int:
    """Return how many of the problem's tasks are within tolerance at ``q``."""
    errors = _errors(problem.tasks, problem.tree.fk(q))
    return sum(_met(t.target, dp, do, problem.opts) for t, (dp, do) in zip(problem.tasks, errors))


def _demoted(problem: _Problem, q: np.ndarray) -> Optional[_Problem]:
    """Return the problem with its missed tasks below the rest, or None if none is met."""
    errors = _errors(problem.tasks, problem.tree.fk(q))
    met = [_met(t.target, dp, do, problem.opts) for t, (dp, do) in zip(problem.tasks, errors)]
    if not any(met) or all(met):
        return None
    last = max(t.target.priority for t in problem.tasks)
    tasks = [t if ok else _Task(t.tip, replace(t.target, priority=last + 1), t.mode)
             for t, ok in zip(problem.tasks, met)]
    return _Problem(problem.tree, tasks, problem.opts)


# Nudges of a stalled attempt before it ends.
_NUDGES = 3

# The largest weighted residual of a lower-level task a step aims at (units of
# length_scale, or rad).
_LOWER_LEVEL_CLAMP = 0.1


def _attempt(problem: _Problem, q: np.ndarray,
             rng: np.random.Generator) -> tuple[np.ndarray, tuple, bool, int]:
    """
    Run one LM-damped attempt from ``q``: (best q, its merit, every task met, iterations).

    When no step lowers the errors any more (λ beyond ``max_damping``) and the budget is not
    spent, the attempt goes on from the best pose nudged by ~0.3 rad [or 0.03 m], up to three
    times: plain Gauss-Newton steps can settle on a saddle such as a straight elbow, which a
    nudge leaves; a true local minimum is left to a restart.
    """
    tree, opts = problem.tree, problem.opts
    lam = opts.damping
    T, J = tree.fk_and_jacobian(q)
    merit, done = problem.merit(T)
    best_q, best_merit = q, merit
    scale = np.where(tree.prismatic, 0.03, 0.3)
    it = nudges = 0
    while not done and it < opts.max_iterations:
        it += 1
        parts = problem.step(q, T, J, lam)
        # Without the lower levels' part when the whole step fails: a null-space step is
        # null only to first order, and a long one may undo the levels above it.
        for factor in (1.0, 0.0) if len(parts) > 1 else (1.0,):
            dq = parts[0] + factor * parts[1:].sum(axis=0)
            q_new = np.clip(q + dq, tree.lower, tree.upper)
            T_new, J_new = tree.fk_and_jacobian(q_new)
            merit_new, done_new = problem.merit(T_new)
            if done_new or merit_new < merit:
                break
        if done_new or merit_new < merit:
            q, T, J, merit, done = q_new, T_new, J_new, merit_new, done_new
            lam = max(opts.damping, lam * 0.3)
            if done or merit < best_merit:
                best_q, best_merit = q, merit
        else:
            lam *= 4.0
            if lam > opts.max_damping:
                nudges += 1
                if nudges > _NUDGES:
                    break       # a local minimum: a restart elsewhere does better
                q = np.clip(best_q + rng.normal(0.0, 1.0, tree.n) * scale,
                            tree.lower, tree.upper)
                T, J = tree.fk_and_jacobian(q)
                merit, done = problem.merit(T)
                lam = opts.damping
                if done:
                    best_q, best_merit = q, merit
    return best_q, best_merit, bool(done and best_q is q), it


def _result(tree: TreeChain, problem: _Problem, q: np.ndarray, iterations: int,
            attempts: int) -> TreeIKResult:
    T = tree.fk(q)
    opts = problem.opts
    by_tip = {t.tip: (t, err) for t, err in zip(problem.tasks, _errors(problem.tasks, T))}
    tips = []
    for i, name in enumerate(tree.tip_links):
        if i not in by_tip:
            tips.append(TipResult(name, MODE_FREE, True, math.nan, math.nan))
            continue
        task, (dp, do) = by_tip[i]
        tips.append(TipResult(name, task.mode, _met(task.target, dp, do, opts), dp, do))
    success = all(r.success for r in tips)
    missed = [f'{r.tip_link} ({r.position_error:.3g} m, {r.orientation_error:.3g} rad)'
              for r in tips if not r.success]
    message = '' if success else 'tips off their targets: ' + ', '.join(missed)
    return TreeIKResult(q=q, success=success, tips=tuple(tips), iterations=iterations,
                        attempts=attempts,
                        status=STATUS_REACHED if success else STATUS_NOT_CONVERGED,
                        message=message)
