# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Solve-and-draw latency of the ``ik-web`` arm view while the target is dragged at 60 Hz.

The demo arm's view runs in this process; a headless system chromium (when installed) is
connected to the page, so every arm update is really serialised and sent over the websocket.
The target gizmo is moved along a 10 cm circle at 60 Hz through ``IKView.set_target`` (it
moves the gizmo on the page and posts the target to the solver thread, as a drag's update
event does). The circle lies inside the demo arm's workspace: its start is the home pose's
tool, drawn in to 3/4 of its horizontal distance from the base (every target reachable).
``--edge`` drags it from the home pose itself instead, out through the workspace boundary
(most targets out of reach or not met: each answer then takes up to the view's solve budget and
shows the stretched best attempt). Reported per method: the latency from the target being
posted to the arm update being sent [ms] (median, p95, p99, max), the solve time alone, how
many targets were superseded by a newer one before being solved, the fraction of frames at
which the drawn arm answered the previous frame's target or a newer one (the arm "within
one frame" of the gizmo), and the fraction of targets reached.

    python bench/bench_web_latency.py                       # dls, fabrik, hybrid, 5 s each
    python bench/bench_web_latency.py --methods dls --duration 3 --no-browser
    python bench/bench_web_latency.py --edge                # the circle through the boundary
"""

import argparse
from collections import deque
from datetime import date
import json
import os
from pathlib import Path
import platform
import shutil
import socket
import time

from common import (add_common_arguments, check_kernels, new_result_path, note_load,
                    publish)
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RATE = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


INWARD = 0.75      # the circle's start, as a fraction of the home tool's distance from the base


def drag(view, method: str, duration: float, edge: bool = False) -> dict:
    """Drag the target along a circle at RATE for ``duration`` s; return the figures."""
    from ik_node.web.ik_view import home_pose
    c = view.controls
    c.method.value = method
    assert c.apply() is None
    T0 = view.chain.fk(home_pose(view.chain))
    if not edge:
        T0[:2, 3] *= INWARD
    view.wait_for(view.set_target(T0))
    first = view.last.seq
    view.history = deque(maxlen=100000)   # keep every sample of this run
    frames = int(duration * RATE)
    within = 0
    start = time.perf_counter()
    seqs = []
    for k in range(frames):
        tick = start + k / RATE
        time.sleep(max(0.0, tick - time.perf_counter()))
        if k > 0 and view.last.seq >= seqs[-1]:
            within += 1   # the arm shows the previous frame's target (or a newer one)
        a = 2.0 * np.pi * k / (2.0 * RATE)          # one turn every 2 s
        T = T0.copy()
        T[:3, 3] += 0.1 * np.array([np.cos(a) - 1.0, np.sin(a), 0.0])
        seqs.append(view.set_target(T))
    view.wait_for(seqs[-1])
    drawn = [d for d in view.history if d.seq > first]
    lat = np.array([d.latency for d in drawn]) * 1e3
    sol = np.array([d.solve_time for d in drawn]) * 1e3
    wait = np.array([d.wait for d in drawn]) * 1e3
    ok = np.mean([d.result.success for d in drawn])
    return {
        'method': method, 'frames': frames, 'solved': len(drawn),
        'superseded': frames - len(drawn), 'reached_fraction': float(ok),
        'within_one_frame': within / max(1, frames - 1),
        'latency_ms': {q: float(np.percentile(lat, p)) for q, p in
                       (('median', 50), ('p95', 95), ('p99', 99), ('max', 100))},
        'wait_ms': {q: float(np.percentile(wait, p)) for q, p in
                    (('median', 50), ('p99', 99), ('max', 100))},
        'draw_ms_median': float(np.median(lat - sol - wait)),
        'solve_ms': {q: float(np.percentile(sol, p)) for q, p in
                     (('median', 50), ('p99', 99), ('max', 100))},
    }


def main() -> int:

    ap = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    ap.add_argument('--methods', nargs='+', default=['dls', 'fabrik', 'hybrid'])
    ap.add_argument('--duration', type=float, default=5.0, help='[s] per method')
    ap.add_argument('--no-browser', action='store_true', help='no chromium client')
    ap.add_argument('--edge', action='store_true',
                    help='drag from the home pose out through the workspace boundary')
    ap.add_argument('--output', help='JSON file (default: a new '
                    '<out-dir>/web_latency_<date>_<machine>.json)')
    add_common_arguments(ap)
    args = ap.parse_args()
    note_load()
    check_kernels(args)
    from ik_node.web.app import start
    app = start(port=free_port())
    browser = pw = None
    chromium = shutil.which('chromium')
    try:
        if chromium and not args.no_browser:
            from playwright.sync_api import sync_playwright
            pw = sync_playwright().start()
            browser = pw.chromium.launch(executable_path=chromium, args=[
                '--use-angle=swiftshader', '--enable-unsafe-swiftshader'])
            page = browser.new_page(viewport={'width': 960, 'height': 640})
            page.goto(app.url)
            page.get_by_text('REACHED', exact=True).wait_for(timeout=30000)
        runs = []
        for i, m in enumerate(args.methods):
            left = (len(args.methods) - i) * args.duration
            print(f'dragging the target for {m}, {args.duration:g} s [method {i + 1} of '
                  f'{len(args.methods)}, about {left:.0f} s left]', flush=True)
            runs.append(drag(app.view, m, args.duration, args.edge))
    finally:
        if browser is not None:
            browser.close()
            pw.stop()
        app.close()
    out = {'date': str(date.today()), 'rate_hz': RATE, 'browser': bool(browser),
           'circle': 'edge' if args.edge else f'inside ({INWARD} of the home distance)',
           'machine': f'{platform.processor() or platform.machine()}, {os.cpu_count()} cpus, '
                      f'load {os.getloadavg()[0]:.1f}', 'runs': runs}
    path = Path(args.output) if args.output else new_result_path('web_latency', 'json',
                                                                 args.out_dir)
    path.write_text(json.dumps(out, indent=2) + '\n')
    report = markdown(out)
    print(report)
    print(f'written {path}')
    if args.publish:
        print(f"published: {publish('web_latency', report)}")
    return 0


def markdown(data: dict) -> str:
    """Return the report of a run: its results (as saved in the JSON file) as a table."""
    lines = [f"ik-web latency while dragging at {data['rate_hz']:g} Hz, {data['date']}: "
             f"circle {data.get('circle', 'inside')}, "
             f"{'with' if data['browser'] else 'without'} a browser on the page; "
             f"{data['machine']}", '',
             '| method | solved | superseded | within 1 frame | latency median / p95 / p99 / '
             'max [ms] | solve median [ms] | wait median [ms] | draw median [ms] | reached |',
             '|---|---|---|---|---|---|---|---|---|']
    for r in data['runs']:
        L = r['latency_ms']
        lines.append(f"| {r['method']} | {r['solved']} | {r['superseded']} | "
                     f"{100 * r['within_one_frame']:.1f}% | {L['median']:.2f} / "
                     f"{L['p95']:.2f} / {L['p99']:.2f} / {L['max']:.2f} | "
                     f"{r['solve_ms']['median']:.2f} | {r['wait_ms']['median']:.2f} | "
                     f"{r['draw_ms_median']:.2f} | {100 * r['reached_fraction']:.1f}% |")
    return '\n'.join(lines) + '\n'


if __name__ == '__main__':
    raise SystemExit(main())
