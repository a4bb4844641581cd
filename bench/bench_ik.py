# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
IK benchmark runner: ik_node's methods and the peer solvers on the same targets, one run.

One-shot solves: ``--targets`` (1000) reachable targets per robot, the tip poses of joint
vectors drawn uniformly within the limits (``numpy.random.default_rng(2026)``), every solver
seeded at mid-range. Target i is given to every solver in turn, the order rotated by one per
target, so machine noise hits all solvers alike. Success is judged afterwards with the
benchmark's own FK (:class:`robots.ReferenceChain`, independent of ik_node): position error
<= 1 mm, orientation error <= 0.01 rad (pose targets), every joint within its limits, and the
solver not reporting failure.

Tracking: a continuous path of ``--track-points`` (1000) poses 1 mm apart, made by FK of a
smooth joint trajectory resampled to equal tip arc length. Each update is seeded with the
previous accepted answer; the time per update, the success rate and the largest joint step
max_j |q_k - q_{k-1}| [rad] are reported.

The markdown report goes to stdout and to a new ``bench/out/ik_<date>_<machine>.md`` with the
raw figures in ``.json`` (``--publish``: also to the page ``bench/results/ik.md``); failed
targets (indices, joint samples, answers) go to ``--failures``. Progress
goes to stderr. Run ``python bench/bench_ik.py --help`` for the options.
"""

import argparse
import contextlib
import ctypes
from dataclasses import dataclass, field
import datetime
import gc
import importlib.metadata
import json
import math
import os
from pathlib import Path
import platform
import subprocess
import sys
import time
from typing import Callable

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from common import (add_common_arguments, check_kernels, eta_text,  # noqa: E402, I100
                    new_result_path, publish, scratch_dir)
import ik_node  # noqa: E402
from ik_node.errors import IKInputError  # noqa: E402
import peers as peers_mod  # noqa: E402
import robots  # noqa: E402
import targets  # noqa: E402

# Solver keys accepted by --solvers. Methods that ik_node.methods() lists beyond the
# Jacobian family (the FABRIK family) are added automatically under their own names.
BASE_SOLVERS = ('dls', 'pinv', 'jt', 'dls_jla_manip', 'dls_rest', 'trac_ik', 'rtb_lm', 'ikpy')
JACOBIAN_METHODS = ('dls', 'pinv', 'jt')
TRACKING_SOLVERS = ('dls', 'trac_ik', 'rtb_lm')
LIMIT_TOLERANCE = 1e-9           # [rad or m] a returned joint beyond its limit by more: violation
TRACK_STEP = 1e-3                # [m] tip distance between consecutive tracking targets
TRACK_STEP_LIMIT = 0.1           # [rad] largest acceptable joint step per tracking update
WARMUP_CALLS = 10
OBJECTIVE_WEIGHT = 1.0
# Targets must not come from the generator ik_node restarts from: with rng_seed 0 (its default)
# restart k starts at default_rng(0)'s k-th uniform joint sample, which would be target k - 2
# if the targets were drawn with seed 0 too, and hand every solver-with-restarts its answer.
TARGET_SEED = 2026
REST_SEED = 7                    # q_rest of RestPosture: one joint sample with this seed
WARMUP_SEED = 99
TRACK_SEED = 3


@dataclass
class Case:
    """
    One solver on one kind of target, with the raw records of a robot's run.

    ``call(target, seed) -> (q (n,) or None, claimed success or None, iterations or None)``.
    """

    key: str                     # --solvers key
    label: str
    kind: str                    # 'pose' or 'position'
    call: Callable
    limit: int                   # the case runs on targets [0, limit)
    settings: str
    is_ik_node: bool = False
    times: list = field(default_factory=list)
    cpu: list = field(default_factory=list)
    outputs: list = field(default_factory=list)


def _versions() -> dict:
    names = ('numpy', 'scipy', 'numba', 'pytracik', 'roboticstoolbox-python', 'ikpy',
             'example-robot-data', 'rtb-data')
    out = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = 'missing'
    return out


def _git_state() -> str:
    try:
        head = subprocess.run(['git', '-C', str(ROOT), 'rev-parse', '--short', 'HEAD'],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(['git', '-C', str(ROOT), 'status', '--porcelain', '--',
                                'ik_node'], capture_output=True, text=True,
                               check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return 'unknown'
    return head + (' + uncommitted changes in ik_node/' if dirty else '')


def _cpu_model() -> str:
    try:
        for line in Path('/proc/cpuinfo').read_text().splitlines():
            if line.startswith('model name'):
                return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or 'unknown'


def _cpu_pressure() -> str:
    """Return the kernel's CPU pressure (share of time tasks waited for a core), if known."""
    try:
        some = Path('/proc/pressure/cpu').read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return 'unknown'
    return ', '.join(f"{item.replace('=', ' ')}%" for item in some[1:3])


@contextlib.contextmanager
def _c_stdout_to_stderr():
    """Send what C/C++ code prints to stdout to stderr instead (KDL's loading notes)."""
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


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------
# Solver calls


