# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Small dense linear algebra for the solver loop (numba kernels, no LAPACK call overhead).

The systems solved in the loop are at most 6x6 or n x n and symmetric positive definite once
damped, so an unpivoted Cholesky (or LDLᵀ) factorisation is exact enough and cheaper than a
general solve. Nothing here inverts a matrix.
"""

import math

from ik_node._jit import njit, njit_guarded
import numpy as np

__all__ = ['cholesky_factor', 'cholesky_substitute', 'cholesky_substitute_into',
           'cholesky_solve', 'cholesky_solve_in_place', 'log_det_spd', 'sqrt_det_gram',
           'sqrt_det_gram_into', 'damped_least_squares', 'damped_least_squares_wide',
           # the solver loop's leaf kernels (ik_node.solvers.dls.run_attempt)
           'shifted_into', 'ldl_in_place', 'ldl_substitute_in_place', 'weighted_gram_into',
           'step_from_multipliers', 'column_gram_into',
           'tall_system_into']


@njit
def cholesky_factor(A):
    """
    Overwrite the lower triangle of a (k, k) symmetric A with its Cholesky factor L.

    Reads only that triangle. Returns False when a pivot is not positive (A is not SPD to
    working precision); the triangle is then partly overwritten.
    """
    k = A.shape[0]
    for j in range(k):
        s = A[j, j]
        for t in range(j):
            s -= A[j, t] * A[j, t]
        if not s > 0.0:
            return False
        d = math.sqrt(s)
        A[j, j] = d
        for i in range(j + 1, k):
            s = A[i, j]
            for t in range(j):
                s -= A[i, t] * A[j, t]
            A[i, j] = s / d
    return True


@njit
def cholesky_substitute(L, b):
    """Solve L Lᵀ x = b for x, L the factor in the lower triangle (:func:`cholesky_factor`)."""
    return cholesky_substitute_into(L, b, np.zeros(L.shape[0]))


@njit
def cholesky_substitute_into(L, b, x):
    """:func:`cholesky_substitute` into x (k,); returns x."""
    k = L.shape[0]
    # Forward (L y = b) into x, then back (Lᵀ x = y) in place.
    for i in range(k):
        s = b[i]
        for t in range(i):
            s -= L[i, t] * x[t]
        x[i] = s / L[i, i]
    for i in range(k - 1, -1, -1):
        s = x[i]
        for t in range(i + 1, k):
            s -= L[t, i] * x[t]
        x[i] = s / L[i, i]
    return x


@njit
def shifted_into(G, shift, A):
    """Fill A's lower triangle with that of G + shift·I (G, A (k, k); A may be G)."""
    k = A.shape[0]
    for i in range(k):
        for j in range(i):
            A[i, j] = G[i, j]
        A[i, i] = G[i, i] + shift


@njit_guarded
def ldl_in_place(A):
    """
    Overwrite the lower triangle of a (k, k) symmetric A with its LDLᵀ factors; (ok, det).

    D goes on the diagonal, the unit lower triangular L below it; only the lower triangle
    is read. No square root and one division per pivot: for the solver loop's small systems
    the latency of a Cholesky factorisation's roots and divisions is most of its cost. ok
    is False (det 0) when a pivot is not positive: A is not SPD to working precision (its
    triangle is then partly overwritten).
    """
    k = A.shape[0]
    det = 1.0
    for j in range(k):
        d = A[j, j]
        for t in range(j):
            d -= A[j, t] * A[j, t] * A[t, t]
        if not d > 0.0:
            return False, 0.0
        A[j, j] = d
        det *= d
        inv = 1.0 / d
        for i in range(j + 1, k):
            s = A[i, j]
            for t in range(j):
                s -= A[i, t] * A[j, t] * A[t, t]
            A[i, j] = s * inv
    return True, det


@njit_guarded
def ldl_substitute_in_place(A, x):
    """Solve L D Lᵀ x = b in place, x (>= k,) holding b, the factors in A (k, k)."""
    k = A.shape[0]
    for i in range(k):
        s = x[i]
        for t in range(i):
            s -= A[i, t] * x[t]
        x[i] = s
    for i in range(k):
        x[i] /= A[i, i]
    for i in range(k - 1, -1, -1):
        s = x[i]
        for t in range(i + 1, k):
            s -= A[t, i] * x[t]
        x[i] = s


@njit
def weighted_gram_into(J, w, G):
    """Fill G's lower triangle with J W Jᵀ of J's first k rows, W = diag(w), k from G (k, k)."""
    k = G.shape[0]
    n = J.shape[1]
    for i in range(k):
        for j in range(i + 1):
            s = 0.0
            for c in range(n):
                s += J[i, c] * w[c] * J[j, c]
            G[i, j] = s


@njit
def column_gram_into(J, rows, G):
    """Fill G's lower triangle with JᵀJ over J's first ``rows`` rows, G (n, n)."""
    n = G.shape[0]
    for i in range(n):
        for j in range(i + 1):
            s = 0.0
            for t in range(rows):
                s += J[t, i] * J[t, j]
            G[i, j] = s


