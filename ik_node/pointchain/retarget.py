# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Retargeting joint rotations between two reference poses (for example T-pose and A-pose).

A skeleton of n bones with ``parents`` (parents[i] < i, -1 for a root) stores a pose as
local rotations R_i (rotation of bone i relative to its parent, away from the reference
pose); the global pose rotation is G_i = G_parent(i) R_i (G_parent = I for a root). The
bone's world orientation is G_i O_i, O_i its orientation in the reference pose.

Moving the same motion from reference pose A to reference pose B must keep every bone's world
orientation: G_i^B O_i^B = G_i^A O_i^A. With the global offsets Q_i = O_i^B (O_i^A)^T
(Q_i^{A->B}: the world rotation taking bone i from pose A to pose B) this holds for

    R_i^B = Q_{p_i} R_i^A Q_i^T,

Q_{p_i} the offset of the parent (I for a root), since then G_i^B = G_i^A Q_i^T by induction.
The offsets of B->A are the transposes, so A->B then B->A returns the input.
"""

from typing import Sequence

from ik_node.errors import IKInputError
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['global_rotations', 'local_rotations', 'reference_offsets', 'retarget_rotations',
           'inverse_offsets']


def _parents(parents: Sequence[int], n: int) -> np.ndarray:
    par = np.array(parents).reshape(-1)
    if par.shape != (n,) or not np.issubdtype(par.dtype, np.integer):
        raise IKInputError(f'parents must be {n} integers')
    for i, p in enumerate(par):
        if not -1 <= p < i:
            raise IKInputError('parents must satisfy -1 <= parents[i] < i')
    return par.astype(np.int64)


def _rotations(R: ArrayLike, name: str) -> np.ndarray:
    a = np.array(R, dtype=float)
    if a.ndim < 3 or a.shape[-2:] != (3, 3) or not np.all(np.isfinite(a)):
        raise IKInputError(f'{name} must be finite (..., n, 3, 3) rotations, got {a.shape}')
    return a


def global_rotations(local: ArrayLike, parents: Sequence[int]) -> np.ndarray:
    """Return G (..., n, 3, 3) with G_i = G_parent(i) R_i from local rotations (..., n, 3, 3)."""
    R = _rotations(local, 'local')
    par = _parents(parents, R.shape[-3])
    G = np.empty_like(R)
    for i, p in enumerate(par):
        G[..., i, :, :] = R[..., i, :, :] if p < 0 else G[..., p, :, :] @ R[..., i, :, :]
    return G


def local_rotations(global_: ArrayLike, parents: Sequence[int]) -> np.ndarray:
    """Return R (..., n, 3, 3) with R_i = G_parent(i)^T G_i from global rotations G."""
    G = _rotations(global_, 'global_')
    par = _parents(parents, G.shape[-3])
    R = np.empty_like(G)
    for i, p in enumerate(par):
        R[..., i, :, :] = (G[..., i, :, :] if p < 0
                           else np.swapaxes(G[..., p, :, :], -1, -2) @ G[..., i, :, :])
    return R


def reference_offsets(reference_a: ArrayLike, reference_b: ArrayLike) -> np.ndarray:
    """Return Q (n, 3, 3), Q_i = O_i^B (O_i^A)^T, from world bone orientations in poses A, B."""
    A = _rotations(reference_a, 'reference_a')
    B = _rotations(reference_b, 'reference_b')
    if A.shape != B.shape:
        raise IKInputError('the two reference poses must have the same shape')
    return B @ np.swapaxes(A, -1, -2)


def inverse_offsets(offsets: ArrayLike) -> np.ndarray:
    """Return the B->A offsets (transposes) of A->B offsets (n, 3, 3)."""
    return np.swapaxes(_rotations(offsets, 'offsets'), -1, -2).copy()


def retarget_rotations(local_a: ArrayLike, parents: Sequence[int],
                       offsets: ArrayLike) -> np.ndarray:
    """
    Return local rotations for reference pose B: R_i^B = Q_{p_i} R_i^A Q_i^T.

    local_a (..., n, 3, 3): local rotations relative to reference pose A (any leading
    axes, e.g. frames of an animation); parents (n,); offsets (n, 3, 3): Q_i^{A->B} (see
    :func:`reference_offsets`). The input is not changed.
    """
    R = _rotations(local_a, 'local_a')
    Q = _rotations(offsets, 'offsets')
    n = R.shape[-3]
    if Q.shape != (n, 3, 3):
        raise IKInputError(f'offsets must be ({n}, 3, 3), got {Q.shape}')
    par = _parents(parents, n)
    Qp = np.array([np.eye(3) if p < 0 else Q[p] for p in par])
    return Qp @ R @ np.swapaxes(Q, -1, -2)
