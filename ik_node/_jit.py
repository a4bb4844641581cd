# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Optional numba JIT: kernels run compiled when numba is installed, as plain Python otherwise.

The kernels are written in the subset of Python and numpy that numba compiles, so the same
source is the reference implementation and the fast one. Set ``IK_NODE_DISABLE_JIT=1`` to
force the pure-Python path (slow, identical results up to rounding).

numba's disk cache checks only the source file of the function it compiled, not the kernels
it inlined from other modules; after an edit or upgrade of one module, another module's
cache could still hold the old code. So the cache files of this package are dropped whenever
the package's sources differ from those they were compiled from.
"""

import hashlib
import os
from pathlib import Path

__all__ = ['njit', 'njit_nogil', 'JIT_ENABLED']

JIT_ENABLED = False
if os.environ.get('IK_NODE_DISABLE_JIT', '') not in ('1', 'true', 'yes'):
    try:
        import numba
        JIT_ENABLED = True
    except ImportError:  # pragma: no cover - depends on the install
        pass

_PACKAGE = Path(__file__).resolve().parent
_STAMP = _PACKAGE / '__pycache__' / 'ik_node_jit_sources.sha256'


def _sources_digest() -> str:
    # Only the modules that define kernels: editing the ROS layer keeps the cache.
    h = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob('*.py')):
        text = path.read_bytes()
        if b'@njit' in text:
            h.update(str(path.relative_to(_PACKAGE)).encode())
            h.update(text)
    return h.hexdigest()


def _drop_stale_cache() -> None:
    try:
        digest = _sources_digest()
        if _STAMP.is_file() and _STAMP.read_text() == digest:
            return
        for cache_file in list(_PACKAGE.rglob('*.nbi')) + list(_PACKAGE.rglob('*.nbc')):
            cache_file.unlink(missing_ok=True)
        _STAMP.parent.mkdir(exist_ok=True)
        tmp = _STAMP.with_suffix(f'.{os.getpid()}.tmp')
        tmp.write_text(digest)
        tmp.replace(_STAMP)
    except OSError:
        # A read-only install: numba then caches in the user's cache folder, and an upgrade
        # replaces every source file, which invalidates every entry anyway.
        pass


if JIT_ENABLED:
    _drop_stale_cache()


def njit(func):
    """Return ``func`` compiled by numba (cached on disk) when available, else unchanged."""
    if JIT_ENABLED:
        return numba.njit(cache=True, fastmath=False)(func)
    return func


def njit_nogil(func):
    """Return ``func`` compiled by numba, releasing the GIL (threads run it side by side)."""
    if JIT_ENABLED:
        return numba.njit(cache=True, fastmath=False, nogil=True)(func)
    return func
