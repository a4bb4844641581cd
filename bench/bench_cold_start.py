# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Cold start: seconds from starting the ik_node process to its first answered target.

Each start runs the node next to the simulated arm from a copy of the package with no numba
cache (a fresh install), with a probe that publishes a reachable target every 50 ms from
the moment the process starts:

- ``fresh``: what a new user gets: plain-Python kernels while ik-compile runs in the
  background (the default of the ``ik_node`` executable);
- ``compile at first use``: the same fresh copy marked compiled without being compiled, so
  the node compiles its kernels before it answers (what every start did before);
- ``compiled``: the next start, once the background compile of ``fresh`` has finished.

It also reports the node's own solve times (``solve_time_ms`` of its answers) for the next
20 targets of each start. Writes bench/out/cold_start_<date>_<machine>.md (never
overwriting; ``--publish`` also rewrites bench/results/cold_start.md). Usage (the test venv has
rclpy and numba)::

    .venv-test/bin/python bench/bench_cold_start.py
"""

import argparse
import os
from pathlib import Path
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from common import new_result_path, note_load, OUT, publish, ros_domain, scratch_dir
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / 'test' / 'urdf' / 'ur5.urdf'
Q0 = [0.0, -1.2, 1.3, -1.6, -1.57, 0.0]
MARK = Path('ik_node') / '__pycache__' / 'ik_node_jit_compiled.sha256'


def fresh_copy(base: Path, name: str) -> Path:
    """Return a folder holding a copy of the package (and its config data) without any cache."""
    folder = base / name
    shutil.copytree(ROOT / 'ik_node', folder / 'ik_node',
                    ignore=shutil.ignore_patterns('__pycache__', '*.nbi', '*.nbc'))
    # An install ships config/ (ik-compile compiles on the demo arm's URDF from it).
    shutil.copytree(ROOT / 'config', folder / 'config')
    return folder


def mark_compiled(folder: Path) -> None:
    """Mark the copy's cache compiled (it is not): the node then compiles at first use."""
    subprocess.run([sys.executable, '-c', 'from ik_node import _jit; _jit.mark_compiled()'],
                   cwd=folder, check=True)


