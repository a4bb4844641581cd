# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
List every specialisation ik-compile's groups compile, with its CPU time (issue 29).

    NUMBA_CACHE_DIR=/tmp/nc-empty python scripts/compile_audit.py [GROUP ...] [--top N]

Runs the groups (default: all, in LANES order) in this one process, into the cache numba
finds (point NUMBA_CACHE_DIR at an empty folder to compile everything; note that the
package's own cache is still dropped when its sources changed). Prints the CPU seconds
per group, then every function compiled more than once (each signature: a whole compile of
all it calls) and the N largest compiles. Per compile: ``self`` excludes the compiles it
triggered, ``llvm`` is its part in LLVM (numba's llvm_lock), where most of the time goes:
numba links every kernel a function calls into that function and optimises the whole again.
"""

import argparse
from collections import defaultdict
import time

from ik_node import compile as ik_compile
from numba.core import event


class _Recorder(event.Listener):
    """Time every numba:compile event (nested: self excludes the children)."""

    def __init__(self):
        self.stack: list = []     # [start, children's seconds, llvm seconds] per open compile
        self.records: list = []
        self.group = ''

    def on_start(self, ev) -> None:
        self.stack.append([time.process_time(), 0.0, 0.0])

    def on_end(self, ev) -> None:
        start, children, llvm = self.stack.pop()
        total = time.process_time() - start
        if self.stack:
            self.stack[-1][1] += total
        d = ev.data['dispatcher']
        self.records.append((self.group, f'{d.py_func.__module__}.{d.py_func.__qualname__}',
                             [str(a) for a in ev.data['args']], total - children, llvm))


class _Llvm(event.Listener):
    """Add the time in LLVM to the innermost open compile."""

    def __init__(self, recorder: _Recorder):
        self.recorder = recorder
        self.since = 0.0

    def on_start(self, ev) -> None:
        self.since = time.process_time()

    def on_end(self, ev) -> None:
        if self.recorder.stack:
            self.recorder.stack[-1][2] += time.process_time() - self.since


def main() -> int:
    """Run the groups, print the report; return 0."""
    p = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    p.add_argument('groups', nargs='*', help='groups to run (default: all)')
    p.add_argument('--top', type=int, default=25, help='largest compiles to list')
    args = p.parse_args()
    recorder = _Recorder()
    event.register('numba:compile', recorder)
    event.register('numba:llvm_lock', _Llvm(recorder))
    groups = args.groups or [g for lane in ik_compile.LANES for g in lane]
    for name in groups:
        recorder.group = name
        t0 = time.process_time()
        ik_compile.GROUPS[name]()
        print(f'{name}: {time.process_time() - t0:.1f} s CPU')
    records = recorder.records
    print(f'{len(records)} compiles, {sum(r[3] for r in records):.1f} s, of which LLVM '
          f'{sum(r[4] for r in records):.1f} s')
    by_name = defaultdict(list)
    for r in records:
        by_name[r[1]].append(r)
    print('--- compiled more than once')
    for name, rs in sorted(by_name.items(), key=lambda kv: -sum(r[3] for r in kv[1])):
        if len(rs) > 1:
            print(f'{name} x{len(rs)} {sum(r[3] for r in rs):.1f} s')
            for group, _, sig, self_s, llvm in rs:
                print(f'    [{group}] {self_s:.1f} s (llvm {llvm:.1f}): {"; ".join(sig)[:400]}')
    print(f'--- the {args.top} largest')
    for group, name, _, self_s, llvm in sorted(records, key=lambda r: -r[3])[:args.top]:
        print(f'{self_s:6.1f} s (llvm {llvm:5.1f}) [{group}] {name}')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
