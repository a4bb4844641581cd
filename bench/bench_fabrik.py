# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
FABRIK benchmark: convergence on long planar chains, and the FABRIK family on URDF arms.

Part 1, convergence (as in the comparison of Aristidou & Lasenby 2011): planar chains of 10
and 30 links of 0.1 m, all starting from the same gently curled pose (every joint at
``START_BEND`` rad). ``--targets`` targets are drawn uniformly in the disc of radius
0.95 x reach around the root (``numpy.random.default_rng(0)``; targets nearer than one link
to the root are redrawn). For each method and each tolerance (1 mm, 0.1 mm, 0.01 mm) the
solve runs from the start pose until the end is within tolerance or ``--cap`` iterations;
the table gives the share reached, the median iterations and the median time per solve.
All five methods are compiled numba kernels on the same point/angle chain:

- FABRIK: one forward and one backward pass per iteration
  (:func:`ik_node.pointchain.point_fabrik.fabrik_free_kernel`);
- CCD: one sweep tip to base (:func:`ik_node.pointchain.ccd.ccd_points_kernel`);
- JT: dq = a J^T e with Buss's a = (e . J J^T e) / |J J^T e|^2;
- pinv: dq = J^+ e (2 x n; singular values below 1e-9 dropped);
- DLS: dq = J^T (J J^T + lambda^2 I)^-1 e, ``lambda = DLS_LAMBDA``.
JT, pinv and DLS steps are capped at ``MAX_STEP`` rad (norm), as in ik_node's solvers.

Part 2, URDF arms (``--robots``): the bundled Panda and UR5 of test/urdf, ``--arm-targets``
targets from joint samples (bench/targets.py, seed 0), every solver seeded at mid-range, judged
by forward kinematics (1 mm; 0.01 rad for poses; limits). Rows: 'fabrik' (default: FABRIK
with at most 5 LM polish steps), 'fabrik pure' (no polish: restarts only), 'fabrik plain'
(every joint aligns all FABRIK points, tip weight 1, no polish), 'ccd', 'hybrid', 'dls'.
For 'fabrik' the time is split into the FABRIK kernel, the polish and the Python around them.

    python bench/bench_fabrik.py [--targets 200] [--cap 20000] [--robots] [--arm-targets 1000]
