# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Analytic two-bone IK (law of cosines), the closed form for two-link chains.

A chain root O -> elbow E -> end with link lengths d1, d2 reaches exactly the points T with
|d1 - d2| <= |OT| <= d1 + d2 (an annulus in the plane, a spherical shell in space). For such
a T the angle at the root between OT and OE is

    alpha = acos((d1^2 + |OT|^2 - d2^2) / (2 d1 |OT|)),

and E = O + d1 (cos(alpha) u + sin(alpha) n), u = OT / |OT|, n a unit vector perpendicular to
u in the bending plane. The two elbow branches are +n and -n. Outside the annulus the
nearest reachable end point is returned (the straight chain at the target when too far, the
folded chain towards it when too near) with ``reachable=False``.
"""

from dataclasses import dataclass
import math
from typing import Optional

from ik_node.errors import IKInputError
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['TwoBoneSolution', 'two_bone', 'two_bone_angles']


@dataclass(frozen=True)
class TwoBoneSolution:
    """
    The closed-form two-bone answer.

    elbows (2, dim): elbow of the +n and of the -n branch [m]; end (dim,): where the end
    goes [m]; reachable: the target lies in the annulus; distance: |end - target| [m].
    """

    elbows: np.ndarray
    end: np.ndarray
    reachable: bool
    distance: float


def _lengths(d1: float, d2: float) -> tuple:
    d1 = float(d1)
    d2 = float(d2)
    if not (math.isfinite(d1) and math.isfinite(d2) and d1 > 0.0 and d2 > 0.0):
        raise IKInputError(f'link lengths must be finite and > 0, got {d1}, {d2}')
    return d1, d2


def _perpendicular(u: np.ndarray) -> np.ndarray:
    a = np.array([1.0, 0.0, 0.0]) if abs(u[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    v = a - (a @ u) * u
    return v / np.linalg.norm(v)


def two_bone(root: ArrayLike, target: ArrayLike, d1: float, d2: float,
             pole: Optional[ArrayLike] = None) -> TwoBoneSolution:
    """
    Place a two-link chain root -> elbow -> end at ``target`` in closed form.

    root, target (2,) or (3,) [m]; d1, d2 > 0 [m]. In 2-D the bending direction n is the
    left normal of OT (+n: counter-clockwise elbow). In 3-D n points from the line OT towards
    ``pole`` (a point [m]); without a pole any perpendicular is used (the elbow may lie
    anywhere on a circle). Returns both branches.
    """
    d1, d2 = _lengths(d1, d2)
    o = np.array(root, dtype=float).reshape(-1)
    t = np.array(target, dtype=float).reshape(-1)
    dim = o.size
    if dim not in (2, 3) or t.shape != o.shape:
        raise IKInputError('root and target must both be 2-D or both 3-D points')
    if not (np.all(np.isfinite(o)) and np.all(np.isfinite(t))):
        raise IKInputError('root and target must be finite')
    o3 = np.append(o, 0.0) if dim == 2 else o
    t3 = np.append(t, 0.0) if dim == 2 else t
    v = t3 - o3
    D = float(np.linalg.norm(v))
    lo = abs(d1 - d2)
    hi = d1 + d2
    reachable = lo <= D <= hi
    if D > 0.0:
        u = v / D
    elif pole is not None and dim == 3:
        u = _perpendicular(_unit_or(np.asarray(pole, dtype=float) - o3))
    else:
        u = np.array([1.0, 0.0, 0.0])
    if dim == 2:
        n = np.array([-u[1], u[0], 0.0])
    else:
        pole_normal: Optional[np.ndarray] = None
        if pole is not None:
            w = np.array(pole, dtype=float).reshape(-1) - o3
            if w.shape != (3,) or not np.all(np.isfinite(w)):
                raise IKInputError('pole must be a finite 3-D point')
            w = w - (w @ u) * u
            if np.linalg.norm(w) > 1e-12:
                pole_normal = w / np.linalg.norm(w)
        n = _perpendicular(u) if pole_normal is None else pole_normal
    Dc = min(max(D, lo), hi)
    if Dc > 0.0:
        # half-angle form of the law of cosines: exact at both rims of the annulus
        h = 0.5 * (d1 + d2 + Dc)
        alpha = 2.0 * math.atan2(math.sqrt(max((h - d1) * (h - Dc), 0.0)),
                                 math.sqrt(max(h * (h - d2), 0.0)))
    else:
        alpha = 0.5 * math.pi   # d1 == d2 folded onto the root: any alpha; keep it square
    end = o3 + Dc * u
    elbows = np.array([o3 + d1 * (math.cos(alpha) * u + s * math.sin(alpha) * n)
                       for s in (1.0, -1.0)])
    if Dc == 0.0:
        # fully folded: the elbow lies at d1 from the root along +-n, the end on the root
        elbows = np.array([o3 + d1 * n, o3 - d1 * n])
    return TwoBoneSolution(elbows[:, :dim].copy(), end[:dim].copy(), bool(reachable),
                           float(np.linalg.norm(end - t3)))


def _unit_or(v: np.ndarray) -> np.ndarray:
    nv = float(np.linalg.norm(v))
    return v / nv if nv > 1e-12 else np.array([0.0, 0.0, 1.0])


def two_bone_angles(d1: float, d2: float, target: ArrayLike) -> tuple:
    """
    Return (angles (2, 2), reachable) of a planar two-link arm reaching ``target``.

    The arm is q1 about the root, q2 at the elbow, links along x: end =
    d1 (cos q1, sin q1) + d2 (cos(q1 + q2), sin(q1 + q2)). Row 0 is the branch with
    q2 = -|q2|, whose elbow lies counter-clockwise of the line to the target (the +n elbow of
    :func:`two_bone` in 2-D); row 1 has q2 = +|q2|. cos q2 = (|T|^2 - d1^2 - d2^2) / (2 d1 d2)
    and q1 = atan2(T) - atan2(d2 sin q2, d1 + d2 cos q2).
    Outside the annulus the distance is clamped to it (nearest reachable answer) and
    reachable is False. [rad]
    """
    d1, d2 = _lengths(d1, d2)
    t = np.array(target, dtype=float).reshape(-1)
    if t.shape != (2,) or not np.all(np.isfinite(t)):
        raise IKInputError(f'target must be 2 finite numbers, got {t.tolist()}')
    D = float(np.hypot(t[0], t[1]))
    lo, hi = abs(d1 - d2), d1 + d2
    reachable = lo <= D <= hi
    Dc = min(max(D, lo), hi)
    # |q2| from tan(q2 / 2)^2 = ((d1 + d2)^2 - D^2) / (D^2 - (d1 - d2)^2), exact at the rims
    q2 = 2.0 * math.atan2(math.sqrt(max(hi * hi - Dc * Dc, 0.0)),
                          math.sqrt(max(Dc * Dc - lo * lo, 0.0)))
    phi = math.atan2(t[1], t[0]) if D > 0.0 else 0.0
    out = np.empty((2, 2))
    for row, s in enumerate((-1.0, 1.0)):
        q2s = s * q2
        out[row, 0] = phi - math.atan2(d2 * math.sin(q2s), d1 + d2 * math.cos(q2s))
        out[row, 1] = q2s
    out[:, 0] = (out[:, 0] + math.pi) % (2.0 * math.pi) - math.pi
    return out, bool(reachable)
