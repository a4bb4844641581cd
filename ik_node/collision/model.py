# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The collision model of a chain: which links move with which joint, their capsules, the pairs.

Removing the chain's moving joints from the URDF's link tree leaves m + 1 rigid groups: the
base group (base_link and everything attached to it: pedestal, torso, the links above the
base) and one group per moving joint k (its child link and everything rigidly attached below
it, such as the hand and a tool past the tip). Joints outside the chain (fingers, another
arm) are held at fixed values: by default 0 clipped into their limits, or the values given.

Checked pairs: every two links with collision geometry in different groups, at least one of
them moved by the chain, minus the disabled pairs (an SRDF's ``<disable_collisions>``, or
:func:`ik_node.collision.pairs.default_disabled_pairs`). Moving links are checked against
obstacles; links of the base group never are (no chain joint can move them away).
"""

from typing import Mapping, NamedTuple, Optional

from ik_node._jit import readonly
from ik_node.collision.bounds import (box_corners, capsule_of_box, capsule_of_cylinder,
                                      capsule_of_points, capsule_volume, capsules_of_mesh,
                                      cylinder_points, hull_points)
from ik_node.collision.geometry import LinkShape
from ik_node.errors import URDFError
from ik_node.spatial.rotations import rotation_about_axis
import numpy as np

__all__ = ['Capsules', 'CollisionModel', 'build_model', 'link_groups', 'pack_flat']

# A mesh is bounded by up to this many capsules (fewer when one is as tight).
MESH_CAPSULES = 3
# ... and by up to this many on a link given tighter bounds (see link_capsules' ``fine``).
MESH_CAPSULES_FINE = 8
# A link's capsules merge into one when that adds less than this volume [m³] (20 cm³):
# a finger made of four small boxes costs one capsule per pair, not four.
MERGE_VOLUME = 2e-5


class Capsules(NamedTuple):
    """The capsule record the kernels take (arrays read-only)."""

    seg: np.ndarray       # (c, 2, 3) end points in the anchor's frame [m]
    radius: np.ndarray    # (c,) [m]
    anchor: np.ndarray    # (c,) moving joint index carrying the capsule, -1 for the base
    pairs: np.ndarray     # (p, 2) capsule indices checked against each other
    moving: np.ndarray    # (k,) capsule indices checked against obstacles
    points: np.ndarray    # (h, 3) hull points of all capsules, anchor frames [m]
    start: np.ndarray     # (c + 1,) capsule c's points are points[start[c]:start[c + 1]]


class CollisionModel(NamedTuple):
    """Capsules plus the names needed to report on them."""

    capsules: Capsules
    capsule_link: tuple       # (c,) link name of each capsule
    links: tuple              # links with collision geometry
    group: dict               # link -> anchor (-1 base, k moving joint)
    checked_pairs: tuple      # ((link_a, link_b), ...) checked link pairs
    disabled_pairs: frozenset  # frozenset({a, b}) pairs never checked
    sweep: np.ndarray         # (p + k, n) distance change per unit joint motion, per pair
    held: dict                # joint name -> value for joints outside the chain
    flat: tuple               # (F, K): chain model and capsules in two arrays (pack_flat)


def pack_flat(model: tuple, caps: Capsules) -> tuple:
    """
    Return (F float64, K int64): the chain's kinematic model and its capsules, flattened.

    A compiled call pays about 0.2 µs per array argument; the 14 arrays of the model and the
    capsules cost more than a whole check, so the kernels take these two arrays and rebuild
    views (:func:`ik_node.collision.kernels.unpack`). K = [m, c, p, k, types (m), index (m),
    anchor (c), pairs (2p), moving (k)]; F = [orig_R (9m), orig_t (3m), axes (3m), mult (m),
    offset (m), tip_R (9), tip_t (3), seg (6c), radius (c)].
    """
    orig_R, orig_t, axes, types, index, mult, offset, tip_R, tip_t = model
    m = orig_R.shape[0]
    c = caps.seg.shape[0]
    K = np.concatenate([[m, c, caps.pairs.shape[0], caps.moving.shape[0]], types, index,
                        caps.anchor, caps.pairs.ravel(), caps.moving,
                        caps.start]).astype(np.int64)
    F = np.concatenate([orig_R.ravel(), orig_t.ravel(), axes.ravel(), mult, offset,
                        tip_R.ravel(), tip_t.ravel(), caps.seg.ravel(), caps.radius,
                        caps.points.ravel()])
    return readonly(F.astype(float)), readonly(K)


def _motion(joint, value: float) -> np.ndarray:
    T = np.eye(4)
    if joint.joint_type in ('revolute', 'continuous'):
        T[:3, :3] = rotation_about_axis(np.ascontiguousarray(joint.axis), float(value))
    elif joint.joint_type == 'prismatic':
        T[:3, 3] = joint.axis * float(value)
    return T


def held_values(robot, chain, given: Optional[Mapping[str, float]]) -> dict:
    """Return {joint: value} for every actuated joint outside the chain."""
    given = dict(given or {})
    chain_joints = set(chain.moving_joint_names) | set(chain.joint_names)
    by_name = {j.name: j for j in robot.joints}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise URDFError(f'held joint values given for {unknown}, which are not joints of '
                        f'robot {robot.name!r}')
    inside = sorted(set(given) & chain_joints)
    if inside:
        raise URDFError(f'joints {inside} belong to the chain; only joints outside it are held')
    out = {}

    def value(j, depth=0):
        if j.name in given:
            v = float(given[j.name])
            if not np.isfinite(v):
                raise URDFError(f'held value of joint {j.name!r} is not finite: {v}')
            return float(np.clip(v, j.lower, j.upper))
        if j.mimic_joint is not None and j.mimic_joint in by_name and depth < 16:
            master = by_name[j.mimic_joint]
            if master.name not in chain_joints:
                return j.mimic_multiplier * value(master, depth + 1) + j.mimic_offset
        return float(np.clip(0.0, j.lower, j.upper))

    for j in robot.joints:
        if j.moves and j.name not in chain_joints:
            out[j.name] = value(j)
    return out


def link_groups(robot, chain, held: dict) -> dict:
    """
    Return {link: (anchor, T_anchor_link (4, 4))} for every link of the robot.

    anchor is -1 for links rigid with base_link (T relative to base_link) and k for links
    carried by the chain's moving joint k (T relative to that joint's child link frame).
    """
    moving = {name: k for k, name in enumerate(chain.moving_joint_names)}
    edges: dict[str, list[tuple[str, np.ndarray]]] = {}
    for j in robot.joints:
        if j.name in moving:
            continue
        T = j.origin @ _motion(j, held.get(j.name, 0.0))
        edges.setdefault(j.parent, []).append((j.child, T))
        edges.setdefault(j.child, []).append((j.parent, np.linalg.inv(T)))
    by_name = {j.name: j for j in robot.joints}
    roots = [(chain.base_link, -1)] + [(by_name[name].child, k) for name, k in moving.items()]
    out = {}
    for root, k in roots:
        out[root] = (k, np.eye(4))
        stack = [root]
        while stack:
            link = stack.pop()
            T_link = out[link][1]
            for other, T in edges.get(link, ()):
                if other not in out:
                    out[other] = (k, T_link @ T)
                    stack.append(other)
    return out


def _shape_capsules(shape: LinkShape, mesh_capsules: int = MESH_CAPSULES) -> list:
    if shape.kind == 'box':
        caps = [(capsule_of_box(shape.params), box_corners(shape.params))]
    elif shape.kind == 'cylinder':
        caps = [(capsule_of_cylinder(*shape.params), cylinder_points(*shape.params))]
    elif shape.kind == 'sphere':
        # The capsule is the sphere itself: no hull points are needed.
        caps = [((np.zeros(3), np.zeros(3), float(shape.params[0])), np.zeros((0, 3)))]
    else:
        assert shape.vertices is not None and shape.faces is not None   # kind 'mesh'
        caps = capsules_of_mesh(shape.vertices, shape.faces, mesh_capsules)
    out = []
    R, t = shape.origin[:3, :3], shape.origin[:3, 3]
    for (a, b, r), points in caps:
        out.append((R @ a + t, R @ b + t, r, hull_points(points) @ R.T + t))
    return out


def link_capsules(geometry: dict, fine: frozenset = frozenset()) -> dict:
    """
    Return {link: [(a, b, r, points), ...]} in each link's frame.

    ``points`` (h, 3) span a convex hull that contains what the capsule bounds (empty for a
    sphere, which its capsule is exactly). A link's capsules merge into one when that costs
    little volume (``MERGE_VOLUME``), except on the links in ``fine``: those keep one capsule
    per shape and bound a mesh with up to ``MESH_CAPSULES_FINE`` capsules, tighter bounds for
    a pair whose geometry parts where its merged bounds still touch (see
    :mod:`ik_node.collision.pairs`).
    """
    out = {}
    for link, shapes in geometry.items():
        tight = link in fine
        per_mesh = MESH_CAPSULES_FINE if tight else MESH_CAPSULES
        caps = [c for s in shapes for c in _shape_capsules(s, per_mesh)]
        if not tight and len(caps) > 1 and all(len(c[3]) for c in caps):
            points = np.vstack([c[3] for c in caps])
            a, b, r = capsule_of_points(points)
            if capsule_volume(a, b, r) - sum(capsule_volume(*c[:3]) for c in caps) \
                    < MERGE_VOLUME:
                caps = [(a, b, r, hull_points(points))]
        out[link] = caps
    return out


def _joint_reach(chain, seg: np.ndarray, radius: np.ndarray, anchor: np.ndarray
                 ) -> np.ndarray:
    """
    Return (m, c): how far [m] capsule c's points can be from moving joint j's axis origin.

    Zero where joint j does not carry capsule c, 1 for a prismatic joint that does (metres
    per metre). The bound holds in every configuration: the rigid offsets and prismatic
    travel from joint j to the capsule's anchor, plus the capsule's extent around it.
    """
    m = len(chain.moving_joint_names)
    offsets = np.linalg.norm(chain.model[1], axis=1)   # |t_k| from joint k-1 to joint k
    travel = np.zeros(m)
    for k in range(m):
        if chain.model[3][k] == 1:
            j = chain.model[4][k]
            travel[k] = abs(chain.model[5][k]) * max(abs(chain.lower[j]), abs(chain.upper[j]))
    reach = np.zeros((m, seg.shape[0]))
    for c in range(seg.shape[0]):
        k = anchor[c]
        extent = float(np.max(np.linalg.norm(seg[c], axis=1))) + float(radius[c])
        for j in range(k + 1):
            if chain.model[3][j] == 1:
                reach[j, c] = 1.0
            else:
                reach[j, c] = float(np.sum(offsets[j + 1:k + 1]) + np.sum(travel[j + 1:k + 1])
                                    + extent)
    return reach


def _actuated(chain, per_moving: np.ndarray) -> np.ndarray:
    """Return (n,) from (m,) values of the moving joints: summed per actuated joint (mimics)."""
    out = np.zeros(chain.n)
    for k in range(per_moving.shape[0]):
        out[chain.model[4][k]] += abs(chain.model[5][k]) * per_moving[k]
    return out


def _sweep(chain, seg: np.ndarray, radius: np.ndarray, anchor: np.ndarray,
           pairs: np.ndarray, moving: np.ndarray) -> np.ndarray:
    """
    Return (p + k, n): per unit of each joint, how far a pair's distance can change [m].

    Row i < p, capsule pair (a, b): the distance of two capsules does not change when both
    move together, so only the joints between their anchors count, and the capsule farther
    out moves relative to the other by at most their reach. Row p + i: moving capsule i
    against a fixed obstacle, every joint that carries it. See kernels.path_contact.
    """
    reach = _joint_reach(chain, seg, radius, anchor)
    rows = []
    for a, b in pairs:
        near, far = (a, b) if anchor[a] <= anchor[b] else (b, a)
        per = reach[:, far].copy()
        per[:anchor[near] + 1] = 0.0    # joints carrying both capsules
        rows.append(_actuated(chain, per))
    for c in moving:
        rows.append(_actuated(chain, reach[:, c]))
    return np.array(rows, dtype=float).reshape(-1, chain.n)


def build_model(robot, chain, capsules_by_link: dict, disabled: frozenset,
                held: dict) -> CollisionModel:
    """Assemble the CollisionModel of ``chain`` from link capsules and disabled pairs."""
    groups = link_groups(robot, chain, held)
    links = tuple(link for link in robot.links if link in capsules_by_link)
    seg, radius, anchor, owner, points, start = [], [], [], [], [], [0]
    for link in links:
        k, T = groups[link]
        for a, b, r, pts in capsules_by_link[link]:
            seg.append([T[:3, :3] @ a + T[:3, 3], T[:3, :3] @ b + T[:3, 3]])
            radius.append(r)
            anchor.append(k)
            owner.append(link)
            points.append(pts @ T[:3, :3].T + T[:3, 3])
            start.append(start[-1] + len(pts))
    seg_a = np.array(seg, dtype=float).reshape(-1, 2, 3)
    radius_a = np.array(radius, dtype=float)
    anchor_a = np.array(anchor, dtype=np.int64)
    checked = []
    pairs = []
    for i, la in enumerate(links):
        for lb in links[i + 1:]:
            ka, kb = groups[la][0], groups[lb][0]
            if ka == kb or frozenset((la, lb)) in disabled:
                continue
            checked.append((la, lb))
    checked_set = set(checked)
    for ca in range(len(owner)):
        for cb in range(ca + 1, len(owner)):
            if (owner[ca], owner[cb]) in checked_set:
                pairs.append((ca, cb))
    moving = [c for c in range(len(owner)) if anchor_a[c] >= 0]
    caps = Capsules(
        seg=readonly(seg_a), radius=readonly(radius_a), anchor=readonly(anchor_a),
        pairs=readonly(np.array(pairs, dtype=np.int64).reshape(-1, 2)),
        moving=readonly(np.array(moving, dtype=np.int64)),
        points=readonly(np.vstack(points) if points else np.zeros((0, 3))),
        start=readonly(np.array(start, dtype=np.int64)))
    sweep = readonly(_sweep(chain, seg_a, radius_a, anchor_a, caps.pairs, caps.moving))
    return CollisionModel(caps, tuple(owner), links, {lk: groups[lk][0] for lk in links},
                          tuple(checked), frozenset(disabled), sweep, dict(held),
                          pack_flat(chain.model, caps))
