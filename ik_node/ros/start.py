# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The ``ik_node`` executable: decide how the solver kernels run, then start the node.

On a fresh install numba's cache is empty, and each solver method would compile on its first
use (up to a minute) before the node could answer. Instead the node serves through the same
kernels run as plain Python (a solve takes a few milliseconds more; fine for targets, and the
command stream is not affected) and runs ``ik-compile`` in the background at low priority;
it says when that finished, and the next start of the node loads the compiled kernels. A
compile still running when the node stops is stopped with it (nothing is left running); the
kernels it compiled stay in the cache and the next start compiles the rest. Run
``ik-compile`` after installing to skip this; ``IK_NODE_BACKGROUND_COMPILE=0`` in the
environment keeps the plain-Python kernels without compiling (say, on a busy robot computer).
"""

import os
import signal
import subprocess
import sys

from ik_node import _jit

__all__ = ['main', 'KernelWatch', 'stop_compile']


class KernelWatch:
    """Say how the node's kernels run, and when a background compile has finished."""

    def __init__(self, node, background=None):
        self._node = node
        self._background = background
        if background is None:
            if _jit.JIT_UNAVAILABLE:
                node.get_logger().warning(
                    f'{_jit.JIT_UNAVAILABLE}: the solver kernels run as plain Python (slower '
                    'solves; nothing to compile)')
            elif not self.compiled:
                node.get_logger().warning(
                    'the solver kernels are not compiled on this install: serving through '
                    'them as plain Python (slower solves); run ik-compile to compile them')
            return
        node.get_logger().warning(
            'the solver kernels are not compiled yet on this install: serving through them '
            'as plain Python (slower solves) while ik-compile compiles them in the background '
            f'(pid {background.pid}, about 3 minutes on 2 idle cores, several on a busy '
            f'machine; output in {_jit.COMPILE_LOG}); the next start of the node uses them. '
            'Stopping the node stops it too: what it compiled so far stays cached')
        self._timer = node.create_timer(1.0, self._poll)

    @property
    def compiled(self) -> bool:
        """Return True when this process runs the compiled kernels."""
        return _jit.JIT_ENABLED

    def preparing_message(self, method: str) -> str:
        """Return what the node logs before it prepares the kernels of ``method``."""
        if not self.compiled:
            return f'preparing the {method} solver (plain-Python kernels: no compiling)'
        return (f'preparing the {method} solver kernels (loaded from the cache compiled by '
                'ik-compile in about a second; a method not compiled there compiles now, '
                'up to a minute)')

    def _poll(self) -> None:
        code = self._background.poll()
        if code is None:
            return
        self._timer.cancel()
        if code == 0:
            self._node.get_logger().info('ik-compile finished: the next start of the node '
                                         'uses the compiled kernels')
        else:
            self._node.get_logger().error(f'ik-compile failed (exit status {code}): see '
                                          f'{_jit.COMPILE_LOG}; the node goes on with the '
                                          'plain-Python kernels')


def main(args: list[str] | None = None) -> int:
    """Run the ik_node node until shutdown; return the process exit code."""
    background = None
    if not _jit.compiled():
        _jit.use_pure_python()
        if os.environ.get('IK_NODE_BACKGROUND_COMPILE', '1') != '0':
            background = _jit.compile_in_background()
    from ik_node.ros import node      # defines the kernels: after the choice above
    try:
        return node.main(args, background)
    finally:
        if background is not None and stop_compile(background):
            print(f'ik_node: stopped ik-compile (pid {background.pid}) with the node; what it '
                  'compiled stays cached, the next start compiles the rest', file=sys.stderr)


def stop_compile(background: subprocess.Popen, timeout: float = 5.0) -> bool:
    """
    Stop a background ik-compile (its whole process group) if it still runs; return True then.

    numba writes each cache file to a temporary name and renames it, so a stopped compile
    leaves no broken entry; the compiled mark is written only by a compile that finished.
    """
    if background.poll() is not None:
        return False
    try:
        os.killpg(background.pid, signal.SIGTERM)
        background.wait(timeout)
    except ProcessLookupError:
        return False
    except subprocess.TimeoutExpired:
        os.killpg(background.pid, signal.SIGKILL)
        background.wait()
    return True


if __name__ == '__main__':
    sys.exit(main())
