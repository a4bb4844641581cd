# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The node's control cycle in a thread of its own, off rclpy's Python executor.

rclpy's executors build their wait set in Python at every wakeup (each entity of the node
entered, added and looked up again) and wrap each callback in a Task: at a kHz, with a twist,
a joint_states reading and a timer tick per period, that is most of a cycle's CPU time.

Here the entities of the cycle (the command timer, the joint_states and jog_twist
subscriptions) belong to a :class:`CycleGroup`. While a :class:`ControlLoop` runs, executors
skip them (``can_execute`` is False) and the loop's thread waits on them with a wait set of
its own, remade only when the group's entities change, takes their messages (raw bytes) and
calls their callbacks itself. While the group has a timer the loop wakes for the timer only
and takes the messages queued meanwhile, in order, right before its callback: a reading and
a twist per period would otherwise wake it about three times a period (each wake costs
some 20 us of CPU); each message is still handled before the cycle that uses it, at most
one period after it came. Without a timer it wakes for each message. The rest of the node
(targets, parameters, services, the status timer) stays with rclpy's executor:
:class:`HandOffExecutor` waits for it in the spinning thread and hands each ready callback
to the loop, which runs it between two cycles. Every callback of the node thus runs in the
loop's thread, one at a time, as under a SingleThreadedExecutor, and no state is shared
between threads. Without a loop (a node spun by any executor, as in-process tests do) the
group's entities are ordinary entities and their callbacks run in that executor.

A handed-off callback with long work to do before it changes anything (a model build, up to
seconds with collision meshes) runs it through :meth:`CycleGroup.beside_cycles`: the work runs
on a thread of its own, and meanwhile the loop's thread goes on with the cycle's entities only
(no other handed-off callback), so the commands keep their period; the callback then goes on
with the work's result in the loop's thread.

