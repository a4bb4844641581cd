# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
End-to-end latency of the IK node: published target -> received JointState command.

The node (``python -m ik_node.ros.start``) and the simulated arm run as separate processes;
this process streams PoseStamped targets along a small circle at each rate (default 100 Hz and
1000 Hz) and matches every JointState command to its target through the node's status, which
names the target's stamp and the stamp of the command that answered it. For reference, the
bare DDS round trip is measured in the same run with a relay process that republishes each
PoseStamped unchanged.

Reported per rate: median, p99 and max latency [ms], the fraction of targets answered, the
backlog check (median latency of the last fifth of the stream against the first fifth, and
the delay of the answer to the last target), and the CPU use of the node process [% of one
core] from /proc.

    .venv-test/bin/python bench/bench_latency.py                 # 100 Hz and 1000 Hz, 10 s each
    .venv-test/bin/python bench/bench_latency.py --rates 1000 --duration 5

Results go to a new file ``<out-dir>/latency_<date>_<machine>.json`` (bench/common.py), node
logs to ``<out-dir>/scratch/``; ``--publish`` also rewrites the page bench/results/latency.md.
"""

import argparse
import json
import math
import os
from pathlib import Path
import platform
import subprocess
import sys
import time

from common import (add_common_arguments, check_kernels, new_result_path, note_load, publish,
                    ros_domain, scratch_dir)
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / 'config' / 'urdf' / 'demo_arm.urdf'
Q0 = [0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0]


def relay_main() -> int:
    """Republish every PoseStamped from bench_ping on bench_pong unchanged."""
    import rclpy
    from geometry_msgs.msg import PoseStamped
    from ik_node.ros.runtime import spin_until_shutdown
    rclpy.init()
    node = rclpy.create_node('bench_relay')
    pub = node.create_publisher(PoseStamped, 'bench_pong', 10)
    node.create_subscription(PoseStamped, 'bench_ping', pub.publish, 10)
    spin_until_shutdown(node)
    return 0


def cpu_seconds(pid: int) -> float:
    """Return user + system CPU time [s] of process ``pid``."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def start(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(args, env=env, stdout=open(log, 'w'), stderr=subprocess.STDOUT)


