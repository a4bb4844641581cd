# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The pure-Python path (no numba) gives the same answers as the compiled kernels."""

import json
import os
from pathlib import Path
import subprocess
import sys
import time

from conftest import load
from ik_node import solve
import numpy as np
import pytest

SCRIPT = r"""
import json, sys
import numpy as np
sys.path.insert(0, {test_dir!r})
from conftest import load
from ik_node import solve
from ik_node._jit import JIT_ENABLED
chain = load('panda')
rng = np.random.default_rng(5)
out = {{'jit': JIT_ENABLED, 'fk': [], 'J': [], 'q': []}}
for _ in range(3):
    q = chain.random_q(rng)
    out['fk'].append(chain.fk(q).tolist())
    out['J'].append(chain.jacobian(q).tolist())
    out['q'].append(solve(chain, chain.fk(q), rng_seed=3, timeout=10.0).q.tolist())
for method in ('fabrik', 'ccd', 'hybrid'):
    T = chain.fk(chain.random_q(rng))
    r = solve(chain, T[:3, 3], method=method, rng_seed=3, timeout=10.0)
    out[method] = [r.q.tolist(), r.attempts, r.status]
print(json.dumps(out))
"""


def test_pure_python_path_matches_the_compiled_one():
    env = dict(os.environ, IK_NODE_DISABLE_JIT='1')
    code = SCRIPT.format(test_dir=str(Path(__file__).parent))
    proc = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,
                          text=True, timeout=300, check=True)
    ref = json.loads(proc.stdout)
    assert ref['jit'] is False
    chain = load('panda')
    rng = np.random.default_rng(5)
    for k in range(3):
        q = chain.random_q(rng)
        np.testing.assert_allclose(chain.fk(q), ref['fk'][k], atol=1e-12)
        np.testing.assert_allclose(chain.jacobian(q), ref['J'][k], atol=1e-12)
        res = solve(chain, chain.fk(q), rng_seed=3, timeout=10.0)
        np.testing.assert_allclose(res.q, ref['q'][k], atol=1e-6)
    # The FABRIK family runs in the same driver, compiled or not.
    for method in ('fabrik', 'ccd', 'hybrid'):
        T = chain.fk(chain.random_q(rng))
        res = solve(chain, T[:3, 3], method=method, rng_seed=3, timeout=10.0)
        assert [res.attempts, res.status] == ref[method][1:], method
        np.testing.assert_allclose(res.q, ref[method][0], atol=1e-6)


def test_the_kernels_clock_is_the_clock_of_perf_counter():
    # A compiled solve keeps a deadline set by Python as perf_counter() + timeout.
    from ik_node._jit import monotonic_clock
    now = monotonic_clock()
    for _ in range(100):
        before = time.perf_counter()
        reading = now()
        after = time.perf_counter()
        assert before <= reading <= after


def test_the_budgets_clock_stands_still_while_a_kernel_compiles():
    from ik_node import _jit
    if not _jit.JIT_ENABLED:
        pytest.skip('numba is off: nothing compiles')
    import numba

    # A function of its own (not cached): its first call compiles it here, now.
    @numba.njit
    def double(x):
        return 2.0 * x

    loading0, clock0, wall0 = _jit.loading_seconds(), _jit.solving_clock(), time.perf_counter()
    assert double(1.5) == 3.0
    loading, clock, wall = _jit.loading_seconds(), _jit.solving_clock(), time.perf_counter()
    compiling = loading - loading0
    assert compiling > 0.0
    assert clock - clock0 == pytest.approx(wall - wall0 - compiling, abs=1e-3)
    # Compiled already: a call counts no loading.
    double(2.5)
    assert _jit.loading_seconds() == loading


def test_a_second_background_compile_appends_to_the_log_of_the_first(tmp_path, monkeypatch):
    # Two node starts on a fresh install each start ik-compile; the log keeps both outputs.
    from ik_node import _jit
    log = tmp_path / 'ik_node_compile.log'
    monkeypatch.setattr(_jit, 'COMPILE_LOG', log)
    monkeypatch.setenv('IK_NODE_DISABLE_JIT', '1')     # the child then ends at once
    first = _jit.compile_in_background()
    second = _jit.compile_in_background()
    assert first.wait(60) == 0 and second.wait(60) == 0
    text = log.read_text()
    assert text.count('--- ik-compile started') == 2, text
    assert text.count('nothing to compile') == 2, text


def test_stopping_the_node_stops_its_background_compile_and_the_compile_s_children():
    # ik_node.ros.start stops a compile still running when the node ends: its process
    # group (the compile's own children included), so nothing is left running.
    from ik_node.ros.start import stop_compile
    group = subprocess.Popen(['sh', '-c', 'sleep 60 & sleep 60; wait'], start_new_session=True)
    time.sleep(0.3)
    assert stop_compile(group)
    assert group.poll() is not None
    deadline = time.monotonic() + 5.0
    while True:     # (the orphaned child is reaped by init a moment later)
        left = subprocess.run(['ps', '-o', 'stat=', '-g', str(group.pid)],
                              capture_output=True, text=True).stdout.split()
        if not [s for s in left if not s.startswith('Z')] or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert [s for s in left if not s.startswith('Z')] == []
    assert not stop_compile(group)          # already stopped: nothing to do
