# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The default disabled-pair matrix, used when no SRDF is given.

1. ``Adjacent``: a link and its parent link, and a link and its nearest ancestor that has
   collision geometry (so the hand next to a geometry-less flange counts as adjacent to the
   last arm link). Joints put such links in contact by design.
2. ``Always``: pairs whose URDF geometry itself touches in every one of ``samples``
   configurations drawn uniformly within the joint limits (seeded): contact there says
   nothing about the pose.

"Always" is decided on the exact geometry (:mod:`ik_node.collision.exact`), never on the
bounds the runtime check uses: a bound contains its link, so a pair whose bounds part at some
sample is never a candidate (:func:`bound_always_pairs`, a cheap necessary test), and each
remaining candidate is disabled only when its boxes, cylinders, spheres and meshes touch at
every sample (:func:`exact_parting`).

A candidate whose exact geometry parts somewhere stays checked; its two links then get
tighter bounds (:func:`ik_node.collision.model.link_capsules` with ``fine``) so that the
runtime check sees it part too. If even those touch at every sample, the pair stays checked
and is reported (``CollisionSetup.bound_always``, and a :class:`ik_node.errors.
CollisionModelWarning`): the runtime check will find it in contact wherever its bounds touch,
and only an SRDF that disables it knowingly switches it off.

Pairs in contact at some configurations only stay checked, as do pairs never seen in contact:
a sampled "never" is not a proof. Write the matrix out (:func:`ik_node.collision.srdf.
srdf_text`) to review or edit it.
"""

import numpy as np

__all__ = ['adjacent_pairs', 'sample_configurations', 'bound_always_pairs', 'exact_parting']

SAMPLES = 1000


def adjacent_pairs(robot, geometry_links: set) -> set:
    """Return {frozenset({a, b})} of adjacent links (see module doc)."""
    parent = {j.child: j.parent for j in robot.joints}
    out = set()
    for link in robot.links:
        p = parent.get(link)
        if p is None:
            continue
        out.add(frozenset((link, p)))
        seen = {link}
        while p is not None and p not in geometry_links and p not in seen:
            seen.add(p)
            p = parent.get(p)
        if p is not None and p != link:
            out.add(frozenset((link, p)))
    return out


def sample_configurations(chain, samples: int = SAMPLES, seed: int = 0) -> np.ndarray:
    """Return (samples, n) joint vectors drawn uniformly within the limits, seeded."""
    return np.atleast_2d(chain.random_q(np.random.default_rng(seed), samples))


def bound_always_pairs(chain, model, qs: np.ndarray) -> set:
    """
    Return the checked link pairs of ``model`` whose bounds touch at every row of ``qs``.

    A link pair touches at a sample when any of its capsule pairs does (with the hull gaps
    the runtime check uses), so every pair whose exact geometry touches at every sample is
    in the result: it is the necessary test that spares the exact one most pairs.
    """
    from ik_node.collision.kernels import distances, SLACK
    caps = model.capsules
    if caps.pairs.shape[0] == 0:
        return set()
    names = [frozenset((model.capsule_link[a], model.capsule_link[b]))
             for a, b in caps.pairs.tolist()]
    index = {pair: i for i, pair in enumerate(dict.fromkeys(names))}
    link_of = np.array([index[pair] for pair in names], dtype=np.int64)
    touching = np.ones(len(index), dtype=bool)
    none = np.zeros((0, 16))
    for q in qs:
        d_self, _, _ = distances(*model.flat, np.ascontiguousarray(q, dtype=float), none, SLACK)
        here = np.zeros(len(index), dtype=bool)
        here[link_of[d_self <= SLACK]] = True
        touching &= here
        if not touching.any():
            return set()
    return {pair for pair, i in index.items() if touching[i]}


def exact_parting(exact, pairs, qs: np.ndarray) -> dict:
    """
    Return {pair: index of the first row of ``qs`` where its exact geometry parts, or None}.

    None means the pair touches at every sample. The search drops a pair at its first
    parting sample, so a pair that parts costs a few FCL queries, one that always touches
    ``len(qs)``.
    """
    out: dict = dict.fromkeys(pairs)
    open_pairs = [tuple(sorted(pair)) for pair in pairs]
    for i, q in enumerate(qs):
        if not open_pairs:
            break
        exact.pose(q, {link for pair in open_pairs for link in pair})
        still = []
        for a, b in open_pairs:
            if exact.touching(a, b):
                still.append((a, b))
            else:
                out[frozenset((a, b))] = i
        open_pairs = still
    return out
