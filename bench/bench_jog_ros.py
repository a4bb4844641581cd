# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Jogging through real processes (issue 30): ik_node and a fake arm, a scripted twist stream.

For each scenario of ``bench_jog.py`` (``sweep``, ``wrist``: through the wrist singularity,
``floor``: toward the floor, ``obstacle``: toward a sphere the node gets as its
``obstacle_spheres`` parameter) and each rate (100 Hz, 1 kHz), ``ik_node`` and ``sim_arm`` start
as real processes with the README's console scripts and config files (``config/ik_node.yaml``,
``config/sim_arm.yaml``), the arm at the scenario's start pose. The arm is the fake one that
executes every command (``follow: instant``) and reports at the stream's rate; the node
commands at that rate (``output_rate``). This process publishes the scenario as a
SpaceMouse-like TwistStamped stream at that rate (a message due while it was busy is skipped,
never sent late in a burst), cut one second before the end, and records every command with
its stamp and every ``ik_status``. Nothing is read from the node's internals.

Reported per scenario and rate, side by side with a plain unsmoothed differential IK
(``bench_jog.PlainDiffIK``, run in this process on the stream as it was sent, stepped at the
same rate, with the node's velocity limits):

- **v err**: |tool velocity of the commands (differences at the stamps) - the twist in force|
  (the last one sent before the command's stamp, not older than the command timeout), median
  and p95, while a twist stands and no guard slows the jog (``ik_status`` ``jog_slowed_by``,
  told within 0.1 s of a change); **slowed**: the share of those steps a guard slowed;
- **max v / a / j ratio**: the largest |velocity|, |acceleration|, |jerk| of the commands
  (Newton divided differences at the stamps, ``bench_goal_motion.stream_figures``) over the
  node's declared limits: each command is the jog's state at its stamp, also after a late
  cycle (the jog goes on from its commanded state). **a ratio, gaps held**: the acceleration
  ratio when a gap longer than ``GAP_PERIODS`` (5) periods is read as the last command held
  (what a driver that holds its last command would do: a gap is then a jump whichever way the
  jog goes on). **interval**: the time between commands, median and max [ms] (the node
  keeping its rate or not);
- **contacts**: distinct commands in contact by the exact check (pinocchio + coal on the URDF's
  collision geometry, ``exact_collision.py``, self pairs chosen from the geometry alone; the
  floor, and the sphere in the obstacle scenario);
- **stop**: from the last twist sent to the first command of the rest (the node's 0.1 s
  command timeout included), time and tool travel;
- **CPU/cycle**: the node process's CPU time (all its threads, ``/proc/<pid>/task/*/schedstat``)
  in each 0.5 s window of the stream, divided by the commands it stamped in that window
  (everything the node does per cycle: the twist and joint_states callbacks, the step, the
  publishing); median and p95 of the windows. **control thread**: the same for the node's
  control thread alone (``control_loop.THREAD_NAME``: the cycle's waits, callbacks, step and
  publish calls, without the middleware's threads and rclpy's executor). For the plain IK:
  the CPU time of its step in this process.
- **the floor** (``--floor``): the sweep streamed into ``bench/jog_floor_node.py`` in place of
  ik_node, the same control loop, subscriptions and publisher with no jog behind them; its CPU
  per cycle is what the ROS side of a cycle costs alone.

The machine load (``uptime``) before and after the run is written beside the figures. Raw
results: a JSON file in bench/out, node logs in bench/out/scratch (see bench/common.py); the
curated page bench/results/jog_ros.md only with ``--publish``. Run it alone on the machine::

    .venv-bench/bin/python bench/bench_jog_ros.py [--seconds 9] [--rates 100 1000]
    .venv-bench/bin/python bench/bench_jog_ros.py --floor    # and the ROS side alone
    .venv-bench/bin/python bench/bench_jog_ros.py --seconds 3 --rates 100    # a smoke run
"""

import argparse
import json
import math
import os
from pathlib import Path
import subprocess
import sys
import time

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_goal_motion as gm  # noqa: E402, I100
import bench_jog  # noqa: E402
import common  # noqa: E402
from exact_collision import ExactChecker, reference_pairs  # noqa: E402
import robots  # noqa: E402

from ik_node.motion.tracker import GAP_PERIODS  # noqa: E402, I100

URDF = str(gm.ROOT / 'config' / 'urdf' / 'demo_arm.urdf')
BASE, TIP = 'base_link', 'tool0'
CPU_WINDOW = 0.5        # [s] the node's CPU time is read this often while the stream runs
TIMEOUT = 0.1           # [s] the node's jog_timeout (config/ik_node.yaml)
DOMAIN = 220            # first ROS domain of a run (one per scenario and rate, at most 232)
LIMIT_NAMES = ['velocity_scale', 'output_rate', 'joint_limits_file', 'acceleration_scale',
               'default_acceleration_limit', 'default_jerk_limit', 'jog_timeout']


# --- The node's CPU time ---------------------------------------------------------------------

def process_cpu_ns(pid: int) -> tuple[int, int]:
    """
    Return the CPU time [ns] the process ``pid`` used so far: (all threads, control thread).

    The control thread is the one named ``control_loop.THREAD_NAME`` (0 if there is none).
    """
    from ik_node.ros.control_loop import THREAD_NAME
    total = control = 0
    for task in Path(f'/proc/{pid}/task').iterdir():
        try:
            ns = int((task / 'schedstat').read_text().split()[0])
            name = (task / 'comm').read_text().strip()
        except (OSError, ValueError, IndexError):
            continue        # a thread that ended meanwhile
        total += ns
        control += ns if name == THREAD_NAME else 0
    return total, control


# --- The stream --------------------------------------------------------------------------------

class JogProbe(gm.Probe):
    """The goal-motion probe (commands, readings, statuses) with a twist publisher."""

    def __init__(self, domain: int, joint_names):
        super().__init__(domain, joint_names, name='bench_jog_ros')
        from geometry_msgs.msg import TwistStamped
        self.TwistStamped = TwistStamped
        self.twists = self.node.create_publisher(TwistStamped, 'jog_twist', 10)

    def publish_twist(self, twist: np.ndarray, frame: str) -> int:
        """Publish ``twist`` (6,) in ``frame`` stamped now; return the stamp [ns]."""
        msg = self.TwistStamped()
        ns = self.now_ns()
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(ns, 1_000_000_000)
        msg.header.frame_id = frame
        lin, ang = msg.twist.linear, msg.twist.angular
        lin.x, lin.y, lin.z, ang.x, ang.y, ang.z = (float(v) for v in twist)
        self.twists.publish(msg)
        return ns


def stream(probe: JogProbe, twists: np.ndarray, rate: float, pid: int) -> dict:
    """
    Publish ``twists`` (k, 6) (NaN rows: nothing) at ``rate``; return what was sent.

    Message k is due k / rate after the start; one due while this process was busy is
    skipped. The node's CPU time is read every CPU_WINDOW while twists are sent.
    """
    period = 1.0 / rate
    sent_ns, sent_k, cpu = [], [], []
    last = int(np.flatnonzero(~np.isnan(twists[:, 0]))[-1])
    t0 = time.monotonic() + 0.05
    k_done, next_cpu = -1, 0.0
    while True:
        elapsed = time.monotonic() - t0
        k = int(elapsed * rate)
        if k >= len(twists):
            break
        if k > k_done:
            if k <= last and not np.isnan(twists[k, 0]):
                sent_ns.append(probe.publish_twist(twists[k], BASE))
                sent_k.append(k)
            k_done = k
        if elapsed >= next_cpu and k <= last + 1:
            cpu.append((time.time_ns(), *process_cpu_ns(pid)))
            next_cpu += CPU_WINDOW
        wait = t0 + (k_done + 1) * period - time.monotonic()
        probe.executor.spin_once(timeout_sec=max(0.0, wait))
    probe.spin_until(lambda: False, 0.3)        # the last commands in flight
    return {'sent_ns': np.array(sent_ns, dtype=np.int64), 'sent_k': np.array(sent_k),
            'due': last + 1, 'cpu': cpu}


# --- Figures -------------------------------------------------------------------------------

def tool_velocities(ref, t: np.ndarray, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (linear (k-1, 3) [m/s], angular (k-1, 3) [rad/s]) between the commands."""
    from scipy.spatial.transform import Rotation
    poses = np.array([ref.fk(q) for q in Q])
    dt = np.diff(t)[:, None]
    lin = np.diff(poses[:, :3, 3], axis=0) / dt
    rel = [b[:3, :3] @ a[:3, :3].T for a, b in zip(poses[:-1], poses[1:])]
    ang = Rotation.from_matrix(np.array(rel)).as_rotvec() / dt if rel else np.zeros((0, 3))
    return lin, ang


def figures(ref, exact: ExactChecker, t: np.ndarray, Q: np.ndarray, sent_t: np.ndarray,
            sent_x: np.ndarray, slowed: np.ndarray, period: float, limits: dict) -> dict:
    """
    Return the figures of one command stream (see the module docstring).

    t (k,) [s], Q (k, n): the commands in stamp order; sent_t (m,) [s], sent_x (m, 6): the
    twists as sent (same clock); slowed (k,) bool: a guard slowed the command.
    """
    lin, ang = tool_velocities(ref, t, Q)
    j = np.searchsorted(sent_t, t[1:], side='right') - 1
    standing = (j >= 0) & (t[1:] - sent_t[np.maximum(j, 0)] <= TIMEOUT)
    cmd = sent_x[np.maximum(j, 0)]
    use = standing & ~slowed[1:]
    err_lin = np.linalg.norm(lin[use] - cmd[use, :3], axis=1)
    err_ang = np.linalg.norm(ang[use] - cmd[use, 3:], axis=1)
    stream = gm.stream_figures(t - t[0], Q, period, limits, GAP_PERIODS)
    raw, held = stream['raw'], stream['held']
    live = t <= sent_t[-1]
    intervals = 1e3 * np.diff(t[live]) if live.sum() > 1 else np.zeros(1)
    contacts, distinct = 0, 0
    for i in range(len(t)):
        if i == 0 or not np.array_equal(Q[i], Q[i - 1]):
            distinct += 1
            contacts += exact.collides(Q[i])
    # The stop: from the last twist to the first command of the rest.
    k_last = max(int(np.searchsorted(t, sent_t[-1], side='right')) - 1, 0)
    moving = np.flatnonzero(np.any(np.diff(Q[k_last:], axis=0) != 0.0, axis=1))
    k_rest = k_last + (int(moving[-1]) + 1 if moving.size else 0)
    p = np.array([ref.fk(q)[:3, 3] for q in Q[k_last:k_rest + 1]])
    return {
        'commands': int(len(t)), 'distinct_commands': distinct,
        'interval_ms_median': float(np.median(intervals)),
        'interval_ms_max': float(np.max(intervals)),
        'velocity_error_linear_median': _pct(err_lin, 50),
        'velocity_error_linear_p95': _pct(err_lin, 95),
        'velocity_error_angular_median': _pct(err_ang, 50),
        'velocity_error_angular_p95': _pct(err_ang, 95),
        'slowed_fraction': float(np.mean(slowed[1:][standing])) if standing.any() else 0.0,
        'velocity_ratio': raw['velocity_ratio'], 'acceleration_ratio':
        raw['acceleration_ratio'], 'jerk_ratio': raw['jerk_ratio'],
        'held_acceleration_ratio': held['acceleration_ratio'],
        'commands_in_contact': contacts,
        'stop_time': float(t[k_rest] - sent_t[-1]),
        'stop_travel': float(np.sum(np.linalg.norm(np.diff(p, axis=0), axis=1))),
    }


def _pct(values: np.ndarray, q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else math.nan


def slowed_at(statuses: list, stamps_ns: np.ndarray) -> np.ndarray:
    """Return (k,) bool: the jog's last ik_status before each stamp named a slow-down."""
    told = sorted((s['stamp'], s['values']['jog_slowed_by']) for s in statuses
                  if 'jog_slowed_by' in s['values'])
    if not told:
        return np.zeros(len(stamps_ns), dtype=bool)
    when = np.array([s for s, _ in told], dtype=np.int64)
    why = np.array([bool(r) for _, r in told])
    i = np.searchsorted(when, stamps_ns, side='right') - 1
    return np.where(i >= 0, why[np.maximum(i, 0)], False)


def cpu_per_cycle(cpu: list, stamps_ns: np.ndarray) -> dict:
    """
    Return the node's CPU time per command [ms] over the windows of ``cpu``.

    Medians and p95 of the windows: all the node's threads, and its control thread alone.
    """
    per, control = [], []
    for (w0, c0, k0), (w1, c1, k1) in zip(cpu[:-1], cpu[1:]):
        n = int(np.sum((stamps_ns > w0) & (stamps_ns <= w1)))
        if n:
            per.append(1e-6 * (c1 - c0) / n)
            control.append(1e-6 * (k1 - k0) / n)
    return {'cpu_ms_median': _pct(np.array(per), 50), 'cpu_ms_p95': _pct(np.array(per), 95),
            'control_cpu_ms_median': _pct(np.array(control), 50),
            'control_cpu_ms_p95': _pct(np.array(control), 95),
            'cpu_windows': per, 'control_cpu_windows': control}


def plain_run(chain, velocity: np.ndarray, q0: np.ndarray, sent_t: np.ndarray,
              sent_x: np.ndarray, rate: float, end: float) -> tuple:
    """Return (t, Q, CPU ms per step) of PlainDiffIK stepped at ``rate`` on the stream sent."""
    plain = bench_jog.PlainDiffIK(chain, velocity, TIMEOUT)
    t = sent_t[0] + np.arange(0, int((end - sent_t[0]) * rate) + 1) / rate
    plain.reset(q0, t[0] - 1.0 / rate)
    Q, cpu, j = [], [], 0
    for now in t:
        start = time.process_time()
        while j < len(sent_t) and sent_t[j] <= now:
            plain.twist(sent_x[j], sent_t[j])
            j += 1
        Q.append(plain.step(now))
        cpu.append(1e3 * (time.process_time() - start))
    return t, np.array(Q), np.array(cpu)


# --- One scenario at one rate ------------------------------------------------------------------

def start_sim(rate: float, q0: np.ndarray, names: list, env: dict, log: Path):
    """Start sim_arm at ``rate``, following at once, its joints ``names`` at ``q0``."""
    return gm.start_process('sim_arm', gm.SIM_CONFIG, [
        f'urdf_file:={URDF}', f'rate:={float(rate)!r}', 'follow:=instant',
        f'initial_positions:={gm.ros_list(q0)}', f'initial_joint_names:=[{", ".join(names)}]'],
        env, log)


def run_one(name: str, rate: float, args, domain: int, logs: Path, chain, ref, checkers: dict
            ) -> list:
    """Run scenario ``name`` at ``rate`` through the processes; return its two table rows."""
    from ik_node.ros.processes import ros_environment, stop_processes
    q0, t_script, twists = bench_jog.scenario(name, chain, rate, args.seconds)
    tag = f'{name} {rate:g} Hz'
    env = ros_environment(domain, ros_home=logs / 'ros_home')
    names = list(chain.joint_names)
    sim = start_sim(rate, q0, names, env, logs / f'{name}_{rate:g}_sim_arm.log')
    node_params = [f'urdf_file:={URDF}', f'base_link:={BASE}', f'tip_link:={TIP}',
                   f'output_rate:={float(rate)!r}', *args.node_param]
    spheres = [o for o in bench_jog.world(name) if type(o).__name__ == 'Sphere']
    if spheres:
        node_params.append('obstacle_spheres:=' + gm.ros_list(
            [v for s in spheres for v in (*s.center, s.radius)]))
    node = gm.start_process('ik_node', gm.NODE_CONFIG, node_params, env,
                            logs / f'{name}_{rate:g}_ik_node.log')
    probe = JogProbe(domain, names)
    t_start = time.monotonic()
    try:
        gm.wait_ready(probe, ref, BASE)
        params = probe.node_parameters(LIMIT_NAMES)
        print(f'{tag}: processes up in {time.monotonic() - t_start:.1f} s; streaming '
              f'{args.seconds:g} s', flush=True)
        n_cmd, n_status = len(probe.commands), len(probe.statuses)
        sent = stream(probe, twists, rate, node.pid)
    finally:
        stop_processes([sim, node])
        probe.close()
    commands = sorted(probe.commands[n_cmd:], key=lambda c: c[0])
    stamps = np.array([c[0] for c in commands], dtype=np.int64)
    Q = np.array([c[1] for c in commands]).reshape(-1, chain.n)
    if len(stamps) < 10 or not len(sent['sent_ns']):
        raise RuntimeError(f'{tag}: {len(stamps)} commands, {len(sent["sent_ns"])} twists '
                           f'sent: see {logs}')
    limits = gm.declared_limits(gm.velocity_limits(URDF, names), params, names)
    origin = int(sent['sent_ns'][0])
    t = 1e-9 * (stamps - origin)
    sent_t = 1e-9 * (sent['sent_ns'] - origin)
    sent_x = twists[sent['sent_k']]
    exact = checkers[name]
    period = 1.0 / rate
    node_fig = figures(ref, exact, t, Q, sent_t, sent_x,
                       slowed_at(probe.statuses[n_status:], stamps), period, limits)
    node_fig.update(cpu_per_cycle(sent['cpu'], stamps))
    node_fig.update(twists_due=sent['due'], twists_sent=int(len(sent_t)))
    tp, Qp, cpu_plain = plain_run(chain, limits['velocity'], q0, sent_t, sent_x, rate, t[-1])
    plain_fig = figures(ref, exact, tp, Qp, sent_t, sent_x, np.zeros(len(tp), dtype=bool),
                        period, limits)
    plain_fig.update(cpu_ms_median=_pct(cpu_plain, 50), cpu_ms_p95=_pct(cpu_plain, 95),
                     twists_due=sent['due'], twists_sent=int(len(sent_t)))
    np.savez(logs / f'{name}_{rate:g}_stream.npz', command_ns=stamps, command_q=Q,
             twist_ns=sent['sent_ns'], twist=sent_x)
    rows = [{'scenario': name, 'rate': rate, 'controller': label, **fig,
             'limits': {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                        for k, v in limits.items()}}
            for label, fig in (('ik_node', node_fig), ('plain', plain_fig))]
    for r in rows:
        print(f'{tag}: {table_row(r)}', flush=True)
    return rows


def run_floor(rate: float, args, domain: int, logs: Path, chain) -> dict:
    """
    Run the sweep's stream at ``rate`` into jog_floor_node.py (in place of ik_node); its CPU.

    Returns the floor's CPU time per command [ms] (all threads and the control thread, as
    for the node): what the ROS side of a cycle costs with no jog behind it.
    """
    from ik_node.ros.processes import ros_environment, stop_processes
    q0, _, twists = bench_jog.scenario('sweep', chain, rate, args.seconds)
    tag = f'floor {rate:g} Hz'
    env = ros_environment(domain, ros_home=logs / 'ros_home')
    names = list(chain.joint_names)
    sim = start_sim(rate, q0, names, env, logs / f'floor_{rate:g}_sim_arm.log')
    with open(logs / f'floor_{rate:g}_node.log', 'w') as out:
        floor = subprocess.Popen([sys.executable, str(Path(__file__).with_name(
            'jog_floor_node.py')), '--rate', repr(float(rate))], env=env, stdout=out,
            stderr=subprocess.STDOUT)
    probe = JogProbe(domain, names)
    try:
        if not probe.spin_until(lambda: len(probe.commands) > 10, 60.0):
            raise RuntimeError(f'{tag}: no commands from jog_floor_node.py: see {logs}')
        n_cmd = len(probe.commands)
        sent = stream(probe, twists, rate, floor.pid)
    finally:
        stop_processes([sim, floor])
        probe.close()
    stamps = np.array(sorted(c[0] for c in probe.commands[n_cmd:]), dtype=np.int64)
    fig = cpu_per_cycle(sent['cpu'], stamps)
    print(f"{tag}: CPU/cycle {fig['cpu_ms_median']:.3f} / {fig['cpu_ms_p95']:.3f} ms, "
          f"control thread {fig['control_cpu_ms_median']:.3f} / "
          f"{fig['control_cpu_ms_p95']:.3f} ms", flush=True)
    return {'rate': rate, **fig, 'commands': int(len(stamps))}


def floor_table(floors: list) -> list:
    """Return the lines of the floor's table (empty without floor runs)."""
    if not floors:
        return []
    lines = ['', 'The floor (`--floor`): `bench/jog_floor_node.py` in place of ik_node, the same '
             'control loop, subscriptions, publisher and sweep stream, but no jog, no checks: '
             'what the ROS side of a cycle costs alone.', '',
             '| Hz | CPU/cycle med/p95 [ms] | control thread med/p95 [ms] | commands |',
             '|---|---|---|---|']
    for f in floors:
        lines.append(f"| {f['rate']:.0f} | {_f(f['cpu_ms_median'], '.3f')} / "
                     f"{_f(f['cpu_ms_p95'], '.3f')} | {_f(f['control_cpu_ms_median'], '.3f')} "
                     f"/ {_f(f['control_cpu_ms_p95'], '.3f')} | {f['commands']} |")
    return lines


# --- Report --------------------------------------------------------------------------------

HEADER = ('| scenario | Hz | controller | v err lin med/p95 [mm/s] | v err ang med/p95 '
          '[mrad/s] | slowed | max v / a / j ratio | a ratio, gaps held | interval med/max [ms] '
          '| contacts (exact) | stop [s] / [mm] | CPU/cycle med/p95 [ms] | control thread med/p95 '
          '[ms] | twists sent / due |')


def _f(value, fmt: str) -> str:
    return 'n/a' if value is None or (isinstance(value, float) and math.isnan(value)) \
        else format(value, fmt)


def table_row(r: dict) -> str:
    return (f"| {r['scenario']} | {r['rate']:.0f} | {r['controller']} | "
            f"{_f(1e3 * r['velocity_error_linear_median'], '.2f')} / "
            f"{_f(1e3 * r['velocity_error_linear_p95'], '.2f')} | "
            f"{_f(1e3 * r['velocity_error_angular_median'], '.2f')} / "
            f"{_f(1e3 * r['velocity_error_angular_p95'], '.2f')} | "
            f"{100 * r['slowed_fraction']:.0f} % | {_f(r['velocity_ratio'], '.2f')} / "
            f"{_f(r['acceleration_ratio'], '.2f')} / {_f(r['jerk_ratio'], '.2f')} | "
            f"{_f(r.get('held_acceleration_ratio'), '.2f')} | "
            f"{r['interval_ms_median']:.2f} / {r['interval_ms_max']:.1f} | "
            f"{r['commands_in_contact']} of {r['distinct_commands']} | "
            f"{r['stop_time']:.3f} / {1e3 * r['stop_travel']:.1f} | "
            f"{_f(r['cpu_ms_median'], '.3f')} / {_f(r['cpu_ms_p95'], '.3f')} | "
            f"{_f(r.get('control_cpu_ms_median'), '.3f')} / "
            f"{_f(r.get('control_cpu_ms_p95'), '.3f')} | "
            f"{r['twists_sent']} / {r['twists_due']} |")


def report(rows: list, args, load_before: str, load_after: str, errors: list,
           floors: list = ()) -> str:
    limits = rows[0]['limits'] if rows else {}
    notes = [
        f'ik_node and sim_arm (follow: instant) as real processes, demo arm, {args.seconds:g} s '
        'per scenario (the twist stream cut 1 s before the end), the node commanding at the '
        'stream rate; beside it a plain unsmoothed differential IK on the same stream, in the '
        'bench process.', '',
        f'- machine: {common.machine_description()}; load before: `{load_before}`; '
        f'after: `{load_after}`',
        '- v err: |tool velocity of the commands - the twist in force| while a twist stands and '
        'no guard slows the jog (ik_status jog_slowed_by); slowed: share of those steps a '
        'guard slowed.',
        '- max v / a / j ratio: largest |velocity|, |acceleration|, |jerk| of the commands '
        '(divided differences at the stamps) over the declared limits: '
        f'{limits.get("source", "")}; each command the jog\'s state at its stamp. a ratio, '
        f'gaps held: a gap over {GAP_PERIODS:g} periods read as the last command held. '
        'interval: time between the commands while twists came.',
        '- contacts: distinct commands in contact by the exact check (pinocchio + coal on the '
        'URDF geometry: self, floor, and in the obstacle scenario the sphere r '
        f'{bench_jog.OBSTACLE.radius:g} m at {[float(v) for v in bench_jog.OBSTACLE.center]}).',
        '- stop: from the last twist to the first command of the rest (the 0.1 s timeout '
        'included), time and tool travel.',
        "- CPU/cycle: the node process's CPU time (all threads) per command, median and p95 "
        f'of {CPU_WINDOW:g} s windows; plain: its step in the bench process. control thread: '
        "the same for the node's control thread alone (the cycle, without the DDS threads "
        'and the executor); plain: n/a.', '']
    lines = [HEADER, '|' + '---|' * 14] + [table_row(r) for r in rows]
    return '\n'.join(notes + lines + floor_table(list(floors)) + [''] + errors)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--seconds', type=float, default=9.0,
                        help='length of each scenario [s] (the stream is cut 1 s before)')
    parser.add_argument('--rates', type=float, nargs='+', default=[100.0, 1000.0])
    parser.add_argument('--scenarios', nargs='+', choices=bench_jog.SCENARIOS,
                        default=list(bench_jog.SCENARIOS))
    parser.add_argument('--floor', action='store_true',
                        help='also run the sweep into jog_floor_node.py: the ROS side alone')
    parser.add_argument('--node-param', action='append', default=[],
                        help='more ik_node parameters, NAME:=VALUE (repeatable)')
    parser.add_argument('--domain-id', type=int, default=None,
                        help='first ROS domain, one more per run (default $ROS_DOMAIN_ID, '
                             f'else {DOMAIN}: above the blocks the tests lock, 12-215)')
    common.add_common_arguments(parser)
    args = parser.parse_args(argv)
    if args.seconds <= bench_jog.CUT + 0.5:
        parser.error(f'--seconds must be above {bench_jog.CUT + 0.5:g}')
    common.check_kernels(args)
    # This process's probe node too: DDS discovery stays on this machine.
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ.pop('ROS_LOCALHOST_ONLY', None)
    import ik_node
    chain = ik_node.Chain.from_urdf(URDF, BASE, TIP)
    ref = robots.ReferenceChain(URDF, BASE, TIP)
    pairs = reference_pairs(URDF, [], ref.joint_names)
    checkers = {name: ExactChecker(ref, URDF, [], bench_jog.world(name), pairs=pairs)
                for name in args.scenarios}
    domain = args.domain_id if args.domain_id is not None else int(
        os.environ.get('ROS_DOMAIN_ID', DOMAIN))
    last = domain + (len(args.scenarios) + args.floor) * len(args.rates) - 1
    if not 0 <= domain <= last <= 232:
        sys.exit(f'ROS domains {domain}-{last} (one per run): must lie in 0-232')
    logs = common.scratch_dir('jog_ros', args.out_dir)
    load_before = gm.uptime()
    print(f'load: {load_before}; ROS domains from {domain}; logs in {logs}', flush=True)
    rows, errors, k = [], [], 0
    for name in args.scenarios:
        for rate in args.rates:
            try:
                rows += run_one(name, rate, args, domain + k, logs, chain, ref, checkers)
            except RuntimeError as exc:     # a node that never came up: the next run goes on
                print(f'{name} {rate:g} Hz: not measured: {exc}', flush=True)
                errors.append(f'{name} {rate:g} Hz: not measured: {exc}')
            k += 1
    floors = []
    for rate in args.rates if args.floor else ():
        try:
            floors.append(run_floor(rate, args, domain + k, logs, chain))
        except RuntimeError as exc:
            errors.append(f'floor {rate:g} Hz: not measured: {exc}')
        k += 1
    load_after = gm.uptime()
    text = report(rows, args, load_before, load_after, errors, floors)
    path = common.new_result_path('jog_ros', 'json', args.out_dir)
    path.write_text(json.dumps({'machine': common.machine_description(),
                                'commit': common.git_state(), 'load_before': load_before,
                                'load_after': load_after, 'settings': vars(args),
                                'rows': rows, 'floors': floors, 'errors': errors},
                               indent=1, default=gm._json))
    print('\n' + text)
    print(f'raw results: {path}')
    if args.publish:
        print(f'published: {common.publish("jog_ros", text)}')
    return 0 if rows and not errors else 1


if __name__ == '__main__':
    sys.exit(main())
