# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The default disabled-pair matrix, used when no SRDF is given.

1. ``Adjacent``: a link and its parent link, and a link and its nearest ancestor that has
   collision geometry (so the hand next to a geometry-less flange counts as adjacent to the
   last arm link). Joints put such links in contact by design.
2. ``Always``: pairs whose capsules touch in every one of ``samples`` configurations drawn
   uniformly within the joint limits (seeded): contact there says nothing about the pose.

Pairs in contact only at some configurations stay checked, as do pairs never seen in
contact: a sampled "never" is not a proof. The matrix is decided on the capsules, so a pair
whose capsules always overlap is disabled even if its meshes part somewhere; write the
matrix out (:func:`ik_node.collision.srdf.srdf_text`) to review or edit it.
"""

import numpy as np

__all__ = ['adjacent_pairs', 'always_touching_pairs']


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


def always_touching_pairs(chain, model, samples: int = 1000, seed: int = 0) -> set:
    """Return the checked link pairs of ``model`` in capsule contact at every sample."""
    from ik_node.collision.kernels import distances, SLACK
    caps = model.capsules
    if caps.pairs.shape[0] == 0:
        return set()
    rng = np.random.default_rng(seed)
    touching = np.ones(caps.pairs.shape[0], dtype=bool)
    none = np.zeros((0, 16))
    for _ in range(samples):
        d_self, _, _ = distances(*model.flat, chain.random_q(rng), none, SLACK)
        touching &= d_self <= SLACK
        if not touching.any():
            return set()
    # A link pair with several capsule pairs is always touching when, at every sample, at
    # least one of its capsule pairs touches; the per-capsule-pair test above is stricter
    # (a subset), so it never disables a pair that parts.
    return {frozenset((model.capsule_link[caps.pairs[i, 0]], model.capsule_link[caps.pairs[i, 1]]))
            for i in np.flatnonzero(touching)}
