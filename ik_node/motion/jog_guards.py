# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Speed factors of a jog near singularities, joint limits and contact, compiled as one kernel.

Each guard compares the state now with the state ahead (where the arm would come to rest if
it braked from the wanted velocity, see :func:`braking_lookahead`) and returns a factor in
[0, 1] for the wanted velocity. Motion that leaves the danger (the condition number falls,
the clearance grows, the joint turns away from its limit) always gets 1, so the arm is never
stuck; motion into it slows smoothly with the distance left.

:func:`guarded_velocity` runs them all for one control cycle of a jog in one compiled call
(the velocity limit, the Jacobian and its condition number ahead, the joint limits, the
clearances ahead through the collision kernel): at a kHz the Python and numpy overhead of
a dozen small array operations was most of the cycle. Its settings, limits and model come
in a :class:`GuardRecord` built once per jogger (:func:`guard_record`).
"""

import math
from typing import NamedTuple

from ik_node._jit import njit
from ik_node.collision import kernels
from ik_node.collision.model import Capsules, pack_flat
from ik_node.collision.shapes import pack_obstacles
from ik_node.model import kinematics
import numpy as np

__all__ = ['GuardRecord', 'guard_record', 'guarded_velocity', 'pair_clearances',
           'braking_lookahead', 'singularity_scale', 'joint_limit_scale', 'clearance_scale',
           'GUARD_NONE', 'GUARD_VELOCITY', 'GUARD_SINGULARITY', 'GUARD_JOINT_LIMIT',
           'GUARD_COLLISION']

# Which guard slowed a step most (guarded_velocity's reason code).
GUARD_NONE = 0
GUARD_VELOCITY = 1          # a joint's velocity limit
GUARD_SINGULARITY = 2       # the condition number ahead
GUARD_JOINT_LIMIT = 3       # a joint's room before its limit (and margin)
GUARD_COLLISION = 4         # the clearance ahead


class GuardRecord(NamedTuple):
    """
    What the guards of one jogger judge with (:func:`guard_record`; arrays read-only).

    model: the chain's kinematics (the Jacobian ahead). F, K: the chain and its capsules
    flattened (:func:`ik_node.collision.model.pack_flat`), no capsules when ``collision`` is
    False; obstacles: their rows (o, ROW_SIZE). velocity, acceleration, jerk, lower, upper
    (n,): the limits; deceleration (n,) the one the slow-down before a joint limit plans with.
    The floats: :class:`ik_node.motion.jog.JogSettings`' of the same names; cutoff [m]: the
    clearance below which the collision kernel's distances are exact.
    """

    model: kinematics.ChainModel
    F: np.ndarray
    K: np.ndarray
    obstacles: np.ndarray
    collision: bool
    velocity: np.ndarray
    acceleration: np.ndarray
    jerk: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    deceleration: np.ndarray
    singularity_slowdown: float
    singularity_stop: float
    singularity_min_scale: float
    joint_limit_margin: float
    clearance_slowdown: float
    self_clearance_slowdown: float
    clearance_stop: float
    clearance_min_rate: float
    cutoff: float


def guard_record(chain, limits, settings, obstacles) -> GuardRecord:
    """
    Return the GuardRecord of a jogger of ``chain`` (limits, settings: a JogSettings).

    obstacles: None (the collision guard off) or a sequence of shapes (self-collision and
    those; IKInputError when the chain has no collision geometry).
    """
    if obstacles is None:
        none = np.zeros(0, dtype=np.int64)
        F, K = pack_flat(chain.model, Capsules(np.zeros((0, 2, 3)), np.zeros(0), none,
                                               np.zeros((0, 2), dtype=np.int64), none,
                                               np.zeros((0, 3)), np.zeros(1, dtype=np.int64)))
        rows = pack_obstacles(None)
    else:
        setup = chain.collision_setup
        F, K = setup.model.flat
        rows = setup.packed(tuple(obstacles)).rows
    st = settings
    return GuardRecord(
        chain.model, F, K, rows, obstacles is not None, limits.velocity, limits.acceleration,
        limits.jerk, chain.lower, chain.upper,
        st.joint_limit_deceleration * limits.acceleration, float(st.singularity_slowdown),
        float(st.singularity_stop), float(st.singularity_min_scale),
        float(st.joint_limit_margin), float(st.clearance_slowdown),
        float(st.self_clearance_slowdown), float(st.clearance_stop),
        float(st.clearance_min_rate),
        float(max(st.clearance_slowdown, st.self_clearance_slowdown)))


@njit
def braking_lookahead(v, acceleration, jerk, period):
    """
    Return the time [s] that moving on at ``v`` covers the braking distance, plus ``period``.

    A jerk-limited stop from v at rest acceleration (a and j the limits, (n,) each) takes
    t = |v| / a + a / j and covers about v t / 2: the slowest joint's t / 2 is returned,
    with one control period more for the step about to be taken.
    """
    t_max = 0.0
    for i in range(v.shape[0]):
        speed = abs(v[i])
        if speed > 0.0:
            t = speed / acceleration[i] + acceleration[i] / jerk[i]
            if t > t_max:
                t_max = t
    return 0.5 * t_max + period


@njit
def singularity_scale(k_now, k_ahead, slowdown, stop, min_scale):
    """
    Return the speed factor for a motion from condition number k_now toward k_ahead.

    1 while k_ahead <= slowdown or k_ahead <= k_now (moving away); else
    (stop - k_ahead) / (stop - slowdown) clipped to [min_scale, 1] (MoveIt Servo's
    thresholds: slowdown 17, hard stop 30).
    """
    if not k_ahead > slowdown or k_ahead <= k_now:
        return 1.0
    if not math.isfinite(k_ahead):
        return min_scale
    return min(max((stop - k_ahead) / (stop - slowdown), min_scale), 1.0)


@njit
def joint_limit_scale(q, v, lower, upper, margin, deceleration):
    """
    Return (factor, joint) that keeps each joint able to stop ``margin`` before its limit.

    A joint moving toward its limit with room d [rad or m] left before ``margin`` may move at
    sqrt(2 b d), b its ``deceleration`` (a part of its acceleration limit, so a jerk-limited
    stop fits): the factor is the smallest of allowed / |v| over the joints (1 when none is
    bound). joint: the index of the binding joint (the first of equals), -1 for none. Joints
    moving away from a limit, or without one (continuous), are never slowed. q, v, lower,
    upper, deceleration: (n,) arrays.
    """
    factor = 1.0
    joint = -1
    for i in range(q.shape[0]):
        room = (upper[i] - q[i] if v[i] > 0.0 else q[i] - lower[i]) - margin
        # (A joint without a limit has infinite room; nan only for a nan q, never bound.)
        allowed = math.sqrt(2.0 * deceleration[i] * (0.0 if room < 0.0 else room))
        speed = abs(v[i])
        if speed > allowed:
            ratio = allowed / speed
            if joint < 0 or ratio < factor:
                factor, joint = ratio, i
    return factor, joint


@njit
def clearance_scale(d_now, d_ahead, travel, slowdown, stop, min_rate):
    """
    Return (factor, pair) for a motion that changes each pair's clearance d_now -> d_ahead.

    d_now, d_ahead: (m,) signed clearances [m] of the checked pairs now and at the state
    ahead; travel: the largest joint change [rad or m] between the two states. A pair
    approaches when its clearance falls by more than ``min_rate`` [m per rad] of that travel
    (a link turning about its own axis next to another barely changes their clearance and is
    left to the final contact check); an approaching pair whose clearance ahead is under
    ``slowdown`` gets (d_ahead - stop) / (slowdown - stop) clipped to [0, 1]: 0 when the state
    ahead is within ``stop`` of contact. The factor is the smallest; pair: its index (the
    first of equals), -1 for none. A pair whose clearance grows (leaving a contact, too) is
    never slowed.
    """
    factor = 1.0
    pair = -1
    for i in range(d_now.shape[0]):
        ahead = d_ahead[i]
        if ahead < slowdown and d_now[i] - ahead > min_rate * travel:
            f = (ahead - stop) / (slowdown - stop)
            f = 0.0 if f < 0.0 else (1.0 if f > 1.0 else f)
            if f < factor:
                factor, pair = f, i
    return factor, pair


@njit
def pair_clearances(rec, q):
    """
    Return the signed clearances [m] at ``q`` (n,): the self pairs', then the obstacle pairs'.

    (p + k o,): p self pairs, then each of the k moving capsules against each of the o
    obstacles (:func:`ik_node.collision.kernels.distances`, exact below ``rec.cutoff``, lower
    bounds above it); empty when ``rec.collision`` is False.
    """
    d_self, d_obs, _ = kernels.distances(rec.F, rec.K, q, rec.obstacles, rec.cutoff)
    p = d_self.shape[0]
    d = np.empty(p + d_obs.size)
    d[:p] = d_self
    d[p:] = d_obs.ravel()
    return d


@njit
def _condition(J):
    """Return σ_max / σ_min of J (6, n), of its position rows with n < 6 (inf: singular)."""
    # As ik_node.motion.twist_ik.condition_number (the same LAPACK routine, singular values
    # only), so that the twist's own condition and the one ahead compare alike.
    return np.linalg.cond(J if J.shape[1] >= 6 else J[:3])


@njit
def _smallest(d, start, stop):
    out = math.inf
    for i in range(start, stop):
        if d[i] < out:
            out = d[i]
    return out


@njit
def guarded_velocity(rec, q, v, J, condition, d_now):
    """
    Return (v, scale, reason, condition, clearance, d_now) of one jog step at ``q``.

    v (n,): the wanted joint velocity, scaled as a whole to the velocity limits, then by the
    guards of the module docstring, each judging the state ahead ``q + v t``
    (:func:`braking_lookahead`): the condition number (twists only: J (6, n) the Jacobian
    at q; joint jogging: J (0, n)), the joint limits and, when ``rec.collision``, the
    clearances. condition: J's condition number when known (nan: computed here). d_now:
    the clearances at q (:func:`pair_clearances`) when known, else empty. Returns v scaled,
    the factor it got, the GUARD_* code of what set it, the condition number at q (nan for
    joint jogging or no motion), the smallest clearance at q [m] (inf without the collision
    guard or without motion), and the clearances at q used (empty when none were needed).
    """
    scale = 1.0
    reason = GUARD_NONE
    over = 0.0
    for i in range(v.shape[0]):
        r = abs(v[i]) / rec.velocity[i]
        if r > over:
            over = r
    if over > 1.0:
        scale, reason = 1.0 / over, GUARD_VELOCITY
    v = v * scale
    if not np.any(v):
        return v, scale, reason, math.nan, math.inf, d_now[:0]
    ahead = q + v * braking_lookahead(v, rec.acceleration, rec.jerk, 0.0)
    f, why = 2.0, GUARD_NONE        # (every factor is at most 1)
    if J.shape[0] == 0:
        condition = math.nan
    else:
        if math.isnan(condition):
            condition = _condition(J)
        n = q.shape[0]
        k_ahead = _condition(kinematics.jacobian(rec.model, n, ahead))
        f, why = singularity_scale(condition, k_ahead, rec.singularity_slowdown,
                                   rec.singularity_stop, rec.singularity_min_scale), \
            GUARD_SINGULARITY
    f_lim, _ = joint_limit_scale(q, v, rec.lower, rec.upper, rec.joint_limit_margin,
                                 rec.deceleration)
    if f_lim < f:
        f, why = f_lim, GUARD_JOINT_LIMIT
    clearance = math.inf
    if rec.collision:
        if d_now.shape[0] == 0:
            d_now = pair_clearances(rec, q)
        d_ahead = pair_clearances(rec, ahead)
        p = rec.K[2]
        clearance = min(_smallest(d_now, 0, p), _smallest(d_now, p, d_now.shape[0]))
        travel = np.max(np.abs(ahead - q))
        f_self, _ = clearance_scale(d_now[:p], d_ahead[:p], travel,
                                    rec.self_clearance_slowdown, rec.clearance_stop,
                                    rec.clearance_min_rate)
        if f_self < f:
            f, why = f_self, GUARD_COLLISION
        f_scene, _ = clearance_scale(d_now[p:], d_ahead[p:], travel, rec.clearance_slowdown,
                                     rec.clearance_stop, rec.clearance_min_rate)
        if f_scene < f:
            f, why = f_scene, GUARD_COLLISION
    if f < 1.0:
        v, scale, reason = v * f, scale * f, why
    return v, scale, reason, condition, clearance, d_now
