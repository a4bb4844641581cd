# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Collision benchmark: conservative check vs exact meshes, speed, collision-aware solving.

ik_node's conservative check is compared with an exact mesh check, timed, and its
collision-aware solve run beside plain DLS and TRAC-IK.

Run in the bench venv (``pip install pin example-robot-data rtb-data pytracik trimesh``):

    python bench/bench_collision.py [--configs 10000] [--targets 1000]

1. Conservativeness: random configurations (uniform in the limits, seed 2026) of Panda, UR5
   and iiwa 14 with a floor (z = 0). ik_node's ``chain.collisions`` against pinocchio + coal
   on the collision meshes, over the same pairs (``exact_collision.ExactChecker``). Missed =
   the exact check finds contact and ik_node does not. False positive = ik_node reports
   contact where the exact check finds every pair more than 1 cm apart; the rate is over
   the configurations the exact check finds more than 1 cm clear.
2. Speed: ``chain.collisions`` on Panda with the floor and 3 obstacles (sphere, box,
   cylinder) over random configurations, back to back and after other work; ``solve_batch``
   plain and collision-aware.
3. Solving: pose targets = FK of random configurations that ik_node finds clear of the
   floor and the 3 obstacles (so a collision-free answer exists), seed mid-range. ``dls``
   plain, ``dls`` with ``avoid_collisions=True`` and those obstacles, and TRAC-IK (which ignores
   collisions). Success = within ik_node's default tolerances by the benchmark's FK (10 µm
   and 1e-4 rad, norms; TRAC-IK is asked for epsilon 1e-5 per twist component), inside the
   limits, and for the collision-aware solve also collision-free by the exact check. For
   every solver: how many of its answers collide (exact check). Solvers run interleaved
   per target.
"""

import argparse
import datetime
import importlib.metadata
import os
from pathlib import Path
import platform
import sys
import tempfile
import time

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import (add_common_arguments, check_kernels, new_result_path,  # noqa: E402, I100
                    progress, publish)
from exact_collision import ExactChecker  # noqa: E402
import ik_node  # noqa: E402
from ik_node import Box, Cylinder, HalfSpace, Sphere  # noqa: E402
import robots  # noqa: E402
from targets import judge  # noqa: E402

# Every solver is judged at ik_node's default tolerances, the ones its solves aim at.
TOL_P = ik_node.SolveOptions().position_tolerance
TOL_O = ik_node.SolveOptions().orientation_tolerance

FLOOR = HalfSpace((0.0, 0.0, 1.0), 0.0, name='floor')


def workspace_obstacles() -> list:
    """Return the floor and three obstacles in reach of every arm of the set (base frame)."""
    T_box = np.eye(4)
    T_box[:3, 3] = (0.45, -0.3, 0.25)
    T_cyl = np.eye(4)
    T_cyl[:3, 3] = (-0.35, 0.35, 0.4)
    return [FLOOR, Sphere((0.5, 0.2, 0.5), 0.08, name='ball'),
            Box(T_box, (0.3, 0.2, 0.02), name='shelf'),
            Cylinder(T_cyl, 0.05, 0.6, name='post')]


def free_targets(chain, obstacles, n, rng) -> list:
    """Return n tip poses of random configurations ik_node finds clear of ``obstacles``."""
    targets = []
    while len(targets) < n:
        q = chain.random_q(rng)
        if not chain.collisions(q, obstacles):
            targets.append(chain.fk(q))
    return targets


def _erd_share() -> Path:
    dist = importlib.metadata.distribution('example-robot-data')
    return Path(dist.locate_file('cmeel.prefix/share'))


def load(name: str, pkg_root: Path):
    """Return (spec, chain, srdf or None, package_dirs) of a benchmark robot."""
    spec = robots.get_robot(name)
    share = _erd_share()
    erd = share / 'example-robot-data' / 'robots'
    srdf = {'panda': erd / 'panda_description' / 'srdf' / 'panda.srdf',
            'ur5': erd / 'ur_description' / 'srdf' / 'ur5.srdf'}.get(name)
    dirs = [share, pkg_root]
    chain = ik_node.Chain.from_urdf(spec.urdf, spec.base_link, spec.tip_link,
                                    srdf=None if srdf is None else str(srdf),
                                    package_dirs=dirs)
    return spec, chain, srdf, dirs


def _pkg_root() -> Path:
    """Make a folder holding the iiwa's package name (its URDF says kuka_lbr_iiwa_support)."""
    root = Path(tempfile.mkdtemp(prefix='ik_bench_pkgs_'))
    os.symlink(robots._rtb_data_dir(), root / 'kuka_lbr_iiwa_support')
    return root


