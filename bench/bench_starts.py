# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Start cost of the node processes (issue 29): CPU seconds from exec to the ready log line.

The ROS tests start ``ik_node`` and ``sim_arm`` about 110 times per run, and each start's CPU
is spent beside the other test worker. Each executable is started ``--starts`` times on the
demo arm, as the tests start it (``python -m``, its parameters on the command line), one at a
time; at its ready line ('ready:' / 'simulating') this process reads the node's CPU time
(user + system of all its threads, ``/proc/<pid>/stat``) and whether numba and SciPy are
mapped in it (``/proc/<pid>/maps``), then stops it with SIGINT. Reported per executable:
median, min and max CPU-s to ready, wall seconds to ready, and the modules loaded. Writes
bench/out/starts_<date>_<machine>.md (never overwriting). Usage::

    .venv-test/bin/python bench/bench_starts.py [--starts 10]
"""

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time

from common import load_text, new_result_path, note_load, ros_domain
from ik_node import share_path
from ik_node.ros.processes import NODE_MODULES, ros_environment

READY = {'ik_node': 'ready:', 'sim_arm': 'simulating'}
PARAMS = {'ik_node': ['interactive_marker:=false'], 'sim_arm': []}
TICKS = os.sysconf('SC_CLK_TCK')


def cpu_seconds(pid: int) -> float:
    """Return the user + system CPU time [s] of process ``pid`` (all its threads)."""
    fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def mapped(pid: int) -> str:
    """Return which of numba and SciPy have a shared library mapped in process ``pid``."""
    maps = open(f'/proc/{pid}/maps').read()
    names = [name for name in ('numba', 'scipy') if f'/{name}/' in maps]
    return ', '.join(names) or 'neither'


def one_start(executable: str, domain: int) -> tuple[float, float, str]:
    """Start ``executable`` once; return (CPU-s to ready, wall s to ready, heavy modules)."""
    args = [sys.executable, '-m', NODE_MODULES[executable], '--ros-args',
            '-p', f'urdf_file:={share_path()}']
    for p in PARAMS[executable]:
        args += ['-p', p]
    t0 = time.monotonic()
    proc = subprocess.Popen(args, env=ros_environment(domain), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if READY[executable] in line:
                break
        else:
            raise RuntimeError(f'{executable} exited before it was ready')
        wall = time.monotonic() - t0
        cpu, heavy = cpu_seconds(proc.pid), mapped(proc.pid)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    return cpu, wall, heavy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--starts', type=int, default=10, help='starts per executable')
    args = parser.parse_args()
    note_load()
    domain = ros_domain()
    rows = []
    for executable in READY:
        runs = [one_start(executable, domain) for _ in range(args.starts)]
        cpu = [r[0] for r in runs]
        wall = [r[1] for r in runs]
        rows.append(f'| {executable} | {statistics.median(cpu):.2f} | {min(cpu):.2f} | '
                    f'{max(cpu):.2f} | {statistics.median(wall):.2f} | {runs[-1][2]} |')
    report = '\n'.join([
        f'# Start cost of the node processes ({args.starts} starts each)', '',
        load_text(), '',
        '| executable | CPU-s to ready, median | min | max | wall s to ready, median '
        '| numba / SciPy loaded |',
        '|---|---|---|---|---|---|', *rows, ''])
    path = new_result_path('starts', 'md')
    path.write_text(report)
    print(report)
    print(f'written to {path}')


if __name__ == '__main__':
    main()
