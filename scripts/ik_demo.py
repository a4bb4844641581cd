# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Scripted demo without a ROS install: simulated arm + IK node as real ROS nodes.

``python scripts/ik_demo.py`` (what ``scripts/demo.sh`` runs) starts ``sim_arm`` and ``ik_node``
as separate processes (loopback discovery only), waits for the node's ready line (saying what
it waits for), then a driver node in this process publishes a scripted target path at 50 Hz:

1. a horizontal circle (reachable, tool pointing down),
2. a straight line out beyond the arm's reach and back (partly unreachable),
3. a far jump: the arm swings round its base (approached at the velocity limits),
4. home.

It prints, phase by phase, the tracking error at each target's deadline (the tool, from
joint_states, against the target when the next one is sent), the targets the node reported
out of reach, and the latency from a published target to the JointState command answering it.
The picture (``--output``, default out/ik_demo.png) shows a top view per phase, the error
over time with the phases labelled and the out-of-reach stretches shaded, the reach, and the
latency; its data goes beside it (``.npz``, ``--replot`` redraws), the node logs too.
Exit code 0 when the arm reached the end of every reachable phase and unreachable targets were
reported.
"""

import argparse
from dataclasses import dataclass, field
import math
import os
from pathlib import Path
import subprocess
import sys
import time

from ik_node.resources import DEMO_ARM, share_path
from ik_node.ros.answers import AnswerMatcher
from ik_node.ros.processes import ros_environment, start_node, stop_processes
import numpy as np

__all__ = ['main', 'scripted_path']

START = (0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0)   # demo arm start pose [rad]
RATE = 50.0                                              # target rate [Hz]
DEFAULT_OUTPUT = Path(__file__).resolve().parents[1] / 'out' / 'ik_demo.png'
FLOOR_MM = 0.01                                          # smallest error drawn [mm]
PASS_MM = 5.0                    # a reachable phase passes when the arm gets this close ...
LAG_S = 0.25                     # ... to its last target within this long of the next one


def warm_up(chain, q: np.ndarray, method: str) -> None:
    """
    Compile (or load from numba's cache) every kernel the node uses, before it starts.

    The node runs with its defaults: collision avoidance on, a floor. Compiled here first, the
    node loads the kernels from the cache instead of compiling them while targets arrive.
    """
    from ik_node.collision import HalfSpace
    from ik_node.solve_ik import solve
    floor = [HalfSpace(normal=(0.0, 0.0, 1.0), offset=0.0, name='floor')]
    solve(chain, chain.fk(q + 0.05), q0=q, method=method)
    chain.collisions(q, obstacles=floor)
    chain.min_distance(q, obstacles=floor)
    chain.path_collides(q, q + 0.05, obstacles=floor)
    solve(chain, chain.fk(q + 0.05), q0=q, method=method, avoid_collisions=True,
          obstacles=floor)


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
    # Far but reachable without touching the floor: the arm swings round its base.
    far = np.tile(p0 + np.array([0.6, 0.6, 0.0]), (max(int(RATE * 3.5 * scale), 10), 1))
    home = np.tile(p0, (max(int(RATE * 3.5 * scale), 10), 1))
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
    status: dict = field(default_factory=dict)      # key -> (status, position_error)


def wait_for_nodes(procs, spin, arm_seen, deadline: float = 600.0,
                   every: float = 15.0) -> bool:
    """
    Wait until ik_node logs its ready line and sim_arm publishes; say so every ``every`` s.

    spin(t) spins the driver for t seconds; arm_seen() is True once joint_states arrived.
    False when a node exits or ``deadline`` [s] passes.
    """
    t0 = time.monotonic()
    next_note = t0 + every
    node_log = Path(procs[1].log_path)
    while time.monotonic() - t0 < deadline:
        for proc in procs:
            if proc.poll() is not None:
                print(f'  {Path(proc.log_path).stem} exited with code {proc.returncode}:')
                print(Path(proc.log_path).read_text()[-2000:])
                return False
        text = node_log.read_text() if node_log.is_file() else ''
        ready = '] ready: ' in text or ']: ready: ' in text
        if ready and arm_seen():
            line = next(ln for ln in text.splitlines() if 'ready: ' in ln)
            print(f'  ik_node {line[line.index("ready: "):]} '
                  f'({time.monotonic() - t0:.0f} s)', flush=True)
            return True
        if time.monotonic() > next_note:
            what = ('waiting for joint_states from sim_arm' if ready else
                    'ik_node is loading the model and its kernels')
            print(f'  ... {what} ({time.monotonic() - t0:.0f} s)', flush=True)
            next_note += every
        spin(0.2)
    return False


def _key(stamp) -> int:
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def run(args: argparse.Namespace) -> int:
    """Run the demo; return the exit code."""
    log_dir = Path(args.output).resolve().parent / 'ik_demo_logs'
    log_dir.mkdir(parents=True, exist_ok=True)
    env = ros_environment(args.domain_id, ros_home=os.environ.get('ROS_HOME', log_dir))
    os.environ.update({k: env[k] for k in ('ROS_AUTOMATIC_DISCOVERY_RANGE', 'ROS_DOMAIN_ID',
                                           'ROS_HOME')})
    urdf = Path(args.urdf) if args.urdf else share_path(DEMO_ARM)

    from ik_node import Chain
    chain = Chain.from_urdf(urdf, 'base_link', 'tool0')
    print(f'ik_node demo: robot {chain.robot_name!r} from {urdf}, solver {args.solver}, '
          f'ROS_DOMAIN_ID={args.domain_id}, loopback discovery')
    t0 = time.monotonic()
    q_start = np.array(START)
    print('  preparing the solver and collision kernels (ik-compile: compiled on the first run '
          'after an install, 1-3 min on a busy machine; cached afterwards) ...', flush=True)
    # ik-compile marks the cache compiled, so the node starts on compiled kernels (it would
    # otherwise serve through plain-Python ones while compiling in the background).
    subprocess.run([sys.executable, '-m', 'ik_node.compile', '--quiet'], check=True)
    warm_up(chain, q_start, args.solver)
    print(f'  kernels ready in {time.monotonic() - t0:.1f} s')

    import rclpy
    from diagnostic_msgs.msg import DiagnosticArray
    from geometry_msgs.msg import PoseStamped
    from rclpy.executors import SingleThreadedExecutor
    from sensor_msgs.msg import JointState

    from ik_node.spatial.pose import quat_xyzw_from_matrix

    # The demo arm's acceleration and jerk limits (config/joint_limits.yaml names its joints).
    limits = ([] if args.urdf else
              [f'joint_limits_file:={share_path("config/joint_limits.yaml")}'])
    procs = [
        start_node('sim_arm', [f'urdf_file:={urdf}', f'initial_positions:={list(START)}'],
                   env, log_dir / 'sim_arm.log'),
        start_node('ik_node', [f'urdf_file:={urdf}', f'solver:={args.solver}',
                               'interactive_marker:=false'] + limits, env,
                   log_dir / 'ik_node.log'),
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
                    kv.get('status', ''), float(kv['position_error']))

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
        print('  starting sim_arm and ik_node (the node prints "ready" once it serves '
              'targets; up to a few minutes on a busy machine) ...', flush=True)
        if not wait_for_nodes(procs, lambda t: spin_until(lambda: False, t),
                              lambda: len(rec.arm) > 0):
            print(f'  the nodes did not come up; logs in {log_dir}')
            return 1
        n_before = len(rec.status)
        if not spin_until(lambda: (publish(T_start[:3, 3], -1) or True)
                          and len(rec.status) > n_before, 30.0):
            print(f'  ik_node did not answer a target within 30 s; logs in {log_dir}')
            return 1
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


@dataclass
class Tracking:
    """The run judged target by target (arrays over the targets sent, in order)."""

    t: np.ndarray           # send time [s from the first target]
    targets: np.ndarray     # (k, 3) target positions [m]
    phase: np.ndarray       # phase index
    error: np.ndarray       # arm-target distance at the target's deadline [m]
    answered: np.ndarray    # the node sent a status for the target
    unreachable: np.ndarray  # the node reported the target out of reach
    best_error: np.ndarray  # the node's reported distance of its best pose [m] (nan: none)
    arm_t: np.ndarray       # joint_states receive times [s from the first target]
    arm_p: np.ndarray       # (m, 3) tool positions from joint_states [m]
    latency: np.ndarray     # target -> answering JointState command [ms]

    def closest_after(self, mask: np.ndarray, lag: float) -> float:
        """
        Return the arm's closest approach [m] to a phase's last target within ``lag`` [s].

        From the target's deadline on: a loaded machine delays every message, so the arm
        trails a moving target; the phase passes if the arm gets there shortly after.
        """
        k = int(np.flatnonzero(mask)[-1])
        deadline = self.t[k + 1] if k + 1 < len(self.t) else self.t[k] + 1.0 / RATE
        near = (self.arm_t >= deadline) & (self.arm_t <= deadline + lag)
        if not near.any():
            return float(self.error[k])
        return float(np.linalg.norm(self.arm_p[near] - self.targets[k], axis=1).min())

    def out_of_reach_stretch(self) -> np.ndarray:
        """
        Return, per target, whether the last answered target of its phase was out of reach.

        A target the node never answered (the depth-1 queue kept a newer one) takes the
        verdict of the answered target before it, so a stretch is not cut into stripes.
        """
        flags = self.unreachable.copy()
        for k in range(1, len(flags)):
            if self.phase[k] == self.phase[k - 1] and not self.answered[k]:
                flags[k] = flags[k - 1]
        return flags


def judge(rec: Record, t_begin: float) -> Tracking:
    """
    Return the tracking error at each target's deadline.

    A target's deadline is the moment the next target is sent (1/RATE later): its error is the
    distance from the tool (FK of the last joint_states received by then) to that target. One
    value per target, so the 100 Hz joint_states and the 50 Hz targets do not beat into a
    sawtooth; a phase's last value is how far the arm still was when the next phase began.
    """
    sent = [s for s in rec.sent if s[3] >= 0]
    t_sent = np.array([s[0] for s in sent])
    arm_t = np.array([a[0] for a in rec.arm])
    arm_p = np.array([a[1] for a in rec.arm])
    deadline = np.append(t_sent[1:], t_sent[-1] + 1.0 / RATE)
    j = np.clip(np.searchsorted(arm_t, deadline, side='right') - 1, 0, len(arm_t) - 1)
    targets = np.array([s[2] for s in sent])
    reported = [rec.status.get(s[1]) for s in sent]
    answered = rec.answers.answered
    keep = arm_t >= t_begin
    return Tracking(
        t=t_sent - t_begin, targets=targets, phase=np.array([s[3] for s in sent]),
        error=np.linalg.norm(arm_p[j] - targets, axis=1),
        answered=np.array([r is not None for r in reported]),
        unreachable=np.array([r is not None and r[0] == 'out_of_reach' for r in reported]),
        best_error=np.array([r[1] if r is not None and r[0] == 'out_of_reach' else math.nan
                             for r in reported]),
        arm_t=arm_t[keep] - t_begin, arm_p=arm_p[keep],
        latency=np.array([1e3 * (answered[s[1]] - s[0]) for s in sent if s[1] in answered]))


def report(rec: Record, segments: list[Segment], t_begin: float, output: str) -> int:
    """Print tracking error and latency, save the plot; return the exit code."""
    tr = judge(rec, t_begin)
    print('\n  phase                     targets  answered  unreachable  '
          "error at each target's deadline [mm]")
    print('                                                 reported    median    p95   '
          'at phase end')
    ok = len(tr.latency) > 0
    for i, seg in enumerate(segments):
        mask = tr.phase == i
        n_answered = sum(1 for s in rec.sent if s[3] == i and s[1] in rec.status)
        e = 1e3 * tr.error[mask]
        print(f'  {seg.name:<24} {mask.sum():8d} {n_answered:9d} '
              f'{tr.unreachable[mask].sum():12d}  {np.median(e):7.1f} '
              f'{np.percentile(e, 95):6.1f} {e[-1]:9.1f}')
        if seg.expect_reachable and not 1e3 * tr.closest_after(mask, LAG_S) < PASS_MM:
            ok = False
        if not seg.expect_reachable:
            worst = np.nanmax(tr.best_error[mask], initial=0.0)
            print(f'  {"":<24} farthest unreachable target: the best reachable pose is '
                  f'{1e3 * worst:.0f} mm from it')
            ok = ok and bool(tr.unreachable[mask].any())
    if len(tr.latency):
        print(f'\n  latency target -> JointState command: median {np.median(tr.latency):.2f} '
              f'ms, p99 {np.percentile(tr.latency, 99):.2f} ms, max {tr.latency.max():.2f} ms '
              f'({len(tr.latency)} of {len(tr.t)} targets answered)')
    data = Path(output).with_suffix('.npz')
    data.parent.mkdir(parents=True, exist_ok=True)
    np.savez(data, names=[seg.name for seg in segments], **vars(tr))
    plot(output, tr, segments)
    print(f'  plot saved to {output} (its data: {data}; --replot {data} redraws it)')
    print('  result:', 'OK' if ok else 'FAILED')
    return 0 if ok else 1


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """Return the (first, last) indices of each run of True in ``flags``."""
    edges = np.diff(np.concatenate([[0], flags.astype(int), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1))


def _rolling_mean(values: np.ndarray, width: int) -> np.ndarray:
    """Return the mean of each centred window of ``width`` values (shorter at the ends)."""
    half = max(width // 2, 1)
    return np.array([np.mean(values[max(0, k - half):k + half + 1])
                     for k in range(len(values))])


def _phase_axes(ax, tr: Tracking, segments: list[Segment], label: bool) -> None:
    """Mark phase boundaries (labelled when ``label``) and the out-of-reach stretches."""
    for i, seg in enumerate(segments):
        t = tr.t[tr.phase == i]
        if not len(t):
            continue
        ax.axvline(t[0], color='0.5', lw=0.8, ls=':')
        if label:
            ax.text(t[0] + 0.05, 1.0, f'{i + 1} {seg.name}', transform=ax.get_xaxis_transform(),
                    va='bottom', ha='left', fontsize=8, color=f'C{i}', weight='bold')
    for first, last in _runs(tr.out_of_reach_stretch()):
        ax.axvspan(tr.t[first], tr.t[last] + 1.0 / RATE, color='red', alpha=0.12, lw=0)


def plot(output: str, tr: Tracking, segments: list[Segment]) -> None:
    """Save the demo's picture: top view per phase, tracking error, reach, latency."""
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib.patches import Patch
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(13, 11.5))
    grid = fig.add_gridspec(3, len(segments), height_ratios=[1.15, 1.0, 0.85], hspace=0.75,
                            wspace=0.3)
    fig.suptitle('ik_node demo: a simulated 6-joint arm follows 50 Hz pose targets '
                 'through ROS 2', fontsize=13, weight='bold')

    # Row 1: one top view per phase, so the paths never hide each other.
    for i, seg in enumerate(segments):
        ax = fig.add_subplot(grid[0, i])
        mask = tr.phase == i
        t = tr.t[mask]
        arm = (tr.arm_t >= t[0]) & (tr.arm_t <= t[-1] + 1.0 / RATE)
        target = tr.targets[mask]
        ax.plot(tr.arm_p[arm, 0], tr.arm_p[arm, 1], color=f'C{i}', lw=2, label='tool (arm)',
                zorder=3)
        ax.plot(target[:, 0], target[:, 1], 'k--', lw=1, marker='+' if
                np.ptp(target, axis=0).max() < 1e-6 else None, ms=12, label='target')
        out = tr.unreachable[mask]
        if out.any():
            ax.plot(target[out, 0], target[out, 1], 'x', color='red', ms=3, alpha=0.5,
                    label='reported out of reach', zorder=1)
        if arm.any():
            ax.plot(*tr.arm_p[arm][0, :2], 'o', color=f'C{i}', mfc='white', ms=6,
                    label='tool at phase start')
        ax.set_xlabel('x [m]')
        if i == 0:
            ax.set_ylabel('top view: y [m]')
        # To scale, unless the path is a line (out and back): equal axes would squash it
        # into a sliver of an empty square.
        ext = np.ptp(np.vstack([tr.arm_p[arm, :2], target[:, :2]]), axis=0)
        flat = ext.max() > 4.0 * max(ext.min(), 1e-6)
        if not flat:
            ax.set_aspect('equal', adjustable='datalim')
        ax.set_title(f'{i + 1} {seg.name}' + (' (not to scale)' if flat else ''),
                     color=f'C{i}', weight='bold', fontsize=10)
        ax.margins(0.15)
        # Below the view, so that it never covers the path.
        ax.legend(loc='upper center', bbox_to_anchor=(0.5, -0.22), fontsize=7, ncol=2,
                  frameon=False)

    # Row 2: the error a user judges: how far the arm was from each target when the next came.
    ax = fig.add_subplot(grid[1, :])
    for i in range(len(segments)):
        mask = tr.phase == i
        e = np.maximum(1e3 * tr.error[mask], FLOOR_MM)
        ax.semilogy(tr.t[mask], e, '.', color=f'C{i}', ms=3, alpha=0.5)
        ax.semilogy(tr.t[mask], _rolling_mean(e, int(0.2 * RATE)), color=f'C{i}', lw=2)
    ax.semilogy(tr.t, 1e3 * tr.best_error, 'k:', lw=1.5, zorder=5)
    _phase_axes(ax, tr, segments, label=True)
    ax.set_ylabel('tool to target [mm]')
    ax.set_ylim(bottom=0.5 * FLOOR_MM)
    ax.set_xlabel('time [s]')
    ax.set_xlim(tr.t[0], tr.t[-1] + 1.0 / RATE)
    ax.legend(handles=[
        plt.Line2D([], [], color='0.3', marker='.', ls='', alpha=0.6,
                   label="arm's error at each target's deadline"),
        plt.Line2D([], [], color='0.3', lw=2, label='mean over 0.2 s'),
        plt.Line2D([], [], color='k', ls=':', lw=1.5,
                   label='out of reach: the closest the arm can get (node)'),
        Patch(color='red', alpha=0.12, label='targets the node reported out of reach')],
        loc='upper center', bbox_to_anchor=(0.5, -0.16), ncol=4, fontsize=8, frameon=False)
    step = 1e3 * np.median(np.linalg.norm(np.diff(tr.targets[tr.phase == 0], axis=0), axis=1))
    ax.text(0.0, -0.3, "Error at a target's deadline: the distance from the tool (forward "
            'kinematics of the last joint_states received, 100 Hz) to the target when the next '
            f'target is sent, 20 ms later. One dot per target:\na dot near {step:.0f} mm on '
            'the circle is a target the arm had not reached yet (one step behind: the '
            'command or the arm reading was still on its way); dots under '
            f'{FLOOR_MM:g} mm are drawn at {FLOOR_MM:g} mm.',
            transform=ax.transAxes, fontsize=8, va='top', color='0.25')

    # Row 3: reach, and latency.
    half = len(segments) // 2
    ax = fig.add_subplot(grid[2, :half])
    ax.plot(tr.t, np.linalg.norm(tr.targets, axis=1), 'k--', lw=1, label='target')
    ax.plot(tr.arm_t, np.linalg.norm(tr.arm_p, axis=1), color='C0', lw=1.5, label='tool (arm)')
    _phase_axes(ax, tr, segments, label=False)
    ax.set(xlabel='time [s]', ylabel='distance from base [m]',
           title='Reach: the arm stops at its limit, then follows back')
    ax.set_xlim(tr.t[0], tr.t[-1] + 1.0 / RATE)
    ax.legend(loc='upper left', fontsize=8)

    ax = fig.add_subplot(grid[2, half:])
    if len(tr.latency):
        ax.hist(tr.latency, bins=40, color='C2')
        for q, style in ((50, '-'), (99, '--')):
            v = np.percentile(tr.latency, q)
            ax.axvline(v, color='k', ls=style, label=f'p{q} {v:.2f} ms')
        ax.legend(fontsize=8)
    ax.set(xlabel='latency [ms]', ylabel='targets',
           title='Target published -> JointState command received')
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=100, bbox_inches='tight')
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run the demo."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--output', default=str(DEFAULT_OUTPUT),
                        help='plot file (PNG; default: out/ik_demo.png in the repository)')
    parser.add_argument('--solver', default='dls', help='IK method of the node')
    parser.add_argument('--urdf', default='', help='URDF file (default: the demo arm)')
    parser.add_argument('--domain-id', type=int,
                        default=int(os.environ.get('ROS_DOMAIN_ID', '41') or 41),
                        help='ROS_DOMAIN_ID of the demo nodes')
    parser.add_argument('--scale', type=float, default=1.0,
                        help='duration scale of the scripted path (e.g. 0.3 for a quick run)')
    parser.add_argument('--replot', default='', metavar='NPZ',
                        help='only redraw the plot from the data file of an earlier run')
    args = parser.parse_args(argv)
    if args.replot:
        data = np.load(args.replot)
        segments = [Segment(str(name), np.empty((0, 3)), True) for name in data['names']]
        plot(args.output, Tracking(**{k: data[k] for k in data.files if k != 'names'}),
             segments)
        print(f'plot saved to {args.output}')
        return 0
    return run(args)


if __name__ == '__main__':
    sys.exit(main())
