# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Differential IK for a twist: joint velocities that move the tool at a given twist.

Three levels, each in the null space of the ones before it, each solved by damped least
squares through an SVD, ``x⁺ = V diag(g(σ)) Uᵀ``, damped only where a singular value is
small: ``g(σ) = 1 / σ`` for σ >= ε (the exact inverse: no velocity error, so no drift, away
from singularities) and ``σ / ε²`` below it (DLS with λ² = ε² - σ², continuous at ε, at most
1 / ε, 0 at the singularity):

1. the linear velocity of the tool: ``v1 = Jp⁺ ẋp``, ``Jp = J[:3]`` (3, n);
2. the angular velocity, with what the position leaves free:
   ``v2 = (Jw N1)⁺ (ẇ - Jw v1)``, ``N1 = I - Jp⁺ Jp`` (the exact projector of the rows of Jp
   with σ above a rank threshold), so ``Jp v2 = 0``;
3. the secondary objectives (:mod:`ik_node.solvers.objectives`): ``v3 = -k N2 ∇h``, ``N2`` the
   projector onto what neither of the first two uses.

An arm with fewer than six joints thus jogs the position first and the orientation components
it has joints left for, and never gives up position (drift) for an orientation it cannot
take; a six-joint arm away from singularities gets the exact ``J⁻¹ ẋ``. Near a singularity
the damping bounds the joint velocities (the caller still clamps them to the limits).
"""

import math
from typing import NamedTuple

from ik_node._jit import njit
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['TwistSolution', 'joint_velocity_for_twist', 'twist_velocity', 'condition_number']

# Singular values below this fraction of the largest count as zero in the projectors.
_RANK_TOL = 1e-9
_NO_GRADIENT = np.empty(0)
_NO_CORRECTION = np.zeros(6)
_NO_CORRECTION.flags.writeable = False


class TwistSolution(NamedTuple):
    """
    Joint velocities (n,) for a twist and the tool twist (6,) they give to first order.

    condition: σ_max / σ_min of J when the exact path computed them (six joints or more, no
    objectives, away from singularities: :func:`condition_number` of the same J), else nan.
    """

    v: np.ndarray
    twist: np.ndarray
    condition: float = float('nan')
    # (6,) the part of ``twist`` that a correction twist given alongside gives (zeros: none).
    corrected: np.ndarray = _NO_CORRECTION


@njit
def _dls(A, B, eps):
    """Return (X, V_r): the damped solutions of A X = B (columns), the rows spanning A's range."""
    U, S, Vt = np.linalg.svd(A, full_matrices=False)
    gain = np.empty((S.shape[0], 1))
    for i in range(S.shape[0]):
        gain[i, 0] = 1.0 / S[i] if S[i] >= eps else S[i] / (eps * eps)
    x = Vt.T @ (gain * (U.T @ B))
    keep = S > _RANK_TOL * max(S[0] if S.shape[0] else 0.0, 1e-300)
    return x, Vt[keep]


@njit
def twist_velocity(J, x, damping_linear, damping_angular, gradient, gain):
    """
    Return (v (n, k), J v (6, k), condition): the kernel of :func:`joint_velocity_for_twist`.

    J (6, n), x (6, k): k twists solved at once (one set of SVDs), gradient (n,) or empty
    (none; descended in column 0 only), all float64 and writable; condition as
    :attr:`TwistSolution.condition` (nan unless the exact path computed it).
    """
    n = J.shape[1]
    use_gradient = gradient.shape[0] > 0 and gain > 0.0
    if n >= 6 and not use_gradient:
        # Both levels are exact when sigma_6(J) >= both eps (a row block's and the null-space
        # block's smallest singular values are no smaller than J's): then the three levels
        # add up to the minimum-norm J+ x, one SVD instead of two.
        U, S, Vt = np.linalg.svd(J, full_matrices=False)
        if S[5] >= max(damping_linear, damping_angular):
            v = Vt.T @ ((U.T @ x) / S.reshape(-1, 1))
            return v, J @ v, S[0] / S[S.shape[0] - 1]
    Jp, Jw = J[:3], J[3:]
    v1, rows_p = _dls(Jp, x[:3], damping_linear)
    N1 = np.eye(n) - rows_p.T @ rows_p
    v2, rows_w = _dls(Jw @ N1, x[3:] - Jw @ v1, damping_angular)
    v = v1 + v2
    if use_gradient:
        N2 = N1 - rows_w.T @ rows_w
        v[:, 0] -= gain * (N2 @ gradient)
    return v, J @ v, math.nan


def joint_velocity_for_twist(J: ArrayLike, twist: ArrayLike, damping_linear: float,
                             damping_angular: float, gradient: ArrayLike | None = None,
                             gain: float = 0.0, correction: ArrayLike | None = None
                             ) -> TwistSolution:
    """
    Return the joint velocities for the tool ``twist`` (see the module docstring).

    J: (6, n) geometric Jacobian of the tool, base frame, rows [v; w]. twist: (6,) the tool's
    linear [m/s] and angular [rad/s] velocity in the base frame. damping_linear [m],
    damping_angular [1]: ε of the two levels (> 0), the singular value below which each
    is damped. gradient: (n,) ∇h of the
    secondary objectives, descended at ``gain`` [1/s] in the null space left. correction:
    (6,) a second twist solved alike and added (a drift correction), its own part of the
    twist given in :attr:`TwistSolution.corrected`; the condition is the first twist's. One
    compiled call (:func:`twist_velocity`); the arrays are copied, writable and contiguous,
    so that it has one specialisation.
    """
    J = np.array(J, dtype=float, order='C')
    grad = _NO_GRADIENT if gradient is None else np.array(gradient, dtype=float)
    x = np.empty((6, 1 if correction is None else 2))
    x[:, 0] = twist
    if correction is not None:
        x[:, 1] = correction
    v, twist_given, condition = twist_velocity(J, x, float(damping_linear),
                                               float(damping_angular), grad, float(gain))
    if correction is None:
        return TwistSolution(v[:, 0], twist_given[:, 0], float(condition))
    return TwistSolution(v[:, 0] + v[:, 1], twist_given[:, 0] + twist_given[:, 1],
                         float(condition), twist_given[:, 1])


def condition_number(J: ArrayLike) -> float:
    """
    Return σ_max / σ_min of the Jacobian's singularity measure (inf at a singularity).

    J: (6, n). With six joints or more the whole J (MoveIt Servo's measure); with fewer, its
    position rows (3, n): such an arm jogs the position first, and the full J of a 4-joint
    arm is ill-conditioned in orientations it never takes.
    """
    J = np.asarray(J, dtype=float)
    s = np.linalg.svd(J if J.shape[1] >= 6 else J[:3], compute_uv=False)
    return float(s[0] / s[-1]) if s[-1] > 0.0 else float('inf')
