# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
FABRIK on a chain of points (Aristidou & Lasenby, Graph. Models 73, 2011), with constraints.

A chain is n + 1 points p_0 (root) ... p_n (end) joined by n links of fixed lengths
d_j = |p_{j+1} - p_j|. One iteration is

- forward pass: p_n <- t, then for j = n-1 ... 0, p_j <- p_{j+1} + d_j u(p_j - p_{j+1});
- backward pass: p_0 <- root, then for j = 0 ... n-1, p_{j+1} <- p_j + d_j u(p_{j+1} - p_j);

with u(v) = v / |v|. Both passes put every point at exactly its link length from the last one,
so link lengths are kept up to rounding. The loop stops when the end is within ``tolerance`` of
the target (reached), when the end moved less than ``min_change`` in one iteration (stalled),
or at ``max_iterations``; the pose with the smallest end distance seen is returned, not merely
the last one. A target farther from the root than the total length is out of reach: without
constraints the chain is stretched straight at it at once, with no iteration.

Constraints (:mod:`ik_node.pointchain.constraints`) are applied inside both passes, as in the
published method. Each bone carries an orientation frame. In the forward pass, once bone j+1
is placed, bone j's frame is turned as little as needed for the joint between them to hold
(the parent is re-oriented to fit the child: cone, then twist range), which also carries the
twist a hinge further out needs back towards the root. The backward pass then rebuilds the
chain from the root, placing each bone by its joint's own rule (hinge angle clamped to its
limits, direction clamped into the elliptic cone, twist clamped into its range). Every
returned pose comes from a backward pass, so it obeys all constraints exactly; unreachable
targets are then iterated too and the closest valid pose is returned.

A hinge has a single angle for both the bone direction and the orientation of the hinges
beyond it, so each pass picks it to maximise d . (R z) + w tr(F^T R): point at the wished
point (d) and keep close to the frame F the other pass left for the bone (w = 1 forward,
2 backward). Pointing alone turns the hinge planes further out away from where the other pass
needs them, and 3-D hinge chains then stall far from the target (measured on random 4-10
bone chains from the rest pose: 5 % of reachable targets reached; with the frame term 75 %).

