# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Node processes for the tests, forked from one process that imported the package once.

A node process started with ``python -m`` spends most of its start in the interpreter's
imports (numba, numpy, SciPy, rclpy, the package: about 1.1 s of CPU) and in loading the
compiled kernels from numba's cache (about 0.6 s, more later when its first goal loads the
motion layer's): 1.9 s of CPU before an ik_node is ready, 0.4 s for a sim_arm, against
0.16 s and 0.09 s forked from a process that did both already. The ROS tests start about
180 of them: forked, a quiet run of the whole suite took 154-179 s instead of 223-237 s.

So each test process keeps one **fork server**: a process started like a node (the same
interpreter, environment and folder, the package from the same place) that imports the
nodes' modules, loads every kernel (the ik-compile groups, read from the cache), and then
only forks: each child runs ``main()`` of the node's module as ``python -m`` would, with its
own argv, ROS environment, log file, folder and niceness, and exits with its return code.
The node code from ``main()`` on is the same; what a child skips is the import and the
kernel load, which the tests that start nodes by ``python -m`` still check (the first
end-to-end node test, the first node of each bad-start test, the cold start, the
command-line tools; all of them with ``IK_NODE_TEST_FORKS=0``).

A start is forked only when nothing about it would differ: the same values as the server's
of the variables read before a fork (:data:`_IMPORT_TIME`: the interpreter's, numba's, BLAS's;
the child takes the rest of its environment from the request), no package copy in the folder
asked for, and no thread in the server when it forks but the two that importing rclpy starts
(:func:`_preload`). Otherwise (``declined`` says why), or with
``IK_NODE_TEST_FORKS=0``, :func:`ik_node.ros.processes.start_node` starts it as before.

