# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
What every benchmark shares: where results go, the compiled-kernel check, a ROS domain.

- Every run writes its raw results to a new file ``<out_dir>/<name>_<date>_<machine>.<ext>``
  (``_2``, ``_3``, ... when that exists); ``out_dir`` is ``bench/out`` (git-ignored) unless
  ``--out-dir`` says otherwise.
- The repository keeps one curated page per benchmark, ``bench/results/<name>.md``: the
  machine, commit, command and date of a run, then its report. Only a run given
  ``--publish`` rewrites it (:func:`publish`).
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
import subprocess
import sys
import time

__all__ = ['OUT', 'RESULTS', 'add_common_arguments', 'check_kernels', 'new_result_path',
           'scratch_dir', 'cpu_seconds', 'machine_tag', 'machine_description', 'git_state',
           'publish', 'render_page', 'ros_domain']

BENCH = Path(__file__).resolve().parent
OUT = BENCH / 'out'             # raw results of every run (git-ignored)
RESULTS = BENCH / 'results'     # one curated page per benchmark (committed)


def machine_tag() -> str:
    """Return a short name of this machine: cores and processor kind (no host name)."""
    cpu = (platform.processor() or platform.machine() or 'cpu').replace(' ', '-')
    return f'{os.cpu_count()}core-{cpu}'


def _stem(name: str) -> str:
    return f'{name}_{datetime.date.today().isoformat()}_{machine_tag()}'


def new_result_path(name: str, ext: str, out_dir: str | os.PathLike = OUT) -> Path:
    """Return a path for a new result file that does not exist yet (``ext`` without dot)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f'{_stem(name)}.{ext}'
    k = 2
    while path.exists():
        path = out / f'{_stem(name)}_{k}.{ext}'
        k += 1
    return path


def scratch_dir(name: str, out_dir: str | os.PathLike = OUT) -> Path:
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
    """Add --out-dir, --publish and --allow-pure-python to a benchmark's arguments."""
    parser.add_argument('--out-dir', default=str(OUT),
                        help='folder for the raw result files and scratch logs (default: '
                             'bench/out, git-ignored; files are new, named by date and '
                             'machine)')
    parser.add_argument('--publish', action='store_true',
                        help="also rewrite this benchmark's curated page in bench/results "
                             'from this run (machine, commit, command, date, report)')
    parser.add_argument('--allow-pure-python', action='store_true',
                        help='run even without compiled kernels (numba missing or '
                             'IK_NODE_DISABLE_JIT set): ~100x slower, figures not comparable')


def machine_description() -> str:
    """Return cores, architecture and processor model of this machine (no host name)."""
    model = ''
    try:
        with open('/proc/cpuinfo') as f:
            model = next((line.split(':', 1)[1].strip() for line in f
                          if line.startswith('model name')), '')
    except OSError:
        pass
    return f'{os.cpu_count()} cores, {platform.machine()}' + (f', {model}' if model else '')