The loop's thread takes the scheduling the group asks for (``CycleGroup.priority``, the
node's ``realtime_priority``): SCHED_FIFO at that priority, so that busy processes on the
machine cannot hold the commands off for tens of milliseconds (the arm, holding its last
command through such a gap, would stop abruptly), or normal scheduling for 0. It is the only
real-time thread of the node: it computes for a small share of each period. The process's
other Python threads (rclpy's executor, the goal search, a web view's workers) stay at normal
scheduling, at the strongest niceness (-20, :data:`BACKGROUND_NICE`): they hold the GIL the
loop needs, and one of them preempted by a busy process while holding it holds the loop off
as long (a CI run beside a busy process: a 50 ms gap in a goal motion's commands, the goal
search at nice -10 beside other processes at -10). At SCHED_FIFO (as they were) a goal search
that computes for long is not time-sliced against the machine's other processes, and the
kernel's real-time throttling (95 % of each second by default) then stops every real-time
thread on that core, the loop included, for the rest of the second (the kernel reported 'RT
throttling activated' in a parallel run of the ROS tests, three nodes with them at
SCHED_FIFO). Threads started later are scheduled at the loop's next wake; processes and
threads they start begin at normal scheduling (SCHED_RESET_ON_FORK). The middleware's own
threads, which never hold the GIL, stay as they are. A change is taken at the next wake; a
refusal (no right to real-time scheduling or to a raised priority) is logged once per
request and the threads stay as they were.
"""

from collections import deque
import contextlib
import os
import threading
import time
from typing import Any, Callable, TypeVar

from ik_node.os_thread import name_os_thread
from rclpy import executors
from rclpy.callback_groups import CallbackGroup
from rclpy.executors import Executor
from rclpy.guard_condition import GuardCondition
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node

__all__ = ['BACKGROUND_NICE', 'CycleGroup', 'ControlLoop', 'HandOffExecutor', 'THREAD_NAME',
           'WORK_THREAD_NAME']

THREAD_NAME = 'ik-control'
# The thread that runs a callback's long work beside the cycle (CycleGroup.beside_cycles).
WORK_THREAD_NAME = 'ik-beside-cycle'
# The niceness of the node's other Python threads while the loop runs at SCHED_FIFO.
BACKGROUND_NICE = -20


# [s] the loop wakes at least this often to notice a stop or a shutdown.
_IDLE_WAKE = 0.1
# The executor's own end-of-wait exceptions (ConditionReachedException is newer than Jazzy).
_NOT_WORK = tuple(getattr(executors, name) for name in (
    'ExternalShutdownException', 'ShutdownException', 'TimeoutException',
    'ConditionReachedException') if hasattr(executors, name))


_T = TypeVar('_T')


def _scheduling(priority: int) -> tuple[int, os.sched_param]:
    """Return (policy, parameter): SCHED_FIFO at ``priority`` (children reset), normal for 0."""
    if priority > 0:
        return os.SCHED_FIFO | os.SCHED_RESET_ON_FORK, os.sched_param(priority)
    return os.SCHED_OTHER, os.sched_param(0)


class CycleGroup(CallbackGroup):
    """The control cycle's entities: a ControlLoop's while it runs, any executor's otherwise."""

    def __init__(self) -> None:
        super().__init__()
        self.owned = False
        self.revision = 0       # changes when an entity is added
        self.priority = 0       # SCHED_FIFO priority asked for the loop's thread; 0: normal
        # [s] (total, longest) the loop's thread spent in callbacks other than the timer's
        # since take_calls() (a late tick: were they what held it up?).
        self._calls = (0.0, 0.0)
        self.loop: ControlLoop | None = None     # the loop running the entities, if one does

    def beside_cycles(self, work: Callable[[], _T]) -> _T:
        """
        Return ``work()``, run on a thread of its own while the control cycle goes on.

        For long work a handed-off callback does before it changes the node's state (a model
        build: a URDF with collision meshes takes up to seconds): meanwhile the loop's thread
        goes on running the cycle's entities (the command timer, the readings), and no other
        handed-off callback. ``work`` must not touch what the cycle changes. Without a
        running loop, or called from the cycle itself, ``work()`` runs in this thread.
        """
        loop = self.loop
        if loop is None:
            return work()
        return loop.beside_cycles(work)

    def after_cycle(self, callback: Callable[[], Any]) -> None:
        """
        Call ``callback`` in the loop's thread once the current cycle is done.

        As a handed-off callback, so it may run long work beside the cycles; without a running
        loop, it is called now.
        """
        loop = self.loop
        if loop is None:
            callback()
        else:
            loop.submit(callback)

    def note_call(self, seconds: float) -> None:
        """Count a callback other than the timer's that the loop ran for ``seconds``."""
        total, longest = self._calls
        self._calls = (total + seconds, max(longest, seconds))

    def take_calls(self) -> tuple[float, float]:
        """Return (total, longest) [s] of the callbacks noted since the last call; reset."""
        calls, self._calls = self._calls, (0.0, 0.0)
        return calls

    def add_entity(self, entity: Any) -> None:
        super().add_entity(entity)
        self.revision += 1

    def can_execute(self, entity: Any) -> bool:
        return not self.owned

    def beginning_execution(self, entity: Any) -> bool:
        return not self.owned

    def ending_execution(self, entity: Any) -> None:
        pass


