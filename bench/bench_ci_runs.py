# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The suite as CI runs it, several times in a row: wall time, pytest time, green or not.

Each run clones the checkout's HEAD into a new folder (a clean checkout: no venv, no numba
cache) and runs its ``.ci/run`` there, optionally beside a process that keeps one core busy
(``--hog``: ``python3 -c 'while 1: pass'``, what the suite's time target is stated against).
The clone (in the system's temporary folder) and its venv are removed after each run unless
``--keep``. Per run it records the
wall time of ``.ci/run`` (venv, install, compile, pytest), when pytest starts (after the
install and the compile), pytest's own time and summary line,
the exit status and the load average before; with ``--stop-on-failure`` the first red run
ends the series. A failed run's output is kept in the scratch folder.

Writes bench/out/ci_runs_<date>_<machine>.md (``--publish`` also rewrites
bench/results/ci_runs.md). Usage (any Python 3; needs git and what .ci/run needs)::

    python3 bench/bench_ci_runs.py --runs 10 --hog
"""

import argparse
import os
from pathlib import Path
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from common import note_load, OUT, save_report, scratch_dir

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = re.compile(r'^=+ (.*(?:passed|failed|error).*) in ([0-9.]+)s', re.MULTILINE)
# scripts/test.sh says when pytest starts: after the install and the kernels' compile.
PYTEST_START = re.compile(r'^test\.sh \[([0-9]+) s\]: running pytest', re.MULTILINE)


def one_run(k: int, scratch: Path, keep: bool) -> dict:
    """Clone HEAD into scratch/run_k, run its .ci/run; return the run's record."""
    # Outside the checkout: its tests (the linters) would read a clone's files.
    clone = Path(tempfile.mkdtemp(prefix=f'ik_node_ci_run_{k}_'))
    subprocess.run(['git', 'clone', '--quiet', str(ROOT), str(clone)], check=True)
    commit = subprocess.run(['git', '-C', str(clone), 'rev-parse', '--short', 'HEAD'],
                            capture_output=True, text=True, check=True).stdout.strip()
    load = os.getloadavg()[0]
    env = {key: value for key, value in os.environ.items()
           if key not in ('ROS_DOMAIN_ID', 'IK_NODE_TEST_VENV', 'VIRTUAL_ENV', 'PYTHONPATH')}
    env['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    t0 = time.monotonic()
    done = subprocess.run(['bash', '.ci/run'], cwd=clone, env=env, capture_output=True,
                          text=True)
    wall = time.monotonic() - t0
    output = done.stdout + done.stderr
    found = SUMMARY.findall(output)
    summary, pytest_s = (found[-1][0], float(found[-1][1])) if found else ('no summary', None)
    start = PYTEST_START.search(output)
    log = scratch / f'run_{k}.log'
    log.write_text(output)
    if not keep:
        shutil.rmtree(clone, ignore_errors=True)
    return {'run': k, 'commit': commit, 'rc': done.returncode, 'wall': wall, 'pytest': pytest_s,
            'summary': summary, 'load': load, 'log': log,
            'start': float(start.group(1)) if start else None}


def report(runs: list, args: argparse.Namespace, commit: str) -> str:
    """Return the markdown report of the series."""
    green = [r for r in runs if r['rc'] == 0]
    walls = [r['wall'] for r in runs]
    tests = [r['pytest'] for r in runs if r['pytest'] is not None]
    beside = 'beside a process keeping one core busy' if args.hog else 'alone'
    lines = [f'`.ci/run` from a clean clone of {commit}, {len(runs)} runs in a row, {beside}:'
             f' **{len(green)} of {len(runs)} green**.', '',
             f'- wall (venv, install, compile, pytest): median {statistics.median(walls):.0f} s,'
             f' max {max(walls):.0f} s']
    if tests:
        lines.append(f'- pytest: median {statistics.median(tests):.0f} s, max {max(tests):.0f} s')
    lines += ['', '| run | commit | result | wall [s] | pytest starts [s] | pytest [s] | '
              'load before | pytest summary |', '|---|---|---|---|---|---|---|---|']
    for r in runs:
        result = 'green' if r['rc'] == 0 else f'**red** (exit {r["rc"]})'
        pytest_s = f'{r["pytest"]:.0f}' if r['pytest'] is not None else '-'
        start = f'{r["start"]:.0f}' if r['start'] is not None else '-'
        lines.append(f'| {r["run"]} | {r["commit"]} | {result} | {r["wall"]:.0f} | {start} | '
                     f'{pytest_s} | {r["load"]:.1f} | {r["summary"]} |')
    return '\n'.join(lines) + '\n'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--runs', type=int, default=10, help='runs in the series (10)')
    parser.add_argument('--hog', action='store_true',
                        help='keep one core busy beside every run (python3 busy loop)')
    parser.add_argument('--stop-on-failure', action='store_true',
                        help='end the series at the first red run')
    parser.add_argument('--keep', action='store_true', help='keep the clones and their venvs')
    parser.add_argument('--out-dir', default=str(OUT), help='folder for raw results (bench/out)')
    parser.add_argument('--publish', action='store_true',
                        help='also rewrite bench/results/ci_runs.md from this series')
    args = parser.parse_args()
    if args.runs < 1:
        sys.exit('--runs must be at least 1')
    commit = subprocess.run(['git', '-C', str(ROOT), 'rev-parse', '--short', 'HEAD'],
                            capture_output=True, text=True, check=True).stdout.strip()
    note_load()
    scratch = scratch_dir('ci_runs', args.out_dir)
    hog = subprocess.Popen([sys.executable, '-c', 'while 1: pass']) if args.hog else None
    runs = []
    try:
        for k in range(1, args.runs + 1):
            r = one_run(k, scratch, args.keep)
            runs.append(r)
            print(f'run {k}: exit {r["rc"]}, {r["wall"]:.0f} s, {r["summary"]} ({r["log"]})',
                  flush=True)
            if r['rc'] != 0 and args.stop_on_failure:
                break
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()
    save_report('ci_runs', report(runs, args, commit), args.out_dir, args.publish, commit)


if __name__ == '__main__':
    main()