FABRIK with joint limits has fixed points that are not solutions. When the search stalls
(the end moves less than ``min_change``, or the best distance gains less than 0.1 % in
``patience`` iterations) it restarts from the best pose with every joint value moved at
random inside its limits, up to ``restarts`` times within ``max_iterations``; the random
numbers come from ``rng_seed``, so results repeat. Together: 88-96 % of reachable targets on
hinge chains and 92-96 % on mixed hinge/cone/twist chains at 100-300 iterations (cone-only
chains 100 %), against 5 % and 60-66 % before. A target farther from the root than the
total length gets no restarts: the search stops at the first stall with the best miss.
"""

from dataclasses import dataclass
import math
from typing import Optional, Sequence

from ik_node._jit import njit
from ik_node.errors import IKInputError
from ik_node.pointchain.constraints import (best_angle_about, Constraint, KIND_HINGE,
                                            pack_constraints, parent_through_hinge,
                                            place_bone, reverse_constrain, reverse_twist,
                                            rot_z, shortest_rotation, swing_from_z,
                                            twist_about_z)
from ik_node.spatial.rotations import rotation_about_axis
from ik_node.spatial.vectors import dist3, matmul, matvec, unit
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['PointSolution', 'PassResult', 'fabrik', 'fabrik_pass', 'check_points',
           'STATUS_NAMES']

STATUS_REACHED = 0
STATUS_STALLED = 1
STATUS_MAX_ITERATIONS = 2
STATUS_UNREACHABLE = 3
STATUS_NAMES = ('reached', 'stalled', 'max_iterations', 'unreachable')

# How strongly a hinge follows the other pass's bone frame (tr(F^T R), three axis cosines)
# against pointing at the wished point (one cosine). Chosen on random 4-10 bone hinge chains
# (reach rate from one start 5 % -> 75 %); see the module docstring.
HINGE_FRAME_WEIGHT_FORWARD = 1.0
HINGE_FRAME_WEIGHT_BACKWARD = 2.0
# Size of the random step of a restart (see _perturb).
RESTART_SCALE = 0.5


@dataclass(frozen=True)
class PointSolution:
    """
    What a point-chain solver returns.

    points (n + 1, dim): the best pose found [m]; frames (n, 3, 3) or None: bone frames (bone
    along local +z) for constrained chains; distance: end-to-target distance of that pose [m];
    iterations: passes run; success: distance <= tolerance; status: 'reached', 'stalled',
    'max_iterations' or 'unreachable'.
    """

    points: np.ndarray
    frames: Optional[np.ndarray]
    distance: float
    iterations: int
    success: bool
    status: str


def check_points(points: ArrayLike, target: ArrayLike,
                 root: Optional[ArrayLike] = None) -> tuple:
    """
    Validate a point chain and target; return 3-D float copies (points, target, root, dim).

    points (n + 1, 2 or 3) with n >= 1; target and root (dim,). 2-D input is lifted to z = 0.
    """
    p = np.array(points, dtype=float)
    if p.ndim != 2 or p.shape[0] < 2 or p.shape[1] not in (2, 3):
        raise IKInputError(f'points must be (n + 1, 2) or (n + 1, 3) with n >= 1, '
                           f'got {p.shape}')
    dim = p.shape[1]
    t = np.array(target, dtype=float).reshape(-1)
    if t.shape != (dim,):
        raise IKInputError(f'target must have {dim} coordinates, got {t.shape}')
    r = p[0].copy() if root is None else np.array(root, dtype=float).reshape(-1)
    if r.shape != (dim,):
        raise IKInputError(f'root must have {dim} coordinates, got {r.shape}')
    for name, a in (('points', p), ('target', t), ('root', r)):
        if not np.all(np.isfinite(a)):
            raise IKInputError(f'{name} must be finite')
    if dim == 2:
        p = np.hstack([p, np.zeros((p.shape[0], 1))])
        t = np.append(t, 0.0)
        r = np.append(r, 0.0)
    return np.ascontiguousarray(p), t, r, dim


@njit
def end_of_iteration(p, target, best, best_d, prev, tol, min_change):
    """
    Apply the stopping rules after one iteration on the point chain ``p`` (end: last row).

    Keeps the best pose in ``best`` and the end point in ``prev`` (both in place). Returns
    (best distance, status): STATUS_REACHED within ``tol``, STATUS_STALLED when the end moved
    less than ``min_change``, -1 to go on.
    """
    n = p.shape[0] - 1
    dist = dist3(p[n], target)
    if dist < best_d:
        best_d = dist
        best[:, :] = p
    if dist <= tol:
        return best_d, STATUS_REACHED
    if dist3(p[n], prev) < min_change:
        return best_d, STATUS_STALLED
    prev[:] = p[n]
    return best_d, -1


@njit
def fabrik_free_kernel(points, lengths, target, root, tol, min_change, max_iter):
    """Unconstrained FABRIK. Returns (best points (n + 1, 3), distance, iterations, status)."""
    n = lengths.shape[0]
    p = points.copy()
    total = 0.0
    for j in range(n):
        total += lengths[j]
    if dist3(root, target) > total:
        d = np.empty(3)
        for i in range(3):
            d[i] = target[i] - root[i]
        d = unit(d)
        for i in range(3):
            p[0, i] = root[i]
        for j in range(n):
            for i in range(3):
                p[j + 1, i] = p[j, i] + lengths[j] * d[i]
        return p, dist3(p[n], target), 0, STATUS_UNREACHABLE
    moved = dist3(p[0], root) > 0.0
    best = p.copy()
    best_d = dist3(p[n], target)
    if not moved and best_d <= tol:
        return best, best_d, 0, STATUS_REACHED
    if moved:
        best_d = math.inf
    prev = p[n].copy()
    v = np.empty(3)
    status = STATUS_MAX_ITERATIONS
    it = 0
    while it < max_iter:
        it += 1
        # forward: end on the target, then every point towards its old place
        for i in range(3):
            p[n, i] = target[i]
        for j in range(n - 1, -1, -1):
            for i in range(3):
                v[i] = p[j, i] - p[j + 1, i]
            u = unit(v)
            for i in range(3):
                p[j, i] = p[j + 1, i] + lengths[j] * u[i]
        # backward: root back on its anchor, then outwards
        for i in range(3):
            p[0, i] = root[i]
        for j in range(n):
            for i in range(3):
                v[i] = p[j + 1, i] - p[j, i]
            u = unit(v)
            for i in range(3):
                p[j + 1, i] = p[j, i] + lengths[j] * u[i]
        best_d, stop = end_of_iteration(p, target, best, best_d, prev, tol, min_change)
        if stop >= 0:
            status = stop
            break
    return best, best_d, it, status


@njit
def _backward_constrained(p, q, R, F, lengths, root, root_frame, kind, rest, axis, limits,
                          twist):
    """Backward pass: rebuild p and R from the root towards the wished points q (frames F)."""
    n = lengths.shape[0]
    for i in range(3):
        p[0, i] = root[i]
    P = root_frame
    v = np.empty(3)
    for j in range(n):
        for i in range(3):
            v[i] = q[j + 1, i] - p[j, i]
        if v[0] * v[0] + v[1] * v[1] + v[2] * v[2] < 1e-300:
            d = np.empty(3)
            d[0] = F[j, 0, 2]
            d[1] = F[j, 1, 2]
            d[2] = F[j, 2, 2]
        else:
            d = unit(v)
        Rj = place_bone(P, kind[j], rest[j], axis[j], limits[j], twist[j], d, F[j],
                        HINGE_FRAME_WEIGHT_BACKWARD)
        R[j] = Rj
        for i in range(3):
            p[j + 1, i] = p[j, i] + lengths[j] * Rj[i, 2]
        P = Rj


@njit
def _forward_constrained(p, q, R, F, lengths, target, kind, rest, axis, limits, twist):
    """Forward pass: wished points q and frames F from the target back, p and R unchanged."""
    n = lengths.shape[0]
    for j in range(n + 1):
        for i in range(3):
            q[j, i] = p[j, i]
    for i in range(3):
        q[n, i] = target[i]
    v = np.empty(3)
    z = np.empty(3)
    for j in range(n - 1, -1, -1):
        for i in range(3):
            v[i] = q[j + 1, i] - q[j, i]
            z[i] = R[j, i, 2]
        Fj = R[j]
        has_dir = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] > 1e-300
        if j + 1 < n and kind[j + 1] == KIND_HINGE:
            # a hinge fixes the parent frame up to its one angle
            w = unit(v) if has_dir else z
            Fj = parent_through_hinge(F[j + 1], rest[j + 1], axis[j + 1], limits[j + 1], w,
                                      R[j], HINGE_FRAME_WEIGHT_FORWARD)
        else:
            if has_dir:
                Fj = matmul(shortest_rotation(z, unit(v)), Fj)
            if j + 1 < n:
                Fj = reverse_constrain(Fj, kind[j + 1], rest[j + 1], axis[j + 1],
                                       limits[j + 1], F[j + 1])
                Fj = reverse_twist(Fj, rest[j + 1], twist[j + 1], F[j + 1])
        F[j] = Fj
        for i in range(3):
            q[j, i] = q[j + 1, i] - lengths[j] * Fj[i, 2]


@njit
def _perturb(p, R, lengths, root, root_frame, kind, rest, axis, limits, twist, rnd, scale):
    """
    Move the pose (p, R) in place to a random nearby pose that obeys every joint.

    Joint by joint from the root, the joint's own value is read from R relative to the new
    parent and moved: a hinge angle by up to scale * (upper - lower), a ball or free joint's
    direction by a random offset of size up to scale (about scale rad) and its twist by up to
    scale * pi; then clamped into the joint (:func:`place_bone`). rnd (n, 4) holds uniform
    numbers in [0, 1).
    """
    n = lengths.shape[0]
    for i in range(3):
        p[0, i] = root[i]
    P = root_frame
    g = np.empty(3)
    for j in range(n):
        PB = matmul(P, rest[j])
        L = matmul(PB.T.copy(), R[j])
        u = np.empty(3)
        u[0] = L[0, 2]
        u[1] = L[1, 2]
        u[2] = L[2, 2]
        if kind[j] == KIND_HINGE:
            z = np.zeros(3)
            z[2] = 1.0
            lo = limits[j, 0]
            hi = limits[j, 1]
            theta = best_angle_about(axis[j], z, u) + scale * (hi - lo) * (2.0 * rnd[j, 0] - 1.0)
            Rj = matmul(PB, rotation_about_axis(axis[j], min(max(theta, lo), hi)))
        else:
            tau = twist_about_z(matmul(swing_from_z(u).T.copy(), L))
            tau += scale * math.pi * (2.0 * rnd[j, 3] - 1.0)
            for i in range(3):
                g[i] = u[i] + scale * (2.0 * rnd[j, i] - 1.0)
            u2 = unit(g)
            Fw = matmul(matmul(PB, swing_from_z(u2)), rot_z(tau))
            Rj = place_bone(P, kind[j], rest[j], axis[j], limits[j], twist[j],
                            matvec(PB, u2), Fw, 0.0)
        R[j] = Rj
        for i in range(3):
            p[j + 1, i] = p[j, i] + lengths[j] * Rj[i, 2]
        P = Rj


@njit
def fabrik_constrained_kernel(points, frames, lengths, target, root, root_frame, kind, rest,
                              axis, limits, twist, tol, min_change, max_iter, rnd, patience,
                              scale):
    """
    Constrained FABRIK. Returns (best points, best frames, distance, iterations, status).

    points (n + 1, 3) and frames (n, 3, 3) are the start pose; it is first projected onto the
    constraints by one backward pass. rnd (restarts, n, 4): uniform numbers in [0, 1), one
    slice per restart. When the end moves less than ``min_change`` in an iteration, or the best
    distance has not dropped by 0.1 % in ``patience`` iterations, the search restarts from the
    best pose perturbed by :func:`_perturb` (size ``scale``) while restarts are left; without
    them the stall rule ends the loop. ``max_iter`` caps the iterations of all attempts.
    """
    n = lengths.shape[0]
    p = points.copy()
    R = frames.copy()
    q = points.copy()
    F = frames.copy()
    _backward_constrained(p, q, R, F, lengths, root, root_frame, kind, rest, axis, limits,
                          twist)
    best = p.copy()
    best_R = R.copy()
    best_d = dist3(p[n], target)
    if best_d <= tol:
        return best, best_R, best_d, 0, STATUS_REACHED
    prev = p[n].copy()
    status = STATUS_MAX_ITERATIONS
    it = 0
    restarts = rnd.shape[0]
    k = 0
    idle = 0
    while it < max_iter:
        it += 1
        _forward_constrained(p, q, R, F, lengths, target, kind, rest, axis, limits, twist)
        _backward_constrained(p, q, R, F, lengths, root, root_frame, kind, rest, axis,
                              limits, twist)
        dist = dist3(p[n], target)
        if dist < best_d * (1.0 - 1e-3):
            idle = 0
        else:
            idle += 1
        if dist < best_d:
            best_d = dist
            best[:, :] = p
            best_R[:, :, :] = R
        if dist <= tol:
            status = STATUS_REACHED
            break
        stalled = dist3(p[n], prev) < min_change
        if k < restarts and (stalled or idle >= patience):
            p[:, :] = best
            R[:, :, :] = best_R
            _perturb(p, R, lengths, root, root_frame, kind, rest, axis, limits, twist, rnd[k],
                     scale)
            k += 1
            idle = 0
        elif stalled:
            status = STATUS_STALLED
            break
        prev[:] = p[n]
    return best, best_R, best_d, it, status


def transported_frames(points: np.ndarray, root_frame: np.ndarray) -> np.ndarray:
    """
    Return (n, 3, 3) bone frames along a point chain, each the previous one turned least.

    Bone j's frame is the shortest rotation taking the previous frame's +z onto the bone
    direction, applied to the previous frame (parallel transport); the root frame starts it.
    """
    n = points.shape[0] - 1
    F = np.empty((n, 3, 3))
    P = root_frame
    for j in range(n):
        v = points[j + 1] - points[j]
        if float(v @ v) > 0.0:
            P = shortest_rotation(np.ascontiguousarray(P[:, 2]), unit(v)) @ P
        F[j] = P
    return F


def fabrik(points: ArrayLike, target: ArrayLike, *, root: Optional[ArrayLike] = None,
           constraints: Optional[Sequence[Constraint]] = None,
           root_frame: Optional[ArrayLike] = None, frames: Optional[ArrayLike] = None,
           tolerance: float = 1e-3, min_change: Optional[float] = None,
           max_iterations: int = 100, restarts: int = 30, patience: int = 10,
           rng_seed: Optional[int] = 0) -> PointSolution:
    """
    Solve a point chain for an end target with FABRIK; return the best pose found.

    points (n + 1, 2 or 3): the start pose, root first [m]; the link lengths are read from it
    and kept. target (dim,) [m]. root (dim,): where the root goes (default: stays at
    points[0]). constraints: n entries, one per bone/joint (``None``, :class:`BallJoint`,
    :class:`HingeJoint`), or None for a free chain; they need 3-D points. root_frame (3, 3):
    the frame joint 0 is stated in (identity). frames (n, 3, 3): start bone frames (bone along
    local +z); by default transported along the chain from root_frame. tolerance [m]: reached
    when the end is this close; min_change [m]: stalled when the end moves less than this in
    one iteration (default tolerance / 1000); max_iterations: the iteration cap, over all
    restarts. Constrained chains only: restarts: how many times a stalled search (see
    ``min_change``, or no 0.1 % gain of the best distance in ``patience`` iterations) starts
    again from a random pose near the best one (0: never); rng_seed: seed of those random
    poses, so equal inputs and seed give equal results (None: fresh entropy).
    """
    p, t, r, dim = check_points(points, target, root)
    if not tolerance >= 0.0 or max_iterations < 0:
        raise IKInputError('tolerance must be >= 0 and max_iterations >= 0')
    if restarts < 0 or patience < 1:
        raise IKInputError('restarts must be >= 0 and patience >= 1')
    eps = tolerance * 1e-3 if min_change is None else float(min_change)
    lengths = np.linalg.norm(np.diff(p, axis=0), axis=1)
    if constraints is None:
        best, d, it, status = fabrik_free_kernel(p, lengths, t, r, float(tolerance), eps,
                                                 int(max_iterations))
        pts = best[:, :dim].copy()
        return PointSolution(pts, None, float(d), int(it), bool(d <= tolerance),
                             STATUS_NAMES[status])
    if dim != 3:
        raise IKInputError('constraints need 3-D points')
    n = p.shape[0] - 1
    pc = pack_constraints(constraints, n)
    P0 = np.eye(3) if root_frame is None else np.array(root_frame, dtype=float)
    if P0.shape != (3, 3) or not np.allclose(P0.T @ P0, np.eye(3), atol=1e-6):
        raise IKInputError('root_frame must be a (3, 3) rotation')
    if frames is None:
        p_start = p.copy()
        p_start[0] = r
        F0 = transported_frames(p_start, P0)
    else:
        F0 = np.array(frames, dtype=float)
        if F0.shape != (n, 3, 3) or not np.all(np.isfinite(F0)):
            raise IKInputError(f'frames must be ({n}, 3, 3), got {F0.shape}')
    out_of_reach = np.linalg.norm(t - r) > lengths.sum()
    # Beyond the total length no pose reaches the target: restarts would only spend the
    # iteration budget polishing the best miss, so they are off there.
    rnd = np.random.default_rng(rng_seed).random((0 if out_of_reach else int(restarts), n, 4))
    best, best_R, d, it, status = fabrik_constrained_kernel(
        p, np.ascontiguousarray(F0), lengths, t, r, np.ascontiguousarray(P0), pc.kind,
        pc.rest, pc.axis, pc.limits, pc.twist, float(tolerance), eps, int(max_iterations),
        rnd, int(patience), RESTART_SCALE)
    if status != STATUS_REACHED and out_of_reach:
        status = STATUS_UNREACHABLE
    return PointSolution(best, best_R, float(d), int(it), bool(d <= tolerance),
                         STATUS_NAMES[status])


@dataclass(frozen=True)
class PassResult:
    """One FABRIK pass: points (n + 1, 3) [m] and, for constrained chains, frames (n, 3, 3)."""

    points: np.ndarray
    frames: Optional[np.ndarray]


def fabrik_pass(points: ArrayLike, goal: ArrayLike, direction: str, *,
                constraints: Optional[Sequence[Constraint]] = None,
                frames: Optional[ArrayLike] = None,
                root_frame: Optional[ArrayLike] = None) -> PassResult:
    """
    Run one FABRIK pass on a 3-D point chain, for watching the method step by step.

    direction 'forward': the end goes to ``goal`` (the target) and every point is pulled
    after it towards the root; 'backward': the root goes to ``goal`` (its anchor) and every
    point is placed outwards. Link lengths are read from ``points`` (n + 1, 3) and kept.
    A forward pass followed by a backward pass is one iteration of :func:`fabrik`; for a
    constrained chain (``constraints``, ``frames`` (n, 3, 3), ``root_frame`` as there, frames
    default to those transported from the root), :func:`fabrik` starts with one backward pass
    that puts the start pose onto the constraints. The caller's arrays are not changed.
    """
    if direction not in ('forward', 'backward'):
        raise IKInputError(f"direction must be 'forward' or 'backward', got {direction!r}")
    p, g, _, dim = check_points(points, goal)
    if dim != 3:
        raise IKInputError('fabrik_pass needs 3-D points')
    lengths = np.linalg.norm(np.diff(p, axis=0), axis=1)
    n = lengths.shape[0]
    if constraints is None:
        out = p.copy()
        order = range(n - 1, -1, -1) if direction == 'forward' else range(n)
        out[n if direction == 'forward' else 0] = g
        for j in order:
            a, b = (j + 1, j) if direction == 'forward' else (j, j + 1)
            out[b] = out[a] + lengths[j] * unit(out[b] - out[a])
        return PassResult(out, None)
    pc = pack_constraints(constraints, n)
    P0 = np.eye(3) if root_frame is None else np.array(root_frame, dtype=float)
    F0 = (transported_frames(p, P0) if frames is None
          else np.array(frames, dtype=float))
    if F0.shape != (n, 3, 3) or not np.all(np.isfinite(F0)):
        raise IKInputError(f'frames must be ({n}, 3, 3), got {F0.shape}')
    F0 = np.ascontiguousarray(F0)
    out_p, out_F = p.copy(), F0.copy()
    if direction == 'forward':
        _forward_constrained(p, out_p, F0, out_F, lengths, g, pc.kind, pc.rest, pc.axis,
                             pc.limits, pc.twist)
    else:
        _backward_constrained(out_p, p, out_F, F0, lengths, g, np.ascontiguousarray(P0),
                              pc.kind, pc.rest, pc.axis, pc.limits, pc.twist)
    return PassResult(out_p, out_F)
