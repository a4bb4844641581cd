# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""realtime_priority: the node's control thread at SCHED_FIFO, taken and given back live."""

import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip('rclpy')

from demo_rig import DEMO_START, DEMO_URDF  # noqa: E402, I100
from diagnostic_msgs.msg import DiagnosticStatus  # noqa: E402
from ik_node.ros.control_loop import BACKGROUND_NICE, THREAD_NAME  # noqa: E402
from ik_node.ros.processes import realtime_allowed  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, 'SCHED_FIFO'), reason='Linux scheduling')


def fifo_threads(pid: int) -> dict:
    """Return {thread id: priority} of the process's threads that run at SCHED_FIFO."""
    found = {}
    for task in Path(f'/proc/{pid}/task').iterdir():
        tid = int(task.name)
        try:
            if os.sched_getscheduler(tid) & ~os.SCHED_RESET_ON_FORK == os.SCHED_FIFO:
                found[tid] = os.sched_getparam(tid).sched_priority
        except ProcessLookupError:
            continue        # a thread that ended meanwhile
    return found


def thread_named(pid: int, name: str) -> int | None:
    """Return the id of the process's thread called ``name``, or None."""
    for task in Path(f'/proc/{pid}/task').iterdir():
        try:
            if (task / 'comm').read_text().strip() == name:
                return int(task.name)
        except FileNotFoundError:
            continue        # a thread that ended meanwhile
    return None


def fifo_layout(pid: int, priority: int) -> bool:
    """
    Return True when ``pid`` runs its control thread at ``priority``, and it alone real-time.

    The loop's thread is the one named ik-control. The goal search (the node has answered a
    goal) holds the GIL the loop needs: it runs at normal scheduling at BACKGROUND_NICE, not
    at SCHED_FIFO (where a long search trips the kernel's real-time throttling).
    """
    fifo = fifo_threads(pid)
    control, search = thread_named(pid, THREAD_NAME), thread_named(pid, 'ik-goal-search')
    return (list(fifo) == [control] and fifo[control] == priority and search is not None
            and os.sched_getscheduler(search) == os.SCHED_OTHER
            and os.getpriority(os.PRIO_PROCESS, search) == BACKGROUND_NICE)


def test_the_control_thread_takes_and_gives_back_sched_fifo_live(rig, demo):
    if not realtime_allowed():
        pytest.skip('no right to real-time scheduling on this machine')
    procs, probe = rig
    procs.start('sim_arm', f'urdf_file:={DEMO_URDF}', f'initial_positions:={DEMO_START.tolist()}')
    node = procs.start('ik_node', f'urdf_file:={DEMO_URDF}', 'realtime_priority:=40')
    status = probe.answer_to(lambda: probe.publish_pose(demo.fk(DEMO_START)))
    assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()
    assert probe.spin_until(lambda: len(probe.arm) > 0, 20.0), procs.logs()
    # The control loop's thread at the asked priority, the only real-time one; the goal
    # search at normal scheduling, at the strongest niceness.
    assert probe.spin_until(lambda: fifo_layout(node.pid, 40), 20.0), \
        (fifo_threads(node.pid), procs.logs())
    assert ('control thread: SCHED_FIFO priority 40, the other Python threads normal '
            f'scheduling at nice {BACKGROUND_NICE}') in \
        node.log_path.read_text()
    (r,) = probe.set_parameters('ik_node', realtime_priority=120)
    assert not r.successful and 'realtime_priority' in r.reason, r.reason
    (r,) = probe.set_parameters('ik_node', realtime_priority=0)
    assert r.successful, r.reason
    assert probe.spin_until(lambda: not fifo_threads(node.pid), 20.0), fifo_threads(node.pid)
    # Off: the goal search back at the process's own niceness.
    search = thread_named(node.pid, 'ik-goal-search')
    assert probe.spin_until(lambda: os.getpriority(os.PRIO_PROCESS, search)
                            == os.getpriority(os.PRIO_PROCESS, node.pid), 20.0)
    (r,) = probe.set_parameters('ik_node', realtime_priority=55)
    assert r.successful, r.reason
    assert probe.spin_until(lambda: fifo_layout(node.pid, 55), 20.0), fifo_threads(node.pid)
    # The node goes on answering and moving the arm at its new priority.
    goal = demo.fk(DEMO_START + [0.2, -0.1, 0.1, 0.0, 0.1, 0.0])
    status = probe.answer_to(lambda: probe.publish_pose(goal))
    assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()

    def tool_error() -> float:
        if not probe.arm:       # no reading of the arm heard yet
            return float('inf')
        return float(np.linalg.norm(demo.fk(probe.arm[-1][1])[:3, 3] - goal[:3, 3]))
    assert probe.spin_until(lambda: tool_error() < 1e-3, 15.0), (tool_error(), procs.logs())