def _ik_node_call(chain, method: str, options: dict) -> Callable:
    def call(target, seed):
        r = ik_node.solve(chain, target, q0=seed, method=method, **options)
        return r.q, r.success, r.iterations
    return call


def _trac_ik_call(peer) -> Callable:
    def call(target, seed):
        q = peer.solve(target, seed)
        return q, q is not None, None
    return call


def _rtb_call(peer, kind: str) -> Callable:
    # The adapter's own solve() hides the iteration count, so the same ik_LM call is made
    # here with the adapter's ETS, mask and options (see peers.RtbLmPeer.solve).
    ets, mask, options = peer._ets, peer._mask[kind], peer._options

    def call(target, seed):
        if kind == 'position':
            T = np.eye(4)
            T[:3, 3] = target
        else:
            T = np.ascontiguousarray(target)
        sol = ets.ik_LM(T, q0=np.array(seed, dtype=float), mask=mask, **options)
        return (np.array(sol.q) if sol.success else None), bool(sol.success), \
            int(sol.iterations)
    return call


def _ikpy_call(peer) -> Callable:
    def call(target, seed):
        return peer.solve(target, seed), None, None
    return call


def build_cases(spec, chain, ref, wanted: set, n: int, args) -> tuple:
    """Return ([Case], {solver: reason it is missing}, q_rest (n,)) for one robot."""
    cases, missing = [], {}
    q_rest = targets.sample_joints(ref.lower, ref.upper, 1, seed=REST_SEED)[0]
    jt_limit = min(n, args.jt_targets or n)
    methods = ik_node.methods()
    base = f'timeout {ik_node.SolveOptions().timeout * 1e3:g} ms, tolerances 1 mm / 0.01 rad'
    ordered = [m for m in JACOBIAN_METHODS if m in methods]
    ordered += [m for m in methods if m not in JACOBIAN_METHODS]
    for method in ordered:
        if method not in wanted:
            continue
        limit = jt_limit if method == 'jt' else n
        cases.append(Case(method, f'ik_node {method}', 'pose',
                          _ik_node_call(chain, method, {}), limit, base, True))
        if method not in ('pinv', 'jt'):
            cases.append(Case(method, f'ik_node {method}', 'position',
                              _ik_node_call(chain, method, {}), limit, base, True))
    if 'dls' in methods:
        w = OBJECTIVE_WEIGHT
        if 'dls_jla_manip' in wanted:
            objectives = (ik_node.JointLimitAvoidance(w), ik_node.Manipulability(w))
            cases.append(Case('dls_jla_manip', 'ik_node dls +JLA+manip', 'pose',
                              _ik_node_call(chain, 'dls', {'objectives': objectives}), n,
                              f'JointLimitAvoidance({w:g}) + Manipulability({w:g})', True))
        if 'dls_rest' in wanted:
            objectives = (ik_node.RestPosture(tuple(q_rest), w),)
            cases.append(Case('dls_rest', 'ik_node dls +rest', 'pose',
                              _ik_node_call(chain, 'dls', {'objectives': objectives}), n,
                              f'RestPosture(q_rest, {w:g}), q_rest a joint sample '
                              f'(seed {REST_SEED})', True))
    peer_names = [name for name in peers_mod.PEERS if name in wanted]
    with _c_stdout_to_stderr():
        made, missing = ({}, {}) if not peer_names else peers_mod.make_peers(
            spec.urdf, spec.base_link, spec.tip_link, peer_names)
    for name, peer in made.items():
        disagreement = peers_mod.fk_disagreement(peer, ref)
        if not disagreement < 1e-9:
            missing[name] = f'its FK disagrees with the reference by {disagreement:.3g}'
            continue
        settings = ', '.join(f'{k} {v}' for k, v in peer.settings.items())
        if name == 'trac_ik':
            cases.append(Case(name, 'TRAC-IK', 'pose', _trac_ik_call(peer), n, settings))
        elif name == 'rtb_lm':
            for kind in peer.modes:
                cases.append(Case(name, 'rtb ik_LM', kind, _rtb_call(peer, kind), n, settings))
        elif name == 'ikpy':
            for kind in peer.modes:
                cases.append(Case(name, 'ikpy', kind, _ikpy_call(peer),
                                  min(n, args.ikpy_targets), settings))
    return cases, missing, q_rest


# ----------------------------------------------------------------------------------------
# One-shot solves


def warm_up(cases: list, ref, notes: list) -> list:
    """Call every case on warm-up targets; drop (with a note) those that reject the kind."""
    _, poses = targets.sample_targets(ref.fk, ref.lower, ref.upper, WARMUP_CALLS,
                                      seed=WARMUP_SEED)
    kept = []
    for case in cases:
        try:
            for T in poses:
                case.call(T if case.kind == 'pose' else T[:3, 3], ref.mid.copy())
        except (IKInputError, ValueError) as error:
            notes.append(f'{case.label} ({case.kind}) dropped: {error}')
            continue
        kept.append(case)
    return kept


