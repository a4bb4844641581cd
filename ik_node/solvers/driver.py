# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The one restart driver every ``ik_node.solve`` method runs through.

A method supplies only an *attempt*: ``attempt(start, budget) -> (q, iterations)``, one run
of its kernel from one start configuration. Everything else is here, once:

- budget: ``max_attempts`` and ``timeout`` over all attempts (:class:`Budget`); an attempt
  that is long checks :meth:`Budget.expired` itself; the timeout counts solving, not the
  loading of kernels (:func:`ik_node._jit.solving_clock`);
- starts: the seed first, then random draws within the limits (:class:`Starts`);
- the final check: forward kinematics of the q an attempt returns against the tolerances
  (:func:`final_check`); a kernel's own claim is never trusted, so a method succeeds only
  for the q it returns;
- ranking of failed attempts: position first, then orientation (:func:`rank`);
- choice among solutions: the one nearest the seed in weighted joint distance
  (:func:`pick_nearest`), so a seed close to a solution never jumps to another IK branch;
- the seed's branch first: a solution from the seed is taken at once, and when a method's
  attempt from the seed fails on a target near the seed's tip, a local damped least-squares
  attempt from the seed (the smallest joint motion, ``rescue``) runs before any random
  start, so a warm-started small step does not land on a far branch while a near solution
  exists (the result's ``method`` says 'dls' when that attempt solved);
- joints the task leaves free stay where the seed had them (:func:`keep_seed_joints`);
- with ``max_joint_change``, every answer stays that close to the seed, joint by joint:
  restarts start within that distance of it, an answer beyond it is not a solution, and a
  failed attempt's q is brought back within it (:func:`within_reach_of_seed`);
- the status: reached, out of reach (provably beyond the reach bound, beyond the arm's
  stretched reach found numerically (:mod:`ik_node.solvers.reach`), or position attempts
  from several starts stretched to the same distance from it), the point only (a pose on an
  arm with n < 6), or did not converge.
"""

import math
from typing import Callable, NamedTuple, Optional

from ik_node import kinematics
from ik_node._jit import njit, solving_clock
from ik_node.collision import solver_hook
from ik_node.result import (IKResult, STATUS_BLOCKED, STATUS_NOT_CONVERGED, STATUS_OUT_OF_REACH,
                            STATUS_POSITION_ONLY, STATUS_REACHED, STATUS_TOO_FAR)
from ik_node.solvers.outcome import failure_text, out_of_reach, RESCUE_METHOD
from ik_node.solvers.reach import beyond_stretched_reach
from ik_node.solvers.records import make_target
from ik_node.solvers.restarts import (FAR_PROBES, RESCUE_NEAR, SAME_END_ATTEMPTS,
                                      SAME_END_RELATIVE, target_errors_into,
                                      UNDERACTUATED_TRIES, wrap_in_place)
import numpy as np

__all__ = ['Budget', 'Starts', 'Check', 'final_check', 'rank', 'pick_nearest',
           'wrap_continuous', 'wrap_in_place', 'out_of_reach', 'keep_seed_joints',
           'point_only_status',
           'run_restarts']

# The driver's constants (see ik_node.solvers.restarts, the compiled driver).
_SAME_END_ATTEMPTS = SAME_END_ATTEMPTS
_SAME_END_RELATIVE = SAME_END_RELATIVE
_UNDERACTUATED_TRIES = UNDERACTUATED_TRIES
_FAR_PROBES = FAR_PROBES


class Budget:
    """
    Attempt and time budget of one solve.

    The time is that of :func:`ik_node._jit.solving_clock` [s]: wall-clock time less the time
    spent loading or compiling kernels, so a first solve in a process that loads them gets
    the attempts a later one gets.
    """

    __slots__ = ('max_attempts', 'deadline', 'attempts')

    def __init__(self, max_attempts: int, timeout: float):
        """Start the clock now."""
        self.max_attempts = max_attempts
        self.deadline = solving_clock() + timeout
        self.attempts = 0

    def expired(self) -> bool:
        """Return True once the time budget is spent."""
        return solving_clock() >= self.deadline

    def take(self) -> bool:
        """Count one more attempt; False once the budget is spent (the first always runs)."""
        if self.attempts and (self.attempts >= self.max_attempts
                              or solving_clock() >= self.deadline):
            return False
        self.attempts += 1
        return True


class Starts:
    """Start configurations: the seed first, then draws within the limits (lazy, seeded)."""

    def __init__(self, chain, q0: np.ndarray, rng_seed, max_change: Optional[float] = None):
        """
        Start from ``q0``; later starts come from ``default_rng(rng_seed)``.

        max_change: later starts are drawn within this distance of q0, joint by joint (and
        the limits), instead of over the whole range.
        """
        self.chain = chain
        self.q0 = q0
        self.rng_seed = rng_seed
        self.max_change = max_change
        self._rng: Optional[np.random.Generator] = None

    def start(self, attempt: int) -> np.ndarray:
        """Return the start of attempt number ``attempt`` (1 = the seed)."""
        if attempt == 1:
            return self.q0
        if self._rng is None:
            self._rng = np.random.default_rng(self.rng_seed)
        if self.max_change is not None:
            step = self._rng.uniform(-self.max_change, self.max_change, self.chain.n)
            return np.clip(self.q0 + step, self.chain.lower, self.chain.upper)
        q = self.chain.random_q(self._rng)
        continuous = self.chain.continuous
        if continuous.any():
            # Continuous joints are drawn in +-pi around the seed, not around 0.
            q[continuous] += self.q0[continuous]
        return q


class Check(NamedTuple):
    """Outcome of :func:`final_check`: errors of q by FK [m, rad] and whether both are met."""

    position_error: float
    orientation_error: float
    ok: bool
    collision: Optional[str] = None     # an answer within tolerance that collides: why


def final_check(chain, target: np.ndarray, q: np.ndarray, opts) -> Check:
    """
    Judge ``q`` against ``target`` by the chain's forward kinematics and the tolerances.

    The one place where success is decided: every method's every attempt ends here.
    orientation_error is 0.0 for a position target (the result reports nan).
    """
    return _check(chain, make_target(target), q, opts)


def _check(chain, record, q: np.ndarray, opts) -> Check:
    """:func:`final_check` with the target as its record (made once per solve)."""
    perr, oerr = _target_errors(chain.model, record, q)
    ok = perr <= opts.position_tolerance and (not record.pose
                                              or oerr <= opts.orientation_tolerance)
    blocked = solver_hook.collision_reason(chain, q, opts) if ok else None
    return Check(perr, oerr, ok and blocked is None, blocked)


def _target_errors(model, target, q):
    """Return (position error [m], orientation error [rad], 0 for a point) of the tip at q."""
    m = model.origin_R.shape[0]
    return target_errors_into(model, target, q, np.empty((m + 1, 3, 3)), np.empty((m + 1, 3)),
                              np.empty((m, 3)))


def rank(check: Check, opts) -> tuple:
    """
    Return the sort key of a failed attempt: lower is better.

    Position first, as a user expects from an unreachable target: get as close as possible
    (errors within the tolerance count as equal), then orient.
    """
    return (max(check.position_error - opts.position_tolerance, 0.0), check.orientation_error)


def pick_nearest(solutions: list, q_ref: np.ndarray, w: np.ndarray):
    """Return the entry of ``solutions`` [(q, ...)] whose q is nearest ``q_ref`` (weights w)."""
    return min(solutions, key=lambda s: float(np.sum(w * (s[0] - q_ref) ** 2)))


def wrap_continuous(q: np.ndarray, q_ref: np.ndarray, continuous: np.ndarray,
                    chain=None) -> np.ndarray:
    """
    Return a copy of ``q`` with joints moved by multiples of 2π to lie nearest ``q_ref``.

    Continuous joints always; with ``chain``, also revolute joints whose range spans more
    than 2π (a UR joint in [-2π, 2π]), as far as their limits allow: the same pose, without
    a turn of 2π away from the seed.
    """
    out = np.array(q, dtype=float)
    if chain is None:
        n = out.shape[0]
        wide, lower, upper = np.zeros(n, dtype=bool), np.full(n, -np.inf), np.full(n, np.inf)
    else:
        wide, lower, upper = chain.wide_revolute, chain.lower, chain.upper
    wrap_in_place(out, np.asarray(q_ref, dtype=float), np.asarray(continuous, dtype=bool),
                  wide, lower, upper)
    return out


@njit
def _clamp_and_wrap(q, q0, continuous, wide, lower, upper):
    """Return ``q`` clamped into the limits, then wrapped (:func:`wrap_in_place`)."""
    out = np.minimum(np.maximum(q, lower), upper)
    wrap_in_place(out, q0, continuous, wide, lower, upper)
    return out


def keep_seed_joints(chain, target: np.ndarray, q: np.ndarray, q0: np.ndarray, opts,
                     check: Check) -> tuple:
    """
    Put back at the seed every joint of solution ``q`` that the target does not need moved.

    A solution found from a random start (or a kernel that turned a joint the task does not
    constrain, such as a wrist roll about a position target's axis) would otherwise move such
    joints for nothing. Joints are tried one at a time; a change is kept only while the
    final check still passes. Returns (q, check).
    """
    moved = np.flatnonzero(q != q0)
    if moved.size == 0:
        return q, check
    for i in moved:
        trial = q.copy()
        trial[i] = q0[i]
        c = final_check(chain, target, trial, opts)
        if c.ok:
            q, check = trial, c
    return q, check


def within_reach_of_seed(q: np.ndarray, q0: np.ndarray, max_change: Optional[float]
                         ) -> tuple[np.ndarray, int, float]:
    """
    Return q brought within ``max_change`` of q0 joint by joint, with its farthest joint.

    Returns (q, index of the joint farthest from q0, its distance); q itself when
    ``max_change`` is None or no joint is farther.
    """
    if max_change is None:
        return q, -1, 0.0
    change = np.abs(q - q0)
    j = int(np.argmax(change))
    if change[j] <= max_change:
        return q, j, float(change[j])
    return np.clip(q, q0 - max_change, q0 + max_change), j, float(change[j])


def run_restarts(chain, target: np.ndarray, q0: np.ndarray, opts, prepare: Callable,
                 method: str, w: Optional[np.ndarray] = None,
                 rescue: Optional[Callable] = None) -> IKResult:
    """
    Solve with the attempts of ``prepare`` from q0, then from random starts.

    prepare(chain, target, opts) -> attempt, attempt(start, budget) -> (q, iterations): the
    method's kernel. target: validated (4, 4) pose or (3,) position; q0 (n,) inside the
    limits; opts: the SolveOptions; w (n,): joint weights for the choice among solutions
    (None: ones). rescue: a prepare like ``prepare`` (of :data:`RESCUE_METHOD` attempts)
    whose attempt runs from the seed once, right after the method's own attempt from the seed
    failed on a target near the seed's tip (None: no such attempt); the result's ``method``
    then names the one that solved.

    Out of reach: once a pose attempt misses the position, position-only attempts of the
    same method (cheap, and free of the orientation trade-off) probe whether the point can
    be reached at all; when they keep stretching to the same distance, the target is out of
    reach, and when one meets the point, pose attempts resume from there.
    """
    pose = target.shape == (4, 4)
    record = make_target(target)
    tp = record.position
    tol_p = opts.position_tolerance
    beyond_reach = out_of_reach(chain, tp, tol_p)
    # Restarts cannot help a target beyond the arm's reach: one attempt stretches toward it.
    budget = Budget(opts.max_attempts if (opts.restarts and not beyond_reach) else 1,
                    opts.timeout)
    max_change = opts.max_joint_change
    starts = Starts(chain, q0, opts.rng_seed, max_change)
    attempt = prepare(chain, target, opts)
    too_far = None      # (distance, joint) of the nearest answer beyond max_change
    held = False        # an attempt was brought back within max_change
    probe = None
    underactuated = pose and chain.n < 6
    lower, upper, continuous = chain.lower, chain.upper, chain.continuous
    wide = chain.wide_revolute
    solutions = []
    best = None
    blocked = None      # why an answer within tolerance was refused (a collision)
    ends: list[float] = []
    point_reached = 0
    iterations = 0
    stretched = False
    position_met = False
    probing = False
    next_start = None
    use_rescue = False
    far_probes = 0
    while budget.take():
        start = starts.start(budget.attempts) if next_start is None else next_start
        next_start = None
        from_seed = budget.attempts == 1 or use_rescue
        rescued = use_rescue and rescue is not None
        if use_rescue and rescue is not None:
            use_rescue = False
            q, it = rescue(chain, target, opts)(q0, budget)
        elif probing:
            if probe is None:
                probe = prepare(chain, tp, opts)
            q, it = probe(start, budget)
        else:
            q, it = attempt(start, budget)
        iterations += int(it)
        # (a registered method may return any sequence: the compiled wrap takes float64)
        q = _clamp_and_wrap(np.ascontiguousarray(q, dtype=float), q0, continuous, wide, lower,
                            upper)
        check = _check(chain, record, q, opts)
        if check.ok and budget.attempts > 1:
            q, check = keep_seed_joints(chain, target, q, q0, opts, check)
        near, joint, change = within_reach_of_seed(q, q0, max_change)
        if near is not q:
            # Beyond max_joint_change: not an answer; what is left of it within the bound
            # is a failed attempt like any other.
            if check.ok and (too_far is None or change < too_far[0]):
                too_far = (change, joint)
            held = True
            q = near
            check = _check(chain, record, q, opts)
        if check.ok:
            solutions.append((q, check))
            if rescued:
                method = RESCUE_METHOD      # the answer is the rescue's, and says so
            if len(solutions) >= opts.solutions or from_seed:
                break
            continue
        blocked = check.collision or blocked
        key = rank(check, opts)
        if best is None or key < best[0]:
            best = (key, q, check)
        if (not position_met and not beyond_reach and check.position_error > tol_p
                and _beyond_stretched(chain, tp, tol_p, budget)):
            # Beyond the arm's stretched reach: no restarts; position attempts from where
            # this one ended and from the seed give the best stretched pose.
            far_probes += 1
            if far_probes <= _FAR_PROBES:
                probing, next_start = True, (q if far_probes == 1 else q0)
                continue
            stretched = True
            break
        if (rescue is not None and budget.attempts == 1 and not beyond_reach
                and _near_seed(chain, q0, tp)):
            use_rescue = True
            continue
        if check.position_error <= tol_p:
            if probing:
                # The point is reachable: back to pose attempts, from where it is met.
                probing, next_start = False, q
            position_met = True
            if underactuated:
                point_reached += 1
                if point_reached >= _UNDERACTUATED_TRIES:
                    break
            continue
        if position_met:
            # n < 6: attempts after the point was first met count too (they polish the
            # orientation of a pose the arm cannot take, and may miss the point itself).
            if underactuated:
                point_reached += 1
                if point_reached >= _UNDERACTUATED_TRIES:
                    break
            continue
        if pose and not probing:
            probing = True
            continue
        if _held_by_a_limit(chain, q, tp):
            # A local minimum made by a joint limit, which other starts may avoid.
            ends.clear()
            continue
        ends.append(check.position_error)
        if len(ends) >= _SAME_END_ATTEMPTS and _same_end(ends[-_SAME_END_ATTEMPTS:], tol_p):
            stretched = True
            break
    if solutions:
        q, check = solutions[0] if len(solutions) == 1 else pick_nearest(
            solutions, q0, np.ones(chain.n) if w is None else w)
        status, message = STATUS_REACHED, ''
    else:
        assert best is not None   # budget gives one attempt at least, and it failed
        _, q, check = best
        status = STATUS_OUT_OF_REACH if (beyond_reach or stretched) else STATUS_NOT_CONVERGED
        status = point_only_status(chain, pose, status, check.position_error, tol_p)
        message = _failure_message(status, beyond_reach, budget.attempts, check, pose)
        if held and not beyond_reach:
            # Attempts were held near the seed: an end they share is no proof of reach.
            status = STATUS_TOO_FAR
            message = (_failure_message(status, False, budget.attempts, check, pose)
                       + f'; attempts held within max_joint_change {max_change:g} of the seed')
            if too_far is not None:
                message += (f'; answers within tolerance move {chain.joint_names[too_far[1]]} '
                            f'{too_far[0]:.4g} from it')
        if blocked is not None:
            message += f'; answers within tolerance collide: {blocked}'
            if status == STATUS_NOT_CONVERGED:
                status = STATUS_BLOCKED
    return IKResult(q=q, success=bool(solutions), position_error=check.position_error,
                    orientation_error=check.orientation_error if pose else math.nan,
                    iterations=iterations, method=method, attempts=budget.attempts,
                    message=message, status=status)


def point_only_status(chain, pose: bool, status: str, position_error: float,
                      tol_p: float) -> str:
    """
    Return STATUS_POSITION_ONLY for a failed pose solve of an arm with n < 6 that met the point.

    Such an arm can take only some orientations at a point: the answer is no failure to
    converge but the nearest the joints allow. Any other ``status`` is returned unchanged.
    """
    if (status == STATUS_NOT_CONVERGED and pose and chain.n < 6
            and position_error <= tol_p):
        return STATUS_POSITION_ONLY
    return status


def _near_seed(chain, q0: np.ndarray, position: np.ndarray) -> bool:
    """Return True when the seed's tip is within :data:`RESCUE_NEAR` of the arm's length."""
    return bool(np.linalg.norm(chain.fk(q0)[:3, 3] - position)
                <= RESCUE_NEAR * chain.length_scale)


def _beyond_stretched(chain, position: np.ndarray, tol_p: float, budget: Budget) -> bool:
    """Return True beyond the stretched reach; its one-off estimate does not eat the budget."""
    t0 = solving_clock()
    beyond = beyond_stretched_reach(chain, position, tol_p)
    budget.deadline += solving_clock() - t0
    return beyond


def _held_by_a_limit(chain, q: np.ndarray, position: np.ndarray) -> bool:
    """
    Return True when a joint of ``q`` sits on a limit that keeps the tip from ``position``.

    That is, the descent direction of the position error, Jᵀe, pushes the joint outward (a
    local minimum made by the limit). A joint on a limit with no such push (a UR elbow
    stretched straight at -2π) holds nothing.
    """
    on_lower = q <= chain.lower
    on_upper = q >= chain.upper
    if not (on_lower.any() or on_upper.any()):
        return False
    J = kinematics.jacobian(chain.model, chain.n, q)
    e = position - kinematics.tip_pose(chain.model, q)[:3, 3]
    g = J[:3].T @ e
    eps = 1e-3 * math.sqrt(float(e @ e)) * chain.length_scale
    return bool(np.any((on_lower & (g < -eps)) | (on_upper & (g > eps))))


def _same_end(errors: list, tol_p: float) -> bool:
    """Return True when position attempts stretched to the same distance from the target."""
    return max(errors) - min(errors) <= _SAME_END_RELATIVE * max(errors) + 0.1 * tol_p


def _failure_message(status: str, beyond_reach: bool, attempts: int, check: Check,
                     pose: bool) -> str:
    """Return the message of a failed solve: why, and the best errors reached."""
    return failure_text(status, beyond_reach, attempts, check.position_error,
                        check.orientation_error, pose)
