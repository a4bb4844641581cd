# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
What every benchmark shares: where results go, the compiled-kernel check, a ROS domain.

- Results go to a new file ``<out_dir>/<name>_<date>_<machine>.<ext>`` (``_2``, ``_3``, ...
  when that exists): a run never overwrites a committed result.
- Scratch files (node logs, ROS_HOME) go to ``<out_dir>/scratch/<name>_<date>_<machine>/``,
  never to the system temp folder or elsewhere in the source tree.
- A benchmark on the pure-Python kernels (no numba, or ``IK_NODE_DISABLE_JIT``) measures
  nothing useful: it refuses to run unless given ``--allow-pure-python``.

Run every benchmark the same way, from any folder, with the venv that has the package::

    <venv>/bin/python bench/<bench>.py --help
"""

import argparse
import datetime
import os
from pathlib import Path
import platform
import random
import sys

__all__ = ['RESULTS', 'add_common_arguments', 'check_kernels', 'new_result_path',
           'scratch_dir', 'machine_tag', 'ros_domain']

RESULTS = Path(__file__).resolve().parent / 'results'


def machine_tag() -> str:
    """Return a short name of this machine: cores and processor kind (no host name)."""
    cpu = (platform.processor() or platform.machine() or 'cpu').replace(' ', '-')
    return f'{os.cpu_count()}core-{cpu}'


def _stem(name: str) -> str:
    return f'{name}_{datetime.date.today().isoformat()}_{machine_tag()}'


def new_result_path(name: str, ext: str, out_dir: str | os.PathLike = RESULTS) -> Path:
    """Return a path for a new result file that does not exist yet (``ext`` without dot)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f'{_stem(name)}.{ext}'
    k = 2
    while path.exists():
        path = out / f'{_stem(name)}_{k}.{ext}'
        k += 1
    return path


def scratch_dir(name: str, out_dir: str | os.PathLike = RESULTS) -> Path:
    """Return a fresh folder for a run's logs under ``<out_dir>/scratch`` (git-ignored)."""
    base = Path(out_dir) / 'scratch'
    path = base / _stem(name)
    k = 2
    while path.exists():
        path = base / f'{_stem(name)}_{k}'
        k += 1
    path.mkdir(parents=True)
    return path


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """Add --out-dir and --allow-pure-python to a benchmark's arguments."""
    parser.add_argument('--out-dir', default=str(RESULTS),
                        help='folder for the result files and scratch logs (default: '
                             'bench/results; files are new, named by date and machine)')
    parser.add_argument('--allow-pure-python', action='store_true',
                        help='run even without compiled kernels (numba missing or '
                             'IK_NODE_DISABLE_JIT set): ~100x slower, figures not comparable')


def check_kernels(args: argparse.Namespace) -> None:
    """Exit with a clear message when the kernels would run as pure Python (unless allowed)."""
    from ik_node._jit import JIT_ENABLED
    if JIT_ENABLED:
        return
    message = ('ik_node runs its kernels as pure Python here (numba is not installed in '
               f'{sys.executable}, or IK_NODE_DISABLE_JIT is set): ~100x slower.')
    if not args.allow_pure_python:
        sys.exit(f'{message} Use the venv of scripts/test.sh or install numba; '
                 '--allow-pure-python runs anyway.')
    print(f'WARNING: {message} (--allow-pure-python)', file=sys.stderr)


def ros_domain() -> int:
    """Return $ROS_DOMAIN_ID, or a random one in 100-199 if it is not set."""
    value = os.environ.get('ROS_DOMAIN_ID', '')
    return int(value) if value.isdigit() else random.randint(100, 199)