def check_restart_independence(chain, q_true: np.ndarray) -> float:
    """
    Return the distance from the targets' joint samples to ik_node's restart starts.

    ik_node draws restart starts with ``chain.random_q(default_rng(rng_seed))``; a target whose
    joint sample is one of them would be solved for free. Raises RuntimeError when any is
    closer than 1e-6.
    """
    defaults = ik_node.SolveOptions()
    if defaults.rng_seed is None:
        return math.inf
    rng = np.random.default_rng(defaults.rng_seed)
    starts = np.array([chain.random_q(rng) for _ in range(defaults.max_attempts)])
    gap = min(float(np.min(np.max(np.abs(starts - q), axis=1))) for q in q_true)
    if gap < 1e-6:
        raise RuntimeError('the targets coincide with ik_node restart starts; '
                           'choose another --seed')
    return gap


def run_one_shot(cases: list, poses: np.ndarray, seed: np.ndarray) -> None:
    """Solve every target with every case, interleaved, the order rotated per target."""
    positions = poses[:, :3, 3].copy()
    seed_copy = seed.copy()
    gc.collect()
    for i in range(len(poses)):
        k = i % len(cases)
        for case in cases[k:] + cases[:k]:
            if i >= case.limit:
                continue
            target = poses[i] if case.kind == 'pose' else positions[i]
            c0 = time.process_time()
            t0 = time.perf_counter()
            out = case.call(target, seed)
            t1 = time.perf_counter()
            case.cpu.append(time.process_time() - c0)
            case.times.append(t1 - t0)
            case.outputs.append(out)
    if not np.array_equal(seed, seed_copy):
        raise RuntimeError('a solver changed the seed array it was given')


def run_alone(case: Case, ref, poses: np.ndarray) -> dict:
    """
    Solve the targets again with this case alone, back to back; return its figures.

    TRAC-IK runs two threads per call, so on a shared 2-core machine its interleaved times
    also measure the other load. The back-to-back pass gives the ratio a conservative
    reference: the lower of the two medians is used.
    """
    times, solved = [], 0
    seed = ref.mid.copy()
    gc.collect()
    for T in poses:
        t0 = time.perf_counter()
        q, claimed, _ = case.call(T, seed)
        times.append(time.perf_counter() - t0)
        solved += targets.judge(ref, T, q, limit_tolerance=LIMIT_TOLERANCE)[0] and \
            claimed is not False
    ms = np.array(times) * 1e3
    return {'alone_median_ms': float(np.median(ms)), 'alone_p95_ms': float(np.percentile(ms, 95)),
            'alone_solved': int(solved)}


def _trac_reference(rows: list, robot: str):
    """Return TRAC-IK's reference median on a robot: the lower of interleaved and alone."""
    for r in rows:
        if r['robot'] == robot and r['solver'] == 'trac_ik':
            return min(r['median_ms'], r.get('alone_median_ms', math.inf))
    return None


def _out_of_limits(ref, q) -> bool:
    q = np.asarray(q, dtype=float)
    return bool(np.any(q < ref.lower - LIMIT_TOLERANCE) or np.any(q > ref.upper + LIMIT_TOLERANCE))


def _manipulability(chain, q) -> float:
    J = chain.jacobian(q)
    JJ = J @ J.T if J.shape[0] <= J.shape[1] else J.T @ J
    return float(math.sqrt(max(np.linalg.det(JJ), 0.0)))