def stream(probe, pub, make_msg, rate: float, duration: float, received: dict,
           cpu_pid: int | None = None) -> dict:
    """Publish at ``rate`` for ``duration`` s; return latency statistics."""
    executor = probe['executor']
    node = probe['node']
    sent = {}
    received.clear()
    n = int(rate * duration)
    period = 1.0 / rate
    cpu0 = cpu_seconds(cpu_pid) if cpu_pid else 0.0
    t_start = time.perf_counter()
    next_t = t_start
    k = 0
    while k < n:
        now = time.perf_counter()
        if now >= next_t:
            msg = make_msg(k, node.get_clock().now().to_msg())
            key = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
            sent[key] = time.perf_counter()
            pub.publish(msg)
            k += 1
            next_t += period
        else:
            executor.spin_once(timeout_sec=min(next_t - now, 0.001))
    t_end = time.perf_counter()
    drain_end = t_end + 0.5
    while time.perf_counter() < drain_end:
        executor.spin_once(timeout_sec=0.01)
    wall = t_end - t_start
    cpu = (cpu_seconds(cpu_pid) - cpu0) / (wall + 0.5) if cpu_pid else math.nan
    keys = list(sent)
    lat = np.array([1e3 * (received[key] - sent[key]) for key in keys if key in received])
    first = [1e3 * (received[key] - sent[key]) for key in keys[:n // 5] if key in received]
    last = [1e3 * (received[key] - sent[key]) for key in keys[-n // 5:] if key in received]
    last_key = keys[-1]
    return {
        'rate_hz': rate,
        'targets': n,
        'achieved_rate_hz': n / wall,
        'answered': len(lat) / n,
        'median_ms': float(np.median(lat)) if len(lat) else math.nan,
        'p99_ms': float(np.percentile(lat, 99)) if len(lat) else math.nan,
        'max_ms': float(lat.max()) if len(lat) else math.nan,
        'median_first_fifth_ms': float(np.median(first)) if first else math.nan,
        'median_last_fifth_ms': float(np.median(last)) if last else math.nan,
        'last_target_ms': (1e3 * (received[last_key] - sent[last_key])
                           if last_key in received else math.nan),
        'cpu_percent_of_one_core': 100.0 * cpu,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--rates', type=float, nargs='+', default=[100.0, 1000.0])
    parser.add_argument('--duration', type=float, default=10.0, help='seconds per rate')
    parser.add_argument('--solver', default='dls')
    parser.add_argument('--domain-id', type=int, default=None,
                        help='ROS domain (default: $ROS_DOMAIN_ID, else random)')
    add_common_arguments(parser)
    parser.add_argument('--relay', action='store_true', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    note_load()
    if args.relay:
        return relay_main()

    check_kernels(args)
    logs = scratch_dir('latency', args.out_dir)
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ['ROS_DOMAIN_ID'] = str(args.domain_id if args.domain_id is not None
                                      else ros_domain())
    os.environ.setdefault('ROS_HOME', str(logs / 'ros_home'))
    os.environ.pop('ROS_LOCALHOST_ONLY', None)
    env = dict(os.environ, PYTHONUNBUFFERED='1')

    from ik_node import Chain
    from ik_node.ros.processes import stop_processes
    from ik_node.spatial.pose import quat_xyzw_from_matrix
    from ik_node.solve_ik import solve
    chain = Chain.from_urdf(URDF, 'base_link', 'tool0')
    q0 = np.array(Q0)
    solve(chain, chain.fk(q0 + 0.05), q0=q0, method=args.solver)   # fill the JIT cache
    T0 = chain.fk(q0)
    quat = [float(v) for v in quat_xyzw_from_matrix(T0)]

    from diagnostic_msgs.msg import DiagnosticArray
    from geometry_msgs.msg import PoseStamped
    from ik_node.ros.answers import AnswerMatcher
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.qos import QoSProfile
    from sensor_msgs.msg import JointState

    relay = start([sys.executable, __file__, '--relay'], env, logs / 'relay.log')
    sim = start([sys.executable, '-m', 'ik_node.ros.sim_arm', '--ros-args', '-p',
                 f'urdf_file:={URDF}', '-p', f'initial_positions:={Q0}'], env,
                logs / 'sim_arm.log')
    ik = start([sys.executable, '-m', 'ik_node.ros.start', '--ros-args', '-p',
                f'urdf_file:={URDF}', '-p', f'solver:={args.solver}', '-p',
                'interactive_marker:=false'], env,
               logs / 'ik_node.log')
    procs = [relay, sim, ik]
    rclpy.init()
    node = rclpy.create_node('bench_latency')
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    probe = {'node': node, 'executor': executor}
    received: dict[int, float] = {}

    matcher = AnswerMatcher()
    matcher.answered = received     # target stamp -> receive time of its command

    def on_pong(msg):
        key = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        received.setdefault(key, time.perf_counter())

    def on_status(msg):
        for s in msg.status:
            matcher.status({kv.key: kv.value for kv in s.values})

    qos = QoSProfile(depth=1000)
    node.create_subscription(JointState, 'joint_commands',
                             lambda m: matcher.command(m.header.stamp, time.perf_counter()), qos)
    node.create_subscription(DiagnosticArray, 'ik_status', on_status, qos)
    node.create_subscription(PoseStamped, 'bench_pong', on_pong, qos)
    targets = node.create_publisher(PoseStamped, 'target_pose', qos)
    pings = node.create_publisher(PoseStamped, 'bench_ping', qos)

    def make_target(k, stamp, rate=100.0):
        a = 2.0 * math.pi * 0.5 * k / rate          # 0.5 Hz round a 5 cm circle
        msg = PoseStamped()
        msg.header.stamp = stamp
        msg.header.frame_id = 'base_link'
        p = msg.pose.position
        p.x = float(T0[0, 3] + 0.05 * math.cos(a) - 0.05)
        p.y = float(T0[1, 3] + 0.05 * math.sin(a))
        p.z = float(T0[2, 3])
        o = msg.pose.orientation
        o.x, o.y, o.z, o.w = quat
        return msg

    results = []
    try:
        end = time.monotonic() + 60.0
        while time.monotonic() < end and not (
                node.count_subscribers('target_pose') and node.count_subscribers('bench_ping')
                and node.count_publishers('joint_commands')
                and node.count_publishers('bench_pong')):
            executor.spin_once(timeout_sec=0.05)
        # Warm up: the node answers once it knows the arm position from sim_arm.
        end = time.monotonic() + 60.0
        received.clear()
        while time.monotonic() < end and not received:
            msg = make_target(0, node.get_clock().now().to_msg())
            targets.publish(msg)
            t = time.monotonic() + 0.2
            while time.monotonic() < t:
                executor.spin_once(timeout_sec=0.01)
        if not received:
            print('the IK node did not answer; logs in', logs)
            return 1
        stream(probe, targets, lambda k, s: make_target(k, s, 200.0), 200.0, 1.0, received)
        stream(probe, pings, lambda k, s: make_target(k, s, 200.0), 200.0, 1.0, received)
        for i, rate in enumerate(args.rates):
            left = 2 * (len(args.rates) - i) * (args.duration + 0.5)
            print(f'{rate:g} Hz: the DDS round trip, then the IK node, {args.duration:g} s each '
                  f'[rate {i + 1} of {len(args.rates)}, about {left:.0f} s left]', flush=True)
            dds = stream(probe, pings, lambda k, s: make_target(k, s, rate), rate,
                         args.duration, received)
            ik_stats = stream(probe, targets, lambda k, s: make_target(k, s, rate), rate,
                              args.duration, received, cpu_pid=ik.pid)
            results.append({'rate_hz': rate, 'ik_node': ik_stats, 'dds_round_trip': dds})
    finally:
        stop_processes(procs)
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()

    data = {'solver': args.solver, 'duration_s': args.duration,
            'machine': platform.machine(), 'cores': os.cpu_count(),
            'python': platform.python_version(), 'results': results}
    report = markdown(data)
    print('\n' + report)
    out = new_result_path('latency', 'json', args.out_dir)
    out.write_text(json.dumps(data, indent=2) + '\n')
    print(f'results written to {out}')
    if args.publish:
        print(f'published: {publish("latency", report)}')
    return 0


def markdown(data: dict) -> str:
    """Return the report of a run: its results (as saved in the JSON file) as a table."""
    lines = [f"ik_node end-to-end latency, solver {data['solver']}, {data['duration_s']:g} s "
             f"per rate, {data['machine']}, {data['cores']} cores", '',
             '| rate | what | median ms | p99 ms | max ms | answered '
             '| first/last fifth median ms | last target ms | node CPU |',
             '|---|---|---|---|---|---|---|---|---|']
    for r in data['results']:
        for what, s in (('target -> JointState', r['ik_node']),
                        ('DDS round trip (relay)', r['dds_round_trip'])):
            cpu = s['cpu_percent_of_one_core']
            lines.append(
                f"| {r['rate_hz']:g} Hz | {what} | {s['median_ms']:.3f} | {s['p99_ms']:.3f} | "
                f"{s['max_ms']:.2f} | {100 * s['answered']:.1f} % | "
                f"{s['median_first_fifth_ms']:.3f} / {s['median_last_fifth_ms']:.3f} | "
                f"{s['last_target_ms']:.3f} | "
                f"{'' if math.isnan(cpu) else f'{cpu:.0f} %'} |")
    return '\n'.join(lines) + '\n'


if __name__ == '__main__':
    sys.exit(main())
