# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Where the test suite's CPU goes: each test file run alone, the machine's CPU seconds and wall.

Beside a busy process the suite's time is its CPU over the share of the 2 cores it gets
(issue 29), and much of that CPU is spent outside the pytest processes (the node processes
the ROS tests fork, chromium's GPU process, the linters' workers): this counts the whole
machine's busy time (``/proc/stat``: user, nice, system, irq, softirq; not idle, iowait or
the VM's steal) over each file's run, less that of a run that collects the same file and runs
nothing (the start of pytest and its imports), so run it on a quiet machine. Each file runs in
one pytest process (no workers), in the checkout's venv (``scripts/test.sh`` made it), with
loopback-only DDS in a domain of its own. Usage::

    python bench/bench_suite_cpu.py [test/test_x.py ...] [--publish]

Writes bench/out/suite_cpu_<date>_<machine>.md (``--publish`` also rewrites
bench/results/suite_cpu.md).
"""

import argparse
import os
from pathlib import Path
import subprocess
import sys
import time

from common import cpu_seconds, note_load, OUT, ros_domain, save_report

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / '.venv-test' / 'bin' / 'python'


def run(path: str, env: dict, only_collect: bool) -> tuple[float, float, str]:
    """Run pytest on ``path`` (or only collect it); return (busy CPU s, wall s, summary)."""
    args = [str(PYTHON), '-m', 'pytest', path, '-q', '-p', 'no:cacheprovider']
    if only_collect:
        args.append('--collect-only')
    b0, t0 = cpu_seconds()[0], time.monotonic()
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    cpu, wall = cpu_seconds()[0] - b0, time.monotonic() - t0
    lines = done.stdout.strip().splitlines()
    return cpu, wall, (lines[-1] if lines else f'exit {done.returncode}')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('files', nargs='*', help='test files (default: every test/test_*.py)')
    parser.add_argument('--out-dir', default=str(OUT), help='folder for raw results (bench/out)')
    parser.add_argument('--publish', action='store_true',
                        help='also rewrite bench/results/suite_cpu.md from this run')
    args = parser.parse_args()
    if not PYTHON.exists():
        sys.exit(f'{PYTHON} is missing: run scripts/test.sh once first')
    # Named files relative to the caller's folder; the runs are in the checkout's.
    files = sorted(str(p.resolve().relative_to(ROOT))
                   for p in ([Path(f) for f in args.files] or (ROOT / 'test').glob('test_*.py')))
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONDONTWRITEBYTECODE'}
    env.update(ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST', ROS_DOMAIN_ID=str(ros_domain()),
               OPENBLAS_NUM_THREADS='1', IK_NODE_REQUIRE_BROWSER='1')
    note_load()
    rows = []
    for path in files:
        base_cpu, _, _ = run(path, env, only_collect=True)
        cpu, wall, summary = run(path, env, only_collect=False)
        rows.append((path, max(cpu - base_cpu, 0.0), wall, summary))
        print(f'{path}: {rows[-1][1]:.1f} s CPU, {wall:.1f} s wall ({summary})', flush=True)
    rows.sort(key=lambda r: -r[1])
    total_cpu, total_wall = sum(r[1] for r in rows), sum(r[2] for r in rows)
    lines = [f'{len(rows)} test files, each alone: **{total_cpu:.0f} s of CPU** (the whole '
             f"machine, less each file's collection) in {total_wall:.0f} s of wall time.", '',
             '| file | CPU [s] | share | wall [s] | pytest summary |', '|---|---|---|---|---|']
    lines += [f'| {p} | {c:.1f} | {100 * c / max(total_cpu, 1e-9):.0f} % | {w:.1f} | {s} |'
              for p, c, w, s in rows]
    save_report('suite_cpu', '\n'.join(lines) + '\n', args.out_dir, args.publish)


if __name__ == '__main__':
    main()
