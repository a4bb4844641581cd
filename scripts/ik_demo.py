# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Scripted demo without a ROS install: simulated arm + IK node as real ROS nodes.

``python scripts/ik_demo.py`` (what ``scripts/demo.sh`` runs) starts ``sim_arm`` and ``ik_node``
as separate processes (loopback discovery only), then a driver node in this process publishes
a scripted target path:

1. a horizontal circle (reachable, tool pointing down),
2. a straight line out beyond the arm's reach and back (partly unreachable),
3. a jump to a far but reachable pose (the node approaches it at the velocity limits).

It prints the tracking error of the simulated arm (FK of its joint_states against the target),
the latency from a published target to the JointState command answering it, and what the node
reported for unreachable targets; it saves a plot of target vs reached path to ``--output`` and
the node logs beside it.
Exit code 0 when the arm tracked the reachable path and every unreachable target was reported.
"""

import argparse
from dataclasses import dataclass, field
import math
import os
from pathlib import Path
import sys
import time

from ik_node.ros.answers import AnswerMatcher
from ik_node.ros.processes import ros_environment, start_node, stop_processes
import numpy as np

__all__ = ['main', 'scripted_path', 'find_share_file']

START = (0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0)   # demo arm start pose [rad]
RATE = 50.0                                              # target rate [Hz]


def find_share_file(relative: str) -> Path:
    """Return a file shipped in share/ik_node (installed) or in the source tree."""
    candidates = []
    try:
        from ament_index_python.packages import get_package_share_directory
        candidates.append(Path(get_package_share_directory('ik_node')) / relative)
    except Exception:  # not installed through ament, or no ament_index_python
        pass
    candidates.append(Path(sys.prefix) / 'share' / 'ik_node' / relative)
    candidates.append(Path(__file__).resolve().parents[1] / relative)   # the source tree
    for path in candidates:
        if path.is_file():
            return path
    raise FileNotFoundError(f'{relative} not found in {[str(c) for c in candidates]}')


@dataclass
class Segment:
    """Targets of one phase: times [s] from the phase start, positions (k, 3) [m]."""

    name: str
    positions: np.ndarray
    expect_reachable: bool


def scripted_path(T_start: np.ndarray, scale: float = 1.0) -> list[Segment]:
    """Return the demo phases for a UR5-sized arm whose tool starts at pose ``T_start``."""
    p0 = T_start[:3, 3]
    n = max(int(RATE * 6.0 * scale), 20)
    centre = p0 + np.array([0.1, 0.0, -0.05])
    a = np.linspace(0.0, 2.0 * math.pi, n)
    radius = np.hypot(*(p0 - centre)[:2])
    start_angle = math.atan2(*(p0 - centre)[1::-1])
    circle = centre + np.stack([radius * np.cos(a + start_angle),
                                radius * np.sin(a + start_angle),
                                -0.05 * np.sin(a) + (p0 - centre)[2]], axis=1)
    m = max(int(RATE * 3.0 * scale), 10)
    direction = np.array([p0[0], p0[1], 0.0]) / np.hypot(p0[0], p0[1])
    out = p0 + np.outer(np.linspace(0.0, 0.9, m), direction)
    line = np.vstack([out, out[::-1]])
    far = np.tile(p0 + np.array([0.75, 0.45, -0.1]), (max(int(RATE * 2.5 * scale), 10), 1))
    home = np.tile(p0, (max(int(RATE * 2.5 * scale), 10), 1))
    return [Segment('circle', circle, True),
            Segment('out of reach and back', line, False),
            Segment('far jump', far, True),
            Segment('home', home, True)]


@dataclass
class Record:
    """What the driver saw."""

    sent: list = field(default_factory=list)        # (t, key, position, segment index)
    answers: AnswerMatcher = field(default_factory=AnswerMatcher)   # target key -> time
    arm: list = field(default_factory=list)         # (t, tip position)
    status: dict = field(default_factory=dict)      # key -> (success, position_error)


def _key(stamp) -> int:
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def run(args: argparse.Namespace) -> int:
    """Run the demo; return the exit code."""
    log_dir = Path(args.output).resolve().parent / 'ik_demo_logs'
    log_dir.mkdir(parents=True, exist_ok=True)
    env = ros_environment(args.domain_id, ros_home=os.environ.get('ROS_HOME', log_dir))
    os.environ.update({k: env[k] for k in ('ROS_AUTOMATIC_DISCOVERY_RANGE', 'ROS_DOMAIN_ID',
                                           'ROS_HOME')})
    urdf = Path(args.urdf) if args.urdf else find_share_file('config/urdf/demo_arm.urdf')

    from ik_node import Chain
    from ik_node.solve import solve
    chain = Chain.from_urdf(urdf, 'base_link', 'tool0')
    print(f'ik_node demo: robot {chain.robot_name!r} from {urdf}, solver {args.solver}, '
          f'ROS_DOMAIN_ID={args.domain_id}, loopback discovery')
    t0 = time.monotonic()
    q_start = np.array(START)
    print('  preparing the solver kernels (compiled on the first run after an install, '
          'about 30 s; cached afterwards) ...', flush=True)
    solve(chain, chain.fk(q_start + 0.05), q0=q_start, method=args.solver)
    print(f'  solver kernels ready in {time.monotonic() - t0:.1f} s')

    import rclpy
    from diagnostic_msgs.msg import DiagnosticArray
    from geometry_msgs.msg import PoseStamped
    from rclpy.executors import SingleThreadedExecutor
    from sensor_msgs.msg import JointState

    from ik_node.pose import quat_xyzw_from_matrix

    procs = [
        start_node('sim_arm', [f'urdf_file:={urdf}', f'initial_positions:={list(START)}'],
                   env, log_dir / 'sim_arm.log'),
        start_node('ik_node', [f'urdf_file:={urdf}', f'solver:={args.solver}',
                               'interactive_marker:=false'], env, log_dir / 'ik_node.log'),
    ]
    rclpy.init()
    node = rclpy.create_node('ik_demo_driver')
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    rec = Record()
    names = list(chain.joint_names)

    def on_joint_states(msg):
        lookup = dict(zip(msg.name, msg.position))
        if all(n in lookup for n in names):
            q = np.array([lookup[n] for n in names])
            rec.arm.append((time.monotonic(), chain.fk(q)[:3, 3]))

    def on_command(msg):
        rec.answers.command(msg.header.stamp, time.monotonic())

    def on_status(msg):
        for s in msg.status:
            kv = {v.key: v.value for v in s.values}
            rec.answers.status(kv)
            if 'target_stamp' in kv and 'position_error' in kv:   # an answer, not a refusal
                sec, nsec = kv['target_stamp'].split('.')
                rec.status[int(sec) * 1_000_000_000 + int(nsec)] = (
                    kv['success'] == 'True', float(kv['position_error']))

    node.create_subscription(JointState, 'joint_states', on_joint_states, 10)
    node.create_subscription(JointState, 'joint_commands', on_command, 100)
    node.create_subscription(DiagnosticArray, 'ik_status', on_status, 100)
    pub = node.create_publisher(PoseStamped, 'target_pose', 10)

    T_start = chain.fk(q_start)
    quat = quat_xyzw_from_matrix(T_start)

    def publish(p, segment):
        msg = PoseStamped()
        msg.header.frame_id = 'base_link'
        msg.header.stamp = node.get_clock().now().to_msg()
        msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = (float(v) for v in p)
        o = msg.pose.orientation
        o.x, o.y, o.z, o.w = (float(v) for v in quat)
        t = time.monotonic()
        pub.publish(msg)
        rec.sent.append((t, _key(msg.header.stamp), np.array(p), segment))

    def spin_until(predicate, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end and not predicate():
            executor.spin_once(timeout_sec=0.01)
        return predicate()

    code = 1
    try:
        print('  starting sim_arm and ik_node ...')
        ready = spin_until(lambda: len(rec.arm) > 0 and node.count_subscribers('target_pose'),
                           60.0)
        if not ready:
            print('  the nodes did not come up; logs in', log_dir)
            return 1
        n_before = len(rec.status)
        spin_until(lambda: (publish(T_start[:3, 3], -1) or True) and len(rec.status) > n_before,
                   30.0)
        segments = scripted_path(T_start, args.scale)
        t_begin = time.monotonic()
        period = 1.0 / RATE
        for i, seg in enumerate(segments):
            print(f'  phase {i + 1}: {seg.name} ({len(seg.positions)} targets at {RATE:g} Hz)')
            next_t = time.monotonic()
            for p in seg.positions:
                publish(p, i)
                next_t += period
                while time.monotonic() < next_t:
                    executor.spin_once(timeout_sec=max(0.0, next_t - time.monotonic()))
        spin_until(lambda: False, 0.5)
        code = report(rec, segments, t_begin, args.output)
        print(f'  node logs: {log_dir}')
    finally:
        stop_processes(procs)
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
    return code


def report(rec: Record, segments: list[Segment], t_begin: float, output: str) -> int:
    """Print tracking error and latency, save the plot; return the exit code."""
    sent = [s for s in rec.sent if s[3] >= 0]
    t_sent = np.array([s[0] for s in sent])
    seg_of = np.array([s[3] for s in sent])
    targets = np.array([s[2] for s in sent])
    answered = rec.answers.answered
    lat = np.array([1e3 * (answered[s[1]] - s[0]) for s in sent if s[1] in answered])
    arm_t = np.array([a[0] for a in rec.arm if a[0] >= t_begin])
    arm_p = np.array([a[1] for a in rec.arm if a[0] >= t_begin])
    # The target in force when each joint_states sample was taken.
    idx = np.clip(np.searchsorted(t_sent, arm_t, side='right') - 1, 0, len(sent) - 1)
    err = np.linalg.norm(arm_p - targets[idx], axis=1)
    arm_seg = seg_of[idx]
    reported = [rec.status.get(s[1]) for s in sent]

    print('\n  phase                     targets  answered  unreachable  arm-target error [mm]')
    print('                                                 reported    median   p95    last')
    ok = len(lat) > 0
    for i, seg in enumerate(segments):
        mask = seg_of == i
        answered = [r for r, m in zip(reported, mask) if m and r is not None]
        unreachable = sum(1 for r in answered if not r[0])
        e = 1e3 * err[arm_seg == i]
        last = e[-1] if len(e) else math.nan
        print(f'  {seg.name:<24} {mask.sum():8d} {len(answered):9d} {unreachable:12d}  '
              f'{np.median(e):7.1f} {np.percentile(e, 95):6.1f} {last:7.1f}')
        if seg.expect_reachable and not last < 5.0:
            ok = False
        if not seg.expect_reachable:
            worst = max((r[1] for r in answered if not r[0]), default=0.0)
            print(f'  {"":<24} farthest unreachable target reported '
                  f'{1e3 * worst:.0f} mm from the best reachable pose')
            ok = ok and unreachable > 0
    if len(lat):
        print(f'\n  latency target -> JointState command: median {np.median(lat):.2f} ms, '
              f'p99 {np.percentile(lat, 99):.2f} ms, max {lat.max():.2f} ms '
              f'({len(lat)} of {len(sent)} targets answered)')
    _plot(output, t_sent - t_begin, targets, seg_of, arm_t - t_begin, arm_p, err, reported,
          lat, segments)
    print(f'  plot saved to {output}')
    print('  result:', 'OK' if ok else 'FAILED')
    return 0 if ok else 1


def _plot(output, t_sent, targets, seg_of, arm_t, arm_p, err, reported, lat, segments):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    ax = axes[0, 0]
    ax.plot(targets[:, 0], targets[:, 1], 'k--', lw=1, label='target')
    ax.plot(arm_p[:, 0], arm_p[:, 1], 'C0', lw=1.5, label='reached (sim arm)')
    bad = np.array([r is not None and not r[0] for r in reported])
    if bad.any():
        ax.plot(targets[bad, 0], targets[bad, 1], 'rx', ms=4, label='reported unreachable')
    ax.set(xlabel='x [m]', ylabel='y [m]', title='Top view: target vs reached tool path')
    ax.axis('equal')
    ax.legend(loc='best', fontsize=8)

    ax = axes[0, 1]
    for k, name in enumerate('xyz'):
        ax.plot(t_sent, targets[:, k], f'C{k}--', lw=1, label=f'target {name}')
        ax.plot(arm_t, arm_p[:, k], f'C{k}', lw=1.5, label=f'reached {name}')
    _shade(ax, t_sent, seg_of, segments)
    ax.set(xlabel='time [s]', ylabel='position [m]', title='Tool position over time')
    ax.legend(loc='best', fontsize=7, ncol=2)

    ax = axes[1, 0]
    ax.semilogy(arm_t, np.maximum(1e3 * err, 1e-3), 'C0', lw=1)
    _shade(ax, t_sent, seg_of, segments)
    ax.set(xlabel='time [s]', ylabel='|target - reached| [mm]',
           title='Tracking error (shaded: target partly out of reach)')

    ax = axes[1, 1]
    if len(lat):
        ax.hist(lat, bins=40, color='C2')
        for q, style in ((50, '-'), (99, '--')):
            v = np.percentile(lat, q)
            ax.axvline(v, color='k', ls=style, label=f'p{q} {v:.2f} ms')
        ax.legend()
    ax.set(xlabel='latency [ms]', ylabel='targets',
           title='Published target -> JointState command received')
    fig.tight_layout()
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=110)
    plt.close(fig)


def _shade(ax, t_sent, seg_of, segments):
    for i, seg in enumerate(segments):
        if not seg.expect_reachable and np.any(seg_of == i):
            t = t_sent[seg_of == i]
            ax.axvspan(t[0], t[-1], color='r', alpha=0.08)


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run the demo."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--output', default='out/ik_demo.png', help='plot file (PNG)')
    parser.add_argument('--solver', default='dls', help='IK method of the node')
    parser.add_argument('--urdf', default='', help='URDF file (default: the demo arm)')
    parser.add_argument('--domain-id', type=int,
                        default=int(os.environ.get('ROS_DOMAIN_ID', '41') or 41),
                        help='ROS_DOMAIN_ID of the demo nodes')
    parser.add_argument('--scale', type=float, default=1.0,
                        help='duration scale of the scripted path (e.g. 0.3 for a quick run)')
    return run(parser.parse_args(argv))


if __name__ == '__main__':
    sys.exit(main())
