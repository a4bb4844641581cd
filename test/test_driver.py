# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The restart driver, over every method: honest success, status, tracking, free joints."""

import json
import math
import re
import subprocess
import sys

from conftest import load, URDF_DIR
from ik_node import Chain, HalfSpace, IKInputError, methods, pose_error, solve, warm_up
from ik_node._jit import JIT_ENABLED
from ik_node.options import (DEFAULT_ORIENTATION_TOLERANCE, DEFAULT_POSITION_TOLERANCE,
                             SolveOptions)
from ik_node.result import (STATUS_NOT_CONVERGED, STATUS_OUT_OF_REACH, STATUS_REACHED,
                            STATUS_TOO_FAR)
from ik_node.solvers.joint_wrap import wrap_continuous
from ik_node.solvers.stretched_reach import stretched_reach
from ik_node.solvers.table import METHODS
import numpy as np
import pytest

# Methods that must meet a pose / a position in 1e-5 m within the default budget.
POSE_METHODS = ('dls', 'pinv', 'hybrid')


def fk_errors(chain, target, q):
    """Return (position, orientation) errors of q by the chain's FK (orientation 0 for points)."""
    T = chain.fk(q)
    if np.shape(target) == (3,):
        return float(np.linalg.norm(T[:3, 3] - target)), 0.0
    return pose_error(target, T)


@pytest.mark.parametrize('method', sorted(methods()))
def test_a_method_claims_success_only_for_the_q_it_returns(method):
    """Property: success == (FK of the returned q meets both tolerances), on every arm."""
    rng = np.random.default_rng(7)
    tol_p, tol_o = 1e-4, 1e-3
    for name in ('planar3', 'arm4', 'prismatic', 'continuous', 'mimic', 'panda', 'ur5'):
        chain = load(name)
        for k in range(6):
            T = chain.fk(chain.random_q(rng))
            if k % 3 == 2:
                T[:3, 3] *= 1.3       # some targets may be out of reach
            target = T[:3, 3] if k % 2 else T
            res = solve(chain, target, q0=chain.random_q(rng), method=method,
                        position_tolerance=tol_p, orientation_tolerance=tol_o, timeout=0.01)
            pe, oe = fk_errors(chain, target, res.q)
            assert chain.within_limits(res.q, tol=0.0)
            assert res.success == (pe <= tol_p and oe <= tol_o), (name, method, res)
            assert res.position_error == pytest.approx(pe, abs=1e-12)
            assert (res.status == STATUS_REACHED) == res.success


def test_status_tells_out_of_reach_from_not_converged():
    chain = load('planar2')                      # links 1.0 and 0.8: reach 1.8 m
    far = solve(chain, [3.0, 1.0, 0.0])          # beyond the reach bound
    assert far.status == STATUS_OUT_OF_REACH and not far.success
    tip = chain.fk(far.q)[:3, 3]
    np.testing.assert_allclose(tip, 1.8 * np.array([3.0, 1.0, 0.0]) / math.sqrt(10.0),
                               atol=1e-4)
    starved = solve(load('panda'), load('panda').fk(load('panda').random_q(
        np.random.default_rng(3))), max_iterations=1, restarts=False)
    assert starved.status == STATUS_NOT_CONVERGED and not starved.success


@pytest.mark.parametrize('kind', ['position', 'pose'])
def test_unreachable_inside_the_loose_bound_is_answered_fast_and_stretched(kind):
    """UR5: targets at 1.05x its true reach, which its reach bound cannot rule out."""
    chain = load('ur5')
    rng = np.random.default_rng(4)
    poses = [chain.fk(chain.random_q(rng)) for _ in range(2000)]
    o = chain.reach_origin
    reach = max(np.linalg.norm(T[:3, 3] - o) for T in poses)
    assert 1.05 * reach < chain.reach
    warm_up(chain, ['dls'])       # the first call in a process loads the compiled kernels
    attempts = []
    for T in poses[:10]:
        U = T.copy()
        U[:3, 3] = o + 1.05 * reach * (T[:3, 3] - o) / np.linalg.norm(T[:3, 3] - o)
        target = U if kind == 'pose' else U[:3, 3]
        res = solve(chain, target, timeout=1.0)
        attempts.append(res.attempts)
        assert res.status == STATUS_OUT_OF_REACH and not res.success, res
        # The best stretched attempt: as close as the arm gets, within 2% of its reach.
        assert res.position_error <= 0.07 * reach
    # Answered after a few attempts, not at the end of the budget (wall time is measured by
    # bench/bench_precision.py: a test on a shared machine judges the work, not the clock).
    assert np.median(attempts) <= 30 and max(attempts) <= 100     # of 200 allowed


