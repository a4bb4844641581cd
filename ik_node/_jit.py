# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Optional numba JIT: kernels run compiled when numba is installed, as plain Python otherwise.

The kernels are written in the subset of Python and numpy that numba compiles, so the same
source is the reference implementation and the fast one. Set ``IK_NODE_DISABLE_JIT=1`` to
force the pure-Python path (slow, identical results up to rounding).

numba's disk cache checks only the source file of the function it compiled, not the kernels
it inlined from other modules; after an edit or upgrade of one module, another module's
cache could still hold the old code. So the cache files of this package are dropped when the
package's sources differ from those they were compiled from (:func:`drop_stale_cache`):
by ``ik-compile`` before it compiles, and by every process right before its first load or
compile of a kernel (numba announces both; importing the package touches no file).

A fresh install has no cache: each kernel compiles on its first call (up to a minute per
solver method). ``ik-compile`` (:mod:`ik_node.compile`) compiles them all and marks the cache
compiled (:func:`compiled`). A program that must answer at once (the ROS node) checks that
mark before it imports any kernel; on a fresh install it calls :func:`use_pure_python` and
starts the compile in the background (:func:`compile_in_background`).

Loading is not solving: the first call of a kernel in a process loads it from the cache (about
0.25 s) or compiles it, and a solve's ``timeout`` must not be spent on that. Budgets run on
:func:`solving_clock`, which stands still while the calling thread loads or compiles a kernel.
"""

import functools
import hashlib
import os
from pathlib import Path
import subprocess
import sys
import threading
import time

import numpy as np

__all__ = ['njit', 'njit_inline', 'njit_nogil', 'njit_guarded', 'readonly', 'monotonic_clock',
           'compiled_entry', 'JIT_ENABLED', 'JIT_UNAVAILABLE', 'compiled', 'mark_compiled',
           'use_pure_python', 'compile_in_background', 'COMPILE_LOG', 'solving_clock',
           'loading_seconds', 'drop_stale_cache']

JIT_ENABLED = False
# Why numba is off in this install or environment ('' when it is available).
JIT_UNAVAILABLE = 'IK_NODE_DISABLE_JIT is set'
if os.environ.get('IK_NODE_DISABLE_JIT', '') not in ('1', 'true', 'yes'):
    try:
        import numba
        JIT_ENABLED = True
        JIT_UNAVAILABLE = ''
    except ImportError:  # pragma: no cover - depends on the install
        JIT_UNAVAILABLE = 'numba is not installed'

_PACKAGE = Path(__file__).resolve().parent
_STAMP = _PACKAGE / '__pycache__' / 'ik_node_jit_sources.sha256'
# Written by ik-compile once every kernel of the package is in the cache (sources digest).
_COMPILED = _PACKAGE / '__pycache__' / 'ik_node_jit_compiled.sha256'
# Where a background compile writes its output.
COMPILE_LOG = _PACKAGE / '__pycache__' / 'ik_node_compile.log'


@functools.lru_cache(maxsize=1)
def _sources_digest() -> str:
    # Only the modules that define kernels (and this one, which defines the kernels' clock):
    # editing the ROS layer keeps the cache. Read once per process (by the first of
    # drop_stale_cache(), compiled() and mark_compiled()).
    h = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob('*.py')):
        text = path.read_bytes()
        if b'@njit' in text or path.name == '_jit.py':
            h.update(str(path.relative_to(_PACKAGE)).encode())
            h.update(text)
    return h.hexdigest()


def drop_stale_cache() -> bool:
    """
    Drop this package's numba cache files unless they were compiled from its current sources.

    Returns True when it dropped them (and the compiled mark). The sources' digest is stamped
    next to the cache, so a second call finds it fresh. Nothing happens where the package
    folder is read-only: numba then caches in the user's cache folder, and an upgrade
    replaces every source file, which invalidates every entry anyway.
    """
    try:
        digest = _sources_digest()
        if _STAMP.is_file() and _STAMP.read_text() == digest:
            return False
        for cache_file in list(_PACKAGE.rglob('*.nbi')) + list(_PACKAGE.rglob('*.nbc')):
            cache_file.unlink(missing_ok=True)
        _COMPILED.unlink(missing_ok=True)
        _write(_STAMP, digest)
        return True
    except OSError:
        return False


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_suffix(f'.{os.getpid()}.tmp')
    tmp.write_text(text)
    tmp.replace(path)


def compiled() -> bool:
    """
    Return True when the kernels need no compiling.

    That is when the cache is marked compiled for these sources, or numba is off (nothing to
    compile); also True when the package folder is read-only (an install compiled by whoever could
    write it; numba then caches in the user's folder and this cannot tell).
    """
    if not JIT_ENABLED:
        return True
    if not os.access(_PACKAGE, os.W_OK):
        return True
    try:
        return _COMPILED.read_text() == _sources_digest()
    except OSError:
        return False


def mark_compiled() -> None:
    """Mark the cache compiled for the current sources (after every kernel was compiled)."""
    _write(_COMPILED, _sources_digest())


def use_pure_python() -> None:
    """
    Run this process's kernels as plain Python (numba stays off).

    Only before the first kernel module is imported: a kernel defined already stays as it is.
    """
    global JIT_ENABLED
    loaded = [m for m in ('ik_node.model.kinematics', 'ik_node.model.chain') if m in sys.modules]
    if loaded:
        raise RuntimeError(f'use_pure_python() after the kernels were defined ({loaded[0]})')
    JIT_ENABLED = False


def compile_in_background() -> subprocess.Popen:
    """
    Start ``python -m ik_node.compile`` as a low-priority process of its own; return it.

    It outlives the caller (the next start finds the cache compiled) and appends its output
    to :data:`COMPILE_LOG` under a line naming the process that started it. A second one
    started while the first compiles waits for the first's lock, then finds the cache
    compiled and ends.
    """
    COMPILE_LOG.parent.mkdir(exist_ok=True)
    with open(COMPILE_LOG, 'a') as log:
        log.write(f'--- ik-compile started {time.strftime("%Y-%m-%d %H:%M:%S")} by '
                  f'pid {os.getpid()} ({os.path.basename(sys.argv[0]) or "python"})\n')
        log.flush()
        return subprocess.Popen([sys.executable, '-m', 'ik_node.compile'],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=lambda: os.nice(10))


def _dispatcher(func, **options):
    """Return numba's dispatcher of ``func`` (cached on disk, no fastmath)."""
    dispatcher = numba.njit(cache=True, fastmath=False, **options)(func)
    # Registered after the first dispatcher is made, which sets numba's compiler up under its
    # lock: the listener then hears of loads and compiles only, never of an import.
    _listen()
    return dispatcher


def njit(func):
    """Return ``func`` compiled by numba (cached on disk) when available, else unchanged."""
    if JIT_ENABLED:
        return _dispatcher(func)
    return func


def njit_inline(func):
    """
    Return ``func`` compiled by numba into each caller (numba IR inlining), else unchanged.

    For small wrappers around big kernels: numba compiles every jitted function into a
    library of its own that holds the code of all it calls, and optimises that whole code
    again. A wrapper compiled on its own costs as much as the kernel it wraps; inlined, it
    costs nothing extra.
    """
    if JIT_ENABLED:
        return _dispatcher(func, inline='always')
    return func


def readonly(a) -> np.ndarray:
    """
    Return ``a`` as a C-contiguous read-only array (a copy only when it must be).

    The arrays a kernel keeps (a chain's model, collision capsules, packed objectives) are
    read-only; numba types a read-only array apart from a writable one, so an argument must
    always come one way or the kernel compiles twice.
    """
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


def njit_nogil(func):
    """Return ``func`` compiled by numba, releasing the GIL (threads run it side by side)."""
    if JIT_ENABLED:
        return _dispatcher(func, nogil=True)
    return func


def njit_guarded(func):
    """
    Return ``func`` compiled by numba with numpy's error model (no check on division).

    For small kernels of the solver loop whose every division is guarded by the code itself
    (a pivot checked positive before it divides). Under numba's default (Python) error
    model each division gets a ZeroDivisionError path, and a function with such a path
    keeps the reference counts of its array arguments: two atomic updates per array per
    call, which for a 6x6 solve cost as much as its arithmetic.
    """
    if JIT_ENABLED:
        return _dispatcher(func, error_model='numpy')
    return func


def compiled_entry(kernel, args: tuple):
    """
    Return the compiled code ``kernel`` runs for arguments of the types of ``args``.

    numba's dispatcher works out the type of every argument on each call (tens of µs for
    nested records, holding the GIL); a caller that calls a kernel many times with
    arguments of the same types calls this code directly. The kernel must have been called
    with such arguments already (it compiles or loads the code then). Without numba:
    ``kernel`` itself.
    """
    if not JIT_ENABLED:
        return kernel
    return kernel.get_overload(tuple(kernel.typeof_pyval(a) for a in args))


def monotonic_clock():
    """
    Return ``now() -> float`` [s] that kernels call: the clock of ``time.perf_counter``.

    Compiled, it reads CLOCK_MONOTONIC through libc by name (no address is baked into the
    code, so the kernel stays in numba's disk cache); a kernel can then keep a deadline set
    by Python with ``time.perf_counter() + timeout``. Without numba it is perf_counter itself.
    """
    if not JIT_ENABLED:
        return time.perf_counter
    return _compiled_clock()


class _Loading(threading.local):
    """What one thread spent in numba's compiler lock: loading or compiling kernels."""

    seconds = 0.0       # in total [s]
    depth = 0           # the lock is re-entrant: nested holds count once
    since = 0.0         # perf_counter() when the outermost hold began


class _Process:
    """What this process's numba did: the listener, its loading record, the cache check."""

    def __init__(self):
        self.listening = False
        self.loading = _Loading()
        self.cache_checked = False
        self.lock = threading.Lock()


# numba's dispatchers, and so what was loaded, belong to the process: so does this record,
# filled by a listener that the first kernel defined registers (in memory only).
_PROCESS = _Process()


def _listen() -> None:
    """Register the listener of numba's compiler lock (once per process)."""
    if _PROCESS.listening:
        return
    from numba.core import event

    with _PROCESS.lock:
        if _PROCESS.listening:
            return
        loading = _PROCESS.loading

        class CompilerLockListener(event.Listener):
            # numba announces the lock before it waits for it (waiting for another thread's
            # compile counts as loading too) and before it reads any cache index.
            def on_start(self, ev) -> None:
                if not _PROCESS.cache_checked:
                    _check_cache_once()
                if loading.depth == 0:
                    loading.since = time.perf_counter()
                loading.depth += 1

            def on_end(self, ev) -> None:
                if loading.depth == 0:     # a hold that began before the listener
                    return
                loading.depth -= 1
                if loading.depth == 0:
                    loading.seconds += time.perf_counter() - loading.since

        event.register('numba:compiler_lock', CompilerLockListener())
        _PROCESS.listening = True


def _check_cache_once() -> None:
    """Run :func:`drop_stale_cache` before the process's first load or compile of a kernel."""
    with _PROCESS.lock:
        if not _PROCESS.cache_checked:
            drop_stale_cache()
            _PROCESS.cache_checked = True


def loading_seconds() -> float:
    """
    Return the seconds this thread spent loading or compiling kernels.

    Every load from numba's disk cache and every compile holds numba's compiler lock; this is
    the time spent waiting for and holding it since the first kernel was defined (0.0 without
    numba).
    """
    if not _PROCESS.listening:
        if not JIT_ENABLED:
            return 0.0
        _listen()
    loading = _PROCESS.loading
    if loading.depth:
        return loading.seconds + time.perf_counter() - loading.since
    return loading.seconds


def solving_clock() -> float:
    """
    Return ``time.perf_counter()`` less :func:`loading_seconds` [s]: the clock of budgets.

    It stands still while this thread loads or compiles a kernel, so a timeout measured on it
    counts solving only: the first solve of a process, which loads the kernels it needs, gets
    the same answer as the second. Compiled kernels load before they run and never during,
    so a kernel that keeps a deadline gets it as a timeout and sets it when it starts.
    """
    return time.perf_counter() - loading_seconds()


@functools.lru_cache(maxsize=1)
def _compiled_clock():
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def clock_gettime(typingctx, clock_id, timespec):
        def codegen(context, builder, signature, args):
            fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32), ir.IntType(8).as_pointer()])
            fn = cgutils.get_or_insert_function(builder.module, fnty, 'clock_gettime')
            return builder.call(fn, args)
        return types.int32(types.int32, types.voidptr), codegen

    clock_monotonic = np.int32(time.CLOCK_MONOTONIC)

    @numba.njit(cache=True, nogil=True)
    def now():
        ts = np.empty(2, np.int64)
        clock_gettime(clock_monotonic, ts.ctypes)  # type: ignore[call-arg]
        return ts[0] + ts[1] * 1e-9

    return now