"""

import argparse
import math
from pathlib import Path
import sys
import time

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from common import (add_common_arguments, check_kernels,  # noqa: E402, I100
                    eta_text, new_result_path, publish)
from ik_node._jit import njit  # noqa: E402
from ik_node.pointchain.ccd import ccd_points_kernel  # noqa: E402
from ik_node.pointchain.point_fabrik import fabrik_free_kernel  # noqa: E402
import numpy as np  # noqa: E402

LINK = 0.1                   # [m]
START_BEND = 0.05            # [rad] every joint of the start pose
MAX_STEP = 0.5               # [rad] step cap of JT, pinv, DLS
DLS_LAMBDA = 0.01            # [m]
TOLERANCES = (1e-3, 1e-4, 1e-5)


def start_angles(n: int) -> np.ndarray:
    return np.full(n, START_BEND)


def points_of(theta: np.ndarray) -> np.ndarray:
    a = np.cumsum(theta)
    d = LINK * np.stack([np.cos(a), np.sin(a), np.zeros_like(a)], axis=1)
    return np.vstack([np.zeros(3), np.cumsum(d, axis=0)])


@njit
def _planar_end_and_jacobian(theta, J):
    n = theta.shape[0]
    px = np.zeros(n + 1)
    py = np.zeros(n + 1)
    a = 0.0
    for j in range(n):
        a += theta[j]
        px[j + 1] = px[j] + 0.1 * math.cos(a)
        py[j + 1] = py[j] + 0.1 * math.sin(a)
    for j in range(n):
        J[0, j] = -(py[n] - py[j])
        J[1, j] = px[n] - px[j]
    return px[n], py[n]


@njit
def jacobian_kernel(theta0, target, tol, max_iter, method, lam):
    """Planar JT (0), pinv (1) or DLS (2). Returns (iterations, reached)."""
    n = theta0.shape[0]
    theta = theta0.copy()
    J = np.empty((2, n))
    e = np.empty(2)
    it = 0
    while True:
        x, y = _planar_end_and_jacobian(theta, J)
        e[0] = target[0] - x
        e[1] = target[1] - y
        if math.sqrt(e[0] * e[0] + e[1] * e[1]) <= tol:
            return it, True
        if it >= max_iter:
            return it, False
        it += 1
        A = J @ J.T
        if method == 0:
            g = J.T @ e
            Jg = J @ g
            den = Jg[0] * Jg[0] + Jg[1] * Jg[1]
            alpha = (e[0] * Jg[0] + e[1] * Jg[1]) / den if den > 1e-300 else 0.0
            dq = alpha * g
        else:
            if method == 2:
                A[0, 0] += lam * lam
                A[1, 1] += lam * lam
                det = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
                y0 = (A[1, 1] * e[0] - A[0, 1] * e[1]) / det
                y1 = (-A[1, 0] * e[0] + A[0, 0] * e[1]) / det
            else:
                # pseudo-inverse through the eigen-decomposition of the 2 x 2 J J^T
                w, V = np.linalg.eigh(A)
                c = V.T @ e
                for k in range(2):
                    c[k] = c[k] / w[k] if w[k] > 1e-9 * max(w[1], 1e-300) else 0.0
                yv = V @ c
                y0 = yv[0]
                y1 = yv[1]
            dq = np.empty(n)
            for j in range(n):
                dq[j] = J[0, j] * y0 + J[1, j] * y1
        norm = math.sqrt(np.sum(dq * dq))
        if norm > MAX_STEP:
            dq *= MAX_STEP / norm
        theta += dq


def draw_targets(n_links: int, count: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    reach = n_links * LINK
    out = []
    while len(out) < count:
        r = 0.95 * reach * math.sqrt(rng.uniform())
        a = rng.uniform(-math.pi, math.pi)
        if r < LINK:
            continue
        out.append([r * math.cos(a), r * math.sin(a), 0.0])
    return np.array(out)


def run_method(name: str, n_links: int, targets: np.ndarray, tol: float, cap: int) -> tuple:
    theta0 = start_angles(n_links)
    pts0 = points_of(theta0)
    lengths = np.full(n_links, LINK)
    root = np.zeros(3)
    its, times, ok = [], [], 0
    for t in targets:
        t0 = time.perf_counter()
        if name == 'FABRIK':
            _, d, it, _ = fabrik_free_kernel(pts0, lengths, t, root, tol, 0.0, cap)
            reached = d <= tol
        elif name == 'CCD':
            _, d, it, _ = ccd_points_kernel(pts0, t, tol, 0.0, cap)
            reached = d <= tol
        else:
            code = {'JT': 0, 'pinv': 1, 'DLS': 2}[name]
            it, reached = jacobian_kernel(theta0, t[:2].copy(), tol, cap, code, DLS_LAMBDA)
        times.append(time.perf_counter() - t0)
        if reached:
            ok += 1
            its.append(it)
    med_it = float(np.median(its)) if its else math.nan
    return ok / len(targets), med_it, float(np.median(times)) * 1e3, float(np.mean(times)) * 1e3


def convergence_table(count: int, cap: int) -> str:
    methods = ('FABRIK', 'CCD', 'JT', 'pinv', 'DLS')
    for name in methods:   # compile outside the clock
        run_method(name, 10, draw_targets(10, 2), 1e-3, 10)
    lines = [f'### Convergence on planar chains ({count} targets, cap {cap} iterations)', '',
             '| links | method | tol [m] | reached | median iterations | median time [ms] '
             '| mean time [ms] |', '|---|---|---|---|---|---|---|']
    t_start, total = time.perf_counter(), 2 * len(methods) * len(TOLERANCES)
    for n_links in (10, 30):
        targets = draw_targets(n_links, count)
        for name in methods:
            for tol in TOLERANCES:
                rate, it, t_med, t_mean = run_method(name, n_links, targets, tol, cap)
                lines.append(f'| {n_links} | {name} | {tol:g} | {100 * rate:.1f}% | {it:g} '
                             f'| {t_med:.4f} | {t_mean:.4f} |')
                print(lines[-1], eta_text(t_start, len(lines) - 4, total), file=sys.stderr,
                      flush=True)
    return '\n'.join(lines)


def robots_table(count: int) -> str:
    import ik_node.solvers  # noqa: F401
    import ik_node.pointchain.ccd  # noqa: F401
    import ik_node.solvers.fabrik_method  # noqa: F401
    from ik_node.options import SolveOptions
    from ik_node.solvers.fabrik_method import arm_params
    from ik_node.solvers.arm_fabrik import arm_attempt, MODE_FABRIK
    from ik_node.solvers.target_records import make_target
    import ik_node.solvers.hybrid  # noqa: F401
    from ik_node import Chain
    from ik_node.solve_ik import solve
    import targets as bench_targets

    rows = [('fabrik', 'fabrik', {}), ('fabrik pure', 'fabrik', {'polish_iterations': 0}),
            ('fabrik plain', 'fabrik', {'polish_iterations': 0, 'tip_weight': 1.0,
                                        'fabrik_points': 'all'}),
            ('ccd', 'ccd', {}), ('hybrid', 'hybrid', {}), ('dls', 'dls', {})]
    arms = {'panda': ('panda.urdf', 'panda_link0', 'panda_link8'),
            'ur5': ('ur5.urdf', 'base_link', 'tool0')}
    lines = [f'### URDF arms ({count} targets, seeded at mid-range)', '',
             '| robot | target | solver | solved | median [ms] | mean [ms] | p95 [ms] '
             '| max [ms] | mean attempts |', '|---|---|---|---|---|---|---|---|---|']
    split = []
    t_start, total = time.perf_counter(), len(arms) * (2 * len(rows) - 1)
    for robot, (fname, base, tip) in arms.items():
        chain = Chain.from_urdf(ROOT / 'test' / 'urdf' / fname, base, tip)
        _, poses = bench_targets.sample_targets(chain.fk, chain.lower, chain.upper, count, 0)
        for kind in ('position', 'pose'):
            for label, method, opts in rows:
                if kind == 'pose' and label in ('fabrik plain',):
                    continue
                tg = [p[:3, 3].copy() if kind == 'position' else p for p in poses]
                solve(chain, tg[0], method=method, **opts)
                times, solved, attempts = [], 0, 0
                for k in range(count):
                    t0 = time.perf_counter()
                    res = solve(chain, tg[k], method=method, **opts)
                    times.append(time.perf_counter() - t0)
                    ok, _, _ = bench_targets.judge(chain, tg[k], res.q)
                    solved += ok and res.success
                    attempts += res.attempts
                ts = np.array(times) * 1e3
                lines.append(f'| {robot} | {kind} | {label} | {100 * solved / count:.1f}% '
                             f'| {np.median(ts):.3f} | {ts.mean():.3f} '
                             f'| {np.percentile(ts, 95):.3f} | {ts.max():.3f} '
                             f'| {attempts / count:.2f} |')
                print(lines[-1], eta_text(t_start, len(lines) - 4, total), file=sys.stderr,
                      flush=True)
        # where the time of a default position solve goes (first attempt, from mid-range)
        params = arm_params(MODE_FABRIK, SolveOptions(), 100, 5)     # solve's defaults
        k_time, polished, total = [], 0, []
        for k in range(count):
            tp = np.ascontiguousarray(poses[k][:3, 3])
            t0 = time.perf_counter()
            _, it, _, _, _, pit = arm_attempt(chain.model, chain.limits, make_target(tp),
                                              params, chain.mid.copy())
            k_time.append(time.perf_counter() - t0)
            polished += pit > 0
            t0 = time.perf_counter()
            solve(chain, tp, method='fabrik')
            total.append(time.perf_counter() - t0)
        split.append(f'- {robot}: FABRIK kernel incl. any polish, median '
                     f'{1e3 * np.median(k_time):.4f} ms; whole solve() median '
                     f'{1e3 * np.median(total):.4f} ms; polish used on first attempt in '
                     f'{polished}/{count} targets')
    return '\n'.join(lines + ['', "Time split of method='fabrik' (position targets):"] + split)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--targets', type=int, default=200, help='planar targets per chain')
    parser.add_argument('--cap', type=int, default=20000, help='iteration cap')
    parser.add_argument('--robots', action='store_true', help='also run the URDF arms')
    parser.add_argument('--arm-targets', type=int, default=1000, help='targets per arm')
    parser.add_argument('--skip-planar', action='store_true')
    add_common_arguments(parser)
    args = parser.parse_args(argv)
    check_kernels(args)
    parts = []
    if not args.skip_planar:
        parts.append(convergence_table(args.targets, args.cap))
    if args.robots:
        parts.append(robots_table(args.arm_targets))
    report = '\n\n'.join(parts) + '\n'
    print(report)
    out = new_result_path('fabrik_convergence', 'md', args.out_dir)
    out.write_text(report)
    print(f'written: {out}')
    if args.publish:
        print(f"published: {publish('fabrik_convergence', report)}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
