# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Jogging core (issue 30), in process: the Jogger against plain differential IK.

No ROS: a scripted SpaceMouse-like twist stream goes, one message per control period, into
:class:`ik_node.motion.jog.Jogger` and into a plain unsmoothed differential IK (q += dt *
J⁺ twist, the joint velocity clamped to its limits as a whole, no blend, no guards, stops
at once on the timeout), on the demo arm at 100 Hz and 1 kHz. The arm is taken to be
where it is commanded. Scenarios, each ending with the stream cut while moving (the
command timeout, 0.1 s, then the stop):

- ``sweep``: six stick axes as smooth random curves (seeded) up to 0.1 m/s and 0.4 rad/s
  with sensor noise, tool in the base frame, no obstacle but the floor;
- ``wrist``: a pass through the wrist singularity (the twist that turns wrist_2 through 0);
- ``floor``: straight down toward the floor at 0.1 m/s;
- ``obstacle``: sideways (+y) at 0.1 m/s toward a sphere (:data:`OBSTACLE`) beside the tool.

Reported per scenario, rate and controller: the tool velocity error against the command in
force (median and p95, linear [m/s] and angular [rad/s], while the command stands and no
guard slows it), the share of those steps a guard slowed (singularity, joint limit,
clearance: the demo arm's base/upper_arm pair stays 2-4 mm apart and slows motions closing
it), the
largest commanded |velocity|, |acceleration|, |jerk| over the limits (divided differences at
the stamps, :class:`ik_node.motion.watcher.CommandWatcher`), the steps in contact (the conservative
capsule check of :meth:`ik_node.Chain.collisions`, self, floor and sphere), the stop after the
stream is cut (time and tool travel from the last message to rest) and the CPU time of one
cycle (the command call and the step, median and p95). Raw results: a JSON file in
bench/out (see bench/common.py). Run alone on the machine: CPU times are wall times.
The same scenarios through real processes: ``bench_jog_ros.py``::

    <venv>/bin/python bench/bench_jog.py [--seconds 9] [--rates 100 1000]
"""

import argparse
import json
import math
import os
from pathlib import Path
import sys
import time

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import ik_node  # noqa: E402
from ik_node.motion.jog import Jogger  # noqa: E402
from ik_node.motion.trajectory import KinematicLimits  # noqa: E402
from ik_node.motion.watcher import CommandWatcher  # noqa: E402
from ik_node.spatial.rotations import rotation_vector_from_matrix  # noqa: E402
import numpy as np  # noqa: E402

V = np.array([2.0, 2.0, 2.0, 3.0, 3.0, 3.0])
A = np.array([5.0, 5.0, 5.0, 10.0, 10.0, 10.0])
J = np.full(6, 500.0)
FLOOR = ik_node.HalfSpace(normal=(0, 0, 1), offset=0.0, name='floor')
Q_SWEEP = np.array([0.0, -1.3, 1.6, -1.9, -1.57, 0.0])
Q_FLOOR = np.array([0.0, -0.8, 1.2, -1.95, -1.57, 0.0])
# 0.2 m beside the tool at Q_SWEEP (tool0 at (-0.585, -0.109, 0.303)), in the +y direction.
OBSTACLE = ik_node.Sphere(center=(-0.585, 0.15, 0.303), radius=0.06, name='obstacle')
SCENARIOS = ('sweep', 'wrist', 'floor', 'obstacle')
CUT = 1.0          # [s] the stream is cut this long before the end of a scenario


def smooth_curve(rng: np.random.Generator, t: np.ndarray) -> np.ndarray:
    """Return a smooth random curve in [-1, 1] at the times ``t`` (a few sinusoids)."""
    f = rng.uniform(0.1, 0.6, 3)
    phase = rng.uniform(0.0, 2.0 * math.pi, 3)
    y = sum(np.sin(2.0 * math.pi * fi * t + p) for fi, p in zip(f, phase)) / 3.0
    return np.clip(1.5 * y, -1.0, 1.0)


def scenario(name: str, chain, rate: float, seconds: float, seed: int = 0):
    """Return (q0, times (k,), twists (k, 6)): the stream, cut ``CUT`` s before the end."""
    dt = 1.0 / rate
    t = np.arange(1, int(round(seconds * rate)) + 1) * dt
    if name == 'sweep':
        rng = np.random.default_rng(seed)
        axes = np.stack([smooth_curve(rng, t) for _ in range(6)], axis=1)
        axes += rng.normal(0.0, 0.01, axes.shape)        # sensor noise
        twist = axes * np.array([0.1, 0.1, 0.1, 0.4, 0.4, 0.4])
        q0 = Q_SWEEP
    elif name == 'wrist':
        q0 = Q_SWEEP.copy()
        q0[4] = -0.45
        e = np.zeros(6)
        e[4] = 0.5
        twist = np.tile(chain.jacobian(q0) @ e, (t.shape[0], 1))
    elif name == 'floor':
        q0 = Q_FLOOR
        twist = np.tile([0.0, 0.0, -0.1, 0.0, 0.0, 0.0], (t.shape[0], 1))
    elif name == 'obstacle':
        q0 = Q_SWEEP
        twist = np.tile([0.0, 0.1, 0.0, 0.0, 0.0, 0.0], (t.shape[0], 1))
    else:
        raise ValueError(f'unknown scenario {name!r}: one of {SCENARIOS}')
    live = t <= seconds - CUT
    return q0, t, np.where(live[:, None], twist, np.nan)


class PlainDiffIK:
    """q += dt J⁺ twist, v clamped to the limits as a whole; stops at once on the timeout."""

    def __init__(self, chain, velocity: np.ndarray, timeout: float = 0.1):
        self.chain, self.velocity, self.timeout = chain, velocity, timeout
        self.q, self.t, self.cmd, self.t_cmd = None, 0.0, np.zeros(6), -math.inf

    def reset(self, q, now):
        self.q, self.t, self.t_cmd = np.array(q, dtype=float), now, -math.inf

    def twist(self, twist, now):
        self.cmd, self.t_cmd = np.asarray(twist, dtype=float), now

    def step(self, now):
        dt, self.t = now - self.t, now
        if now - self.t_cmd > self.timeout:
            return self.q
        v = np.linalg.lstsq(self.chain.jacobian(self.q), self.cmd, rcond=None)[0]
        over = float(np.max(np.abs(v) / self.velocity))
        self.q = self.q + dt * (v / over if over > 1.0 else v)
        return self.q


def world(name: str) -> list:
    """Return the obstacles of scenario ``name``: the floor, and the obstacle's sphere."""
    return [FLOOR, OBSTACLE] if name == 'obstacle' else [FLOOR]