def test_an_attempt_that_only_crawls_toward_an_unreachable_target_stops():
    """Panda, poses 10% beyond its stretched reach: 3 attempts of up to 100 iterations each."""
    chain = load('panda')
    rng = np.random.default_rng(3)
    iterations = []
    for _ in range(20):
        T = chain.fk(chain.random_q(rng))
        d = T[:3, 3] - chain.reach_origin
        T[:3, 3] = chain.reach_origin + d / np.linalg.norm(d) * 1.1 * stretched_reach(chain)
        res = solve(chain, T)
        assert res.status == STATUS_OUT_OF_REACH and res.attempts == 3
        iterations.append(res.iterations)
    # Stretching toward the target slows to micrometres per step long before 100 iterations:
    # the attempts stop there (they went on to the cap before: median 167 of 300).
    assert np.median(iterations) <= 140, sorted(iterations)


@pytest.mark.parametrize('method, kind', [('dls', 'pose'), ('fabrik', 'position'),
                                          ('hybrid', 'pose')])
@pytest.mark.parametrize('name', ['panda', 'ur5'])
def test_tracking_1mm_steps_moves_no_joint_more_than_0_05_rad(method, kind, name):
    chain = load(name)
    rng = np.random.default_rng(11)
    q = np.clip(chain.mid + rng.uniform(-0.5, 0.5, chain.n), chain.lower, chain.upper)
    T = chain.fk(q)
    direction = rng.normal(size=3)
    direction /= np.linalg.norm(direction)
    worst = 0.0
    for k in range(1, 80):
        Tk = T.copy()
        Tk[:3, 3] += 1e-3 * k * direction
        res = solve(chain, Tk if kind == 'pose' else Tk[:3, 3], q0=q, method=method)
        assert res.success, (k, res)
        worst = max(worst, float(np.max(np.abs(res.q - q))))
        q = res.q
    assert worst <= 0.05


@pytest.mark.parametrize('method', sorted(methods()))
def test_joints_the_task_does_not_constrain_stay_at_the_seed(method):
    """UR5 tool0 lies on the wrist_3 axis: a position target leaves wrist_3 free."""
    chain = load('ur5')
    rng = np.random.default_rng(5)
    moved = 0
    for _ in range(8):
        q0 = chain.random_q(rng) * 0.5
        target = chain.fk(chain.random_q(rng) * 0.5)[:3, 3]
        res = solve(chain, target, q0=q0, method=method, position_tolerance=1e-4)
        if res.success:
            moved += abs(res.q[5] - q0[5]) > 1e-9
    assert moved == 0


def _scaled_urdf(path, factor: float) -> str:
    def scale(m):
        xyz = [float(v) * factor for v in m.group(1).split()]
        return 'xyz="' + ' '.join(repr(v) for v in xyz) + '"'
    return re.sub(r'xyz="([^"]*)"', scale, path.read_text())


def test_a_scaled_up_arm_takes_the_same_iterations():
    """Scale-free damping and stopping: a UR5 four times larger solves alike."""
    small = load('ur5')
    big = Chain.from_urdf(_scaled_urdf(URDF_DIR / 'ur5.urdf', 4.0), 'base_link', 'tool0')
    rng = np.random.default_rng(2)
    same = 0
    for _ in range(20):
        q = small.random_q(rng)
        T = small.fk(q)
        Tb = T.copy()
        Tb[:3, 3] *= 4.0
        # Budgets in attempts, not time: the comparison must not depend on the machine's load.
        a = solve(small, T, position_tolerance=1e-5, orientation_tolerance=1e-5, timeout=10.0)
        b = solve(big, Tb, position_tolerance=4e-5, orientation_tolerance=1e-5, timeout=10.0)
        assert a.success and b.success
        same += a.iterations == b.iterations and a.attempts == b.attempts
    assert same >= 19


