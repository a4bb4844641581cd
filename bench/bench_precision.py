# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Precision benchmark: ik_node 'dls' and TRAC-IK at equal tolerance on many arms.

Arms from example-robot-data and rtb-data (bench/requirements.txt), 3 to 8 joints, with a
5-DOF arm (SO-101), a 3-DOF leg (Solo-12), a prismatic joint (TIAGo's torso lift) and
continuous joints (Kinova Jaco2). Targets are poses of joint samples drawn uniformly within
the limits (seed 2026), so every target is reachable; each solve starts from mid-range.
Each solver runs the targets in its own loop, the same work (judging the answer) between
its timed calls; ``--interleave`` alternates them target by target instead, which times
ik_node right after a TRAC-IK call: TRAC-IK solves on two threads of its own while the
caller's thread waits, and the next solve on that thread then runs from cold caches (on
the 2-core VM of bench/results, a Panda solve takes 2-3x its time after busy work; a pause
or a spin before it does not bring it back). Success is judged by the
benchmark's own FK (bench/robots.py ReferenceChain, urdf_parser_py, independent of both
solvers) at the same tolerance for both: position error <= 1e-5 m and orientation error
<= 1e-5 rad (norms), joints within limits. TRAC-IK runs with epsilon 1e-5 (Speed, 5 ms).

Then unreachable targets: 1.15x the arm's reach (the farthest sample from the first joint)
in the direction of a sample, with its orientation; most lie inside the arm's loose reach
bound, so the bound cannot answer them. Timed for ik_node, with the status it reports.

    .venv-bench/bin/python bench/bench_precision.py [--targets 1000] [--out FILE] [--publish]