class ControlLoop:
    """
    Wait on ``group``'s entities of ``node`` in a thread; run handed-off callbacks between.

    ``on_error(text)`` is told of a callback that raised (the loop goes on).
    """

    def __init__(self, node: Node, group: CycleGroup, on_error: Callable[[str], Any]):
        self._node, self._group, self._on_error = node, group, on_error
        self._context = node.context
        self._wake = GuardCondition(None, None, context=self._context)
        self._work: deque = deque()
        self._stop = False
        self._entities: tuple = (-1, (), ())        # (revision and count, subs, timers)
        self._wait_set: Any = None
        self._priority = 0      # the priority asked for last (taken or refused)
        # (priority, Python thread count) the other threads were scheduled for last; count
        # None: nothing to do (normal scheduling never changed, or the loop's was refused).
        self._others_at: tuple = (0, None)
        # The niceness the other threads go back to with normal scheduling (the process's).
        self._base_nice = os.getpriority(os.PRIO_PROCESS, os.getpid())
        self._refused_for: int | None = None    # the request a refusal was logged for
        self._in_cycle = False      # in a callback of the cycle's entities
        self._beside = 0.0          # [s] spent running cycles beside a callback's work in all
        self._thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)

    def start(self) -> None:
        """Take the group's entities from the executors and start the loop's thread."""
        self._group.owned = True
        self._group.loop = self
        self._thread.start()

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop the thread (after the callback it runs) and give the entities back."""
        self._stop = True
        self._wake.trigger()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout_s)
        self._group.loop = None
        self._group.owned = False

    def submit(self, handler: Callable[[], Any]) -> threading.Event:
        """
        Run ``handler`` (an executor's Task) in the loop's thread, after its current cycle.

        Returns an event set once it ran.
        """
        done = threading.Event()
        self._work.append((handler, done))
        self._wake.trigger()
        return done

    def beside_cycles(self, work: Callable[[], _T]) -> _T:
        """Return ``work()``, run beside the cycle (:meth:`CycleGroup.beside_cycles`)."""
        if threading.current_thread() is not self._thread or self._in_cycle or self._stop:
            return work()
        result: list = []
        finished = threading.Event()

        def run() -> None:
            try:
                result.append((True, work()))
            except BaseException as exc:  # noqa: B902  (raised again in the loop's thread)
                result.append((False, exc))
            finally:
                finished.set()
                with contextlib.suppress(Exception):     # (a context shut down meanwhile)
                    self._wake.trigger()

        t0 = time.perf_counter()
        threading.Thread(target=run, name=WORK_THREAD_NAME, daemon=True).start()
        timeout_ns = int(_IDLE_WAKE * 1e9)
        while not finished.is_set():
            if self._stop or not self._context.ok():
                finished.wait()
                break
            self._cycle(timeout_ns)
        self._beside += time.perf_counter() - t0
        done, value = result[0]
        if not done:
            raise value
        return value

    @property
    def running(self) -> bool:
        """Whether the loop's thread runs (and takes handed-off work)."""
        return self._thread.is_alive() and not self._stop

    def _current(self) -> tuple:
        """Return (subscriptions, timers) of the group now; remake the wait set on a change."""
        group = self._group
        subs = [s for s in self._node.subscriptions if s.callback_group is group]
        timers = [t for t in self._node.timers if t.callback_group is group]
        key = (group.revision, len(subs), len(timers), *map(id, subs), *map(id, timers))
        if key != self._entities[0]:
            handle = self._context.handle
            assert handle is not None
            # The subscriptions are waited on only without a timer (module docstring).
            self._wait_set = _rclpy.WaitSet(0 if timers else len(subs), 1, len(timers), 0, 0,
                                            0, handle)
            self._entities = (key, subs, timers)
        return self._entities[1], self._entities[2]

    def _run(self) -> None:
        name_os_thread(THREAD_NAME)
        timeout_ns = int(_IDLE_WAKE * 1e9)
        while not self._stop and self._context.ok():
            try:
                self._once(timeout_ns)
            except Exception as exc:  # noqa: B902  (a destroyed entity, a shutdown meanwhile)
                if self._stop or not self._context.ok():
                    return
                self._on_error(f'control loop: {type(exc).__name__}: {exc}')

    def _schedule(self) -> None:
        """Give the loop's thread the scheduling its group asks for (module docstring)."""
        asked = self._priority = self._group.priority
        # What it starts begins at normal scheduling (the other Python threads: below).
        log = self._node.get_logger()
        try:
            os.sched_setscheduler(0, *_scheduling(asked))
        except OSError as exc:
            self._others_at = (asked, None)     # refused: the others are not tried
            log.warning(f'realtime_priority {asked}: the control thread could not take '
                        f'SCHED_FIFO ({exc.strerror}); it runs at normal priority (run as '
                        'root, or allow it with an rtprio limit in '
                        '/etc/security/limits.conf)')
            return
        self._others_at = (None, 0)     # the others follow at the next wake
        log.info(f'control thread: SCHED_FIFO priority {asked}, the other Python threads '
                 f'normal scheduling at nice {BACKGROUND_NICE}' if asked > 0
                 else 'control thread: normal scheduling')

    def _schedule_others(self, count: int) -> None:
        """Schedule the process's other Python threads (module docstring)."""
        asked = self._priority
        self._others_at = (asked, count)
        nice = BACKGROUND_NICE if asked > 0 else self._base_nice
        own = threading.get_native_id()
        # Only this process's threads: after a fork without exec, Python 3.11 keeps the parent's
        # thread id as the main thread's native_id.
        tasks = set(map(int, os.listdir('/proc/self/task')))
        refused = []
        for thread in threading.enumerate():
            tid = thread.native_id
            if tid is None or tid == own or tid not in tasks:
                continue
            try:
                os.sched_setscheduler(tid, *_scheduling(0))
                os.setpriority(os.PRIO_PROCESS, tid, nice)
            except ProcessLookupError:
                continue        # it ended meanwhile
            except OSError as exc:
                refused.append(f'{thread.name!r} ({exc.strerror})')
        if refused and self._refused_for != asked:
            self._refused_for = asked       # once per request
            self._node.get_logger().warning(
                f'realtime_priority {asked}: threads could not take nice {nice}: '
                f'{", ".join(refused)}; they may hold the control thread off while they hold '
                'the GIL (allow it with a nice limit in /etc/security/limits.conf)')

    def _once(self, timeout_ns: int) -> None:
        if not self._cycle(timeout_ns):
            return
        # The handed-off work last: a parameter change may destroy the entities above.
        while self._work:
            handler, done = self._work.popleft()
            self._call(handler)
            done.set()

    def _cycle(self, timeout_ns: int) -> bool:
        """Wait once on the cycle's entities and run what is due; False once stopped."""
        if self._group.priority != self._priority:
            self._schedule()
        count = threading.active_count()
        if self._others_at[1] is not None and self._others_at != (self._priority, count):
            self._schedule_others(count)
        subs, timers = self._current()
        ws = self._wait_set
        ws.clear_entities()
        if not timers:
            for sub in subs:
                ws.add_subscription(sub.handle)
        for tmr in timers:
            ws.add_timer(tmr.handle)
        ws.add_guard_condition(self._wake.handle)
        ws.wait(timeout_ns)
        if self._stop:
            return False
        self._in_cycle = True
        try:
            if timers:
                ready = ws.get_ready_entities('timer')
                due = [tmr for tmr in timers if tmr.handle.pointer in ready
                       and tmr.handle.is_timer_ready()]
                if due:
                    for sub in subs:
                        self._take(sub)
                for tmr in due:
                    tmr.handle.call_timer()
                    self._call(tmr.callback, timed=False)
            else:
                ready = ws.get_ready_entities('subscription')
                for sub in subs:
                    if sub.handle.pointer in ready:
                        self._take(sub)
        finally:
            self._in_cycle = False
        return True

    def _take(self, sub: Any) -> None:
        """Take every message queued on ``sub`` and call its callback with each, in order."""
        while True:
            taken = sub.handle.take_message(sub.msg_type, sub.raw)
            if taken is None:
                return
            self._call(sub.callback, taken[0])

    def _call(self, callback: Callable, *args: Any, timed: bool = True) -> None:
        t0, beside = time.perf_counter(), self._beside
        try:
            callback(*args)
        except Exception as exc:  # noqa: B902  (one failing callback must not stop the loop)
            # On Ctrl-C rclpy shuts the context down under a running callback: its publish
            # fails then ('context is invalid'), which is the shutdown, not an error.
            if self._context.ok():
                self._on_error(f'callback failed: {type(exc).__name__}: {exc}')
            return
        finally:
            if timed:      # (the cycles it ran beside its work are not its own time)
                self._group.note_call(time.perf_counter() - t0 - (self._beside - beside))
        exception = getattr(callback, 'exception', None)     # an executor's Task
        if exception is not None and exception() is not None:
            self._on_error(f'callback failed: {exception()!r}')


class HandOffExecutor(Executor):
    """An executor that waits for the node's callbacks and hands each to a ControlLoop."""

    def __init__(self, loop: ControlLoop, context: Any = None):
        super().__init__(context=context)
        self._loop = loop

    def spin_once(self, timeout_sec: float | None = None) -> None:
        """
        Wait (at most ``timeout_sec``) for a ready callback, hand it to the loop, wait for it.

        (Until it ran the executor would offer the same Task again at once, as in progress.)
        """
        try:
            handler, _, _ = self.wait_for_ready_callbacks(timeout_sec=timeout_sec)
        except _NOT_WORK:
            return
        done = self._loop.submit(handler)
        while not done.wait(_IDLE_WAKE):
            if not self._loop.running or not self.context.ok():
                return