@pytest.mark.parametrize('method', ['fabrik', 'ccd'])
def test_tracking_a_joint_with_a_tiny_lever_does_not_swing(method, tmp_path):
    """
    Property: 1 mm position steps move no joint more than 0.05 rad.

    UR5 with its tool 0.2 mm off the wrist_3 axis (as a KR 210's or a PUMA's tool frame):
    wrist_3 barely moves the point, and aligning through it alone would swing it by up to π
    per step.
    """
    text = (URDF_DIR / 'ur5.urdf').read_text()
    fixed = re.search(r'<joint name="tool0_fixed_joint".*?</joint>', text, re.S).group(0)
    moved = re.sub(r'<origin[^>]*/>', '<origin xyz="0.0002 0 0.05" rpy="0 0 0"/>', fixed)
    path = tmp_path / 'ur5_offset_tool.urdf'
    path.write_text(text.replace(fixed, moved))
    chain = Chain.from_urdf(path, 'base_link', 'tool0')
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(3):
        q = np.clip(chain.mid + rng.uniform(-0.6, 0.6, chain.n), chain.lower, chain.upper)
        p = chain.fk(q)[:3, 3]
        direction = rng.normal(size=3)
        direction /= np.linalg.norm(direction)
        for k in range(1, 30):
            res = solve(chain, p + 1e-3 * k * direction, q0=q, method=method)
            assert res.success, (k, res)
            worst = max(worst, float(np.max(np.abs(res.q - q))))
            q = res.q
    assert worst <= 0.05


def _ur5_branch_end():
    """
    Return (chain, seed, target): a 1 mm step the seed's branch cannot take.

    A straight 1 mm-step path (seed 2026, as bench/bench_precision.py draws it) straightens
    the test UR5's elbow until, at the 7th step, the target is just beyond what the seed's
    branch reaches: the nearest answer lies on another branch, with the wrist turned ~2.8 rad.
    """
    chain = load('ur5')
    rng = np.random.default_rng(2026)
    span = 0.25 * (chain.upper - chain.lower)
    q = np.clip(chain.mid + rng.uniform(-1, 1, chain.n) * span, chain.lower, chain.upper)
    T = chain.fk(q)
    u = rng.normal(size=3)
    u /= np.linalg.norm(u)
    for k in range(1, 7):
        Tk = T.copy()
        Tk[:3, 3] += 1e-3 * k * u
        q = solve(chain, Tk, q0=q, position_tolerance=1e-5, orientation_tolerance=1e-5).q
    T[:3, 3] += 7e-3 * u
    return chain, q, T


def test_max_joint_change_holds_every_answer_near_the_seed():
    chain, q, T = _ur5_branch_end()
    tol = {'position_tolerance': 1e-5, 'orientation_tolerance': 1e-5}
    free = solve(chain, T, q0=q, **tol)
    assert free.success and np.max(np.abs(free.q - q)) > 1.0      # the swing it prevents
    held = solve(chain, T, q0=q, max_joint_change=0.05, **tol)
    assert not held.success and held.status == STATUS_TOO_FAR
    assert np.max(np.abs(held.q - q)) <= 0.05 + 1e-12 and chain.within_limits(held.q)
    assert 'max_joint_change 0.05' in held.message
    # The best attempt within the bound is close: the arm follows as far as its branch goes.
    assert held.position_error < 1e-3
    # A step the branch can take (back along the path) is answered as without the bound.
    Tn = chain.fk(q)
    Tn[:3, 3] -= 1e-3 * (T[:3, 3] - Tn[:3, 3]) / np.linalg.norm(T[:3, 3] - Tn[:3, 3])
    a = solve(chain, Tn, q0=q, max_joint_change=0.05, **tol)
    b = solve(chain, Tn, q0=q, **tol)
    assert a.success and np.array_equal(a.q, b.q)