def summarise(robot: str, case: Case, ref, chain, poses, q_true, q_rest, fail_log: dict) -> dict:
    """Judge a case's answers with the reference FK; return its row of figures."""
    n = len(case.times)
    ok = np.zeros(n, bool)
    false_ok = missed = violations = 0
    pos_err, ori_err, iters = [], [], []
    margins, manips, rest_dist = [], [], []
    failures = []
    span = np.where(np.isfinite(ref.upper - ref.lower), ref.upper - ref.lower, np.inf)
    for i, (q, claimed, it) in enumerate(case.outputs):
        target = poses[i] if case.kind == 'pose' else poses[i, :3, 3]
        fk_ok, dp, dr = targets.judge(ref, target, q, limit_tolerance=LIMIT_TOLERANCE)
        if q is not None and _out_of_limits(ref, q):
            violations += 1
        if claimed is True and not fk_ok:
            false_ok += 1
        if claimed is False and fk_ok:
            missed += 1
        ok[i] = fk_ok and claimed is not False
        if it is not None:
            iters.append(it)
        if ok[i]:
            pos_err.append(dp)
            if case.kind == 'pose':
                ori_err.append(dr)
            qa = np.asarray(q, dtype=float)
            margins.append(float(np.min(np.minimum(qa - ref.lower, ref.upper - qa) / span)))
            manips.append(_manipulability(chain, qa))
            rest_dist.append(float(np.linalg.norm(qa - q_rest)))
        else:
            failures.append({
                'index': i, 'q_sample': q_true[i].tolist(),
                'target': np.asarray(target).tolist(),
                'q_returned': None if q is None else np.asarray(q, dtype=float).tolist(),
                'claimed_success': claimed, 'position_error': dp, 'orientation_error': dr,
                'time_ms': case.times[i] * 1e3})
    ms = np.array(case.times) * 1e3
    row = {
        'robot': robot, 'solver': case.key, 'label': case.label, 'kind': case.kind, 'n': n,
        'solved': int(ok.sum()), 'solve_rate': float(ok.mean()) if n else math.nan,
        'median_ms': float(np.median(ms)), 'p95_ms': float(np.percentile(ms, 95)),
        'max_ms': float(ms.max()), 'mean_ms': float(ms.mean()),
        'median_cpu_ms': float(np.median(case.cpu) * 1e3),
        'mean_iterations': float(np.mean(iters)) if iters else None,
        'limit_violations': violations, 'false_success_claims': false_ok,
        'missed_successes': missed,
        'max_position_error_mm': float(np.max(pos_err) * 1e3) if pos_err else None,
        'max_orientation_error_rad': float(np.max(ori_err)) if ori_err else None,
        'mean_limit_margin': float(np.mean(margins)) if margins else None,
        'mean_manipulability': float(np.mean(manips)) if manips else None,
        'mean_rest_distance_rad': float(np.mean(rest_dist)) if rest_dist else None,
        'settings': case.settings,
    }
    key = f'{case.label} ({case.kind})'
    entry = {'failed_indices': [f['index'] for f in failures]}
    if case.is_ik_node:
        entry['failures'] = failures
        slowest = np.argsort(ms)[::-1][:10]
        entry['slowest'] = [{'index': int(i), 'time_ms': float(ms[i]), 'solved': bool(ok[i]),
                             'iterations': case.outputs[i][2],
                             'q_sample': q_true[i].tolist()} for i in slowest]
    fail_log.setdefault(robot, {})[key] = entry
    return row


# ----------------------------------------------------------------------------------------
# Tracking


def make_path(ref, n_points: int, step: float = TRACK_STEP, seed: int = TRACK_SEED) -> tuple:
    """
    Return (q_path (n_points, n), poses (n_points, 4, 4)): a smooth path, tip steps of step.

    The joint trajectory q(s) = c + a * sum_k b_k sin(2 pi f_k s + phi_k) (three harmonics,
    sum |b_k| = 1) stays within the limits; its tip path is sampled densely, and the points
    where the tip arc length is a multiple of ``step`` are mapped back to s and through FK.
    """
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(ref.lower), ref.lower, -np.pi)
    hi = np.where(np.isfinite(ref.upper), ref.upper, np.pi)
    center = 0.5 * (lo + hi) + rng.uniform(-0.15, 0.15, lo.size) * (hi - lo)
    amp = np.minimum(0.25 * (hi - lo), 0.8)
    freq = np.array([1.0, 2.0, 3.0])
    b = rng.dirichlet(np.ones(3), size=lo.size) * rng.choice([-1.0, 1.0], (lo.size, 3))
    phase = rng.uniform(0.0, 2.0 * np.pi, (lo.size, 3))

    def q_of(s: np.ndarray) -> np.ndarray:
        waves = np.sin(2.0 * np.pi * freq[None, None, :] * s[:, None, None] + phase[None])
        return center + amp * np.sum(b[None] * waves, axis=2)

    length_needed = (n_points - 1) * step
    s_max = 1.0
    while True:
        s = np.linspace(0.0, s_max, int(4000 * s_max) + 1)
        tips = np.array([ref.fk(q)[:3, 3] for q in q_of(s)])
        arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(tips, axis=0), axis=1))])
        if arc[-1] >= length_needed:
            break
        s_max *= 2.0
    s_k = np.interp(np.arange(n_points) * step, arc, s)
    q_path = q_of(s_k)
    return q_path, np.array([ref.fk(q) for q in q_path])