def git_state() -> str:
    """Return the short commit of the checkout, with '+dirty' if ik_node/ or bench/ differ."""
    try:
        head = subprocess.run(['git', '-C', str(BENCH), 'rev-parse', '--short', 'HEAD'],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(['git', '-C', str(BENCH.parent), 'status', '--porcelain', '--',
                                'ik_node', 'bench'], capture_output=True, text=True,
                               check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return 'unknown'
    return head + ('+dirty' if dirty else '')


# A run whose machine was busier than this when it started is marked busy: its timings
# measure the other work as much as ik_node. The busy share of all cores measured then (a
# quiet machine: a few %), or the 1-minute load average per core where it cannot be measured.
BUSY_SHARE = 0.25
BUSY_LOAD_PER_CORE = 0.5
_START_LOAD: list = []      # [load average, busy share measured at the start (or None)]


def cpu_seconds() -> tuple[float, float]:
    """
    Return (busy, all) CPU seconds of the whole machine since boot, over all cores.

    ``/proc/stat``: busy is user, nice, system, irq and softirq; all adds idle and iowait
    (the VM's steal counts in neither). OSError where there is no ``/proc/stat``.
    """
    with open('/proc/stat') as f:
        user, nice, system, idle, iowait, irq, softirq = (
            int(v) for v in f.readline().split()[1:8])
    busy = user + nice + system + irq + softirq
    tick = os.sysconf('SC_CLK_TCK')
    return busy / tick, (busy + idle + iowait) / tick


def _busy_share(seconds: float = 2.0) -> float | None:
    """
    Return the share of all cores busy over the next ``seconds``, or None (no ``/proc/stat``).

    What the machine does now: the 1-minute load average still counts work that ended up to
    a minute before (a test run just finished reads as a busy machine).
    """
    try:
        busy0, all0 = cpu_seconds()
        time.sleep(seconds)
        busy1, all1 = cpu_seconds()
    except (OSError, ValueError):
        return None
    return (busy1 - busy0) / max(all1 - all0, 1e-9)


def note_load() -> float:
    """
    Record the machine's load as this run starts; warn when it is busy; return the average.

    The 1-minute load average and the busy share of the cores over the 2 s before the start
    (:func:`_busy_share`); the share decides whether the machine is busy, the average where
    it cannot be measured. :func:`load_text` writes both into the page.
    """
    load = os.getloadavg()[0]
    share = _busy_share()
    _START_LOAD[:] = [load, share]
    if _started_busy():
        cores = os.cpu_count() or 1
        print(f'WARNING: the machine is busy (load average {load:.1f} on {cores} cores'
              + (f', {100 * share:.0f} % busy now' if share is not None else '') + '): '
              'timings from this run are not comparable; run on a quiet machine',
              file=sys.stderr, flush=True)
    return load


def _started_busy() -> bool:
    load, share = _START_LOAD
    if share is not None:
        return share > BUSY_SHARE
    return load > BUSY_LOAD_PER_CORE * (os.cpu_count() or 1)


def load_text() -> str:
    """Return the load at the start (:func:`note_load`) and now, marked when busy."""
    cores = os.cpu_count() or 1
    now = os.getloadavg()[0]
    if not _START_LOAD:
        return f'load average {now:.1f} at the end ({cores} cores)'
    start, share = _START_LOAD
    busy_now = f', {100 * share:.0f} % of the cores busy then' if share is not None else ''
    text = (f'load average {start:.1f} at the start{busy_now}, {now:.1f} at the end '
            f'({cores} cores)')
    if _started_busy():
        text = f'**busy machine**: {text}; timings not comparable'
    return text


def publish(name: str, report: str, *, commit: str | None = None,
            command: str | None = None) -> Path:
    """
    Rewrite the curated page ``bench/results/<name>.md`` with ``report`` (markdown); return it.

    The page starts with the run's date, machine, commit (``commit``, default: the checkout's
    now) and command (default: this process's), then the report with its headings one
    level down.
    """
    command = command or ' '.join(['python', f'bench/{Path(sys.argv[0]).name}', *sys.argv[1:]])
    date = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')
    page = render_page(name, report, date=date,
                       machine=f'{machine_description()}; {load_text()}',
                       commit=commit or git_state(), command=command)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f'{name}.md'
    path.write_text(page)
    return path


def save_report(name: str, report: str, out_dir: str | os.PathLike, publish_too: bool,
                commit: str | None = None) -> Path:
    """
    Write ``report`` to a new ``<out_dir>/<name>_<date>_<machine>.md`` and print it; return it.

    publish_too: also rewrite the curated page (:func:`publish`, with ``commit``).
    """
    path = new_result_path(name, 'md', out_dir)
    path.write_text(report)
    print(report + f'\nwritten: {path}')
    if publish_too:
        print(f'published: {publish(name, report, commit=commit)}')
    return path


def render_page(name: str, report: str, *, date: str, machine: str, commit: str,
                command: str) -> str:
    """Return the text of a curated page (see :func:`publish`)."""
    body, fenced = [], False
    for line in report.strip('\n').splitlines():
        if line.startswith('```'):
            fenced = not fenced
        body.append('#' + line if line.startswith('#') and not fenced else line)
    head = [f'# {name}: published results', '',
            'The curated page of this benchmark, rewritten only by a run given `--publish`; '
            'every run writes its raw results to `bench/out/` (git-ignored).', '',
            f'- date: {date}', f'- machine: {machine}', f'- commit: {commit}',
            f'- command: `{command}`', '']
    return '\n'.join(head + body) + '\n'


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


def progress(iterable, desc: str, total: int | None = None, unit: str = 'it'):
    """
    Return ``iterable`` with a progress bar on stderr: count, rate and time left (tqdm).

    The bar redraws at most once a second; with output that is not a terminal (a log
    file) tqdm still writes a line per update, so a long run is never silent. With
    ``iterable`` None, update the returned bar by hand (``bar.update(k)``, ``bar.close()``).
    """
    from tqdm import tqdm
    return tqdm(iterable, desc=desc, total=total, unit=unit, file=sys.stderr,
                mininterval=1.0, dynamic_ncols=True)


def eta_text(t_start: float, done: int, total: int) -> str:
    """Return '[k of n, T s so far, about L s left]' from a perf_counter start."""
    import time
    took = time.perf_counter() - t_start
    left = took / max(done, 1) * (total - done)
    return f'[{done} of {total}, {took:.0f} s so far, about {left:.0f} s left]'
