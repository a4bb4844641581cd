# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Run a node until Ctrl-C or shutdown, and exit with a clear line when it cannot start."""

import faulthandler
import gc
import signal
import sys
import threading
from typing import Callable

from ik_node.errors import IKError
from ik_node.ros.control_loop import ControlLoop, CycleGroup, HandOffExecutor
import rclpy
from rclpy.executors import Executor, ExternalShutdownException, SingleThreadedExecutor
from rclpy.logging import get_logger
from rclpy.node import Node

__all__ = ['BackgroundSpinner', 'freeze_heap', 'spin_until_shutdown', 'run_node']


# [s] how long a thread holding the GIL runs Python before it hands the GIL over.
SWITCH_INTERVAL = 0.0005
# [s] how long a node that could not start may take to shut rclpy down and exit (well under a
# second normally; several at load 15).
FAILED_START_EXIT = 10.0
# [s] a spinning node looks whether rclpy was shut down at least this often (see _spin).
SHUTDOWN_CHECK = 0.25


def freeze_heap(collect: bool = True) -> None:
    """
    Keep the objects alive now out of every later garbage collection (``gc.freeze``).

    A node's heap after start-up (rclpy, numba, the robot model) holds about 140,000 objects,
    and a full collection walks all of them: 40-75 ms on these machines, long enough for
    the command timer to miss five periods while the arm moves (the arm, holding its last
    command, would stop abruptly). Frozen, they are never walked again; later objects are
    collected as usual. Call it once a node is built and again after a model change (then
    without ``collect``: the arm may be moving, and a collection is the pause avoided here).
    """
    if collect:
        gc.collect()
    gc.freeze()


def spin_until_shutdown(node: Node) -> None:
    """
    Spin ``node`` until Ctrl-C or shutdown, then destroy it and shut rclpy down quietly.

    A node with a ``cycle_group`` (:class:`ik_node.ros.control_loop.CycleGroup`) runs its
    callbacks in a :class:`~ik_node.ros.control_loop.ControlLoop`, which waits on that group
    itself; the rest is waited for here and handed to it.
    """
    loop = None
    executor: Executor | None = None
    group = getattr(node, 'cycle_group', None)
    try:
        if isinstance(group, CycleGroup):
            loop = ControlLoop(node, group, node.get_logger().error)
            executor = HandOffExecutor(loop, context=node.context)
            executor.add_node(node)
            loop.start()
        else:
            executor = SingleThreadedExecutor(context=node.context)
            executor.add_node(node)
        _spin(executor)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except RuntimeError:
        # On SIGINT rclpy shuts the context down under a running executor; taking a message
        # at that moment fails ('Unable to convert call argument'). Not an error then.
        if rclpy.ok():
            raise
    finally:
        if loop is not None:
            loop.stop()
        if executor is not None:
            executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()


def _spin(executor: Executor) -> None:
    """
    Run ``executor`` until its context is shut down, looking at least every SHUTDOWN_CHECK.

    rclpy's ``Executor.spin`` waits without a timeout and relies on being woken: on Ctrl-C
    rclpy's signal thread triggers the executors' guard conditions and only then shuts the
    contexts down. A wait woken by the trigger before the shutdown looks at the context,
    finds it still valid and waits again, for good (a sim_arm beside a busy process hung
    so about once in 35 Ctrl-Cs: the signal thread preempted between the two). A bounded
    wait sees the shutdown at its next timeout.
    """
    context = executor.context
    while context.ok():
        executor.spin_once(timeout_sec=SHUTDOWN_CHECK)


class _Interrupts:
    """
    Ctrl-C (SIGINT) stops a node while it starts, and between callbacks once it spins.

    rclpy's own handler shuts the context down and then calls the Python handler installed
    before ``rclpy.init``: this one. Python's default raises KeyboardInterrupt wherever the
    main thread is: inside a callback, or inside rclpy while it builds a Task (the Task then
    fails in its finaliser and prints a traceback at exit). Once the node spins, the handler
    does nothing and the executor, woken by the shutdown, returns. While the node is built
    (a URDF load, a kernel compile) it raises, so Ctrl-C is not ignored there.
    """

    spinning = False

    @classmethod
    def install(cls) -> None:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, cls._handle)

    @classmethod
    def _handle(cls, signum: int, frame: object) -> None:
        if not cls.spinning:
            raise KeyboardInterrupt