``--trac-ik-protocol`` runs TRAC-IK's published protocol instead (its README's table, tag
v1.4.6): random reachable joint configurations (``--targets``, 10,000 there), full pose IK
at 1e-5 Cartesian error in each of x, y, z, roll, pitch, yaw (components, not norms), 5 ms
per solve, every solve seeded at the nominal pose midway between the joint limits (0 for a
continuous joint, as TRAC-IK's own nominal), times of failed solves included. The components
are those TRAC-IK tests: of the twist from the target to the answer, in the target frame.
The arms are those of our set that the README lists (:data:`TRAC_IK_ARMS`: Panda, iiwa 14,
Jaco2) and the nearest to two more of its rows (SO-101 for the 5-DOF Fanuc M-430iA/2F,
ABB IRB 140 for the IRB 120). Both solvers are judged by the benchmark's FK with the protocol's
per-component test; ik_node ('dls') runs with 1e-5 norms (stricter) and ``timeout`` 5 ms;
the table also gives TRAC-IK's own success claims (rc >= 0), as its README counts them.

    .venv-bench/bin/python bench/bench_precision.py --trac-ik-protocol [--targets 10000]

Each run writes a new ``bench/out/precision_<date>_<time>.md`` and ``.json``; ``--publish``
also rewrites the page ``bench/results/precision.md``.
"""

import argparse
import contextlib
import ctypes
from datetime import datetime, timezone
import json
import os
from pathlib import Path
import sys
import time

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import add_common_arguments, check_kernels, eta_text, publish  # noqa: E402, I100
import peers as peers_mod  # noqa: E402
import robots  # noqa: E402
import targets  # noqa: E402

TOL = 1e-5
# TRAC-IK's protocol: arms of its README's table in our set, and the nearest to two more.
TRAC_IK_ARMS = ('panda', 'iiwa14', 'jaco2', 'so101', 'irb140')
TRAC_IK_BUDGET = 0.005      # [s] per solve
TRACK_BOUND = 0.05      # [rad] max_joint_change of the bounded tracking runs
SEED = 2026

_ERD = {
    'panda': ('panda_description/urdf/panda.urdf', 'panda_link0', 'panda_link8'),
    'ur3': ('ur_description/urdf/ur3_robot.urdf', 'base_link', 'tool0'),
    'ur5': ('ur_description/urdf/ur5_robot.urdf', 'base_link', 'tool0'),
    'ur10': ('ur_description/urdf/ur10_robot.urdf', 'base_link', 'tool0'),
    'xarm7': ('xarm_description/urdf/xarm7.urdf', 'link_base', 'link_eef'),
    'jaco2': ('kinova_description/robots/kinova.urdf', 'j2s6s200_link_base',
              'j2s6s200_end_effector'),
    'z1': ('z1_description/urdf/z1.urdf', 'link00', 'link06'),
    'so101': ('so_arm_description/urdf/so101.urdf', 'base_link', 'gripper_frame_link'),
    'solo12_leg': ('solo_description/robots/solo12.urdf', 'base_link', 'FL_FOOT'),
    'tiago_torso_arm': ('tiago_description/robots/tiago.urdf', 'base_link', 'arm_7_link'),
}
_RTB = {
    'iiwa14': ('kuka_description/kuka_lbr_iiwa/urdf/lbr_iiwa_14_r820.urdf', 'base_link',
               'tool0'),
    'kr210': ('kuka_description/kuka_kr210/urdf/kr210l150.urdf', 'base_link', 'tool0'),
    'irb140': ('abb_irb140_description/urdf/irb140.urdf', 'base_link', 'tool0'),
    'puma560': ('unimation_puma560_description/urdf/puma560_robot.urdf', 'link1', 'link7'),
}


def arm_files() -> dict:
    """Return {name: (urdf path, base, tip, source)} for every benchmark arm."""
    import importlib.metadata
    import rtbdata
    out = {}
    erd = importlib.metadata.version('example-robot-data')
    for name, (rel, base, tip) in _ERD.items():
        out[name] = (str(robots._example_robot_data_file(rel)), base, tip,
                     f'example-robot-data {erd}')
    rtb_dir = Path(rtbdata.__file__).resolve().parent / 'xacro'
    rtb = importlib.metadata.version('rtb-data')
    for name, (rel, base, tip) in _RTB.items():
        out[name] = (str(rtb_dir / rel), base, tip, f'rtb-data {rtb}')
    return out


@contextlib.contextmanager
def _quiet_c_stdout():
    """Send what C++ code prints to stdout (KDL's loading notes) to stderr."""
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    libc.fflush(None)
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        libc.fflush(None)
        os.dup2(saved, 1)
        os.close(saved)


def _stats(times: list) -> tuple:
    a = np.asarray(times) * 1e3
    return float(np.median(a)), float(np.percentile(a, 95))


def run_arm(name: str, urdf: str, base: str, tip: str, n_targets: int,
            interleave: bool = False) -> dict:
    """
    Solve the same reachable targets with both solvers; time unreachable ones too.

    interleave: alternate the solvers target by target (else each solver runs the targets
    in its own loop; both loops judge each answer between the timed calls).
    """
    import ik_node
    ref = robots.ReferenceChain(urdf, base, tip)
    chain = ik_node.Chain.from_urdf(urdf, base, tip)
    with _quiet_c_stdout():
        trac = peers_mod.TracIkPeer(urdf, base, tip, timeout=0.005, epsilon=TOL)
    q_true, poses = targets.sample_targets(ref.fk, chain.lower, chain.upper, n_targets, SEED)
    seed = np.where(ref.continuous, 0.0, ref.mid)
    opts = {'position_tolerance': TOL, 'orientation_tolerance': TOL}
    ik_node.warm_up(chain, ['dls'])
    rec = {'ik': [], 'trac': []}
    ok = {'ik': 0, 'trac': 0}
    false_success = 0

    def ik_solve(T):
        nonlocal false_success
        t0 = time.perf_counter()
        res = ik_node.solve(chain, T, q0=seed, **opts)
        rec['ik'].append(time.perf_counter() - t0)
        good = targets.judge(ref, T, res.q, TOL, TOL)[0]
        ok['ik'] += good
        false_success += res.success and not good

    def trac_solve(T):
        t0 = time.perf_counter()
        q = trac.solve(T, seed)
        rec['trac'].append(time.perf_counter() - t0)
        ok['trac'] += targets.judge(ref, T, q, TOL, TOL)[0]

    if interleave:
        for T in poses:
            ik_solve(T)
            trac_solve(T)
    else:
        for T in poses:
            ik_solve(T)
        for T in poses:
            trac_solve(T)
    # Unreachable: targets at 1.15x the arm's reach (the farthest sample from the first
    # joint, over these targets), in the direction of a sample, with its orientation.
    origin = chain.reach_origin
    dist = np.linalg.norm(poses[:, :3, 3] - origin, axis=1)
    reach = float(dist.max())
    far_times, statuses, inside_bound = [], {}, 0
    for T, d in zip(poses[: max(n_targets // 5, 20)], dist):
        U = T.copy()
        U[:3, 3] = origin + 1.15 * reach * (T[:3, 3] - origin) / max(d, 1e-12)
        inside_bound += 1.15 * reach <= chain.reach
        t0 = time.perf_counter()
        res = ik_node.solve(chain, U, q0=seed, **opts)
        far_times.append(time.perf_counter() - t0)
        statuses[res.status] = statuses.get(res.status, 0) + 1
    under = _underactuated(chain, ref, poses[: max(n_targets // 5, 20)], seed, opts) \
        if chain.n < 6 else {}
    ik_med, ik_p95 = _stats(rec['ik'])
    tr_med, tr_p95 = _stats(rec['trac'])
    far_med, far_p95 = _stats(far_times)
    return {
        'arm': name, 'n': chain.n, 'targets': n_targets,
        'ik_rate': ok['ik'] / n_targets, 'ik_median_ms': ik_med, 'ik_p95_ms': ik_p95,
        'trac_rate': ok['trac'] / n_targets, 'trac_median_ms': tr_med, 'trac_p95_ms': tr_p95,
        'ik_false_successes': int(false_success),
        'unreachable_median_ms': far_med, 'unreachable_p95_ms': far_p95,
        'unreachable_status': statuses, 'unreachable_inside_bound': int(inside_bound),
        'unreachable_targets': len(far_times), **under,
    }


def within_components(ref, T, q, tol: float = TOL) -> bool:
    """
    Return True when FK of q meets T in each of x, y, z, roll, pitch, yaw within ``tol``.

    TRAC-IK's test (KDL's ``diffRelative(target, pose)``, each component within the bound):
    the position difference R_T^T (p(q) - p_T) [m] and the rotation vector of
    R_T^T R(q) [rad], both in the target frame; joints within the limits. None (no answer)
    fails.
    """
    from scipy.spatial.transform import Rotation
    if q is None:
        return False
    q = np.asarray(q, dtype=float)
    if not (np.all(np.isfinite(q)) and ref.within_limits(q)):
        return False
    F = ref.fk(q)
    R_T = T[:3, :3]
    dp = R_T.T @ (F[:3, 3] - T[:3, 3])
    w = Rotation.from_matrix(R_T.T @ F[:3, :3]).as_rotvec()
    return bool(np.all(np.abs(dp) <= tol) and np.all(np.abs(w) <= tol))


def run_trac_protocol(name: str, urdf: str, base: str, tip: str, n_targets: int) -> dict:
    """Run TRAC-IK's protocol (module doc) on one arm for ik_node 'dls' and TRAC-IK."""
    import ik_node
    ref = robots.ReferenceChain(urdf, base, tip)
    chain = ik_node.Chain.from_urdf(urdf, base, tip)
    with _quiet_c_stdout():
        trac = peers_mod.TracIkPeer(urdf, base, tip, timeout=TRAC_IK_BUDGET, epsilon=TOL)
    _, poses = targets.sample_targets(ref.fk, chain.lower, chain.upper, n_targets, SEED)
    nominal = np.where(ref.continuous, 0.0, ref.mid)
    solver = ik_node.Solver(chain, 'dls', position_tolerance=TOL, orientation_tolerance=TOL,
                            timeout=TRAC_IK_BUDGET)
    ik_node.warm_up(chain, ['dls'])
    solver.solve(poses[0], nominal)
    times: dict = {'ik': [], 'trac': []}
    ok = {'ik': 0, 'trac': 0, 'trac_claimed': 0, 'ik_claimed': 0}
    for T in poses:
        t0 = time.perf_counter()
        res = solver.solve(T, nominal)
        times['ik'].append(time.perf_counter() - t0)
        ok['ik'] += within_components(ref, T, res.q)
        ok['ik_claimed'] += res.success
    for T in poses:
        t0 = time.perf_counter()
        q = trac.solve(T, nominal)
        times['trac'].append(time.perf_counter() - t0)
        ok['trac'] += within_components(ref, T, q)
        ok['trac_claimed'] += q is not None
    row = {'arm': name, 'n': chain.n, 'targets': n_targets}
    for who in ('ik', 'trac'):
        med, p95 = _stats(times[who])
        row.update({f'{who}_rate': ok[who] / n_targets,
                    f'{who}_claimed_rate': ok[f'{who}_claimed'] / n_targets,
                    f'{who}_median_ms': med, f'{who}_p95_ms': p95,
                    f'{who}_mean_ms': float(np.mean(times[who])) * 1e3})
    return row


def render_trac_protocol(meta: dict, rows: list) -> str:
    """Return the markdown report of TRAC-IK's protocol."""
    lines = [f"# Precision on TRAC-IK's protocol {meta['date']}", '',
             f"Command: `{meta['command']}`", '',
             f'{rows[0]["targets"] if rows else 0} random reachable configurations per arm '
             f'(seed {SEED}); full pose at {TOL:g} in each of x, y, z, roll, pitch, yaw (target '
             "frame, as TRAC-IK tests), judged by the benchmark's FK for both; 5 ms per solve; "
             "every solve seeded at the nominal pose (mid-range). ik_node: Solver('dls') at "
             '1e-5 m / 1e-5 rad norms, timeout 5 ms; TRAC-IK: pytracik, Speed, 5 ms, '
             'epsilon 1e-5 ("claimed": its rc >= 0, as its README counts). Times include '
             f"failed solves. {meta['cpu']}.",
             '', '| arm | n | ik_node success | median / p95 / mean ms | TRAC-IK success '
             '(claimed) | median / p95 / mean ms |', '|---|---|---|---|---|---|']
    for r in rows:
        lines.append(
            f"| {r['arm']} | {r['n']} | {100 * r['ik_rate']:.2f}% | "
            f"{r['ik_median_ms']:.3f} / {r['ik_p95_ms']:.3f} / {r['ik_mean_ms']:.3f} | "
            f"{100 * r['trac_rate']:.2f}% ({100 * r['trac_claimed_rate']:.2f}%) | "
            f"{r['trac_median_ms']:.3f} / {r['trac_p95_ms']:.3f} / {r['trac_mean_ms']:.3f} |")
    return '\n'.join(lines) + '\n'


def _underactuated(chain, ref, poses, seed, opts) -> dict:
    """
    Solve reachable points with random orientations on an arm with n < 6 (most unreachable).

    Returns the rate of answers that meet the point (by the benchmark's FK), the rate that
    claim success and the rate of false claims (the whole pose not met), and the times.
    """
    import ik_node
    from ik_node.spatial.rotations import matrix_from_quat_wxyz
    rng = np.random.default_rng(SEED + 1)
    times, point_met, claimed, false_claims = [], 0, 0, 0
    for T in poses:
        U = T.copy()
        quat = rng.normal(size=4)
        U[:3, :3] = matrix_from_quat_wxyz(quat / np.linalg.norm(quat))   # uniform
        t0 = time.perf_counter()
        res = ik_node.solve(chain, U, q0=seed, **opts)
        times.append(time.perf_counter() - t0)
        Tq = ref.fk(res.q)
        point_met += np.linalg.norm(Tq[:3, 3] - U[:3, 3]) <= TOL
        claimed += res.success
        false_claims += res.success and not targets.judge(ref, U, res.q, TOL, TOL)[0]
    med, p95 = _stats(times)
    k = len(poses)
    return {'under_targets': k, 'under_point_rate': point_met / k,
            'under_claimed_rate': claimed / k, 'under_false_claims': int(false_claims),
            'under_median_ms': med, 'under_p95_ms': p95}


def run_tracking(name: str, urdf: str, base: str, tip: str, steps: int = 100) -> dict:
    """
    Track a straight path in 1 mm steps, each solve warm-started from the previous answer.

    dls and hybrid get the pose (the start orientation held), fabrik the position; the start
    is a joint sample near mid-range (seed 2026), the direction a random unit vector. Each
    method runs the same paths twice: as a plain warm-started solve, and with
    ``max_joint_change=TRACK_BOUND`` (the tracking option). Returns the largest joint step
    [rad or m] and the solve rate per method and mode.
    """
    import ik_node
    chain = ik_node.Chain.from_urdf(urdf, base, tip)
    rng = np.random.default_rng(SEED)
    out = {'arm': name}
    span = np.where(chain.continuous, 1.0, 0.25 * (chain.upper - chain.lower))
    for method, kind in (('dls', 'pose'), ('fabrik', 'position'), ('hybrid', 'pose')):
        ik_node.warm_up(chain, [method])
        paths = []
        for _ in range(5):
            q = np.clip(chain.mid + rng.uniform(-1, 1, chain.n) * span, chain.lower,
                        chain.upper)
            u = rng.normal(size=3)
            paths.append((q, u / np.linalg.norm(u)))
        for bound in (None, TRACK_BOUND):
            key = method if bound is None else f'{method} bounded'
            out[key] = _track(chain, paths, method, kind, steps, bound)
    return out


def _track(chain, paths, method: str, kind: str, steps: int, bound) -> dict:
    """Run the tracking paths ((start q, unit direction) each) of one method and mode."""
    import ik_node
    worst, solved, total = 0.0, 0, 0
    for q, u in paths:
        T = chain.fk(q)
        for k in range(1, steps + 1):
            Tk = T.copy()
            Tk[:3, 3] += 1e-3 * k * u
            res = ik_node.solve(chain, Tk if kind == 'pose' else Tk[:3, 3], q0=q,
                                method=method, position_tolerance=TOL,
                                orientation_tolerance=TOL, max_joint_change=bound)
            total += 1
            if not res.success:
                # The path left the workspace (or a limit, or the seed's branch when
                # bounded): the next path starts.
                break
            solved += 1
            worst = max(worst, float(np.max(np.abs(res.q - q))))
            q = res.q
    return {'max_step': worst, 'solved': solved, 'solves': total}


def render(meta: dict, rows: list) -> str:
    """Return the markdown report."""
    lines = [f"# Precision benchmark {meta['date']}", '',
             f"Command: `{meta['command']}`", '',
             f"Tolerance {TOL:g} m / {TOL:g} rad for both solvers, judged by the benchmark's "
             'own FK; seed mid-range; ik_node dls with its defaults otherwise '
             f"(timeout {meta['ik_timeout_ms']:g} ms); TRAC-IK Speed, 5 ms, epsilon 1e-5. "
             f"Timing: {meta.get('protocol', 'interleaved')}. {meta['cpu']}.", '',
             '| arm | n | dls success | dls median / p95 ms | TRAC-IK success | '
             'TRAC-IK median / p95 ms | median ratio | p95 ratio |',
             '|---|---|---|---|---|---|---|---|']
    tot_ok = tot = 0
    for r in rows:
        tot_ok += round(r['ik_rate'] * r['targets'])
        tot += r['targets']
        lines.append(
            f"| {r['arm']} | {r['n']} | {100 * r['ik_rate']:.1f}% | "
            f"{r['ik_median_ms']:.3f} / {r['ik_p95_ms']:.3f} | {100 * r['trac_rate']:.1f}% | "
            f"{r['trac_median_ms']:.3f} / {r['trac_p95_ms']:.3f} | "
            f"{r['ik_median_ms'] / r['trac_median_ms']:.2f} | "
            f"{r['ik_p95_ms'] / r['trac_p95_ms']:.2f} |")
    lines += ['', f'dls overall: {tot_ok} / {tot} = {100 * tot_ok / max(tot, 1):.2f}%; false '
              f"successes: {sum(r['ik_false_successes'] for r in rows)}.", '',
              '## Unreachable targets (ik_node dls)', '',
              '| arm | targets (inside loose bound) | median / p95 ms | status counts |',
              '|---|---|---|---|']
    for r in rows:
        lines.append(f"| {r['arm']} | {r['unreachable_targets']} "
                     f"({r['unreachable_inside_bound']}) | {r['unreachable_median_ms']:.3f} / "
                     f"{r['unreachable_p95_ms']:.3f} | {r['unreachable_status']} |")
    under = [r for r in rows if 'under_targets' in r]
    if under:
        lines += ['', '## Arms with n < 6: reachable points, random orientations (ik_node dls)',
                  '', 'Success means the whole pose was met; the point alone counts as met '
                  f"within {TOL:g} m by the benchmark's FK.", '',
                  '| arm | n | targets | point met | success claimed | false claims | '
                  'median / p95 ms |', '|---|---|---|---|---|---|---|']
        for r in under:
            lines.append(f"| {r['arm']} | {r['n']} | {r['under_targets']} | "
                         f"{100 * r['under_point_rate']:.1f}% | "
                         f"{100 * r['under_claimed_rate']:.1f}% | {r['under_false_claims']} | "
                         f"{r['under_median_ms']:.3f} / {r['under_p95_ms']:.3f} |")
    if meta.get('tracking'):
        lines += ['', '## Tracking 1 mm steps (warm-started, 5 paths of up to 100 steps)', '',
                  'A path stops at its first failed step (it left the workspace, or with '
                  f"max_joint_change {TRACK_BOUND:g} rad: the seed's IK branch); the largest "
                  'joint step is over the solved steps.', '',
                  '| arm | dls (pose) max step / solved | dls, max_joint_change | '
                  'fabrik (position) | fabrik, max_joint_change | hybrid (pose) | '
                  'hybrid, max_joint_change |',
                  '|---|---|---|---|---|---|---|']
        for t in meta['tracking']:
            cells = [f"{t[m]['max_step']:.4f} rad / {t[m]['solved']} of {t[m]['solves']}"
                     for m in ('dls', 'dls bounded', 'fabrik', 'fabrik bounded', 'hybrid',
                               'hybrid bounded')]
            lines.append(f"| {t['arm']} | " + ' | '.join(cells) + ' |')
    return '\n'.join(lines) + '\n'


def main(argv=None) -> int:
    """Run every arm and write markdown and JSON results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument('--targets', type=int, default=None,
                    help='reachable targets per arm (0: tracking only; default 1000, 10,000 '
                         'with --trac-ik-protocol)')
    ap.add_argument('--arms', nargs='*', default=None)
    ap.add_argument('--tracking', action='store_true', help='also run the tracking paths')
    ap.add_argument('--interleave', action='store_true',
                    help='alternate the solvers target by target (see the module doc)')
    ap.add_argument('--trac-ik-protocol', action='store_true',
                    help="TRAC-IK's published protocol instead (see the module doc)")
    ap.add_argument('--out', default=None, help='markdown file (default <out-dir>/'
                    'precision_<date>_<time>.md, never overwritten)')
    add_common_arguments(ap)
    args = ap.parse_args(argv)
    if args.targets is None:
        args.targets = 10000 if args.trac_ik_protocol else 1000
    check_kernels(args)
    import ik_node
    arms = arm_files()
    if args.trac_ik_protocol:
        return _main_trac_protocol(args, arms, argv)
    names = args.arms or list(arms)
    rows = []
    t_all = time.perf_counter()
    for k, name in enumerate(names if args.targets > 0 else ()):
        urdf, base, tip, _ = arms[name]
        row = run_arm(name, urdf, base, tip, args.targets, args.interleave)
        rows.append(row)
        print(f'{name}: {eta_text(t_all, k + 1, len(names))}', file=sys.stderr, flush=True)
        print(f"{name}: dls {100 * row['ik_rate']:.1f}% {row['ik_median_ms']:.3f}/"
              f"{row['ik_p95_ms']:.3f} ms, trac {100 * row['trac_rate']:.1f}% "
              f"{row['trac_median_ms']:.3f}/{row['trac_p95_ms']:.3f} ms, unreachable "
              f"{row['unreachable_median_ms']:.3f}/{row['unreachable_p95_ms']:.3f} ms "
              f"{row['unreachable_status']}", file=sys.stderr, flush=True)
    tracking = []
    if args.tracking:
        for name in names:
            urdf, base, tip, _ = arms[name]
            tracking.append(run_tracking(name, urdf, base, tip))
            print(tracking[-1], file=sys.stderr, flush=True)
    cpu = ''
    try:
        cpu = f'load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores'
    except OSError:
        pass
    meta = {'date': datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC'),
            'command': ' '.join(['.venv-bench/bin/python', 'bench/bench_precision.py']
                                + (argv if argv is not None else sys.argv[1:])),
            'ik_timeout_ms': ik_node.SolveOptions().timeout * 1e3, 'cpu': cpu,
            'protocol': 'interleaved' if args.interleave else 'one loop per solver',
            'tracking': tracking}
    return _write_report(args, 'precision', datetime.now(timezone.utc), meta, rows,
                         render(meta, rows))


def _write_report(args, name: str, now: datetime, meta: dict, rows: list, text: str) -> int:
    """Write the report ``text`` and its JSON to a new file, print it, publish it if asked."""
    out = Path(args.out) if args.out else Path(args.out_dir) / (
        f"{name}_{now.strftime('%Y-%m-%d_%H%M')}.md")
    if out.exists():
        raise SystemExit(f'{out} exists; results are never overwritten')
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    out.with_suffix('.json').write_text(json.dumps({'meta': meta, 'rows': rows}, indent=1))
    print(text)
    if args.publish:
        print(f"published: {publish(name, text, command=meta['command'])}")
    return 0


def _main_trac_protocol(args, arms: dict, argv) -> int:
    """Run TRAC-IK's protocol on its arms (or ``--arms``); write the report."""
    rows = []
    names = args.arms or TRAC_IK_ARMS
    t_all = time.perf_counter()
    for k, name in enumerate(names):
        urdf, base, tip, _ = arms[name]
        rows.append(run_trac_protocol(name, urdf, base, tip, args.targets))
        r = rows[-1]
        print(f"{name}: ik_node {100 * r['ik_rate']:.2f}% {r['ik_median_ms']:.3f}/"
              f"{r['ik_p95_ms']:.3f} ms, trac_ik {100 * r['trac_rate']:.2f}% "
              f"{r['trac_median_ms']:.3f}/{r['trac_p95_ms']:.3f} ms "
              + eta_text(t_all, k + 1, len(names)), file=sys.stderr, flush=True)
    now = datetime.now(timezone.utc)
    meta = {'date': now.strftime('%Y-%m-%d %H:%M UTC'),
            'command': ' '.join(['.venv-bench/bin/python', 'bench/bench_precision.py']
                                + (argv if argv is not None else sys.argv[1:])),
            'cpu': f'load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores',
            'protocol': 'trac_ik'}
    return _write_report(args, 'precision_trac_ik', now, meta, rows,
                         render_trac_protocol(meta, rows))


if __name__ == '__main__':
    sys.exit(main())
