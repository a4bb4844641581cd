# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Shared fixtures.

The test robots under test/urdf, a seeded random generator, compiled kernels and this run's
block of ROS domains.
"""

import gc
import os
from pathlib import Path
import socket
import subprocess
import sys
from typing import Optional

from ik_node import Chain, share_path, warm_up
import numpy as np
import pytest

URDF_DIR = Path(__file__).parent / 'urdf'

# (file, base, tip) of every well-formed test robot.
ROBOTS = {
    'planar2': ('planar2.urdf', 'base_link', 'tip'),
    'planar3': ('planar3.urdf', 'base_link', 'tip'),
    'arm4': ('arm4.urdf', 'base_link', 'tip'),
    'prismatic': ('prismatic.urdf', 'base_link', 'tip'),
    'continuous': ('continuous.urdf', 'base_link', 'tip'),
    'mimic': ('mimic.urdf', 'base_link', 'tip'),
    'panda': ('panda.urdf', 'panda_link0', 'panda_link8'),
    'ur5': ('ur5.urdf', 'base_link', 'tool0'),
}

# ROS domains come in blocks of DOMAIN_BLOCK; each test process (each xdist worker, or the
# only process without xdist) holds a lock on one block for its whole life, so two workers,
# or two runs on one machine (CI and a developer, or parallel worktrees), never share a
# domain. The xdist controller runs no test and holds none. Domain 0 (everyone's default)
# and ids above 215 (port range) are not used.
DOMAIN_BLOCK = 12
DOMAIN_BLOCKS = range(1, 18)
_lock_file = None


def _hold_domain_block() -> int:
    """
    Lock a free block of ROS domains, preferring the one holding $ROS_DOMAIN_ID.

    The lock is a Unix socket bound to an abstract name (Linux): one process at a time can
    bind it, it is released when the last process holding the socket exits, and it leaves
    no file behind in the temporary folder.
    """
    global _lock_file
    try:
        preferred = int(os.environ.get('ROS_DOMAIN_ID', '')) // DOMAIN_BLOCK
    except ValueError:
        preferred = DOMAIN_BLOCKS[0]
    order = sorted(DOMAIN_BLOCKS, key=lambda b: (b != preferred, b))
    for block in order:
        lock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            lock.bind(f'\0ik_node-test-domains-block-{block}-of-{DOMAIN_BLOCK}')
        except OSError:
            lock.close()
            continue
        os.set_inheritable(lock.fileno(), True)
        _lock_file = lock
        return block * DOMAIN_BLOCK
    raise RuntimeError('every block of ROS test domains is in use: another test run holds '
                       'each one')


def domain_lock_fds() -> tuple[int, ...]:
    """
    Return the descriptor of this process's domain-block lock, for the nodes it starts.

    A node holding it keeps the block locked after a killed test run, until the node exits:
    the next run then takes another block instead of sharing a domain with the orphan.
    """
    return (_lock_file.fileno(),) if _lock_file is not None else ()


def _runs_tests(config) -> bool:
    """Return False in the xdist controller, which only hands tests to its workers."""
    return hasattr(config, 'workerinput') or not getattr(config.option, 'numprocesses', None)


def pytest_unconfigure(config):
    """Release this process's block of ROS domains (node processes may still hold it)."""
    global _lock_file
    if _lock_file is not None:
        _lock_file.close()
        _lock_file = None


def pytest_configure(config):
    """Give this process its ROS domains and loopback-only discovery, before any test."""
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ.pop('ROS_LOCALHOST_ONLY', None)
    if not _runs_tests(config):
        return
    base = _hold_domain_block()
    os.environ['IK_NODE_TEST_DOMAIN_BLOCK'] = f'{base}:{DOMAIN_BLOCK}'
    os.environ['ROS_DOMAIN_ID'] = str(base)


def load(name: str) -> Chain:
    """Return the chain of test robot ``name``."""
    fname, base, tip = ROBOTS[name]
    return Chain.from_urdf(URDF_DIR / fname, base, tip)