def conservativeness(name, chain, exact, n, rng):
    """Compare ik_node's check with the exact one on n random configurations."""
    out = {'n': n, 'exact_contact': 0, 'ours_contact': 0, 'missed': 0, 'clear_1cm': 0,
           'false_pos_1cm': 0, 'false_pos_any': 0, 'exact_free': 0}
    t_ours, t_exact = [], []
    worst_missed = []
    for _ in progress(range(n), f'{name}: capsules+hulls against the exact check',
                      unit='config'):
        q = chain.random_q(rng)
        t0 = time.perf_counter()
        ours = bool(chain.collisions(q, [FLOOR]))
        t1 = time.perf_counter()
        hit = exact.collides(q)
        t2 = time.perf_counter()
        t_ours.append(t1 - t0)
        t_exact.append(t2 - t1)
        out['exact_contact'] += hit
        out['ours_contact'] += ours
        if hit and not ours:
            out['missed'] += 1
            worst_missed.append((q, exact.min_distance(q)))
        if not hit:
            out['exact_free'] += 1
            out['false_pos_any'] += ours
            d, _ = exact.min_distance(q)
            if d > 0.01:
                out['clear_1cm'] += 1
                out['false_pos_1cm'] += ours
    out['t_ours_us'] = float(np.median(t_ours) * 1e6)
    out['t_exact_us'] = float(np.median(t_exact) * 1e6)
    out['missed_examples'] = worst_missed[:3]
    return out


def speed(chain, n, rng):
    """
    Return timings [µs] of chain.collisions and min_distance on Panda with 4 obstacles.

    Each back to back, and ``collisions`` also after about a millisecond of other Python
    work per call (forward kinematics, as a node's control cycle does between checks), when
    the caches hold other things.
    """
    obstacles = workspace_obstacles()
    qs = [chain.random_q(rng) for _ in range(n)]
    res = {}

    def other_work():
        for _ in range(40):
            chain.fk(chain.mid)

    for label, fn, between in (('collisions', chain.collisions, None),
                               ('min_distance', chain.min_distance, None),
                               ('collisions after other work', chain.collisions, other_work)):
        fn(qs[0], obstacles)
        ts = np.empty(n)
        cpu = np.empty(n)
        for i, q in enumerate(qs):
            if between is not None:
                between()
            c0 = time.thread_time_ns()
            t0 = time.perf_counter()
            fn(q, obstacles)
            ts[i] = time.perf_counter() - t0
            cpu[i] = (time.thread_time_ns() - c0) * 1e-9
        # Wall time counts the time the process waits for a core on a busy machine; the
        # thread's CPU time does not.
        res[label] = (float(np.median(ts) * 1e6), float(np.percentile(ts, 95) * 1e6),
                      float(np.median(cpu) * 1e6))
    res['contact_rate'] = float(np.mean([bool(chain.collisions(q, obstacles)) for q in qs]))
    return res


def batch_rates(chain, n, rng, repeat: int = 5) -> dict:
    """Return {label: (median, slowest, fastest) solves/s} of solve_batch, plain and aware."""
    obstacles = workspace_obstacles()
    T = np.array(free_targets(chain, obstacles, n, rng))
    out = {}
    for label, kw in (('solve_batch plain dls', {}),
                      ('solve_batch dls avoid_collisions',
                       {'avoid_collisions': True, 'obstacles': obstacles})):
        ik_node.solve_batch(chain, T[:8], **kw)      # load the kernels
        rates = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            ik_node.solve_batch(chain, T, **kw)
            rates.append(n / (time.perf_counter() - t0))
        out[label] = (float(np.median(rates)), min(rates), max(rates))
    return out


def _trac_ik(spec):
    try:
        from peers import TracIkPeer
        return TracIkPeer(spec.urdf, spec.base_link, spec.tip_link), ''
    except Exception as exc:  # not installed, or its URDF reader fails
        return None, f'{type(exc).__name__}: {exc}'


