# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Optional numba JIT: kernels run compiled when numba is installed, as plain Python otherwise.

The kernels are written in the subset of Python and numpy that numba compiles, so the same
source is the reference implementation and the fast one. Set ``IK_NODE_DISABLE_JIT=1`` to
force the pure-Python path (slow, identical results up to rounding).
"""

import os

__all__ = ['njit', 'JIT_ENABLED']

JIT_ENABLED = False
if os.environ.get('IK_NODE_DISABLE_JIT', '') not in ('1', 'true', 'yes'):
    try:
        import numba
        JIT_ENABLED = True
    except ImportError:  # pragma: no cover - depends on the install
        pass


def njit(func):
    """Return ``func`` compiled by numba (cached on disk) when available, else unchanged."""
    if JIT_ENABLED:
        return numba.njit(cache=True, fastmath=False)(func)
    return func