def run_node(name: str, make: Callable[[], Node], args: list[str] | None = None) -> int:
    """
    Run the node ``make()`` builds until shutdown; return the process exit code.

    A node that cannot start (a bad parameter, an unusable robot model) logs one FATAL line
    with the reason and the process exits with code 1, without a traceback. Ctrl-C while it
    starts or runs exits with code 0.
    """
    _Interrupts.install()
    rclpy.init(args=args)
    try:
        node = make()
    except (IKError, ValueError) as exc:
        get_logger(name).fatal(str(exc))
        _exit_within(FAILED_START_EXIT)
        rclpy.try_shutdown()
        # The DDS participant goes now, under the deadline, not at the interpreter's exit.
        rclpy.get_default_context().destroy()
        return 1
    except KeyboardInterrupt:
        rclpy.try_shutdown()
        return 0
    freeze_heap()
    # `kill -USR1 <pid>` prints the Python stacks of all the node's threads to stderr (its
    # log) and the node goes on: what a hung or slow node is doing, read without the GIL.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    # The command timer and the goal worker's thread share the GIL: a thread that wants it
    # waits up to this interval while the other runs Python (5 ms by default, five periods
    # at 1 kHz). The solver's and collision checks' kernels release it.
    sys.setswitchinterval(SWITCH_INTERVAL)
    _Interrupts.spinning = True
    spin_until_shutdown(node)
    # The frozen heap is never collected, not even at exit: the motion layer's Ruckig
    # objects would outlive their module and nanobind would print dozens of 'leaked'
    # lines after a clean Ctrl-C. Free the node while the modules are still there.
    del node
    gc.unfreeze()
    gc.collect()
    return 0


def _exit_within(seconds: float) -> None:
    """
    End the process with code 1 if it is still alive ``seconds`` from now, saying where it hung.

    For a node that failed to start: rclpy's shutdown destroys the half-built node (the
    context tracks it), then the context is destroyed, and with it the DDS participant. About
    one such exit in twenty was seen to hang in DDS (the main thread on a futex), never to
    return, when the participant was left to the interpreter's exit; destroying the node
    earlier, inside its constructor, crashed once instead. Whatever hangs, the process ends
    with code 1 by this deadline, and the stacks of its Python threads go to stderr
    (faulthandler, from its own watchdog thread; nothing of it runs when the exit is prompt).
    """
    faulthandler.dump_traceback_later(seconds, exit=True)


class BackgroundSpinner:
    """
    Spin an executor in a thread until ``stop()``, which returns once the thread is done.

    ``Executor.shutdown`` from another thread destroys the executor's guard condition while
    the spinning thread may still be building its wait set (InvalidHandle in that thread).
    Here the thread spins in short slices and checks a flag; ``stop()`` joins it first and
    only then shuts the executor down, so nodes can be destroyed safely afterwards. Give it a
    SingleThreadedExecutor: every callback then runs in that thread and is over once it is
    joined. (A MultiThreadedExecutor's shutdown destroys its guard condition before its
    worker threads finish; their callbacks then fail with InvalidHandle, reported only as
    'The following exception was never retrieved'.)
    """

    def __init__(self, executor: Executor, slice_s: float = 0.05):
        self._executor = executor
        self._slice = slice_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, name='ros-spin', daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        context = self._executor.context
        while not self._stop.is_set() and context.ok():
            try:
                self._executor.spin_once(timeout_sec=self._slice)
            except ExternalShutdownException:
                return

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop spinning, wait for the thread (at most ``timeout_s``), shut the executor down."""
        self._stop.set()
        self._thread.join(timeout_s)
        self._executor.shutdown()
