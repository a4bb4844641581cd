# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Goals searched in the background: the commands go on, the newest target wins.

The 4-joint collision test arm of test_goal_motion.py. The tracker runs its goal searches on
a thread of its own (``background=True``, as in the node); the test steps it at 100 Hz on
its own clock, the arm following every command at once, while the search runs in real time.
Every command is checked for contact and the stream for v/a/j at its stamps.
"""

import time

from conftest import URDF_DIR
import ik_node
from ik_node.motion.goal_worker import GoalJob, GoalWorker
from ik_node.motion.tracker import IKTracker
import numpy as np
import pytest
from test_goal_motion import FLOOR, make_watcher, PERIOD, Q_A, Q_B, tracker, V

Q_C = 0.5 * (Q_A + Q_B) + np.array([0.3, -0.2, 0.2, 0.1])


@pytest.fixture(scope='module')
def arm() -> ik_node.Chain:
    return ik_node.Chain.from_urdf(URDF_DIR / 'collision_arm.urdf', 'base_link', 'tip')


class Run:
    """Step a tracker on its own clock, the arm at each command, checking every command."""

    def __init__(self, t: IKTracker, world):
        self.t, self.world, self.now = t, world, 0.0
        self.watcher = make_watcher(t.chain)
        self.events: list = []
        self.commands: list = []

    def step(self) -> None:
        self.now += PERIOD
        report = self.t.step(self.now)
        self.t.update_feedback(self.t.names, report.q, now=self.now, stamp=self.now)
        assert not self.t.chain.collisions(report.q, self.world), (self.now, report.q)
        self.watcher.check(self.t.names, report.q, t=self.now,
                           stamp_ns=int(round(self.now * 1e9)))
        self.commands.append(report.q)
        self.events.extend(self.t.take_events())

    def until(self, condition, wall_seconds: float = 30.0) -> None:
        """Step until ``condition()``; the search runs in real time, so give it some."""
        deadline = time.monotonic() + wall_seconds
        while not condition():
            assert time.monotonic() < deadline, 'condition not met in time'
            self.step()
            time.sleep(0.0005)


def start(arm) -> tuple[IKTracker, Run]:
    """Return a background-searching tracker at rest at Q_A beside the floor, and its Run."""
    t = tracker(arm, [FLOOR], background=True)
    t.start_at(Q_A, 0.0)
    return t, Run(t, [FLOOR])


def moving_toward_b(arm, steps: int) -> tuple[IKTracker, Run]:
    """Return (tracker, run) ``steps`` periods after the goal Q_B was taken: in motion."""
    t, run = start(arm)
    t.solve(arm.fk(Q_B)[:3, 3], 0.0)
    run.until(lambda: run.events)
    for _ in range(steps):
        run.step()
    return t, run


def test_a_goal_is_searched_while_the_commands_go_on_and_answered_at_a_step(arm):
    t, run = start(arm)
    assert t.solve(arm.fk(Q_B)[:3, 3], 0.0, tag='B') is None
    assert t.searching and t.moving
    run.until(lambda: run.events)
    (outcome,) = run.events
    assert outcome.tag == 'B' and outcome.path == 'goal' and not outcome.refused
    run.until(lambda: not t.moving)
    assert np.linalg.norm(arm.fk(t.command)[:3, 3] - arm.fk(Q_B)[:3, 3]) < 1e-4
    assert run.watcher.total_violations == 0, run.watcher.summary()
    assert t.arrived(run.now, 1e-3, 1e-2)


def test_a_newer_target_supersedes_the_goal_being_searched(arm):
    t, run = start(arm)
    assert t.solve(arm.fk(Q_B)[:3, 3], 0.0, tag='B') is None
    assert t.solve(arm.fk(Q_B)[:3, 3], 0.0, tag='B again') is None   # the same: one answer
    assert t.solve(arm.fk(Q_C)[:3, 3], 0.0, tag='C') is None
    run.until(lambda: len(run.events) >= 2)
    superseded, answered = run.events
    assert superseded.tag == 'B' and superseded.motion == 'superseded' and superseded.refused
    assert 'newer target' in superseded.reason
    assert answered.tag == 'C' and not answered.refused
    run.until(lambda: not t.moving)
    assert len(run.events) == 2
    assert np.linalg.norm(arm.fk(t.command)[:3, 3] - arm.fk(Q_C)[:3, 3]) < 1e-4
    assert run.watcher.total_violations == 0, run.watcher.summary()


def test_a_goal_searched_mid_motion_blends_into_the_motion_that_went_on(arm):
    t, run = moving_toward_b(arm, 50)
    assert t.commander.moving
    before = len(run.commands)
    assert t.solve(arm.fk(Q_C)[:3, 3], run.now, tag='C') is None
    run.until(lambda: len(run.events) == 2)
    # The commands went on moving while the goal was searched: no standstill.
    moved = [np.max(np.abs(b - a)) for a, b in zip(run.commands[before - 1:],
                                                   run.commands[before:])]
    assert min(moved) > 0.0
    assert run.events[1].tag == 'C' and not run.events[1].refused
    run.until(lambda: not t.moving)
    assert np.linalg.norm(arm.fk(t.command)[:3, 3] - arm.fk(Q_C)[:3, 3]) < 1e-4
    assert run.watcher.total_violations == 0, run.watcher.summary()


def test_a_restart_of_the_command_drops_the_search_and_says_so(arm):
    t, run = start(arm)
    assert t.solve(arm.fk(Q_B)[:3, 3], 0.0, tag='B') is None
    t.start_at(Q_A, 0.0)                      # a hold, a stall or the arm moved by hand
    (dropped,) = t.take_events()
    assert dropped.tag == 'B' and dropped.motion == 'superseded'
    assert not t.searching
    for _ in range(30):
        run.step()
    np.testing.assert_array_equal(t.command, arm.clip(Q_A))
    assert run.events == []


def test_the_worker_in_the_callers_thread_gives_the_plan_at_once(arm):
    worker = GoalWorker(arm, background=False)
    job = GoalJob(arm.fk(Q_B)[:3, 3], Q_A, 0.0, False, 'dls', {'max_attempts': 1}, (FLOOR,),
                  0.03, 0.5, 'command', 'tag')
    worker.submit(job)
    taken = worker.take()
    assert taken is not None and taken[0] is job and taken[1].kind in ('direct', 'planned')
    assert worker.take() is None and not worker.busy


def test_a_search_that_raises_raises_in_the_callers_thread(arm):
    worker = GoalWorker(arm, background=True)
    bad = GoalJob(arm.fk(Q_B)[:3, 3], np.full(3, np.nan), 0.0, False, 'dls', {}, (), 0.03,
                  0.5, 'command')
    worker.submit(bad)
    deadline = time.monotonic() + 30.0
    with pytest.raises(ik_node.IKInputError):
        while worker.take() is None:
            assert time.monotonic() < deadline
            time.sleep(0.001)
    worker.close()
    with pytest.raises(RuntimeError):
        worker.submit(bad)


def test_a_hold_brakes_within_the_limits_and_drops_the_goal(arm):
    t, run = moving_toward_b(arm, 60)
    speed = np.max(np.abs(run.commands[-1] - run.commands[-2])) / PERIOD
    assert speed > 0.3 * V
    rest = t.halt(run.now)
    run.until(lambda: not t.moving)
    np.testing.assert_allclose(t.command, rest, atol=1e-9)
    assert np.linalg.norm(arm.fk(t.command)[:3, 3] - arm.fk(Q_B)[:3, 3]) > 1e-2
    for _ in range(50):                      # nothing is planned again: it stays
        run.step()
    np.testing.assert_allclose(t.command, rest, atol=1e-9)
    assert run.watcher.total_violations == 0, run.watcher.summary()


def test_a_stream_that_starts_far_from_the_arm_goes_on_from_its_first_target(arm):
    # A dragged marker far from the arm: its first pose is a goal; the steps that come while
    # that goal is searched wait for it, the newest one is taken from there, the ones in
    # between are answered as superseded.
    t, run = start(arm)
    first = arm.fk(Q_B)[:3, 3]
    steps = [first + np.array([0.0, 0.0, 0.002 * k]) for k in range(1, 6)]
    assert t.solve(first, 0.0, tag='first') is None
    for k, p in enumerate(steps):
        assert t.solve(p, 0.0, tag=f'step {k}') is None
    run.until(lambda: len(run.events) >= 6)
    # Answered in the order the targets came.
    assert [o.tag for o in run.events] == ['first'] + [f'step {k}' for k in range(5)]
    by_tag = {o.tag: o for o in run.events}
    assert by_tag['first'].path == 'goal' and not by_tag['first'].refused
    assert all(by_tag[f'step {k}'].motion == 'superseded' for k in range(4))
    last = by_tag['step 4']
    assert last.path == 'streaming' and not last.refused
    run.until(lambda: not t.moving)
    assert np.linalg.norm(arm.fk(t.command)[:3, 3] - steps[-1]) < 1e-4
    assert run.watcher.total_violations == 0, run.watcher.summary()
