# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A fresh install, before ik-compile: the node serves at once through plain-Python kernels.

The fresh install is a copy of the package without any cache (its own numba cache would go
next to it), run from its folder; the rest of the suite uses the compiled kernels.
"""

import os
from pathlib import Path
import shutil
import subprocess
import sys

from ik_node import Chain
import numpy as np
import pytest
from ros_harness import Q0, ros_rig, STARTUP_TIMEOUT, URDF

PACKAGE = Path(__file__).resolve().parents[1] / 'ik_node'


@pytest.fixture
def fresh(tmp_path) -> Path:
    """Return a folder holding a copy of the package with no compiled kernels."""
    folder = tmp_path / 'fresh'
    shutil.copytree(PACKAGE, folder / 'ik_node',
                    ignore=shutil.ignore_patterns('__pycache__', '*.nbi', '*.nbc'))
    return folder


def _compiled(folder: Path, **env) -> bool:
    code = 'from ik_node import _jit; print(_jit.compiled())'
    out = subprocess.run([sys.executable, '-c', code], cwd=folder, capture_output=True,
                         text=True, check=True, env={**os.environ, **env}).stdout
    return out.strip() == 'True'


def test_the_compiled_mark_follows_the_sources(fresh):
    assert not _compiled(fresh)
    assert _compiled(fresh, IK_NODE_DISABLE_JIT='1')      # nothing to compile
    assert _compiled(PACKAGE.parent)                        # conftest ran ik-compile
    # An edit of a kernel source drops the mark (and the cache) of that install.
    kinematics = fresh / 'ik_node' / 'model' / 'kinematics.py'
    (fresh / 'ik_node' / '__pycache__').mkdir(exist_ok=True)
    digest = subprocess.run([sys.executable, '-c', 'from ik_node import _jit; '
                             'print(_jit._sources_digest())'], cwd=fresh, capture_output=True,
                            text=True, check=True).stdout.strip()
    (fresh / 'ik_node' / '__pycache__' / 'ik_node_jit_compiled.sha256').write_text(digest)
    assert _compiled(fresh)
    kinematics.write_text(kinematics.read_text() + '\n# edited\n')
    assert not _compiled(fresh)


def test_a_stale_cache_is_dropped_at_the_first_load_not_at_import(fresh):
    """A cache of other sources goes (numba misses the edits of kernels it inlined)."""
    pycache = fresh / 'ik_node' / '__pycache__'
    pycache.mkdir()
    stale = pycache / 'kinematics.forward_kinematics-1.py311.nbi'
    stale.write_text('compiled from other sources')
    stamp = pycache / 'ik_node_jit_sources.sha256'
    code = ('import sys, numba\n'
            'import ik_node.model.kinematics, ik_node.solvers.restarts\n'   # kernels defined
            'from pathlib import Path\n'
            f'files = Path({str(stale)!r}), Path({str(stamp)!r})\n'
            'print(*(f.exists() for f in files))\n'
            'numba.njit(lambda x: x + 1)(1)\n'                 # the process's first compile
            'print(*(f.exists() for f in files))\n')
    out = subprocess.run([sys.executable, '-c', code], cwd=fresh, capture_output=True,
                         text=True, check=True).stdout.split()
    # Importing touched no file; the first compile dropped the stale cache and stamped the
    # sources it belongs to (the next process keeps what it compiles).
    assert out == ['True', 'False', 'False', 'True']


def test_a_fresh_install_answers_at_once_through_plain_python_kernels(fresh, tmp_path):
    rclpy = pytest.importorskip('rclpy')  # noqa: F841
    from diagnostic_msgs.msg import DiagnosticStatus
    chain = Chain.from_urdf(URDF, 'base_link', 'tool0')
    with ros_rig(tmp_path, chain) as (procs, probe):
        procs.start('sim_arm', f'urdf_file:={URDF}', f'initial_positions:={Q0.tolist()}')
        node = procs.start('ik_node', f'urdf_file:={URDF}', cwd=fresh,
                           env_extra={'IK_NODE_BACKGROUND_COMPILE': '0'})
        T = chain.fk(Q0 + np.array([0.3, -0.2, 0.2, 0.1, -0.2, 0.3]))
        status = probe.answer_to(lambda: probe.publish_pose(T))
        assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()
        assert probe.spin_until(lambda: probe.arm_reached(T), STARTUP_TIMEOUT), procs.logs()
        log = node.log_path.read_text()
        assert 'not compiled on this install' in log and 'plain-Python kernels' in log, log
        probe.assert_safe()
    # Nothing was compiled (numba would have cached it next to the copy).
    assert not list(fresh.rglob('*.nbi')), 'the fresh install compiled kernels'


def test_a_node_without_numba_says_so_and_not_to_compile(tmp_path):
    rclpy = pytest.importorskip('rclpy')  # noqa: F841
    with ros_rig(tmp_path) as (procs, probe):
        node = procs.start('ik_node', f'urdf_file:={URDF}', 'interactive_marker:=false',
                           env_extra={'IK_NODE_DISABLE_JIT': '1'})
        assert probe.spin_until(lambda: 'ready: robot' in node.log_path.read_text(),
                                STARTUP_TIMEOUT), procs.logs()
        log = node.log_path.read_text()
        assert ('IK_NODE_DISABLE_JIT is set: the solver kernels run as plain Python' in log
                and 'ik-compile' not in log), log