@njit
def tall_system_into(G, J, e, rows, w_inv, lam2, A, g):
    """
    Fill A (lower triangle) and g with the normal equations of a damped tall system.

    A = JᵀJ + lam2 W, W = diag(1 / w_inv), from G = JᵀJ (:func:`column_gram_into`), and
    g = Jᵀ e over J's first ``rows`` rows; a frozen joint (w_inv 0) does not move: its row
    and column of A become those of the identity and g's entry 0. Then A dq = g is
    :func:`damped_least_squares`'s tall form.
    """
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] = G[i, j] if w_inv[i] > 0.0 and w_inv[j] > 0.0 else 0.0
        s = 0.0
        for t in range(rows):
            s += J[t, i] * e[t]
        if w_inv[i] > 0.0:
            A[i, i] = G[i, i] + lam2 / w_inv[i]
            g[i] = s
        else:
            A[i, i] = 1.0
            g[i] = 0.0


@njit
def step_from_multipliers(J, y, w, dq):
    """Fill dq (n,) with W Jᵀ y over J's first k rows, k = len(y), W = diag(w)."""
    k = y.shape[0]
    for c in range(J.shape[1]):
        s = 0.0
        for i in range(k):
            s += J[i, c] * y[i]
        dq[c] = w[c] * s


@njit
def cholesky_solve(A, b):
    """
    Solve A x = b for a (k, k) symmetric positive definite A; return (x, ok).

    ``A`` is factorised in a copy. ``ok`` is False when a pivot is not positive (A is not
    SPD to working precision); x is then zeros.
    """
    return cholesky_solve_in_place(A.copy(), b)


@njit
def cholesky_solve_in_place(A, b):
    """
    :func:`cholesky_solve` that overwrites A's lower triangle with its Cholesky factor.

    For a matrix built only to be solved once: no copy is made.
    """
    if not cholesky_factor(A):
        return np.zeros(A.shape[0]), False
    return cholesky_substitute(A, b), True


@njit
def log_det_spd(A):
    """Return log det(A) of a symmetric positive definite A, -inf if it is not SPD."""
    L = A.copy()
    if not cholesky_factor(L):
        return -np.inf
    out = 0.0
    for j in range(L.shape[0]):
        out += 2.0 * math.log(L[j, j])
    return out


@njit
def sqrt_det_gram(J, rows):
    """
    Return √det(G), G the Gram matrix of J's first ``rows`` rows (0 if G is not SPD).

    G = J Jᵀ, or JᵀJ when J has fewer columns than ``rows``. det(G) is the product of G's
    LDLᵀ pivots: no determinant routine, no matrix product call (this runs once per solver
    iteration).
    """
    n = J.shape[1]
    k = rows if n >= rows else n
    return sqrt_det_gram_into(J, rows, np.empty((k, k)))


@njit
def sqrt_det_gram_into(J, rows, G):
    """:func:`sqrt_det_gram` with G (k, k) given as scratch, k = min(rows, J's columns)."""
    if J.shape[1] < rows:
        column_gram_into(J, rows, G)
    else:
        for i in range(rows):
            for j in range(i + 1):
                s = 0.0
                for c in range(J.shape[1]):
                    s += J[i, c] * J[j, c]
                G[i, j] = s
    return math.sqrt(ldl_in_place(G)[1])


@njit
def damped_least_squares_wide(J, e, w_inv, lam2, A, y, dq):
    """
    :func:`damped_least_squares` of the first r rows of J, r <= n, into dq; return ok.

    A (r, r), y (r,): scratch, r is taken from A; J (>= r, n), e (>= r,); dq (n,) receives
    the step, zero when the damped system is not positive definite (ok False).
    """
    weighted_gram_into(J, w_inv, A)
    shifted_into(A, lam2, A)
    if not ldl_in_place(A)[0]:
        dq[:] = 0.0
        return False
    y[:] = e[:A.shape[0]]
    ldl_substitute_in_place(A, y)
    step_from_multipliers(J, y, w_inv, dq)
    return True


@njit
def damped_least_squares(J, e, w_inv, lam2):
    """
    Return dq minimising |J dq - e|^2 + lam2 |dq|_W^2, W = diag(1 / w_inv).

    dq = W^-1 J^T (J W^-1 J^T + lam2 I)^-1 e  when rows <= columns (an r x r system), else
    the equal form (J^T J + lam2 W)^-1 J^T e (an n x n system). J is (r, n), e (r,), w_inv (n,).
    """
    r, n = J.shape
    if r <= n:
        dq = np.empty(n)
        ok = damped_least_squares_wide(J, e, w_inv, lam2, np.empty((r, r)), np.empty(r), dq)
        return dq, ok
    G = np.empty((n, n))
    column_gram_into(J, r, G)
    A = np.empty((n, n))
    dq = np.empty(n)
    tall_system_into(G, J, e, r, w_inv, lam2, A, dq)
    if not ldl_in_place(A)[0]:
        return np.zeros(n), False
    ldl_substitute_in_place(A, dq)
    return dq, True