@pytest.mark.parametrize('method', sorted(methods()))
def test_max_joint_change_bounds_every_method_and_outcome(method):
    """Property: no answer, successful or not, moves a joint farther than the bound."""
    chain = load('panda')
    rng = np.random.default_rng(5)
    bound = 0.2
    statuses = set()
    for _ in range(12):
        q0 = chain.random_q(rng)
        # Near targets (a small joint move away), far ones, and one beyond reach.
        dq = rng.uniform(-1, 1, chain.n) * rng.choice([0.05, 1.5])
        T = chain.fk(np.clip(q0 + dq, chain.lower, chain.upper))
        target = T if method in POSE_METHODS else T[:3, 3]
        r = solve(chain, target, q0=q0, method=method, max_joint_change=bound)
        assert np.max(np.abs(r.q - q0)) <= bound + 1e-12, r
        assert chain.within_limits(r.q)
        assert r.success == (r.status == STATUS_REACHED)
        statuses.add(r.status)
    far = solve(chain, chain.reach_origin + [3.0 * chain.reach, 0, 0], q0=chain.mid,
                method=method, max_joint_change=bound)
    assert far.status == STATUS_OUT_OF_REACH
    assert np.max(np.abs(far.q - chain.mid)) <= bound + 1e-12
    assert STATUS_REACHED in statuses and STATUS_TOO_FAR in statuses


@pytest.mark.parametrize('value', [0.0, -0.1, math.nan, 'a', True])
def test_max_joint_change_must_be_a_positive_number(value):
    chain = load('planar2')
    with pytest.raises(IKInputError, match='max_joint_change'):
        solve(chain, chain.fk(chain.mid)[:3, 3], q0=chain.mid, max_joint_change=value)


def test_wide_revolute_joints_come_back_the_turn_nearest_the_seed(rng):
    # The test UR5's joints span [-2π, 2π]: q and q ± 2π are the same pose.
    chain = load('ur5')
    assert chain.wide_revolute.all()
    for _ in range(200):
        q, q_ref = chain.random_q(rng), chain.random_q(rng)
        out = wrap_continuous(q.copy(), q_ref, chain.continuous, chain)
        turns = (out - q) / (2 * math.pi)
        np.testing.assert_allclose(turns, np.round(turns), atol=1e-12)
        assert chain.within_limits(out)
        for i in range(chain.n):
            images = [q[i] + 2 * math.pi * k for k in range(-3, 4)]
            fitting = [x for x in images if chain.lower[i] <= x <= chain.upper[i]]
            assert abs(out[i] - q_ref[i]) <= min(abs(x - q_ref[i]) for x in fitting) + 1e-12


@pytest.mark.parametrize('name', ['panda', 'ur5'])
def test_collision_aware_and_bounded_answers_of_every_method_keep_their_promises(name):
    """
    avoid_collisions and max_joint_change hold for every method, all in the one driver.

    An answer is judged by FK and the collision check; no joint of any answer moves beyond
    the bound; both outcomes of the bound come up.
    """
    chain = load(name)
    rng = np.random.default_rng(5)
    floor = HalfSpace((0.0, 0.0, 1.0), 0.05)
    variants = [{'avoid_collisions': True}, {'avoid_collisions': True, 'obstacles': [floor]},
                {'max_joint_change': 0.3},
                {'avoid_collisions': True, 'max_joint_change': 0.5, 'solutions': 2}]
    statuses = set()
    for _ in range(3):
        T = chain.fk(chain.random_q(rng))
        q0 = chain.random_q(rng)
        for method in sorted(METHODS):
            for target in ((T, T[:3, 3]) if method in POSE_METHODS else (T[:3, 3],)):
                for v in variants:
                    r = solve(chain, target, q0=q0, method=method, **v)
                    assert chain.within_limits(r.q)
                    assert r.success == (r.status == STATUS_REACHED), (method, v, r)
                    if 'max_joint_change' in v:
                        assert np.max(np.abs(r.q - q0)) <= v['max_joint_change'] + 1e-12
                    if r.success:
                        p_err, o_err = fk_errors(chain, target, r.q)
                        assert p_err <= DEFAULT_POSITION_TOLERANCE, (method, v)
                        assert o_err <= DEFAULT_ORIENTATION_TOLERANCE, (method, v)
                        if v.get('avoid_collisions'):
                            assert not chain.collisions(r.q, v.get('obstacles', ())), v
                    statuses.add(r.status)
    assert {STATUS_REACHED, STATUS_TOO_FAR} <= statuses


