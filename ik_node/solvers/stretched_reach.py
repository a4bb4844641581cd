# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The arm's stretched reach, found numerically: how far the tip gets from the first joint.

The chain's own bound (:attr:`ik_node.Chain.reach`) adds up link lengths, so it is loose: on
a UR3 it is 0.85 m where the tip never gets beyond about 0.6 m, and a target in between
would cost the driver many restarts before it could call it out of reach. This module
stretches the arm toward far points in many directions with damped least squares (from
mid-range and from a random start each), and refines the farthest poses along their own
direction; the largest distance of the tip from the first joint is the estimate. It is found
once per chain, on the first target that needs it (or in :func:`ik_node.warm_up`), and the
driver calls a target out of reach when it lies :data:`REACH_MARGIN` beyond it.
"""

import math

from ik_node.solvers.dls import DlsParams, METHOD_DLS, run_attempt
from ik_node.solvers.objectives import empty_objectives
from ik_node.solvers.target_records import make_target
import numpy as np

__all__ = ['stretched_reach', 'stretched_bound', 'beyond_stretched_reach', 'REACH_MARGIN']

# A target this fraction beyond the estimated reach is out of reach. The estimate is a
# maximum found by local searches, so it can only fall short of the true reach; on the
# 14 benchmark arms it is within 0.2% of the farthest of 1000 random joint samples or
# beyond it.
REACH_MARGIN = 0.02
_DIRECTIONS = 26
_REFINE = 3
_SEED = 20261201


def _directions(k: int) -> np.ndarray:
    """Return k unit vectors spread evenly over the sphere (Fibonacci lattice)."""
    i = np.arange(k) + 0.5
    z = 1.0 - 2.0 * i / k
    r = np.sqrt(1.0 - z * z)
    phi = math.pi * (3.0 - math.sqrt(5.0)) * i
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


# Estimates by arm, for every Chain object of the same arm in this process (a model loaded
# again, a chain unpickled by a worker): the estimate takes about a second.
_BY_ARM: dict[tuple, float] = {}


def _arm_key(chain) -> tuple:
    """Return what identifies the arm: joints, limits and its tip pose at three postures."""
    postures = [chain.mid] + [np.clip(np.full(chain.n, v), chain.lower, chain.upper)
                              for v in (0.0, 0.3)]
    return (tuple(chain.joint_names), chain.base_link, chain.tip_link, chain.lower.tobytes(),
            chain.upper.tobytes(), *(chain.fk(q).tobytes() for q in postures))


def stretched_reach(chain) -> float:
    """Return the estimated reach [m] of the tip from ``chain.reach_origin`` (cached)."""
    cached = getattr(chain, '_stretched_reach', None)
    if cached is not None:
        return cached
    key = _arm_key(chain)
    if key in _BY_ARM:
        chain._stretched_reach = _BY_ARM[key]
        return _BY_ARM[key]
    n = chain.n
    L = chain.length_scale
    p0 = chain.reach_origin
    params = DlsParams(method=METHOD_DLS, w_pos=1.0 / L, w_ori=1.0, w_inv=np.ones(n),
                       tol_p=1e-12, tol_o=1.0, max_iter=100, lam0=1e-3, lam_max=0.1, w0=1e-3,
                       objectives_on=False, k_null=0.0, max_step=0.5, secondary_iter=0,
                       priority=False)
    obj = empty_objectives(n)
    rng = np.random.default_rng(_SEED)

    def stretch(u, start):
        tgt = make_target(p0 + 10.0 * L * u)
        q = run_attempt(chain.model, chain.limits, tgt, params, obj, start)[0]
        return q, float(np.linalg.norm(chain.fk(q)[:3, 3] - p0))

    found = []
    for u in _directions(_DIRECTIONS):
        for start in (chain.mid, chain.random_q(rng)):
            found.append(stretch(u, np.array(start, dtype=float)))
    found.sort(key=lambda f: -f[1])
    best = found[0][1]
    for q, d in found[:_REFINE]:
        for _ in range(2):
            p = chain.fk(q)[:3, 3] - p0
            norm = float(np.linalg.norm(p))
            if norm == 0.0:
                break
            q, d = stretch(p / norm, q)
            best = max(best, d)
    # Never more than the provable bound.
    best = min(best, chain.reach)
    chain._stretched_reach = _BY_ARM[key] = best
    return best


def stretched_bound(chain) -> float:
    """Return the distance [m] from ``chain.reach_origin`` past which a target is out of reach."""
    return (1.0 + REACH_MARGIN) * stretched_reach(chain)


def beyond_stretched_reach(chain, position: np.ndarray, tolerance: float) -> bool:
    """Return True when ``position`` [m] lies REACH_MARGIN beyond the stretched reach."""
    d = position - chain.reach_origin
    return math.sqrt(float(d @ d)) > stretched_bound(chain) + tolerance
