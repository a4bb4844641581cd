# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Null-space secondary objectives: costs h(q) whose gradient the solver projects out of J.

The solver adds Δq_null = -k (I - J⁺J) ∇h(q) to its primary step, so the objectives use the
redundant joint motion only and leave the tip (to first order) where the primary task wants
it. They compose by summing weighted costs:

- JointLimitAvoidance: h = Σ ((q_i - mid_i) / r_i)², r_i the half range, bounded joints only
  (h = 1 per joint at a limit).
- RestPosture: h = ½ Σ (q_i - rest_i)², [rad²] / [m²].
- Manipulability: h = -½ log det(J Jᵀ) (J Jᵀ is 6x6, or Jᵀ J when n < 6): large near
  singularities, so descending it keeps away from them.
- ObstacleClearance: h = ½ Σ max(0, margin - d)², d the distance [m] from points along the
  links (joint origins, link midpoints, the tip) to the surface of each obstacle sphere.
- CollisionClearance (:mod:`ik_node.collision.clearance`): the same cost over the URDF's
  collision geometry, self pairs and obstacles.
"""

from dataclasses import dataclass, field
import math
from typing import Any, NamedTuple, Sequence

from ik_node._jit import njit, readonly
from ik_node.collision.kernels import clearance_terms
from ik_node.errors import IKInputError
from ik_node.model import kinematics
from ik_node.spatial.linalg import cholesky_factor, cholesky_substitute, log_det_spd
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['Objective', 'JointLimitAvoidance', 'RestPosture', 'Manipulability',
           'ObstacleClearance', 'pack_objectives', 'EMPTY_OBJECTIVES', 'objectives_active',
           'PackedObjectives', 'ClearanceTerms', 'NO_CLEARANCE']

_MANIP_EPS = 1e-9


def _check_weight(weight: float) -> float:
    w = float(weight)
    if not math.isfinite(w) or w < 0.0:
        raise IKInputError(f'objective weight must be finite and >= 0, got {weight!r}')
    return w


class Objective:
    """Base of the secondary objectives: a weighted cost h(q) and its gradient."""

    weight: float

    def _fill(self, chain, packed: dict) -> None:
        raise NotImplementedError

    def cost(self, chain, q: ArrayLike) -> float:
        """Return the weighted cost h(q) of this objective alone."""
        qa = chain.check_q(q)
        return float(objective_cost(chain.model, chain.n, qa, chain.lower, chain.upper,
                                    pack_objectives(chain, [self])))

    def gradient(self, chain, q: ArrayLike) -> np.ndarray:
        """Return ∇h(q), (n,), of this objective alone."""
        qa = chain.check_q(q)
        return objective_gradient(chain.model, chain.n, qa, chain.lower, chain.upper,
                                  pack_objectives(chain, [self]))


@dataclass(frozen=True)
class JointLimitAvoidance(Objective):
    """Keep bounded joints near mid-range (continuous joints are ignored)."""

    weight: float = 1.0

    def _fill(self, chain, packed: dict) -> None:
        packed['limits'] += _check_weight(self.weight)


@dataclass(frozen=True)
class RestPosture(Objective):
    """Pull the joints toward a rest posture ``q_rest`` (n,) [rad or m]."""

    q_rest: Sequence[float] = field(default_factory=tuple)
    weight: float = 1.0

    def _fill(self, chain, packed: dict) -> None:
        w = _check_weight(self.weight)
        rest = chain.check_q(self.q_rest, 'q_rest')
        # Several rest objectives sum to one with the weighted mean rest posture.
        total = packed['rest'] + w
        if total > 0.0:
            packed['q_rest'] = (packed['q_rest'] * packed['rest'] + rest * w) / total
        packed['rest'] = total


@dataclass(frozen=True)
class Manipulability(Objective):
    """Keep away from singular configurations (maximise log det J Jᵀ)."""

    weight: float = 1.0

    def _fill(self, chain, packed: dict) -> None:
        packed['manip'] += _check_weight(self.weight)


@dataclass(frozen=True)
class ObstacleClearance(Objective):
    """Keep the links ``margin`` [m] away from obstacle spheres (k, 4): x, y, z, radius."""

    spheres: ArrayLike = field(default_factory=lambda: np.zeros((0, 4)))
    margin: float = 0.05
    weight: float = 1.0

    def _fill(self, chain, packed: dict) -> None:
        s = np.array(self.spheres, dtype=float).reshape(-1, 4) if np.size(self.spheres) \
            else np.zeros((0, 4))
        if not np.all(np.isfinite(s)) or np.any(s[:, 3] < 0.0):
            raise IKInputError('obstacle spheres must be finite rows (x, y, z, radius >= 0)')
        margin = float(self.margin)
        if not math.isfinite(margin) or margin <= 0.0:
            raise IKInputError(f'obstacle margin must be > 0 [m], got {self.margin!r}')
        if packed['spheres'].shape[0] and margin != packed['margin']:
            raise IKInputError('all ObstacleClearance objectives of a solve share one margin')
        packed['spheres'] = np.vstack([packed['spheres'], s])
        packed['margin'] = margin
        packed['obstacle'] = _check_weight(self.weight)


class ClearanceTerms(NamedTuple):
    """The packed :class:`ik_node.collision.clearance.CollisionClearance` (weight 0: off)."""

    weight: float       # k_collision
    margin: float       # [m]
    F: np.ndarray       # the collision model's (F, K) (CollisionModel.flat)
    K: np.ndarray
    rows: np.ndarray    # (k, 16) obstacle rows (ik_node.collision.shapes)


class PackedObjectives(NamedTuple):
    """The objectives of a solve, packed for the kernels (a weight of 0: off)."""

    k_limits: float
    k_rest: float
    q_rest: np.ndarray          # (n,) weighted mean rest posture [rad or m]
    k_manip: float
    spheres: np.ndarray         # (k, 4) obstacle spheres x, y, z, radius [m]
    k_obstacle: float
    margin: float               # of the obstacle spheres [m]
    collision: ClearanceTerms


# Read-only like the (F, K) arrays of a collision model (pack_flat): a kernel compiled for one
# serves the other (numba compiles once per argument type, and read-only is part of it).
NO_CLEARANCE = ClearanceTerms(0.0, 0.02, readonly(np.zeros(0)),
                              readonly(np.zeros(0, dtype=np.int64)), np.zeros((0, 16)))


def pack_objectives(chain, objectives: Sequence[Objective] | None) -> PackedObjectives:
    """Return the :class:`PackedObjectives` the kernels take."""
    packed: dict[str, Any] = {
        'limits': 0.0, 'rest': 0.0, 'q_rest': np.zeros(chain.n), 'manip': 0.0,
        'spheres': np.zeros((0, 4)), 'obstacle': 0.0, 'margin': 0.05,
        'collision': NO_CLEARANCE}
    for obj in objectives or ():
        if not isinstance(obj, Objective):
            raise IKInputError(f'objectives must be Objective instances, got {type(obj)!r}')
        obj._fill(chain, packed)
    return PackedObjectives(packed['limits'], packed['rest'],
                            np.ascontiguousarray(packed['q_rest']), packed['manip'],
                            np.ascontiguousarray(packed['spheres']), packed['obstacle'],
                            packed['margin'], packed['collision'])


def empty_objectives(n: int) -> PackedObjectives:
    """Return the packed objectives with every objective off."""
    return PackedObjectives(0.0, 0.0, np.zeros(n), 0.0, np.zeros((0, 4)), 0.0, 0.05,
                            NO_CLEARANCE)


def objectives_active(obj: PackedObjectives) -> bool:
    """Return True when packed objectives have any weight on."""
    return (obj.k_limits > 0 or obj.k_rest > 0 or obj.k_manip > 0 or obj.k_obstacle > 0
            or obj.collision.weight > 0)


EMPTY_OBJECTIVES = empty_objectives


@njit
def _manip_cost(model, n, q):
    J = kinematics.jacobian(model, n, q)
    if n >= 6:
        A = J @ J.T
    else:
        A = J.T @ J
    for i in range(A.shape[0]):
        A[i, i] += _MANIP_EPS
    return -0.5 * log_det_spd(A)


@njit
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit
def _manip_gradient(model, n, q):
    """
    Return ∇h of h = -½ log det(J Jᵀ + εI) (or of Jᵀ J when n < 6), analytically.

    ∂h/∂q_b = -Σ_ij B_ij (∂J/∂q_b)_ij with B = (J Jᵀ + εI)⁻¹ J (or J (Jᵀ J + εI)⁻¹), and the
    derivative of each Jacobian column from the joint axes: for a revolute joint b before
    column a, ∂z_a = z_b × z_a; ∂p_e = J_v,b; ∂p_a = z_b × (p_a - p_b) (z_b if prismatic).
    """
    orig_R, orig_t, axes, types, index, mult, offset, tip_R, tip_t = model
    m = orig_R.shape[0]
    R_a = np.empty((m + 1, 3, 3))
    p_a = np.empty((m + 1, 3))
    z_a = np.empty((m, 3))
    J = np.zeros((6, n))
    kinematics.tip_and_jacobian(model, n, q, R_a, p_a, z_a, J)
    B = np.zeros((6, n))
    if n >= 6:
        L = J @ J.T
        for i in range(6):
            L[i, i] += _MANIP_EPS
        if not cholesky_factor(L):
            return np.zeros(n)
        for c in range(n):
            B[:, c] = cholesky_substitute(L, np.ascontiguousarray(J[:, c]))
    else:
        L = J.T @ J
        for i in range(n):
            L[i, i] += _MANIP_EPS
        if not cholesky_factor(L):
            return np.zeros(n)
        for r in range(6):
            B[r, :] = cholesky_substitute(L, np.ascontiguousarray(J[r, :]))
    pe = p_a[m]
    g = np.zeros(n)
    for b in range(m):
        zb = z_a[b]
        # Velocity of the tip due to joint b.
        if types[b] == kinematics.JOINT_REVOLUTE:
            de0, de1, de2 = _cross(zb[0], zb[1], zb[2], pe[0] - p_a[b, 0], pe[1] - p_a[b, 1],
                                   pe[2] - p_a[b, 2])
        else:
            de0, de1, de2 = zb[0], zb[1], zb[2]
        for a in range(m):
            za = z_a[a]
            dz0 = dz1 = dz2 = 0.0
            if types[b] == kinematics.JOINT_REVOLUTE and b < a:
                dz0, dz1, dz2 = _cross(zb[0], zb[1], zb[2], za[0], za[1], za[2])
            if types[a] == kinematics.JOINT_REVOLUTE:
                dp0 = dp1 = dp2 = 0.0
                if b < a:
                    if types[b] == kinematics.JOINT_REVOLUTE:
                        dp0, dp1, dp2 = _cross(zb[0], zb[1], zb[2], p_a[a, 0] - p_a[b, 0],
                                               p_a[a, 1] - p_a[b, 1], p_a[a, 2] - p_a[b, 2])
                    else:
                        dp0, dp1, dp2 = zb[0], zb[1], zb[2]
                r0 = pe[0] - p_a[a, 0]
                r1 = pe[1] - p_a[a, 1]
                r2 = pe[2] - p_a[a, 2]
                u0, u1, u2 = _cross(dz0, dz1, dz2, r0, r1, r2)
                w0, w1, w2 = _cross(za[0], za[1], za[2], de0 - dp0, de1 - dp1, de2 - dp2)
                dJ = (u0 + w0, u1 + w1, u2 + w2, dz0, dz1, dz2)
            else:
                dJ = (dz0, dz1, dz2, 0.0, 0.0, 0.0)
            c = index[a]
            s = 0.0
            for r in range(6):
                s += B[r, c] * dJ[r]
            g[index[b]] -= mult[a] * mult[b] * s
    return g


@njit
def _obstacle_terms(model, n, q, spheres, margin, grad):
    """Return the clearance cost; add its gradient into ``grad`` unless that is empty."""
    want_grad = grad.shape[0] > 0
    m = model.origin_R.shape[0]
    types = model.types
    index = model.index
    mult = model.mult
    R_out = np.empty((m + 1, 3, 3))
    p_out = np.empty((m + 1, 3))
    z_out = np.empty((m, 3))
    kinematics.forward_kinematics(model, q, R_out, p_out, z_out)
    cost = 0.0
    x = np.empty(3)
    for k in range(m):
        for frac in (0.0, 0.5, 1.0):
            if frac == 1.0 and k < m - 1:
                continue  # the next segment's start point covers it
            for i in range(3):
                x[i] = p_out[k, i] + frac * (p_out[k + 1, i] - p_out[k, i])
            for s in range(spheres.shape[0]):
                dx = x[0] - spheres[s, 0]
                dy = x[1] - spheres[s, 1]
                dz = x[2] - spheres[s, 2]
                dist = math.sqrt(dx * dx + dy * dy + dz * dz)
                pen = margin - (dist - spheres[s, 3])
                if pen <= 0.0:
                    continue
                cost += 0.5 * pen * pen
                if not want_grad or dist < 1e-12:
                    continue
                u0, u1, u2 = dx / dist, dy / dist, dz / dist
                # x = (1 - f) p_k + f p_(k+1); d(dist)/dq_j = u . dx/dq_j, and an endpoint
                # p_a moves with every joint j <= a (a prismatic joint a moves p_a too).
                for a, wa in ((k, 1.0 - frac), (k + 1, frac)):
                    if wa == 0.0:
                        continue
                    for j in range(min(a + 1, m)):
                        z = z_out[j]
                        if types[j] == kinematics.JOINT_REVOLUTE:
                            r0 = p_out[a, 0] - p_out[j, 0]
                            r1 = p_out[a, 1] - p_out[j, 1]
                            r2 = p_out[a, 2] - p_out[j, 2]
                            v0 = z[1] * r2 - z[2] * r1
                            v1 = z[2] * r0 - z[0] * r2
                            v2 = z[0] * r1 - z[1] * r0
                        else:
                            v0, v1, v2 = z[0], z[1], z[2]
                        grad[index[j]] -= pen * wa * mult[j] * (u0 * v0 + u1 * v1 + u2 * v2)
    return cost


@njit
def objective_cost(model, n, q, lower, upper, obj):
    """Return the summed weighted cost h(q) of the packed objectives ``obj``."""
    k_lim, k_rest, q_rest, k_manip, spheres, k_obs, margin, coll = obj
    h = 0.0
    if k_lim > 0.0:
        for i in range(n):
            half = 0.5 * (upper[i] - lower[i])
            if math.isfinite(half) and half > 0.0:
                d = (q[i] - 0.5 * (upper[i] + lower[i])) / half
                h += k_lim * d * d
    if k_rest > 0.0:
        for i in range(n):
            d = q[i] - q_rest[i]
            h += 0.5 * k_rest * d * d
    if k_manip > 0.0:
        h += k_manip * _manip_cost(model, n, q)
    if k_obs > 0.0 and spheres.shape[0] > 0:
        h += k_obs * _obstacle_terms(model, n, q, spheres, margin, np.empty(0))
    if coll.weight > 0.0:
        h += coll.weight * clearance_terms(coll.F, coll.K, q, coll.rows, coll.margin,
                                           np.empty(0))
    return h


@njit
def objective_gradient(model, n, q, lower, upper, obj):
    """Return ∇h(q), (n,), of the packed objectives ``obj``."""
    k_lim, k_rest, q_rest, k_manip, spheres, k_obs, margin, coll = obj
    g = np.zeros(n)
    if k_lim > 0.0:
        for i in range(n):
            half = 0.5 * (upper[i] - lower[i])
            if math.isfinite(half) and half > 0.0:
                g[i] += 2.0 * k_lim * (q[i] - 0.5 * (upper[i] + lower[i])) / (half * half)
    if k_rest > 0.0:
        for i in range(n):
            g[i] += k_rest * (q[i] - q_rest[i])
    if k_manip > 0.0:
        gm = _manip_gradient(model, n, q)
        for i in range(n):
            g[i] += k_manip * gm[i]
    if k_obs > 0.0 and spheres.shape[0] > 0:
        go = np.zeros(n)
        _obstacle_terms(model, n, q, spheres, margin, go)
        for i in range(n):
            g[i] += k_obs * go[i]
    if coll.weight > 0.0:
        gc = np.zeros(n)
        clearance_terms(coll.F, coll.K, q, coll.rows, coll.margin, gc)
        for i in range(n):
            g[i] += coll.weight * gc[i]
    return g