def pytest_sessionstart(session):
    """
    Compile the kernels once per session, before any test worker starts.

    ``python -m ik_node.compile`` (ik-compile) compiles the kernel groups in two processes,
    writes numba's disk cache and marks it compiled; the workers and the node processes of the
    ROS tests load it. Runs in the xdist controller, or in the only process without xdist.
    scripts/test.sh starts ik-compile before it installs the test tools: this one then waits
    for it (ik-compile's lock) and finds the cache compiled.
    """
    if hasattr(session.config, 'workerinput'):
        return
    done = subprocess.run([sys.executable, '-m', 'ik_node.compile', '--quiet'])
    if done.returncode != 0:
        raise pytest.UsageError('compiling the kernels failed (ik-compile, output above)')


# The longest test files (about 20-120 s each at load 12-18 on 2 cores), longest first. With
# ``--dist loadfile`` a file runs whole on one worker, in collection order: starting with
# these leaves the short files to even out the workers' ends, instead of one worker
# running a long file alone. flake8 and mypy (test_lint, test_mypy) are the longest two: one
# on a worker each.
LONG_FILES = ('test_lint.py', 'test_mypy.py', 'test_node_ros.py', 'test_jog_ros.py',
              'test_faults.py', 'test_tree_node_ros.py', 'test_web_browser.py',
              'test_goal_motion_ros.py', 'test_jog_ros_smooth.py', 'test_real_arm.py')


def pytest_collection_modifyitems(session, config, items):
    """Run the long test files first (stable order otherwise)."""
    def rank(item) -> int:
        name = item.path.name
        return LONG_FILES.index(name) if name in LONG_FILES else len(LONG_FILES)
    items.sort(key=rank)


@pytest.fixture(autouse=True)
def unfrozen_heap():
    """
    Give the heap back to the garbage collector after a test that froze it.

    A node built in the test process (test_node_path) freezes the heap once it has its model
    (ik_node.ros.runtime.freeze_heap); frozen objects are never collected, not even at exit,
    so the OMPL and Ruckig objects among them outlived their modules and nanobind printed
    its 'leaked' report when the test worker exited.
    """
    yield
    if gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()


@pytest.fixture(scope='session', autouse=True)
def compiled_kernels():
    """Load every solver kernel from the cache the session start wrote, before any test."""
    warm_up(load('ur5'))


@pytest.fixture(params=sorted(ROBOTS))
def any_chain(request) -> Chain:
    """Yield each test robot in turn."""
    yield load(request.param)


@pytest.fixture(scope='session')
def demo() -> Chain:
    """Return the demo arm (the package's UR5-like arm, share_path())."""
    return Chain.from_urdf(share_path(), 'base_link', 'tool0')


@pytest.fixture
def rig_chain(demo) -> Optional[Chain]:
    """Return the chain whose commands the ``rig`` probe watches; a test file may override it."""
    return demo


@pytest.fixture
def rig(rig_chain, tmp_path):
    """Yield (procs, probe) in a fresh domain (ros_harness.ros_rig), closed after the test."""
    from ros_harness import ros_rig
    with ros_rig(tmp_path, rig_chain) as rig:
        yield rig


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """
    Add the node processes' warnings and errors to the report of a failed ``rig`` test.

    A late control cycle, a stop, a refusal is told in a node's log (in the test's tmp folder,
    gone with a CI run's clone); the failure's report keeps it.
    """
    outcome = yield
    report = outcome.get_result()
    rig = item.funcargs.get('rig') if report.when == 'call' and report.failed else None
    if isinstance(rig, tuple):      # (a test file's own ``rig`` is something else)
        told = [f'{p.log_path.name}: {line}' for p in rig[0].procs if p.log_path.exists()
                for line in p.log_path.read_text(errors='replace').splitlines()
                if line.startswith(('[WARN]', '[ERROR]', '[FATAL]'))]
        report.sections.append(("the nodes' warnings and errors",
                                '\n'.join(told[-40:]) or '(none)'))


@pytest.fixture
def rng() -> np.random.Generator:
    """Return a seeded generator, so every run draws the same samples."""
    return np.random.default_rng(1234)


def pytest_report_header(config):
    """Say at which priority the ROS nodes under test run (ros_harness.NODE_PRIORITY)."""
    from ik_node.ros.processes import raised_priority_allowed
    if raised_priority_allowed():
        return 'ROS nodes under test: 10 nice levels above the test workers'
    return "ROS nodes under test: the workers' priority (no privilege to raise it)"