def solving(spec, chain, exact, n, rng):
    """Solve n pose targets with dls, dls + avoid_collisions and TRAC-IK."""
    obstacles = workspace_obstacles()
    targets = free_targets(chain, obstacles, n, rng)
    trac, trac_error = _trac_ik(spec)
    solvers = {
        'ik_node dls': lambda T: ik_node.solve(chain, T, chain.mid),
        'ik_node dls avoid_collisions': lambda T: ik_node.solve(
            chain, T, chain.mid, avoid_collisions=True, obstacles=obstacles),
        # The default 50 ms wall-clock budget is cut short when the machine is busy; the
        # same solve with a 1 s budget shows what the method does when it is not.
        'ik_node dls avoid_collisions, timeout 1 s': lambda T: ik_node.solve(
            chain, T, chain.mid, avoid_collisions=True, obstacles=obstacles, timeout=1.0),
    }
    if trac is not None:
        solvers['TRAC-IK'] = lambda T: trac.solve(T, chain.mid)
    warm = targets[0]
    for fn in solvers.values():
        fn(warm)
    stats = {label: {'times': [], 'ok': 0, 'collide': 0, 'ok_free': 0, 'msgs': {}}
             for label in solvers}
    # Solvers interleaved per target, order rotated, so that a change in the machine's load
    # reaches every solver alike (the medians are compared).
    labels = list(solvers)
    for i, T in enumerate(progress(targets, f'{spec.name}: {len(labels)} solvers per target',
                                   unit='target')):
        for label in labels[i % len(labels):] + labels[:i % len(labels)]:
            st = stats[label]
            t0 = time.perf_counter()
            r = solvers[label](T)
            st['times'].append(time.perf_counter() - t0)
            q = None if r is None else (r if isinstance(r, np.ndarray) else np.array(r.q))
            reported = r is not None and (isinstance(r, np.ndarray) or r.success)
            good = reported and judge(chain, T, q, TOL_P, TOL_O)[0]
            hit = q is not None and good and exact.collides(q)
            st['ok'] += good
            st['collide'] += bool(hit)
            st['ok_free'] += good and not hit
            if not good and not isinstance(r, np.ndarray) and r is not None:
                key = r.message.split(';')[-1].strip()[:70]
                st['msgs'][key] = st['msgs'].get(key, 0) + 1
    rows = {}
    for label, st in stats.items():
        rows[label] = {'n': n, 'solved': st['ok'], 'solved_free': st['ok_free'],
                       'colliding': st['collide'],
                       'median_ms': float(np.median(st['times']) * 1e3),
                       'p95_ms': float(np.percentile(st['times'], 95) * 1e3),
                       'failures': st['msgs']}
    return rows, trac_error


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--configs', type=int, default=10000)
    ap.add_argument('--targets', type=int, default=1000)
    ap.add_argument('--speed', type=int, default=10000)
    ap.add_argument('--robots', nargs='*', default=list(robots.ROBOT_NAMES))
    ap.add_argument('--out', default=None)
    ap.add_argument('--speed-only', action='store_true',
                    help='only the Panda timing (section 2), printed, no results file')
    add_common_arguments(ap)
    args = ap.parse_args(argv)
    check_kernels(args)
    start = time.time()
    load_start = os.getloadavg()
    pkg_root = _pkg_root()
    if args.speed_only:
        _, chain, _, _ = load('panda', pkg_root)
        print(speed(chain, args.speed, np.random.default_rng(7)))
        return
    lines = []
    cons, solves, spd, rates, info = {}, {}, None, {}, {}
    for name in args.robots:
        spec, chain, srdf, dirs = load(name, pkg_root)
        t0 = time.perf_counter()
        setup = chain.collision_setup
        info[name] = (spec, srdf, len(setup.model.checked_pairs), len(setup.model.capsule_link),
                      time.perf_counter() - t0)
        exact = ExactChecker(chain, spec.urdf, dirs, [FLOOR])
        cons[name] = conservativeness(name, chain, exact, args.configs,
                                      np.random.default_rng(2026))
        exact_all = ExactChecker(chain, spec.urdf, dirs, workspace_obstacles())
        c = cons[name]
        print(f'{name}: {c["missed"]} contacts missed, {c["false_pos_any"]} of '
              f'{c["exact_free"]} free configurations flagged', flush=True)
        if name == 'panda':
            spd = speed(chain, args.speed, np.random.default_rng(7))
            print(f'panda: collisions {spd["collisions"][0]:.1f} us median, min_distance '
                  f'{spd["min_distance"][0]:.1f} us', flush=True)
            rates = batch_rates(chain, args.targets, np.random.default_rng(13))
            print('panda: ' + ', '.join(f'{k} {v[0]:,.0f}/s' for k, v in rates.items()),
                  flush=True)
        solves[name] = solving(spec, chain, exact_all, args.targets,
                               np.random.default_rng(11))
        print(f'{name}: solved collision-free of {args.targets}: ' + ', '.join(
            f'{label} {r["solved_free"]}' for label, r in solves[name][0].items()), flush=True)
    wall = time.time() - start
    date = datetime.date.today().isoformat()
    versions = ', '.join(f'{p} {importlib.metadata.version(p)}' for p in (
        'numpy', 'numba', 'trimesh', 'pin', 'coal', 'example-robot-data', 'rtb-data',
        'pytracik'))
    lines += [f'# Collision benchmark, {date}', '',
              f'- Command: `python bench/bench_collision.py --configs {args.configs} '
              f'--targets {args.targets} --speed {args.speed}` (bench venv)',
              f'- Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} '
              f'cores shared with other work; load average {load_start[0]:.2f} at start, '
              f'{os.getloadavg()[0]:.2f} at end',
              f'- Python {platform.python_version()}; {versions}',
              f'- Wall time {wall:.0f} s', '',
              '## Robots and pairs', '',
              '| robot | base -> tip | disabled pairs from | checked link pairs | capsules '
              '| model build s |', '|---|---|---|---|---|---|']
    for name, (spec, srdf, npairs, ncaps, tb) in info.items():
        src = f'SRDF `{srdf.name}`' if srdf else 'ik_node default matrix (no SRDF)'
        lines.append(f'| {name} | {spec.base_link} -> {spec.tip_link} | {src} | {npairs} | '
                     f'{ncaps} | {tb:.2f} |')
    lines += ['', '## 1. Conservative check vs exact meshes (pinocchio + coal), floor at z = 0',
              '', '| robot | configs | exact contact | ik_node contact | **missed** | '
              'exact > 1 cm clear | false pos. (> 1 cm) | rate | ik_node median µs | '
              'exact median µs |', '|---|---|---|---|---|---|---|---|---|---|']
    for name, c in cons.items():
        rate = c['false_pos_1cm'] / max(c['clear_1cm'], 1)
        lines.append(f"| {name} | {c['n']} | {c['exact_contact']} | {c['ours_contact']} | "
                     f"**{c['missed']}** | {c['clear_1cm']} | {c['false_pos_1cm']} | "
                     f'{100 * rate:.2f}% | {c["t_ours_us"]:.1f} | {c["t_exact_us"]:.1f} |')
    if spd:
        lines += ['', '## 2. Speed: Panda, floor + sphere + box + cylinder', '',
                  f"- `chain.collisions`: median {spd['collisions'][0]:.1f} µs wall "
                  f"({spd['collisions'][2]:.1f} µs thread CPU), p95 "
                  f"{spd['collisions'][1]:.1f} µs ({args.speed} random configurations, "
                  f"{100 * spd['contact_rate']:.0f}% of them in contact)",
                  '- `chain.collisions` after about 1 ms of other Python work per call: '
                  f"median {spd['collisions after other work'][0]:.1f} µs wall "
                  f"({spd['collisions after other work'][2]:.1f} µs thread CPU), p95 "
                  f"{spd['collisions after other work'][1]:.1f} µs",
                  f"- `chain.min_distance`: median {spd['min_distance'][0]:.1f} µs wall "
                  f"({spd['min_distance'][2]:.1f} µs thread CPU), p95 "
                  f"{spd['min_distance'][1]:.1f} µs"]
    if rates:
        lines += [f'- `solve_batch` on {os.cpu_count()} threads, {args.targets} pose targets '
                  'from collision-free configurations, median of 5 runs (slowest-fastest): '
                  + '; '.join(f'{k} {v[0]:,.0f} solves/s ({v[1]:,.0f}-{v[2]:,.0f})'
                              for k, v in rates.items())]
    lines += ['', '## 3. Solving pose targets whose configuration is collision-free', '',
              f"Solved = within {TOL_P:g} m and {TOL_O:g} rad by the benchmark's FK, every "
              'solver alike; seed mid-range. Obstacles: the floor, a ball, a shelf and a post '
              '(those of section 2); collision-free by the exact check.', '',
              '| robot | solver | targets | solved | solved, collision-free | answers in '
              'contact (exact) | median ms | p95 ms | median / plain dls |',
              '|---|---|---|---|---|---|---|---|---|']
    notes = []
    for name, (rows, trac_error) in solves.items():
        base = rows['ik_node dls']['median_ms']
        for label, r in rows.items():
            lines.append(f"| {name} | {label} | {r['n']} | {100 * r['solved'] / r['n']:.2f}% "
                         f"| {100 * r['solved_free'] / r['n']:.2f}% | {r['colliding']} | "
                         f"{r['median_ms']:.3f} | {r['p95_ms']:.3f} | "
                         f"{r['median_ms'] / base:.2f} |")
            if 'avoid_collisions' in label and r['failures']:
                notes.append(f'- {name} {label} failures (last clause of the message: '
                             f'count): {r["failures"]}')
        if trac_error:
            notes.append(f'- {name}: TRAC-IK not run ({trac_error})')
    lines += [''] + notes
    out = Path(args.out) if args.out else new_result_path('collision', 'md', args.out_dir)
    if out.exists():
        raise SystemExit(f'{out} exists: results are never overwritten')
    out.write_text('\n'.join(lines) + '\n')
    print('\n'.join(lines))
    if args.publish:
        print(f"published: {publish('collision', out.read_text())}")


if __name__ == '__main__':
    main()