def run(controller, chain, q0, t, twists, rate: float, obstacles) -> dict:
    """Stream ``twists`` at ``t`` into ``controller``; return the figures of the run."""
    lim = KinematicLimits.of(V, A, J)
    check = CommandWatcher.for_chain(chain, lim.velocity, 1.0 / rate, a_max=lim.acceleration,
                                     j_max=lim.jerk, tolerance=1e9)
    controller.reset(q0, 0.0)
    qs, cpu, scales = [], [], []
    cmd_in_force = []
    for now, twist in zip(t, twists):
        start = time.perf_counter()
        if not np.isnan(twist[0]):
            controller.twist(twist, now)
        out = controller.step(now)
        cpu.append(time.perf_counter() - start)
        q = out.sample.q if hasattr(out, 'sample') else out
        scales.append(out.scale if hasattr(out, 'scale') else 1.0)
        qs.append(q)
        cmd_in_force.append(twist)
        check.check(chain.joint_names, q, stamp_ns=int(round(now * 1e9)))
    qs = np.array(qs)
    poses = np.array([chain.fk(q) for q in qs])
    dt = 1.0 / rate
    lin = np.diff(poses[:, :3, 3], axis=0) / dt
    ang = np.array([rotation_vector_from_matrix(b[:3, :3] @ a[:3, :3].T)
                    for a, b in zip(poses[:-1], poses[1:])]) / dt
    cmd = np.array(cmd_in_force)[1:]
    # While the command stands and no guard slows it (a slowed step differs on purpose).
    unslowed = np.array(scales)[1:] == 1.0
    live = ~np.isnan(cmd[:, 0]) & unslowed
    err_lin = np.linalg.norm(lin[live] - cmd[live, :3], axis=1)
    err_ang = np.linalg.norm(ang[live] - cmd[live, 3:], axis=1)
    slowed = float(np.mean(~unslowed[~np.isnan(cmd[:, 0])]))
    contacts = sum(1 for q in qs if chain.collisions(q, obstacles))
    # The stop: from the last message to the first step at rest after it.
    k_last = int(np.flatnonzero(~np.isnan(np.array(cmd_in_force)[:, 0]))[-1])
    moving = np.flatnonzero(np.any(np.abs(np.diff(qs[k_last:], axis=0)) > 1e-12, axis=1))
    k_rest = k_last + (int(moving[-1]) + 1 if moving.size else 0)
    travel = float(np.sum(np.linalg.norm(np.diff(poses[k_last:k_rest + 1, :3, 3], axis=0),
                                         axis=1)))
    cpu_us = np.array(cpu) * 1e6
    return {
        'velocity_error_linear_median': float(np.median(err_lin)),
        'velocity_error_linear_p95': float(np.percentile(err_lin, 95)),
        'velocity_error_angular_median': float(np.median(err_ang)),
        'velocity_error_angular_p95': float(np.percentile(err_ang, 95)),
        'slowed_fraction': slowed,
        'max_velocity_ratio': check.max_velocity_ratio,
        'max_acceleration_ratio': check.max_acceleration_ratio,
        'max_jerk_ratio': check.max_jerk_ratio,
        'contact_steps': contacts,
        'stop_time': (k_rest - k_last) * dt,
        'stop_travel': travel,
        'cpu_us_median': float(np.median(cpu_us)),
        'cpu_us_p95': float(np.percentile(cpu_us, 95)),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--seconds', type=float, default=9.0,
                        help='length of each scenario [s] (the stream is cut 1 s before)')
    parser.add_argument('--rates', type=float, nargs='+', default=[100.0, 1000.0])
    parser.add_argument('--scenarios', nargs='+', choices=SCENARIOS, default=list(SCENARIOS))
    common.add_common_arguments(parser)
    args = parser.parse_args(argv)
    common.check_kernels(args)
    chain = ik_node.Chain.from_urdf(ik_node.share_path(), 'base_link', 'tool0')
    lim = KinematicLimits.of(V, A, J)
    rows = []
    for name in args.scenarios:
        obstacles = world(name)
        for rate in args.rates:
            q0, t, twists = scenario(name, chain, rate, args.seconds)
            for label, controller in (('jogger', Jogger(chain, lim, obstacles=obstacles)),
                                      ('plain', PlainDiffIK(chain, V))):
                # A first run compiles and warms the caches; the second is measured.
                run(controller, chain, q0, t[:50], twists[:50], rate, obstacles)
                figures = run(controller, chain, q0, t, twists, rate, obstacles)
                rows.append({'scenario': name, 'rate': rate, 'controller': label, **figures})
    path = common.new_result_path('jog', 'json', args.out_dir)
    path.write_text(json.dumps({'machine': common.machine_description(),
                                'commit': common.git_state(), 'rows': rows}, indent=1))
    header = ('| scenario | Hz | controller | v err lin med/p95 [mm/s] | v err ang med/p95 '
              '[mrad/s] | slowed | max v/a/j ratio | contact steps | stop [s] / [mm] | '
              'CPU med/p95 [us] |')
    lines = [header, '|' + '---|' * 10]
    for r in rows:
        lines.append(
            f"| {r['scenario']} | {r['rate']:.0f} | {r['controller']} | "
            f"{1e3 * r['velocity_error_linear_median']:.2f} / "
            f"{1e3 * r['velocity_error_linear_p95']:.2f} | "
            f"{1e3 * r['velocity_error_angular_median']:.2f} / "
            f"{1e3 * r['velocity_error_angular_p95']:.2f} | "
            f"{100 * r['slowed_fraction']:.0f} % | {r['max_velocity_ratio']:.2f} / "
            f"{r['max_acceleration_ratio']:.2f} / "
            f"{r['max_jerk_ratio']:.2f} | {r['contact_steps']} | "
            f"{r['stop_time']:.3f} / {1e3 * r['stop_travel']:.1f} | "
            f"{r['cpu_us_median']:.0f} / {r['cpu_us_p95']:.0f} |")
    load = os.getloadavg()[0]
    notes = [
        f'Jogger against plain differential IK, demo arm, {args.seconds:g} s per scenario '
        f'(the stream cut 1 s before the end), in process, no ROS; load average {load:.1f} '
        'at the end of the run (CPU times are wall times).', '',
        '- v err: |tool velocity - command| while the command stands and no guard slows it; '
        'slowed: share of the commanded steps a guard slowed.',
        '- max v/a/j ratio: largest |velocity|, |acceleration|, |jerk| of the commands '
        '(divided differences at the stamps) over the limits '
        f'(v {V.tolist()}, a {A.tolist()}, j {J.tolist()}).',
        '- contact steps: commands in contact by the capsule check (self, floor, and in the '
        f'obstacle scenario the sphere r {OBSTACLE.radius:g} m at '
        f'{[float(v) for v in OBSTACLE.center]}; it never misses a contact of the URDF '
        'geometry).',
        '- stop: from the last message to rest (the 0.1 s command timeout included), time '
        'and tool travel.', '']
    report = '\n'.join(notes + lines)
    print(report)
    print(f'raw results: {path}')
    if args.publish:
        common.publish('jog', report)
    return 0


if __name__ == '__main__':
    sys.exit(main())
