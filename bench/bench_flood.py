# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Load and endurance of the IK node: a 10 kHz target flood and a 10-minute soak.

Five processes: the IK node (``python -m ik_node.ros.start``, model from the robot_description
topic) and the simulated arm, a sender that publishes the traffic, a watcher that checks
every command the node publishes with :class:`ik_node.motion.watcher.CommandWatcher` (finite,
inside the limits, each step within v_max * dt, and the speed over any window of up to 1 s
by receive time), and this process, which samples the resident memory and CPU time of the
others once a second from /proc.

``flood``: good PoseStamped targets along a 5 cm circle at ``--rate`` (default 10 kHz) for
``--duration`` s (default 60). Reported: targets sent and the rate achieved, commands, the
share of targets answered (the node keeps a 1-deep queue and serves the latest target, so
most of a flood is skipped by design), latency of the answered ones, the delay of the answer
to the very last target, the node's memory over time and its CPU use, watcher violations.

``soak``: ``--duration`` s (default 600) of mixed traffic: good targets at ``--rate``
(default 500 Hz) on a circle with a jump to a far pose every 5 s (so the velocity filter
works), 10 % bad targets spread over target_pose, /goal_pose and /clicked_point (NaN,
zero quaternion, unknown frame, 1e300 m), malformed joint_states at 20 Hz next to the arm's
own, and every 30 s a robot_description: garbage, or the same arm under a new name (a model
change mid-stream). Reported as for the flood, plus messages by kind, statuses by level and
the number of warning lines the node logged.

    .venv-test/bin/python bench/bench_flood.py flood     # 10 kHz, 60 s
    .venv-test/bin/python bench/bench_flood.py soak      # 500 Hz mixed, 10 min
    .venv-test/bin/python bench/bench_flood.py flood --rate 1000 --duration 10

Results go to new files ``<out-dir>/flood_<rate in kHz>khz_<date>_<machine>.json`` (or
``flood_soak_...``) and ``.md`` (bench/common.py); node logs to ``<out-dir>/scratch/``. The ROS
domain is ``--domain-id`` (default: $ROS_DOMAIN_ID, else random); discovery stays on
loopback.
"""

import argparse
from collections import Counter
import json
import math
import os
from pathlib import Path
import platform
import signal
import subprocess
import sys
import time

from common import (add_common_arguments, check_kernels, new_result_path, note_load, progress,
                    publish, ros_domain, scratch_dir)
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / 'config' / 'urdf' / 'demo_arm.urdf'
Q0 = [0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0]
OUTPUT_RATE = 100.0          # [Hz] the node's default output_rate: one step per 0.01 s
STAMP_SEC0 = 1000            # target k carries the stamp (STAMP_SEC0 + k // 1e6, k % 1e6 us)


def encode_stamp(k: int) -> tuple[int, int]:
    """Return the (sec, nanosec) stamp that marks target number ``k``."""
    return STAMP_SEC0 + k // 1_000_000, (k % 1_000_000) * 1000


def decode_stamp(sec: int, nanosec: int) -> int:
    """Return the target number of a stamp, or -1 for a stamp of the node's clock."""
    if not STAMP_SEC0 <= sec < STAMP_SEC0 + 10_000:
        return -1
    return (sec - STAMP_SEC0) * 1_000_000 + nanosec // 1000


# Watcher process -----------------------------------------------------------------------------