class Probe:
    """Publishes targets and reads the node's answers."""

    def __init__(self):
        import rclpy
        from rclpy.qos import QoSProfile
        from diagnostic_msgs.msg import DiagnosticArray
        from geometry_msgs.msg import PoseStamped
        rclpy.init()
        self.rclpy = rclpy
        self.node = rclpy.create_node('bench_cold_start')
        self.pub = self.node.create_publisher(PoseStamped, 'target_pose', 10)
        self.answers: dict[str, tuple[int, float]] = {}   # target stamp -> (level, solve ms)
        self.node.create_subscription(DiagnosticArray, 'ik_status', self._on_status,
                                      QoSProfile(depth=1000))
        self.PoseStamped = PoseStamped

    def _on_status(self, msg) -> None:
        for s in msg.status:
            values = {kv.key: kv.value for kv in s.values}
            if 'target_stamp' in values and 'solve_time_ms' in values:
                level = s.level[0] if isinstance(s.level, bytes) else int(s.level)
                self.answers[values['target_stamp']] = (level, float(values['solve_time_ms']))

    def publish(self, T: np.ndarray) -> str:
        from ik_node.spatial.pose import quat_xyzw_from_matrix
        from ik_node.ros.conversions import stamp_text
        msg = self.PoseStamped()
        msg.header.frame_id = 'base_link'
        msg.header.stamp = self.node.get_clock().now().to_msg()
        x, y, z = (float(v) for v in T[:3, 3])
        msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = x, y, z
        q = quat_xyzw_from_matrix(T)
        (msg.pose.orientation.x, msg.pose.orientation.y, msg.pose.orientation.z,
         msg.pose.orientation.w) = (float(v) for v in q)
        self.pub.publish(msg)
        return stamp_text(msg.header.stamp)

    def spin(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.rclpy.spin_once(self.node, timeout_sec=0.005)

    def close(self) -> None:
        self.node.destroy_node()
        self.rclpy.shutdown()


def one_start(label: str, folder: Path, probe: Probe, chain, env: dict, logs: Path,
              timeout: float) -> dict:
    """Start the node from ``folder``; return the seconds to its first OK answer and more."""
    from ik_node.ros.processes import start_node, stop_processes
    rng = np.random.default_rng(7)
    targets = [chain.fk(np.array(Q0) + rng.uniform(-0.3, 0.3, 6)) for _ in range(21)]
    t0 = time.monotonic()
    node = start_node('ik_node', [f'urdf_file:={URDF}', 'interactive_marker:=false'], env,
                      logs / f'{label}.log', cwd=folder)
    first = None
    told = t0
    try:
        sent = set()
        while first is None and time.monotonic() - t0 < timeout:
            sent.add(probe.publish(targets[0]))
            probe.spin(0.05)
            ok = [s for s in sent if s in probe.answers and probe.answers[s][0] == 0]
            if ok:
                first = time.monotonic() - t0
            elif time.monotonic() - told >= 10.0:
                told = time.monotonic()
                print(f'  {label}: no answer yet after {told - t0:.0f} s (the node compiles; '
                      f'gives up at {timeout:.0f} s)', flush=True)
        solve_ms = []
        for T in targets[1:]:
            stamp = probe.publish(T)
            end = time.monotonic() + 10.0
            while stamp not in probe.answers and time.monotonic() < end:
                probe.spin(0.005)
            if stamp in probe.answers:
                solve_ms.append(probe.answers[stamp][1])
    finally:
        stop_processes([node])
    print(f'  {label}: first answer after '
          + ('none' if first is None else f'{first:.1f} s'), flush=True)
    return {'label': label, 'first_answer_s': first, 'solve_ms': solve_ms}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--timeout', type=float, default=180.0,
                        help='longest wait for the first answer of one start [s]')
    parser.add_argument('--out-dir', default=str(OUT),
                        help='folder for the raw result file (default: bench/out)')
    parser.add_argument('--publish', action='store_true',
                        help='also rewrite the curated page bench/results/cold_start.md')
    args = parser.parse_args(argv)
    note_load()
    from ik_node.ros.processes import ros_environment, start_node, stop_processes
    from ik_node import Chain
    chain = Chain.from_urdf(URDF, 'base_link', 'tool0')
    # The package copies in a temporary folder removed at the end; node logs in bench/out.
    base = Path(tempfile.mkdtemp(prefix='ik_node_cold_'))
    logs = scratch_dir('cold_start', args.out_dir)
    env = ros_environment(ros_domain(), ros_home=logs)
    os.environ.update({k: env[k] for k in ('ROS_DOMAIN_ID', 'ROS_AUTOMATIC_DISCOVERY_RANGE',
                                           'ROS_HOME')})
    os.environ.pop('ROS_LOCALHOST_ONLY', None)
    arm = start_node('sim_arm', [f'urdf_file:={URDF}', f'initial_positions:={Q0}'], env,
                     logs / 'sim_arm.log')
    probe = Probe()
    rows = []
    try:
        print('start 1 of 3: a fresh install (the node compiles what it needs at its first '
              'target and starts ik-compile in the background: 1-3 minutes on 2 cores)',
              flush=True)
        fresh = fresh_copy(base, 'fresh')
        rows.append(one_start('fresh', fresh, probe, chain, env, logs, args.timeout))
        print('start 2 of 3: compile at first use (the cache marked compiled but empty)',
              flush=True)
        first_use = fresh_copy(base, 'first_use')
        mark_compiled(first_use)
        rows.append(one_start('compile at first use', first_use, probe, chain, env, logs,
                              args.timeout))
        t_wait = time.monotonic()
        print("waiting for the fresh start's background ik-compile to finish (up to 10 min)",
              flush=True)
        while not (fresh / MARK).is_file() and time.monotonic() - t_wait < 600.0:
            time.sleep(1.0)
        print('start 3 of 3: compiled', flush=True)
        if not (fresh / MARK).is_file():
            log = fresh / 'ik_node' / '__pycache__' / 'ik_node_compile.log'
            raise SystemExit(f'the background ik-compile of the fresh start did not finish: '
                             f'see {log}')
        rows.append(one_start('compiled', fresh, probe, chain, env, logs, args.timeout))
    finally:
        probe.close()
        stop_processes([arm])
        shutil.rmtree(base, ignore_errors=True)
    lines = ['# Cold start of the ik_node node', '',
             'Command: `.venv-test/bin/python bench/bench_cold_start.py` '
             f'({time.strftime("%Y-%m-%d %H:%M")} UTC, {os.cpu_count()} cores)', '',
             '| start | first answer [s] | solve median [ms] | solve p95 [ms] |',
             '|---|---|---|---|']
    for r in rows:
        ms = r['solve_ms']
        first = 'none' if r['first_answer_s'] is None else f'{r["first_answer_s"]:.2f}'
        med = f'{statistics.median(ms):.2f}' if ms else '-'
        p95 = f'{np.percentile(ms, 95):.2f}' if ms else '-'
        lines.append(f'| {r["label"]} | {first} | {med} | {p95} |')
    text = '\n'.join(lines) + '\n'
    print(text)
    out = new_result_path('cold_start', 'md', args.out_dir)
    out.write_text(text)
    print(f'written to {out}; node logs in {logs}')
    if args.publish:
        print(f"published: {publish('cold_start', text)}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
