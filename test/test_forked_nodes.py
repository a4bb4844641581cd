# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The tests' fork server (forked_nodes) starts nodes as ``python -m`` would, or declines."""

import os
import signal

from conftest import load, URDF_DIR
from forked_nodes import ForkedNode
import pytest
from ros_harness import (fresh_domain, node_environment, node_forks, NODE_PRIORITY,
                         STARTUP_TIMEOUT, WatchedProbe)

pytest.importorskip('rclpy')

URDF = URDF_DIR / 'ur5.urdf'


@pytest.fixture
def forks(tmp_path):
    """Return this test process's fork server (the harness's: one preload per process)."""
    env = node_environment(fresh_domain(), tmp_path)
    server = node_forks()
    assert server is not None, 'the fork server failed (see the output)'
    return server, env


def test_a_forked_node_runs_in_its_own_domain_with_its_log_and_niceness(forks, tmp_path):
    server, env = forks
    domain = fresh_domain()     # not the server's
    env = {**env, **node_environment(domain, tmp_path)}
    log = tmp_path / 'sim_arm.log'
    node = server.start('sim_arm', [f'urdf_file:={URDF}'], env, log, priority=NODE_PRIORITY)
    assert isinstance(node, ForkedNode), server.declined
    probe = WatchedProbe(domain, load('ur5'))
    try:
        # Set up before start() returned (as Popen's child is), then heard in its domain.
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, node.pid) == mine - NODE_PRIORITY
        assert probe.spin_until(lambda: len(probe.arm) > 0, STARTUP_TIMEOUT), log.read_text()
        assert "simulating 'ur5'" in log.read_text()
    finally:
        probe.close()
        node.send_signal(signal.SIGINT)
    assert node.wait(10.0) == 0, log.read_text()
    assert 'Traceback' not in log.read_text()


def test_a_forked_node_that_cannot_start_exits_with_code_1_and_the_reason(forks, tmp_path):
    server, env = forks
    log = tmp_path / 'ik_node.log'
    node = server.start('ik_node', ['urdf_file:=/no/such.urdf'], env, log)
    assert isinstance(node, ForkedNode), server.declined
    assert node.wait(STARTUP_TIMEOUT) == 1
    text = log.read_text()
    assert '[FATAL]' in text and '/no/such.urdf' in text and 'Traceback' not in text, text


def test_a_start_that_would_differ_is_not_forked(forks, tmp_path):
    server, env = forks
    log = tmp_path / 'x.log'
    # An environment the imports read (numba off), a package copy in the folder, another
    # program: each is left to python -m (start() returns None).
    assert server.start('ik_node', [], {**env, 'IK_NODE_DISABLE_JIT': '1'}, log) is None
    assert 'IK_NODE_DISABLE_JIT' in server.declined
    (tmp_path / 'ik_node').mkdir()
    assert server.start('ik_node', [], env, log, cwd=tmp_path) is None
    assert server.start('web_view', [], env, log) is None
    assert not server.failure


def test_variables_read_after_the_start_do_not_stop_a_fork(forks, tmp_path):
    # Set in the test process by libraries the tests use (a Dask scheduler's address,
    # matplotlib's config folder): a node reads them, if at all, after its start, and the
    # child takes them from its request.
    server, env = forks
    env = {**env, 'DASK_SCHEDULER_ADDRESS': 'tcp://127.0.0.1:1', 'MPLCONFIGDIR': str(tmp_path)}
    log = tmp_path / 'ik_node.log'
    node = server.start('ik_node', ['urdf_file:=/no/such.urdf'], env, log)
    assert isinstance(node, ForkedNode), server.declined
    assert node.wait(STARTUP_TIMEOUT) == 1