def watch_main(args) -> int:
    """Check every command until SIGINT; then write the summary and the answered targets."""
    import rclpy
    from diagnostic_msgs.msg import DiagnosticArray
    from ik_node import Chain
    from ik_node.ros.answers import AnswerMatcher
    from ik_node.ros.runtime import spin_until_shutdown
    from ik_node.motion.watcher import CommandWatcher
    from rclpy.qos import QoSProfile
    from sensor_msgs.msg import JointState

    chain = Chain.from_urdf(URDF, 'base_link', 'tool0')
    v = np.where(np.isfinite(chain.velocity), chain.velocity, 1.0)
    watcher = CommandWatcher.for_chain(chain, v, 1.0 / OUTPUT_RATE, speed_slack=0.002)
    matcher = AnswerMatcher()
    levels: Counter = Counter()
    rclpy.init()
    node = rclpy.create_node('bench_watcher')

    def on_command(msg: JointState) -> None:
        # One reliable publisher: arrival order is publish order; the speed check uses the
        # stamps, the time each command was computed for.
        stamp = msg.header.stamp
        watcher.check(msg.name, msg.position, stamp.sec + 1e-9 * stamp.nanosec)
        matcher.command(stamp, time.monotonic())

    def on_status(msg: DiagnosticArray) -> None:
        for s in msg.status:
            if s.name.endswith(': state'):      # the node's periodic state, not an answer
                continue
            matcher.status({kv.key: kv.value for kv in s.values})
            levels[int.from_bytes(s.level, 'little') if isinstance(s.level, bytes)
                   else int(s.level)] += 1

    node.create_subscription(JointState, 'joint_commands', on_command, QoSProfile(depth=100_000))
    node.create_subscription(DiagnosticArray, 'ik_status', on_status, QoSProfile(depth=10_000))
    spin_until_shutdown(node)
    answered = {}
    for ns, t in matcher.answered.items():
        k = decode_stamp(ns // 1_000_000_000, ns % 1_000_000_000)
        if k >= 0:
            answered[k] = t
    keys = np.array(sorted(answered), dtype=np.int64)
    np.save(Path(args.out) / 'answered_k.npy', keys)
    np.save(Path(args.out) / 'answered_t.npy', np.array([answered[k] for k in keys]))
    summary = watcher.summary()
    summary['statuses'] = {{0: 'ok', 1: 'warn', 2: 'error'}.get(k, str(k)): n
                           for k, n in sorted(levels.items())}
    (Path(args.out) / 'watcher.json').write_text(json.dumps(summary, indent=2))
    return 0


# Sender process ------------------------------------------------------------------------------

def send_main(args) -> int:
    """Publish the traffic of ``args.mode``; write send times and message counts at the end."""
    import rclpy
    from geometry_msgs.msg import PointStamped, PoseStamped
    from ik_node import Chain
    from ik_node.spatial.pose import quat_xyzw_from_matrix
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String

    soak = args.mode == 'soak'
    chain = Chain.from_urdf(URDF, 'base_link', 'tool0')
    q0 = np.array(Q0)
    T0 = chain.fk(q0)
    quat0 = [float(v) for v in quat_xyzw_from_matrix(T0)]
    rng = np.random.default_rng(2026)
    jumps = []
    for _ in range(64):
        T = chain.fk(q0 + rng.uniform(-0.8, 0.8, chain.n))
        jumps.append(([float(v) for v in T[:3, 3]],
                      [float(v) for v in quat_xyzw_from_matrix(T)]))
    rclpy.init()
    node = rclpy.create_node('bench_sender')
    targets = node.create_publisher(PoseStamped, 'target_pose', 10)
    goal_pose = node.create_publisher(PoseStamped, '/goal_pose', 10)
    clicked = node.create_publisher(PointStamped, '/clicked_point', 10)
    joint_states = node.create_publisher(JointState, 'joint_states', 10)
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         reliability=ReliabilityPolicy.RELIABLE)
    description = node.create_publisher(String, 'robot_description', latched)
    urdf_text = URDF.read_text()
    end = time.monotonic() + 30.0
    while time.monotonic() < end and not node.count_subscribers('target_pose'):
        time.sleep(0.05)
    time.sleep(0.5)                 # the node's other subscriptions match meanwhile

    n = int(args.rate * args.duration)
    send_t = np.full(n, math.nan)
    counts: Counter = Counter()
    pose = PoseStamped()
    pose.header.frame_id = 'base_link'
    bad_positions = [(math.nan, 0.0, 0.3), (1e300, 0.0, 0.0), (0.3, -math.inf, 0.2)]
    bad_quats = [(0.0, 0.0, 0.0, 0.0), (math.nan, 0.0, 0.0, 1.0)]
    bad_states = [
        (['unknown_a', 'unknown_b'], [0.0, 0.1]),
        ([f'joint_{i}' for i in range(3)], [math.nan] * 3),
        (list(chain.joint_names), Q0[:4]),
        (list(chain.joint_names) + [chain.joint_names[0]], Q0 + [0.3]),
        (list(chain.joint_names), [math.nan] + Q0[1:]),
    ]
    next_states, next_description, version = 0.0, 30.0, 0
    t0 = time.monotonic()
    k = 0
    while k < n:
        now = time.monotonic() - t0
        due = min(n, int(now * args.rate) + 1)
        if k >= due:
            time.sleep(min(0.0005, (k + 1) / args.rate - now))
            continue
        while k < due:
            sec, nsec = encode_stamp(k)
            t = k / args.rate
            if soak and k % 10 == 9:
                send_t[k] = time.monotonic()
                _send_bad(k, sec, nsec, targets, goal_pose, clicked, bad_positions, bad_quats,
                          quat0, counts)
            else:
                jump = soak and (t % 5.0) >= 3.0
                if jump:
                    (x, y, z), quat = jumps[int(t // 5.0) % len(jumps)]
                else:
                    a = 2.0 * math.pi * 0.5 * t
                    x = float(T0[0, 3] + 0.05 * math.cos(a) - 0.05)
                    y = float(T0[1, 3] + 0.05 * math.sin(a))
                    z = float(T0[2, 3])
                    quat = quat0
                pose.header.stamp.sec, pose.header.stamp.nanosec = sec, nsec
                p, o = pose.pose.position, pose.pose.orientation
                p.x, p.y, p.z = x, y, z
                o.x, o.y, o.z, o.w = quat
                send_t[k] = time.monotonic()
                targets.publish(pose)
                counts['good targets'] += 1
            k += 1
        if soak and now >= next_states:
            names, positions = bad_states[int(now * 20) % len(bad_states)]
            joint_states.publish(JointState(name=names, position=positions))
            counts['bad joint_states'] += 1
            next_states = now + 0.05
        if soak and now >= next_description:
            version += 1
            if version % 2:
                text = urdf_text.replace('<robot name="demo_arm"',
                                         f'<robot name="soak_v{version}"')
                counts['robot_description (valid, renamed)'] += 1
            else:
                text = '<robot name="broken"><link name="a"/><joint name="j"/></robot>'
                counts['robot_description (malformed)'] += 1
            description.publish(String(data=text))
            next_description = now + 30.0
    elapsed = time.monotonic() - t0
    np.save(Path(args.out) / 'send_t.npy', send_t)
    (Path(args.out) / 'sender.json').write_text(json.dumps(
        {'sent_seconds': elapsed, 'counts': dict(counts)}, indent=2))
    time.sleep(0.5)
    node.destroy_node()
    rclpy.try_shutdown()
    return 0


def _send_bad(k, sec, nsec, targets, goal_pose, clicked, bad_positions, bad_quats, quat0,
              counts) -> None:
    from geometry_msgs.msg import PointStamped, PoseStamped
    kind = (k // 10) % 4
    msg = PoseStamped()
    msg.header.stamp.sec, msg.header.stamp.nanosec = sec, nsec
    msg.header.frame_id = 'base_link'
    p, o = msg.pose.position, msg.pose.orientation
    p.x, p.y, p.z = 0.3, 0.1, 0.4
    o.x, o.y, o.z, o.w = quat0
    if kind == 0:
        p.x, p.y, p.z = bad_positions[(k // 40) % len(bad_positions)]
        targets.publish(msg)
        counts['bad targets: position'] += 1
    elif kind == 1:
        o.x, o.y, o.z, o.w = bad_quats[(k // 40) % len(bad_quats)]
        goal_pose.publish(msg)
        counts['bad targets: quaternion (/goal_pose)'] += 1
    elif kind == 2:
        msg.header.frame_id = 'map'
        targets.publish(msg)
        counts['bad targets: unknown frame'] += 1
    else:
        point = PointStamped()
        point.header.frame_id = 'base_link'
        point.point.x, point.point.y, point.point.z = math.nan, 0.0, math.inf
        clicked.publish(point)
        counts['bad targets: non-finite /clicked_point'] += 1


# Orchestration -------------------------------------------------------------------------------

def proc_sample(pid: int) -> tuple[float, float]:
    """Return (RSS [MB], user + system CPU time [s]) of process ``pid``."""
    rss = 0.0
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            rss = int(line.split()[1]) / 1024.0
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return rss, (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def start(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(args, env=env, stdout=open(log, 'w'), stderr=subprocess.STDOUT)


def stop(procs: list) -> list:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    codes = []
    for p in procs:
        try:
            codes.append(p.wait(timeout=20.0))
        except subprocess.TimeoutExpired:
            p.kill()
            codes.append(p.wait())
    return codes


def warm_up() -> tuple:
    """Publish the model; send a target until the node answers; True once it did."""
    import rclpy
    from geometry_msgs.msg import PoseStamped
    from ik_node import Chain
    from ik_node.spatial.pose import quat_xyzw_from_matrix
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String

    chain = Chain.from_urdf(URDF, 'base_link', 'tool0')
    rclpy.init()
    node = rclpy.create_node('bench_flood')
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         reliability=ReliabilityPolicy.RELIABLE)
    description = node.create_publisher(String, 'robot_description', latched)
    description.publish(String(data=URDF.read_text()))
    targets = node.create_publisher(PoseStamped, 'target_pose', 10)
    got = []
    node.create_subscription(JointState, 'joint_commands', got.append, 10)
    T = chain.fk(np.array(Q0))
    msg = PoseStamped()
    msg.header.frame_id = 'base_link'
    msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = (float(v) for v in T[:3, 3])
    o = msg.pose.orientation
    o.x, o.y, o.z, o.w = (float(v) for v in quat_xyzw_from_matrix(T))
    end = time.monotonic() + 90.0
    while time.monotonic() < end and not (got and node.count_subscribers('joint_commands') >= 2):
        targets.publish(msg)
        t = time.monotonic() + 0.2
        while time.monotonic() < t:
            executor.spin_once(timeout_sec=0.02)
    ok = bool(got)
    # Keep the latched description alive for late joiners until the run ends.
    return ok, (node, executor)


def run(args) -> dict:
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ['ROS_DOMAIN_ID'] = str(args.domain_id)
    work = scratch_dir(args.mode, args.out_dir)
    os.environ.setdefault('ROS_HOME', str(work / 'ros_home'))
    os.environ.pop('ROS_LOCALHOST_ONLY', None)
    env = dict(os.environ, PYTHONUNBUFFERED='1')
    me = [sys.executable, str(Path(__file__).resolve())]
    sim = start([sys.executable, '-m', 'ik_node.ros.sim_arm', '--ros-args', '-p',
                 f'urdf_file:={URDF}', '-p', f'initial_positions:={Q0}'], env,
                work / 'sim_arm.log')
    ik = start([sys.executable, '-m', 'ik_node.ros.start', '--ros-args', '-p',
                f'solver:={args.solver}', '-p', 'interactive_marker:=false'], env,
               work / 'ik_node.log')
    watcher = start(me + [args.mode, '--role', 'watch', '--out', str(work)], env,
                    work / 'watcher.log')
    ok, keep = warm_up()
    if not ok:
        stop([watcher, ik, sim])
        raise RuntimeError(f'the IK node did not answer; logs in {work}')
    sender = start(me + [args.mode, '--role', 'send', '--out', str(work), '--rate',
                         str(args.rate), '--duration', str(args.duration)], env,
                   work / 'sender.log')
    watched = {'ik_node': ik, 'sim_arm': sim, 'watcher': watcher, 'sender': sender}
    samples = {name: [] for name in watched}
    t0 = time.monotonic()
    deadline = t0 + args.duration + 120.0
    bar = progress(None, f'{args.mode}: {args.rate:g} targets/s', total=int(args.duration),
                   unit='s')
    while sender.poll() is None and time.monotonic() < deadline:
        t = time.monotonic() - t0
        bar.update(min(int(t), bar.total) - bar.n)
        for name, p in watched.items():
            try:
                samples[name].append((t,) + proc_sample(p.pid))
            except (OSError, IndexError):
                pass
        time.sleep(1.0)
    bar.close()
    time.sleep(1.5)                 # the last commands reach the watcher
    node_alive = ik.poll() is None
    codes = dict(zip(('watcher', 'ik_node', 'sim_arm'), stop([watcher, ik, sim])))
    keep[1].shutdown()
    keep[0].destroy_node()
    import rclpy
    rclpy.try_shutdown()
    return summarise(args, work, samples, node_alive, codes, sender.returncode)


def _series(samples: list) -> dict:
    a = np.array(samples)
    if len(a) < 3:
        return {}
    t, rss, cpu = a[:, 0], a[:, 1], a[:, 2]
    cpu_pct = 100.0 * np.diff(cpu) / np.diff(t)
    half = len(t) // 2
    slope = float(np.polyfit(t[half:], rss[half:], 1)[0]) * 60.0 if len(t) - half > 2 else 0.0
    early = rss[(t >= 5.0) & (t <= 15.0)]
    return {
        'rss_mb_start': float(early.mean() if early.size else rss[0]),
        'rss_mb_end': float(rss[-5:].mean()),
        'rss_mb_max': float(rss.max()),
        'rss_slope_mb_per_min_second_half': slope,
        'cpu_percent_mean': float(100.0 * (cpu[-1] - cpu[0]) / (t[-1] - t[0])),
        'cpu_percent_max_1s': float(cpu_pct.max()),
        'rss_mb_every_10s': [round(float(v), 1) for v in rss[::10]],
    }


def summarise(args, work: Path, samples: dict, node_alive: bool, codes: dict,
              sender_code) -> dict:
    watcher = json.loads((work / 'watcher.json').read_text())
    sender = json.loads((work / 'sender.json').read_text())
    send_t = np.load(work / 'send_t.npy')
    keys = np.load(work / 'answered_k.npy')
    recv_t = np.load(work / 'answered_t.npy')
    sent_mask = np.isfinite(send_t)
    n_sent = int(sent_mask.sum())
    lat = 1e3 * (recv_t - send_t[keys])
    good = np.array([k for k in range(len(send_t))
                     if not (args.mode == 'soak' and k % 10 == 9)]) if args.mode == 'soak' \
        else np.arange(len(send_t))
    last_good = int(good[-1])
    last_answered = last_good in set(keys.tolist())
    log = (work / 'ik_node.log').read_text()
    warn_lines = [line for line in log.splitlines()
                  if line.startswith(('[WARN]', '[ERROR]', '[FATAL]'))]
    result = {
        'mode': args.mode, 'solver': args.solver, 'rate_hz': args.rate,
        'duration_s': args.duration, 'machine': platform.machine(), 'cores': os.cpu_count(),
        'python': platform.python_version(),
        'messages_sent': sender['counts'], 'messages_total': int(sum(sender['counts'].values())),
        'targets_sent': n_sent,
        'good_targets_sent': int(len(good)),
        'achieved_rate_hz': n_sent / sender['sent_seconds'],
        'good_targets_answered': int(len(keys)),
        'good_targets_answered_share': float(len(keys) / len(good)),
        'latency_ms_median': float(np.median(lat)) if lat.size else math.nan,
        'latency_ms_p99': float(np.percentile(lat, 99)) if lat.size else math.nan,
        'latency_ms_max': float(lat.max()) if lat.size else math.nan,
        'last_target_answered': bool(last_answered),
        'last_target_latency_ms': (float(1e3 * (recv_t[keys == last_good][0]
                                                - send_t[last_good]))
                                   if last_answered else math.nan),
        'commands': watcher['messages'],
        'violations': watcher['violations'],
        'violations_by_kind': watcher['by_kind'],
        'max_step_ratio': watcher['max_step_ratio'],
        'first_violations': watcher['first'],
        'statuses': watcher['statuses'],
        'node_warning_lines': len(warn_lines),
        'node_traceback': 'Traceback' in log,
        'node_alive_at_end': node_alive,
        'exit_codes': dict(codes, sender=sender_code),
        'processes': {name: _series(s) for name, s in samples.items()},
        'logs': str(work),
    }
    return result


def markdown(r: dict) -> str:
    node = r['processes'].get('ik_node', {})
    lines = [
        f"## ik_node {r['mode']}: {r['rate_hz']:g} Hz targets for {r['duration_s']:g} s "
        f"(solver {r['solver']}, {r['machine']}, {r['cores']} cores, Python {r['python']})",
        '',
        '| figure | value |',
        '|---|---|',
        f"| messages sent (all kinds) | {r['messages_total']} |",
        f"| targets sent (good and bad), rate achieved | {r['targets_sent']}, "
        f"{r['achieved_rate_hz']:.0f} Hz |",
        f"| good targets sent, answered | {r['good_targets_sent']}, "
        f"{r['good_targets_answered']} ({100 * r['good_targets_answered_share']:.1f} %) |",
        f"| latency of answered targets, median / p99 / max | {r['latency_ms_median']:.2f} / "
        f"{r['latency_ms_p99']:.2f} / {r['latency_ms_max']:.1f} ms |",
        f"| last target answered, after | {r['last_target_answered']}, "
        f"{r['last_target_latency_ms']:.2f} ms |",
        f"| commands published (checked by the watcher) | {r['commands']} |",
        f"| violations (NaN, limits, step > v_max dt, speed) | **{r['violations']}** "
        f"{r['violations_by_kind'] or ''} |",
        f"| largest step / (v_max dt) | {r['max_step_ratio']:.3f} |",
        f"| solve statuses by level | {r['statuses']} |",
        f"| node warning/error log lines | {r['node_warning_lines']} |",
        f"| node RSS at 5-15 s, at the end, max | {node.get('rss_mb_start', math.nan):.1f}, "
        f"{node.get('rss_mb_end', math.nan):.1f}, {node.get('rss_mb_max', math.nan):.1f} MB |",
        f"| node RSS trend, second half | {node.get('rss_slope_mb_per_min_second_half', 0):+.3f}"
        ' MB/min |',
        f"| node CPU, mean / max over 1 s | {node.get('cpu_percent_mean', math.nan):.0f} / "
        f"{node.get('cpu_percent_max_1s', math.nan):.0f} % of one core |",
        f"| node alive at the end, traceback in its log | {r['node_alive_at_end']}, "
        f"{r['node_traceback']} |",
    ]
    if r['mode'] == 'soak':
        lines += ['', '| messages sent by kind | count |', '|---|---|']
        lines += [f'| {k} | {v} |' for k, v in sorted(r['messages_sent'].items())]
    lines += ['', 'Other processes (RSS start -> end MB, mean CPU %): ' + ', '.join(
        f"{name} {s.get('rss_mb_start', math.nan):.0f} -> {s.get('rss_mb_end', math.nan):.0f}, "
        f"{s.get('cpu_percent_mean', math.nan):.0f} %"
        for name, s in r['processes'].items() if name != 'ik_node' and s)]
    return '\n'.join(lines) + '\n'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('mode', choices=('flood', 'soak'))
    parser.add_argument('--rate', type=float, default=None,
                        help='good targets per second (flood 10000, soak 500)')
    parser.add_argument('--duration', type=float, default=None,
                        help='seconds of traffic (flood 60, soak 600)')
    parser.add_argument('--solver', default='dls')
    parser.add_argument('--domain-id', type=int, default=None)
    add_common_arguments(parser)
    parser.add_argument('--role', choices=('run', 'watch', 'send'), default='run',
                        help=argparse.SUPPRESS)
    parser.add_argument('--out', default='', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    flood = args.mode == 'flood'
    args.rate = args.rate or (10_000.0 if flood else 500.0)
    args.duration = args.duration or (60.0 if flood else 600.0)
    if args.role == 'watch':
        return watch_main(args)
    if args.role == 'send':
        return send_main(args)
    check_kernels(args)
    note_load()
    if args.domain_id is None:
        args.domain_id = ros_domain()
    result = run(args)
    name = f'flood_{args.rate / 1000:g}khz' if flood else 'flood_soak'
    json_path = new_result_path(name, 'json', args.out_dir)
    json_path.write_text(json.dumps(result, indent=2) + '\n')
    text = markdown(result)
    json_path.with_suffix('.md').write_text(text)
    print(text)
    print(f'results written to {json_path} and .md')
    if args.publish:
        print(f'published: {publish(name, text)}')
    safe = (result['violations'] == 0 and result['node_alive_at_end']
            and not result['node_traceback'])
    return 0 if safe else 1


if __name__ == '__main__':
    sys.exit(main())