def test_the_timeout_bounds_a_compiled_solve():
    """A pose no attempt meets (tolerance below rounding): attempts stop at the timeout."""
    chain = load('panda')
    T = chain.fk(chain.random_q(np.random.default_rng(2)))
    everything = solve(chain, T, q0=chain.mid, position_tolerance=1e-300,
                       orientation_tolerance=1e-300, max_attempts=300, timeout=60.0)
    cut = solve(chain, T, q0=chain.mid, position_tolerance=1e-300,
                orientation_tolerance=1e-300, max_attempts=300, timeout=1e-4)
    assert everything.attempts == 300 and not everything.success
    # An attempt takes tens of microseconds: a few fit in 0.1 ms, never 300.
    assert 1 <= cut.attempts < 300 and not cut.success
    assert cut.status == STATUS_NOT_CONVERGED


# A Jacobian method and one of the FABRIK family (with its damped least-squares rescue):
# both run in the one compiled driver, whose kernels a fresh process loads from the cache on
# the first call: longer than the default 50 ms timeout (the second method's call loads
# nothing new). Compiling holds the same numba lock as loading, and the budget's clock
# stands still for both (test_jit_fallback checks it for a compile); the suite's compiled
# cache spares this test a 1-3 minute compile of the whole driver.
_COLD_METHODS = ('pinv', 'fabrik')
# Targets 1 and 9 of the script's draws: cold solves of both need restarts (pinv 6 and 3
# attempts, fabrik 5 and 5), so a first solve whose budget went to loading would stop
# short (as the compiled driver's and FABRIK's did before the budget counted solving only).
_COLD_SCRIPT = r"""
import json
import time
import numpy as np
from ik_node import _jit, Chain, share_path, solve
chain = Chain.from_urdf(share_path(), 'base_link', 'tool0')
rng = np.random.default_rng(0)
targets = [chain.fk(chain.random_q(rng)) for _ in range(10)]
out = []
for method in {methods!r}:
    for k in (1, 9):
        runs = []
        for _ in range(2):
            t0 = time.perf_counter()
            loading = _jit.loading_seconds()
            r = solve(chain, targets[k], method=method)     # default options: 50 ms
            runs.append([time.perf_counter() - t0, _jit.loading_seconds() - loading,
                         r.status, r.attempts, r.q.tolist()])
        out.append([method, k, *runs])
print(json.dumps(out))
"""


@pytest.mark.skipif(not JIT_ENABLED, reason='numba is off: no kernel to load')
def test_a_first_solve_in_a_fresh_process_gives_the_answer_of_the_second():
    """The timeout counts solving: loading the kernels on the first call does not eat it."""
    proc = subprocess.run([sys.executable, '-c', _COLD_SCRIPT.format(methods=_COLD_METHODS)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [(m, k) for m, k, _, _ in rows] == [(m, k) for m in _COLD_METHODS for k in (1, 9)]
    for method, k, (wall1, loading1, *first), (_, _, *second) in rows:
        if k == 1 and method == _COLD_METHODS[0]:
            # The first call loaded the driver's kernels: longer than its whole timeout.
            assert loading1 > SolveOptions().timeout and wall1 > loading1, method
        elif k == 1:
            # The other method runs in the same compiled kernels: nothing more to load.
            assert wall1 < 1.0, method
        assert first == second, (method, k)     # status, attempts, q to the bit
        assert first[0] == STATUS_REACHED and first[1] > 1, (method, k, first[:2])