def run_tracking(cases: list, ref, q_path: np.ndarray, path: np.ndarray) -> list:
    """Follow the path with each case, seeded with its previous accepted answer."""
    state = {id(c): q_path[0].copy() for c in cases}
    records = {id(c): {'times': [], 'ok': [], 'steps': [], 'outliers': [], 'iterations': []}
               for c in cases}
    gc.collect()
    for k in range(len(path)):
        j = k % len(cases)
        for case in cases[j:] + cases[:j]:
            q_prev = state[id(case)]
            t0 = time.perf_counter()
            q, claimed, it = case.call(path[k], q_prev)
            dt = time.perf_counter() - t0
            rec = records[id(case)]
            rec['times'].append(dt)
            if it is not None:
                rec['iterations'].append(it)
            fk_ok = targets.judge(ref, path[k], q, limit_tolerance=LIMIT_TOLERANCE)[0]
            rec['ok'].append(fk_ok and claimed is not False)
            if q is not None and claimed is not False:
                q = np.asarray(q, dtype=float)
                step = float(np.max(np.abs(q - q_prev)))
                rec['steps'].append(step)
                if step > TRACK_STEP_LIMIT:
                    rec['outliers'].append({'k': k, 'step_rad': step, 'q_prev': q_prev.tolist(),
                                            'q': q.tolist(), 'q_path': q_path[k].tolist()})
                state[id(case)] = q
    ref_steps = np.max(np.abs(np.diff(q_path, axis=0)), axis=1)
    tip_steps = np.linalg.norm(np.diff(path[:, :3, 3], axis=0), axis=1)
    rot_steps = [targets.pose_error(a, b)[1] for a, b in zip(path[:-1], path[1:])]
    rows = []
    for case in cases:
        rec = records[id(case)]
        ms = np.array(rec['times']) * 1e3
        steps = np.array(rec['steps']) if rec['steps'] else np.array([math.nan])
        rows.append({
            'solver': case.key, 'label': case.label, 'n': len(path),
            'success_rate': float(np.mean(rec['ok'])), 'solved': int(np.sum(rec['ok'])),
            'median_ms': float(np.median(ms)), 'p95_ms': float(np.percentile(ms, 95)),
            'max_ms': float(ms.max()),
            'mean_iterations': float(np.mean(rec['iterations'])) if rec['iterations'] else None,
            'max_joint_step_rad': float(np.nanmax(steps)),
            'steps_over_limit': len(rec['outliers']),
            'path_max_joint_step_rad': float(ref_steps.max()),
            'path_tip_step_mm': [float(tip_steps.min() * 1e3), float(tip_steps.max() * 1e3)],
            'path_max_rotation_step_rad': float(np.max(rot_steps)),
            'failed_updates': [k for k, ok in enumerate(rec['ok']) if not ok],
            'step_outliers': rec['outliers'][:20],
        })
    return rows


# ----------------------------------------------------------------------------------------
# Report


def _fmt(value, spec: str = '.3f', empty: str = '—') -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return empty
    return format(value, spec)


def _rate(solved: int, n: int) -> str:
    return f'{100.0 * solved / n:.2f}%' if n else '—'


def criteria(rows: list, tracking: dict) -> list:
    """Check the issue's targets on Panda, UR5 and iiwa: [(robot, criterion, value, met)]."""
    out = []

    def find(robot, solver, kind):
        for r in rows:
            if r['robot'] == robot and r['solver'] == solver and r['kind'] == kind:
                return r
        return None

    for robot in robots.ROBOT_NAMES:
        pose, pos = find(robot, 'dls', 'pose'), find(robot, 'dls', 'position')
        trac = find(robot, 'trac_ik', 'pose')
        if pose:
            out.append((robot, 'dls pose solve rate >= 99.9%',
                        _rate(pose['solved'], pose['n']), pose['solve_rate'] >= 0.999))
            out.append((robot, 'dls pose median <= 0.3 ms', f"{pose['median_ms']:.3f} ms",
                        pose['median_ms'] <= 0.3))
            if trac:
                ratio = pose['median_ms'] / trac['median_ms']
                reference = _trac_reference(rows, robot)
                conservative = pose['median_ms'] / reference
                out.append((robot, 'dls pose median / TRAC-IK median <= 0.7',
                            f'{ratio:.2f} interleaved; {conservative:.2f} against the lower '
                            f'TRAC-IK median ({reference:.3f} ms)', conservative <= 0.7))
            out.append((robot, 'dls pose p95 <= 3 ms', f"{pose['p95_ms']:.3f} ms",
                        pose['p95_ms'] <= 3.0))
        if pos:
            out.append((robot, 'dls position solve rate >= 99.9%',
                        _rate(pos['solved'], pos['n']), pos['solve_rate'] >= 0.999))
            out.append((robot, 'dls position median <= 0.15 ms', f"{pos['median_ms']:.3f} ms",
                        pos['median_ms'] <= 0.15))
        for t in tracking.get(robot, []):
            if t['solver'] == 'dls':
                out.append((robot, 'tracking median <= 0.1 ms per update',
                            f"{t['median_ms']:.3f} ms (p95 {t['p95_ms']:.3f})",
                            t['median_ms'] <= 0.1))
                out.append((robot, 'tracking: no joint step > 0.1 rad',
                            f"max {t['max_joint_step_rad']:.4f} rad",
                            t['max_joint_step_rad'] <= TRACK_STEP_LIMIT))
                out.append((robot, 'tracking success rate', _rate(t['solved'], t['n']),
                            t['solved'] == t['n']))
    ik_rows = [r for r in rows if r['label'].startswith('ik_node')]
    if ik_rows:
        total = sum(r['limit_violations'] for r in ik_rows)
        out.append(('all', 'ik_node limit violations = 0', str(total), total == 0))
    return out


