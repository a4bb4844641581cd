# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Goal searches off the command thread: the commands go on while a goal is searched and planned.

A goal's search for collision-free answers and its path planning take up to their budgets
(tens to hundreds of milliseconds). Run where the commands are stepped, they would hold the
command stream up: an arm in motion would hold its last command (an abrupt stop), and a timer
that streams at rest would fall silent. :class:`GoalWorker` runs :func:`plan_goal` on one
thread of its own instead; the caller submits a :class:`GoalJob` and collects its plan at a
later step (:meth:`GoalWorker.take`).

The latest job wins: a job submitted while another runs replaces it, and a job whose
generation is no longer the latest (:meth:`GoalWorker.cancel`) is never handed out. Given
``background=False`` the job runs in the caller's thread at once (tests, scripts): the same
code, the same answers, with the plan ready for the next :meth:`GoalWorker.take`.
"""

import threading
import time
from typing import Any, Mapping, NamedTuple

from ik_node.model.chain import Chain
from ik_node.motion.goal_search import GoalPlan, plan_goal
from ik_node.os_thread import name_os_thread
import numpy as np

__all__ = ['GoalJob', 'GoalWorker']


class GoalJob(NamedTuple):
    """
    One goal to search and plan.

    target: (4, 4) pose or (3,) position in the base frame; start: (n,) where the arm comes
    to rest (where the path starts); submitted [s]: the caller's clock when it came; moving:
    the arm was moving then (only a straight line is looked for: the answer must blend into
    the motion); tag: the caller's label of the target, handed back with its answer; source:
    where the seed came from; budgets [s]: the goal search's and the planning's.
    """

    target: np.ndarray
    start: np.ndarray
    submitted: float
    moving: bool
    method: str
    options: Mapping[str, Any]
    obstacles: tuple
    search_budget: float
    plan_budget: float
    source: str
    tag: Any = None


class GoalWorker:
    """
    Runs goal searches for one chain on a background thread (see the module docstring).

    The thread starts with the first job and is a daemon; :meth:`close` stops it.
    """

    def __init__(self, chain: Chain, background: bool = True):
        self.chain = chain
        self.background = bool(background)
        self._lock = threading.Condition()
        self._generation = 0
        self._queued: tuple[int, GoalJob] | None = None
        self._running: tuple[int, GoalJob] | None = None      # the job in progress
        # (generation, job, plan or the exception the search raised, seconds it took)
        self._done: tuple[int, GoalJob, GoalPlan | Exception, float] | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    @property
    def busy(self) -> bool:
        """Return True while the latest job is queued, running, or done and not yet taken."""
        return self.pending is not None

    @property
    def pending(self) -> GoalJob | None:
        """Return the latest job while it is not yet taken, else None."""
        with self._lock:
            for entry in (self._queued, self._running, self._done):
                if entry is not None and entry[0] == self._generation:
                    return entry[1]
            return None

    def submit(self, job: GoalJob) -> None:
        """Search ``job`` (in the background, or now); any earlier job's plan is dropped."""
        with self._lock:
            if self._closed:
                raise RuntimeError('goal worker closed')
            self._generation += 1
            gen = self._generation
            self._done = None
            if self.background:
                self._queued = (gen, job)
                self._ensure_thread()
                self._lock.notify_all()
                return
        self._finish(gen, job, *self._plan(job))

    def cancel(self) -> None:
        """Drop the job in progress and any plan not yet taken (the caller moved on)."""
        with self._lock:
            self._generation += 1
            self._queued = None
            self._done = None

    def take(self) -> tuple[GoalJob, GoalPlan, float] | None:
        """
        Return (job, plan, seconds it took) of the latest job once done (once), else None.

        A search that raised (a bug: targets are checked before they are submitted) raises
        here, in the caller's thread.
        """
        with self._lock:
            done, self._done = self._done, None
            if done is None or done[0] != self._generation:
                return None
        plan = done[2]
        if isinstance(plan, Exception):
            raise plan
        return done[1], plan, done[3]

    def close(self) -> None:
        """Stop the thread (after the job in progress); later submits raise RuntimeError."""
        with self._lock:
            self._closed = True
            self._queued = None
            self._lock.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5.0)

    # The thread -----------------------------------------------------------------------

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name='ik-goal-search',
                                            daemon=True)
            self._thread.start()

    def _run(self) -> None:
        name_os_thread('ik-goal-search')
        while True:
            with self._lock:
                while self._queued is None and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                assert self._queued is not None
                gen, job = self._running = self._queued
                self._queued = None
            self._finish(gen, job, *self._plan(job))

    def _plan(self, job: GoalJob) -> tuple[GoalPlan | Exception, float]:
        t0 = time.perf_counter()
        try:
            plan: GoalPlan | Exception = plan_goal(
                self.chain, job.target, job.start, job.method, job.options, job.obstacles,
                job.search_budget, job.plan_budget)
        except Exception as exc:  # noqa: B902  (handed to the caller by take())
            plan = exc
        return plan, time.perf_counter() - t0

    def _finish(self, gen: int, job: GoalJob, plan: GoalPlan | Exception,
                elapsed: float) -> None:
        with self._lock:
            # One step from running to done: the job is never seen as neither.
            self._running = None
            if gen == self._generation:
                self._done = (gen, job, plan, elapsed)