The server tells each child's exit on its pipe; :class:`ForkedNode` is the Popen-like handle
(pid, poll, wait, send_signal, terminate, kill, returncode, log_path) the harness keeps.
"""

import gc
import json
import os
from pathlib import Path
import select
import signal
import subprocess
import sys
import threading
from typing import Any, Mapping, Optional, Sequence

__all__ = ['NodeForks', 'ForkedNode', 'forks_enabled']

# [s] the server's imports and kernel loads: about 2 s of CPU; a busy machine takes longer.
_READY_TIMEOUT = 120.0
_ANSWER_TIMEOUT = 30.0


def forks_enabled() -> bool:
    """Return False when IK_NODE_TEST_FORKS=0 asks for every node to start by ``python -m``."""
    return os.environ.get('IK_NODE_TEST_FORKS', '1') != '0'


# The variables read before a fork (by the interpreter's start, numpy's BLAS, numba's
# configuration, the package's JIT switch, the loader and LTTng at rclpy's import): a start
# whose values of these differ from the server's is not forked. Every other variable is read
# after the start (ROS_* at rclpy.init, the node's own switches while it runs) and the child
# takes them all from its request.
_IMPORT_TIME = ('PYTHON', 'NUMBA_', 'OPENBLAS_', 'OMP_', 'MKL_', 'GOTO', 'LD_', 'LTTNG_',
                'IK_NODE_DISABLE_JIT')


def _import_env(env: Mapping[str, str]) -> dict:
    """Return the variables of ``env`` that a process reads before the server forks it."""
    return {k: v for k, v in env.items() if k.startswith(_IMPORT_TIME)}


class ForkedNode:
    """A node process forked by the server: the part of subprocess.Popen the tests use."""

    def __init__(self, pid: int, args: list, log_path: Path):
        self.pid, self.args, self.log_path = pid, args, log_path
        self.returncode: Optional[int] = None
        self._ended = threading.Event()

    def _set_exit(self, code: int) -> None:
        self.returncode = code
        self._ended.set()

    def poll(self) -> Optional[int]:
        return self.returncode

    def wait(self, timeout: Optional[float] = None) -> int:
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass        # ended: the server reports it

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class NodeForks:
    """
    This test process's fork server: started at the first node, stopped with the process.

    ``env`` and ``pass_fds`` (descriptors every child must hold, the domain lock) are the
    server's; a start whose variables read at import differ from ``env``'s is not forked
    (:meth:`start` returns None and sets ``declined``).
    """

    def __init__(self, env: Mapping[str, str], pass_fds: Sequence[int] = ()):
        self._env = _import_env(env)
        self._lock = threading.Lock()          # the handles and exits below
        self._requesting = threading.Lock()    # one start at a time
        self._answers: dict = {}
        self._answered = threading.Condition()
        self._nodes: dict[int, ForkedNode] = {}
        self._ended: dict[int, int] = {}       # pid -> exit code told before its handle
        self._next = 0
        self.failure = ''       # why the server is not used ('' while it is)
        self.declined = ''      # why the last start was not forked ('' when it was)
        self._proc = subprocess.Popen(
            [sys.executable, __file__], env=dict(env), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, pass_fds=tuple(pass_fds), cwd=os.getcwd())
        self._reader = threading.Thread(target=self._read, name='node-forks', daemon=True)
        self._reader.start()
        ready = self._answer('ready', _READY_TIMEOUT)
        if ready is None or 'error' in ready:
            self.failure = (ready or {}).get('error', 'no answer')
            self.close()

    def start(self, executable: str, params: Sequence[str], env: Mapping[str, str],
              log_path: Path, extra_ros_args: Sequence[str] = (), cwd: Any = None,
              priority: int = 0) -> Optional[ForkedNode]:
        """Fork node ``executable`` as start_node would start it; None when it cannot be."""
        self.declined = self._why_not(executable, env, cwd)
        if self.declined:
            return None
        from ik_node.ros.processes import node_arguments, node_command, NODE_MODULES
        Path(log_path).write_text('')
        with self._requesting:
            self._next += 1
            key = str(self._next)
            request = {'id': key, 'module': NODE_MODULES[executable],
                       'argv': node_arguments(params, extra_ros_args),
                       'env': dict(env),
                       'log': str(log_path), 'cwd': None if cwd is None else str(cwd),
                       'nice': -priority}
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.write(json.dumps(request).encode() + b'\n')
                self._proc.stdin.flush()
            except OSError as exc:
                self.failure = f'the server is gone ({exc})'
                return None
            answer = self._answer(key, _ANSWER_TIMEOUT)
            if answer is not None and answer.get('setup'):
                self.declined = answer['error']     # start_node will tell it too
                return None
            if answer is None or 'pid' not in answer:
                self.failure = (answer or {}).get('error', 'no answer to a start')
                return None
            node = ForkedNode(answer['pid'], node_command(executable, params, extra_ros_args),
                              Path(log_path))
        with self._lock:
            self._nodes[node.pid] = node
            code = self._ended.pop(node.pid, None)
        if code is not None:
            node._set_exit(code)
        return node

    def _why_not(self, executable: str, env: Mapping[str, str], cwd: Any) -> str:
        """Return why a start cannot be forked ('' when it can)."""
        if self.failure:
            return f'the server failed: {self.failure}'
        from ik_node.ros.processes import NODE_MODULES
        if executable not in NODE_MODULES:
            return f'{executable!r} is not a node the server runs'
        mine, theirs = self._env, _import_env(env)
        if theirs != mine:
            differ = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
            return f'variables read at import differ: {", ".join(differ)}'
        if cwd is not None and (Path(cwd) / 'ik_node').exists():
            return f'a package copy in {cwd}'
        return ''

    def close(self) -> None:
        """Stop the server (the nodes it forked go on until stopped, as Popen's would)."""
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
            except OSError:
                pass
            try:
                self._proc.wait(10.0)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    def _answer(self, key: str, timeout: float) -> Optional[dict]:
        with self._answered:
            self._answered.wait_for(lambda: key in self._answers or self._proc.poll() is not None,
                                    timeout)
            return self._answers.pop(key, None)

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            message = json.loads(line)
            if 'exit' in message:
                pid, code = message['exit'], message['code']
                with self._lock:
                    node = self._nodes.pop(pid, None)
                    if node is None:
                        self._ended[pid] = code
                if node is not None:
                    node._set_exit(code)
                continue
            with self._answered:
                self._answers[message['id']] = message
                self._answered.notify_all()
        # The server ended (closed, or died): a node it forked is reaped by init now, and its
        # exit code cannot be known; a handle waits for its pid to go instead.
        with self._answered:
            self.failure = self.failure or 'the server ended'
            self._answered.notify_all()
        threading.Thread(target=self._watch_orphans, daemon=True).start()

    def _watch_orphans(self) -> None:
        while True:
            with self._lock:
                nodes = list(self._nodes.values())
            if not nodes:
                return
            for node in nodes:
                if not Path(f'/proc/{node.pid}').exists():
                    with self._lock:
                        self._nodes.pop(node.pid, None)
                    node._set_exit(-signal.SIGKILL)     # unknown: reported as killed
            threading.Event().wait(0.05)


# --- the server ----------------------------------------------------------------------------


def _preload() -> int:
    """
    Import the nodes' modules, load every kernel the package compiles (from the cache).

    Returns the native threads the libraries started: importing rclpy starts LTTng-UST's two
    listener threads (ros_tracetools), which wait for a tracing session daemon that these
    machines do not run; a child has none and cannot be traced, nothing else. Anything else
    started by then, or later, is a thread a fork would lose.
    """
    import rclpy  # noqa: F401
    library_threads = _native_threads()
    from ik_node import _jit
    if _jit.JIT_ENABLED and not _jit.compiled():
        raise RuntimeError('the kernels are not compiled (run ik-compile first)')
    # (Imported here, not at the top: the server imports the package only once its module
    # path is the node's, see the end of this file.)
    from ik_node.ros.processes import NODE_MODULES
    for module in NODE_MODULES.values():
        __import__(module)
    import ik_node.ros.node  # noqa: F401  (start.main imports it on its first call)
    from ik_node import compile as kernels
    for group in kernels.GROUPS.values():
        group()
    return library_threads


def _native_threads() -> int:
    return len(os.listdir('/proc/self/task'))


def _become(request: dict, server_fds: Sequence[Any]) -> Any:
    """In the forked child: take the node's signals, log, environment, folder and niceness."""
    # Python 3.11 keeps the server's thread id as the main thread's native_id in a fork
    # (a control loop setting the niceness of "its other threads" would set the server's).
    main = threading.current_thread()
    if main.native_id != threading.get_native_id() and hasattr(main, '_set_native_id'):
        main._set_native_id()
    server_out, *fds = server_fds
    server_out.close()
    for fd in fds:
        os.close(fd)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    log = os.open(request['log'], os.O_WRONLY | os.O_APPEND)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.environ.clear()
    os.environ.update(request['env'])
    if request['cwd'] is not None:
        os.chdir(request['cwd'])
    if request['nice']:
        os.nice(request['nice'])
    module = sys.modules[request['module']]
    sys.argv = [str(module.__file__), *request['argv']]
    return module


def _run_child(request: dict, server_fds: Sequence[Any], started: int) -> None:
    """
    In the forked child: become the node ``python -m <module> <argv>`` would start.

    ``started`` is closed once the child is set up (as Popen returns once its child is), or
    told why it could not be. Then ``sys.exit(main())`` as the module does: the interpreter
    ends as after ``python -m`` (its exit code, a traceback, atexit, nanobind's leak report).
    """
    try:
        module = _become(request, server_fds)
    except BaseException as exc:  # noqa: B902  (told to the server; the child ends)
        os.write(started, f'{type(exc).__name__}: {exc}'.encode() or b'failed')
        os._exit(1)
    os.close(started)
    sys.exit(module.main())


def _serve() -> None:
    """Preload, then fork a node per request line on stdin; tell starts and exits on stdout."""
    out = os.fdopen(os.dup(1), 'w', buffering=1)
    os.dup2(2, 1)       # the preload's own prints go to stderr, not into the answers
    requests = sys.stdin.fileno()
    pending = b''

    def say(**message: Any) -> None:
        out.write(json.dumps(message) + '\n')

    try:
        library_threads = _preload()
        threads = _native_threads()
        if threading.active_count() != 1 or threads != library_threads:
            raise RuntimeError(f'the server runs {threads} threads after its imports, '
                               f'{library_threads} after importing rclpy: a fork would lose '
                               'them')
    except Exception as exc:  # noqa: B902  (told to the test process, which starts nodes itself)
        say(id='ready', error=f'{type(exc).__name__}: {exc}')
        return
    gc.collect()
    gc.freeze()         # the children's first collections leave the shared pages alone
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # a Ctrl-C is the nodes' and the tests'
    server_fds = (out, wake_r, wake_w)
    say(id='ready')
    while True:
        ready, _, _ = select.select([requests, wake_r], [], [])
        if wake_r in ready:
            os.read(wake_r, 512)
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            say(exit=pid, code=os.waitstatus_to_exitcode(status))
        if requests not in ready:
            continue
        data = os.read(requests, 65536)
        if not data:
            return      # the test process closed the pipe (or ended)
        *lines, pending = (pending + data).split(b'\n')
        for line in lines:
            _fork(json.loads(line), server_fds, say, library_threads)


def _fork(request: dict, server_fds: Sequence[Any], say: Any, library_threads: int) -> None:
    threads = _native_threads()
    if threads != library_threads:
        say(id=request['id'], error=f'{threads} threads in the server')
        return
    started_r, started_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(started_r)
        _run_child(request, server_fds, started_w)
    os.close(started_w)
    with os.fdopen(started_r, 'rb') as started:
        failed = started.read().decode()
    if failed:
        say(id=request['id'], error=failed, setup=True)
    else:
        say(id=request['id'], pid=pid)


if __name__ == '__main__':
    # Import the package as ``python -m`` in this folder would: from the folder, not test/.
    sys.path[0] = os.getcwd()
    _serve()