def render(meta: dict, robot_info: list, rows: list, tracking: dict, checks: list) -> str:
    """Return the markdown report."""
    lines = [f"# IK benchmark, {meta['date']}", '']
    lines += [f"- Command: `{meta['command']}`",
              f"- Machine: {meta['cpu']}, {meta['cores']} cores, load average "
              f"{meta['load_start']} at start, {meta['load_end']} at end; CPU pressure "
              f"(/proc/pressure/cpu some) {meta['cpu_pressure_start']} at start, "
              f"{meta['cpu_pressure_end']} at end",
              f"- Environment: OPENBLAS_CORETYPE={meta['openblas_coretype']} (left as found)",
              f"- Python {meta['python']}; ik_node {meta['ik_node_git']}; "
              + ', '.join(f'{k} {v}' for k, v in meta['versions'].items()),
              f"- ik_node methods: {', '.join(meta['methods'])}; options: library defaults "
              f"({meta['ik_node_defaults']})",
              f"- Targets: {meta['targets']} per robot (joint samples, seed {meta['seed']}), seed "
              f"configuration mid-range; ikpy on the first {meta['ikpy_targets']}, jt on the "
              f"first {meta['jt_targets']}. Solvers interleaved per target, order rotated.",
              "- Success judged by the benchmark's ReferenceChain FK (urdf_parser_py, "
              'independent of ik_node): position <= 1 mm, orientation <= 0.01 rad, joints '
              f'within limits (+{LIMIT_TOLERANCE:g}), and no failure reported by the solver.',
              f"- Wall time {meta['wall_s']:.0f} s."]
    for note in meta['notes']:
        lines.append(f'- Note: {note}')
    lines += ['', '## Robots', '',
              '| robot | dof | source | base -> tip | ik_node FK vs reference (max abs) |',
              '|---|---|---|---|---|']
    for r in robot_info:
        lines.append(f"| {r['robot']} | {r['dof']} | {r['source']} | {r['base_link']} -> "
                     f"{r['tip_link']} | {r['fk_disagreement']:.1e} |")
    lines += ['', '## One-shot solves', '',
              '| robot | solver | target | n | solve rate | fails | median ms | p95 ms | '
              'max ms | median / TRAC-IK | CPU ms | mean iter | limit viol. | false ok |',
              '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    for r in rows:
        trac = next((t for t in rows if t['robot'] == r['robot'] and t['solver'] == 'trac_ik'),
                    None)
        ratio = r['median_ms'] / trac['median_ms'] if trac and r['kind'] == 'pose' else None
        lines.append(
            f"| {r['robot']} | {r['label']} | {r['kind']} | {r['n']} | "
            f"{_rate(r['solved'], r['n'])} | {r['n'] - r['solved']} | {r['median_ms']:.3f} | "
            f"{r['p95_ms']:.3f} | {r['max_ms']:.2f} | {_fmt(ratio, '.2f')} | "
            f"{r['median_cpu_ms']:.3f} | {_fmt(r['mean_iterations'], '.1f')} | "
            f"{r['limit_violations']} | "
            f"{r['false_success_claims']} |")
    alone = [r for r in rows if 'alone_median_ms' in r]
    if alone:
        lines.append('')
        for r in alone:
            lines.append(f"- {r['robot']}: TRAC-IK alone (the same targets again, back to back, "
                         f"after the interleaved pass): median {r['alone_median_ms']:.3f} ms, "
                         f"p95 {r['alone_p95_ms']:.3f} ms, solved "
                         f"{_rate(r['alone_solved'], r['n'])}.")
    lines += ['', '## Null-space objectives (pose targets, means over solved targets)', '',
              '| robot | solver | solve rate | median ms | median / plain dls | p95 ms | '
              'limit margin | manipulability | distance to q_rest [rad] |',
              '|---|---|---|---|---|---|---|---|---|']
    for r in rows:
        if r['kind'] != 'pose' or r['solver'] not in ('dls', 'dls_jla_manip', 'dls_rest',
                                                      'trac_ik', 'rtb_lm'):
            continue
        plain = next((t for t in rows if t['robot'] == r['robot'] and t['solver'] == 'dls'
                      and t['kind'] == 'pose'), None)
        ratio = r['median_ms'] / plain['median_ms'] if plain else None
        lines.append(
            f"| {r['robot']} | {r['label']} | {_rate(r['solved'], r['n'])} | "
            f"{r['median_ms']:.3f} | {_fmt(ratio, '.2f')} | {r['p95_ms']:.3f} | "
            f"{_fmt(r['mean_limit_margin'])} | {_fmt(r['mean_manipulability'], '.4f')} | "
            f"{_fmt(r['mean_rest_distance_rad'], '.2f')} |")
    if tracking:
        lines += ['', '## Tracking (pose path, 1 mm steps, seeded with the previous answer)', '',
                  '| robot | solver | updates | success | median ms | p95 ms | max ms | '
                  'mean iter | max joint step [rad] | steps > 0.1 rad |',
                  '|---|---|---|---|---|---|---|---|---|---|']
        for robot, trows in tracking.items():
            for t in trows:
                lines.append(
                    f"| {robot} | {t['label']} | {t['n']} | {_rate(t['solved'], t['n'])} | "
                    f"{t['median_ms']:.3f} | {t['p95_ms']:.3f} | {t['max_ms']:.2f} | "
                    f"{_fmt(t['mean_iterations'], '.1f')} | "
                    f"{_fmt(t['max_joint_step_rad'], '.4f')} | {t['steps_over_limit']} |")
        lines.append('')
        for robot, trows in tracking.items():
            t = trows[0]
            lines.append(f"- {robot} path: tip steps {t['path_tip_step_mm'][0]:.3f}-"
                         f"{t['path_tip_step_mm'][1]:.3f} mm, largest rotation step "
                         f"{t['path_max_rotation_step_rad']:.4f} rad, largest joint step of "
                         f"the generating trajectory {t['path_max_joint_step_rad']:.4f} rad.")
    if checks:
        lines += ['', '## Targets from the issue (ik_node dls, library defaults)', '',
                  '| robot | criterion | value | met |', '|---|---|---|---|']
        for robot, name, value, met in checks:
            lines.append(f"| {robot} | {name} | {value} | {'yes' if met else '**no**'} |")
    lines += ['', '## Columns', '',
              '- solve rate: share of targets whose answer passes the FK check; fails: their '
              'count.',
              '- median / p95 / max ms: wall time of one solve call (perf_counter), the '
              "adapter's conversions included.",
              "- median / TRAC-IK: the median divided by TRAC-IK's median on the same robot "
              '(pose rows only; TRAC-IK takes no position targets).',
              '- CPU ms: median process CPU time of a call (all threads; TRAC-IK runs two).',
              '- mean iter: iterations per call over all attempts (ik_node, rtb); not exposed by '
              'TRAC-IK or ikpy.',
              f'- limit viol.: returned joint vectors (failed ones included) outside the limits '
              f'by more than {LIMIT_TOLERANCE:g}.',
              '- false ok: the solver reported success but the FK check failed.',
              '- limit margin: min over joints of the distance to the nearer limit divided by '
              'the range (0.5 = every joint at mid-range); manipulability: sqrt(det(J J^T)) '
              '(ik_node Jacobian).']
    return '\n'.join(lines) + '\n'


# ----------------------------------------------------------------------------------------


def parse_args(argv=None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true',
                        help='100 targets and a 200-point tracking path (smoke run)')
    parser.add_argument('--targets', type=int, default=1000, help='targets per robot')
    parser.add_argument('--seed', type=int, default=TARGET_SEED,
                        help='seed of the target joint samples (not 0: see TARGET_SEED)')
    parser.add_argument('--robots', default=None,
                        help='comma-separated robots (default: panda,ur5,iiwa14 and the '
                             'bundled config/urdf arms)')
    parser.add_argument('--solvers', default=None,
                        help='comma-separated solvers: ' + ','.join(BASE_SOLVERS)
                             + ' and any further ik_node method (default: all)')
    parser.add_argument('--ikpy-targets', type=int, default=200,
                        help='ikpy runs on the first N targets only (it is slow)')
    parser.add_argument('--jt-targets', type=int, default=0,
                        help='ik_node jt on the first N targets only (0: all)')
    parser.add_argument('--track-points', type=int, default=1000,
                        help='points of the tracking path (0: no tracking)')
    parser.add_argument('--out', default=None,
                        help='report path without extension (default: a new '
                             'bench/out/ik[_quick]_<date>_<machine>)')
    parser.add_argument('--failures', default=None,
                        help='where failed and slowest targets are saved (default: in '
                             'bench/out/scratch/)')
    add_common_arguments(parser)
    args = parser.parse_args(argv)
    check_kernels(args)
    if args.quick:
        args.targets = min(args.targets, 100)
        args.track_points = min(args.track_points, 200)
    return args


def main(argv=None) -> int:
    """Run the benchmark and write the report; return the exit status."""
    args = parse_args(argv)
    wall0 = time.perf_counter()
    load_start = ' '.join(f'{x:.2f}' for x in os.getloadavg())
    pressure_start = _cpu_pressure()
    git_state = _git_state()     # before the run: others may commit while it runs
    all_specs = dict.fromkeys(robots.ROBOT_NAMES)
    all_specs.update({s.name: s for s in robots.bundled_robots()})
    names = args.robots.split(',') if args.robots else list(all_specs)
    methods = ik_node.methods()
    known = list(BASE_SOLVERS) + [m for m in methods if m not in BASE_SOLVERS]
    wanted = set(args.solvers.split(',')) if args.solvers else set(known)
    unknown = wanted - set(known)
    if unknown:
        raise SystemExit(f'unknown solver(s) {sorted(unknown)}; known: {known}')
    bad = [n for n in names if n not in all_specs]
    if bad:
        raise SystemExit(f'unknown robot(s) {bad}; known: {list(all_specs)}')

    notes, robot_info, rows, tracking, fail_log = [], [], [], {}, {}
    t_all = time.perf_counter()
    for k, name in enumerate(names):
        spec = all_specs[name] or robots.get_robot(name)
        ref = robots.ReferenceChain(spec.urdf, spec.base_link, spec.tip_link)
        chain = ik_node.Chain.from_urdf(spec.urdf, spec.base_link, spec.tip_link)
        q_true, poses = targets.sample_targets(ref.fk, ref.lower, ref.upper, args.targets,
                                               args.seed)
        check_restart_independence(chain, q_true)
        fk_gap = max(float(np.abs(chain.fk(q) - T).max()) for q, T in zip(q_true, poses))
        robot_info.append({'robot': name, 'dof': ref.n, 'source': spec.source,
                           'base_link': spec.base_link, 'tip_link': spec.tip_link,
                           'fk_disagreement': fk_gap})
        cases, missing, q_rest = build_cases(spec, chain, ref, wanted, args.targets, args)
        for peer, reason in missing.items():
            notes.append(f'{name}: {peer} not run ({reason})')
        cases = warm_up(cases, ref, notes)
        _progress(f'{name}: {len(cases)} cases x {args.targets} targets')
        t0 = time.perf_counter()
        run_one_shot(cases, poses, ref.mid.copy())
        _progress(f'{name}: one-shot done in {time.perf_counter() - t0:.1f} s')
        for case in cases:
            rows.append(summarise(name, case, ref, chain, poses, q_true, q_rest, fail_log))
        for case, row in zip(cases, rows[-len(cases):]):
            if case.key == 'trac_ik':
                row.update(run_alone(case, ref, poses))
        track_cases = [c for c in cases if c.key in TRACKING_SOLVERS and c.kind == 'pose']
        if args.track_points > 1 and track_cases:
            t0 = time.perf_counter()
            q_path, path = make_path(ref, args.track_points)
            tracking[name] = run_tracking(track_cases, ref, q_path, path)
            fail_log[name]['tracking'] = {t['label']: {
                'failed_updates': t['failed_updates'], 'step_outliers': t['step_outliers']}
                for t in tracking[name]}
            _progress(f'{name}: tracking done in {time.perf_counter() - t0:.1f} s')
        _progress(f'{name}: done {eta_text(t_all, k + 1, len(names))}')

    date = datetime.date.today().isoformat()
    filtered = (args.quick or args.robots or args.solvers or args.targets != 1000
                or args.seed != TARGET_SEED)
    meta = {
        'date': date, 'command': ' '.join([Path(sys.executable).name] + sys.argv),
        'cpu': _cpu_model(), 'cores': os.cpu_count(), 'load_start': load_start,
        'load_end': ' '.join(f'{x:.2f}' for x in os.getloadavg()),
        'cpu_pressure_start': pressure_start, 'cpu_pressure_end': _cpu_pressure(),
        'openblas_coretype': os.environ.get('OPENBLAS_CORETYPE', '(unset)'),
        'python': platform.python_version(), 'ik_node_git': git_state,
        'versions': _versions(), 'methods': list(methods),
        'ik_node_defaults': ', '.join(f'{k} {getattr(ik_node.SolveOptions(), k)}' for k in (
            'timeout', 'max_iterations', 'max_attempts', 'restarts', 'rng_seed')),
        'targets': args.targets, 'seed': args.seed,
        'ikpy_targets': min(args.ikpy_targets, args.targets),
        'jt_targets': min(args.jt_targets or args.targets, args.targets),
        'notes': notes, 'wall_s': time.perf_counter() - wall0,
    }
    checks = criteria(rows, tracking)
    report = render(meta, robot_info, rows, tracking, checks)
    print(report)
    out = Path(args.out) if args.out else new_result_path(
        'ik_quick' if filtered else 'ik', 'md', args.out_dir).with_suffix('')
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix('.md').write_text(report)
    payload = {'meta': meta, 'robots': robot_info, 'one_shot': rows, 'tracking': tracking,
               'criteria': [{'robot': r, 'criterion': c, 'value': v, 'met': m}
                            for r, c, v, m in checks]}
    for trows in tracking.values():
        for t in trows:
            t.pop('step_outliers', None)
    out.with_suffix('.json').write_text(json.dumps(payload, indent=1))
    failures_path = (Path(args.failures) if args.failures
                     else scratch_dir('ik_failures', args.out_dir) / 'bench_failures.json')
    failures_path.parent.mkdir(parents=True, exist_ok=True)
    failures_path.write_text(json.dumps({'meta': {'date': date, 'targets': args.targets,
                                                  'command': meta['command']},
                                         'robots': fail_log}, indent=1))
    _progress(f'wrote {out.with_suffix(".md")}, {out.with_suffix(".json")}, {failures_path}')
    if args.publish:
        _progress(f"published {publish('ik', report, commit=git_state)}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
