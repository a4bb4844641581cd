# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""ik_node.solve with the Jacobian methods: round trips, limits, seeds, bad input."""

import math

from conftest import load
from ik_node import IKInputError, methods, pose_error, solve, SolveOptions
import numpy as np
import pytest

JACOBIAN_METHODS = ('dls', 'pinv', 'jt')


def check(chain, target, result, tol_p=1e-3, tol_o=1e-2):
    """Judge a result by FK of its q, independently of its own claim."""
    T = chain.fk(result.q)
    if np.shape(target) == (3,):
        pe, oe = float(np.linalg.norm(T[:3, 3] - target)), 0.0
    else:
        pe, oe = pose_error(target, T)
    ok = pe <= tol_p and oe <= tol_o and chain.within_limits(result.q)
    return ok, pe, oe


@pytest.mark.parametrize('name', ['panda', 'ur5', 'planar3', 'prismatic', 'continuous',
                                  'mimic', 'arm4'])
def test_round_trip_q_fk_ik_fk_position_and_pose(name, rng):
    chain = load(name)
    pose_capable = chain.n >= 6
    for _ in range(40):
        q_true = chain.random_q(rng)
        T = chain.fk(q_true)
        res = solve(chain, T[:3, 3])
        ok, pe, _ = check(chain, T[:3, 3], res)
        assert ok and res.success, (q_true, res)
        assert math.isnan(res.orientation_error)
        if pose_capable:
            res = solve(chain, T)
            ok, pe, oe = check(chain, T, res)
            assert ok and res.success, (q_true, res)
            assert res.position_error == pytest.approx(pe, abs=1e-12)
            assert res.orientation_error == pytest.approx(oe, abs=1e-9)


@pytest.mark.parametrize('method', ['pinv', 'jt'])
def test_comparison_methods_reach_position_targets(method, rng):
    chain = load('planar3')
    solved = 0
    for _ in range(30):
        T = chain.fk(chain.random_q(rng))
        res = solve(chain, T[:3, 3], method=method, max_iterations=500)
        solved += check(chain, T[:3, 3], res)[0]
        assert chain.within_limits(res.q)
    assert solved >= 28


def test_fewer_than_six_joints_reach_the_point_and_orient_as_well_as_they_can(rng):
    chain = load('arm4')
    for _ in range(20):
        q_true = chain.random_q(rng)
        T = chain.fk(q_true).copy()
        # Tilt the wanted orientation: a 4-DOF arm cannot follow, but must keep the point.
        c, s = math.cos(0.3), math.sin(0.3)
        T[:3, :3] = T[:3, :3] @ np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
        res = solve(chain, T)
        # The point is met at the tolerance; success would mean the whole pose was.
        assert res.position_error <= SolveOptions().position_tolerance, res
        if res.success:
            assert res.orientation_error <= SolveOptions().orientation_tolerance
        else:
            assert res.status == 'position_only' and 'the point is met' in res.message
        # The orientation error is no worse than at the exact joint sample (which has the
        # 0.3 rad tilt left), so the spare joints were used for orientation.
        assert res.orientation_error <= 0.3 + 1e-6


def test_returned_joints_are_always_inside_the_limits(rng):
    chain = load('panda')
    for _ in range(50):
        target = rng.uniform(-1.5, 1.5, size=3)
        for method in JACOBIAN_METHODS:
            res = solve(chain, target, method=method, timeout=0.005)
            assert chain.within_limits(res.q, tol=0.0)
            assert np.all(np.isfinite(res.q))


def test_nearby_seed_gives_the_nearby_solution_no_branch_jump(rng):
    chain = load('panda')
    for _ in range(30):
        q_true = chain.random_q(rng)
        q_seed = np.clip(q_true + rng.normal(scale=0.05, size=7), chain.lower, chain.upper)
        res = solve(chain, chain.fk(q_true), q0=q_seed)
        assert res.success
        assert np.max(np.abs(res.q - q_true)) < 0.2


def test_continuous_joints_are_wrapped_next_to_the_seed(rng):
    chain = load('continuous')
    for _ in range(20):
        q_true = chain.random_q(rng)
        seed = q_true + np.array([4 * math.pi, 0.0, -6 * math.pi])
        res = solve(chain, chain.fk(q_true), q0=seed)
        assert res.success
        assert np.all(np.abs(res.q[chain.continuous] - seed[chain.continuous]) <= math.pi)


def test_cold_solves_are_deterministic_for_a_fixed_rng_seed(rng):
    chain = load('ur5')
    T = chain.fk(chain.random_q(rng))
    a = solve(chain, T, rng_seed=7)
    b = solve(chain, T, rng_seed=7)
    np.testing.assert_array_equal(a.q, b.q)


def test_inputs_are_not_changed_and_result_is_read_only(rng):
    chain = load('panda')
    T = chain.fk(chain.random_q(rng))
    q0 = chain.mid.copy()
    T_before, q0_before = T.copy(), q0.copy()
    res = solve(chain, T, q0=q0)
    np.testing.assert_array_equal(T, T_before)
    np.testing.assert_array_equal(q0, q0_before)
    with pytest.raises(ValueError):
        res.q[0] = 1.0


def test_custom_tolerances_are_honoured(rng):
    chain = load('panda')
    T = chain.fk(chain.random_q(rng))
    res = solve(chain, T, position_tolerance=1e-6, orientation_tolerance=1e-6)
    assert res.success and res.position_error <= 1e-6 and res.orientation_error <= 1e-6


@pytest.mark.parametrize('target, words', [
    (np.zeros(4), 'shape'),
    ([0, np.nan, 0], 'NaN'),
    (np.diag([1.0, 1.0, 1.0, 2.0]), 'last row'),
    (np.diag([2.0, 1.0, 1.0, 1.0]), 'orthonormal'),
    (np.diag([-1.0, 1.0, 1.0, 1.0]), 'orthonormal'),
    ('abc', 'pose'),
])
def test_bad_targets_raise_clear_errors(target, words):
    with pytest.raises(IKInputError, match=words):
        solve(load('panda'), target)


def test_bad_seed_and_method():
    chain = load('panda')
    with pytest.raises(IKInputError, match='q0'):
        solve(chain, [0.4, 0, 0.4], q0=[0, 0])
    with pytest.raises(IKInputError, match='q0 is not finite'):
        solve(chain, [0.4, 0, 0.4], q0=[0, 0, 0, np.inf, 0, 0, 0])
    with pytest.raises(IKInputError, match='unknown method'):
        solve(chain, [0.4, 0, 0.4], method='magic')
    assert set(JACOBIAN_METHODS) <= set(methods())


def test_joint_weights_shift_motion_to_the_light_joints(rng):
    chain = load('panda')
    q0 = chain.mid.copy()
    target = chain.fk(q0)[:3, 3] + np.array([0.05, 0.05, 0.0])
    heavy = np.ones(7)
    heavy[0] = 1e3
    free = solve(chain, target, q0=q0, restarts=False)
    held = solve(chain, target, q0=q0, restarts=False, joint_weights=heavy)
    assert free.success and held.success
    assert abs(held.q[0] - q0[0]) < 0.1 * abs(free.q[0] - q0[0])


def test_every_public_name_of_the_package_is_what_it_exports_not_a_module():
    # A submodule import sets the package attribute of its name: no public name is one.
    import importlib
    import types

    import ik_node
    for module in ik_node._HOMES:
        importlib.import_module(module)
    for name in ik_node.__all__:
        assert not isinstance(getattr(ik_node, name), types.ModuleType), name
    assert ik_node.solve is importlib.import_module('ik_node.solve_ik').solve


def test_warm_up_runs_every_method_and_then_solves_fast(rng):
    from ik_node import warm_up
    chain = load('ur5')
    warm_up(chain)
    T = chain.fk(chain.random_q(rng))
    for method in methods():
        res = solve(chain, T[:3, 3], method=method)
        assert chain.within_limits(res.q)


def test_a_registered_method_runs_through_the_driver_and_is_judged_by_fk(rng):
    from ik_node.solve_ik import register_method
    from ik_node.solvers.table import METHODS
    chain = load('planar3')
    q_true = chain.random_q(rng)
    calls = []

    def prepare(chain, target, opts):
        def attempt(start, budget):
            calls.append(np.array(start))
            # a list, and from the second start on the true answer: the driver clamps,
            # wraps and checks it like any kernel's
            return (list(start) if len(calls) == 1 else [float(v) for v in q_true]), 1
        return attempt

    register_method('oracle_for_test', prepare)
    try:
        target = chain.fk(q_true)[:3, 3]
        far = np.clip(q_true + 1.0, chain.lower, chain.upper)
        r = solve(chain, target, q0=far, method='oracle_for_test')
        assert r.success and r.method == 'oracle_for_test' and r.attempts == 2
        assert np.linalg.norm(chain.fk(r.q)[:3, 3] - target) <= r.position_error + 1e-12
        r = solve(chain, target + [5.0, 0.0, 0.0], q0=far, method='oracle_for_test',
                  max_attempts=3)
        assert not r.success and r.status in ('out_of_reach', 'not_converged')
    finally:
        del METHODS['oracle_for_test']


def test_options_given_again_solve_alike_and_a_new_method_of_that_name_is_taken(rng):
    """
    Options given again take the kept records: the same answers, the same checks.

    And a method registered under the name of a compiled one is the one that runs.
    """
    from ik_node.solve_ik import register_method
    from ik_node.solvers.table import METHODS
    chain = load('panda')
    opts = {'position_tolerance': 1e-5, 'orientation_tolerance': 1e-5}
    # Joint weights given as a list cannot be kept (not hashable): every call builds its
    # options and records; ones give the same weights as none.
    unkept = dict(opts, joint_weights=[1.0] * chain.n)
    q0 = chain.mid.copy()
    for _ in range(6):
        T = chain.fk(chain.random_q(rng))
        for target in (T, T[:3, 3]):
            kept = [solve(chain, target, q0=q0, **opts) for _ in range(2)]
            fresh = solve(chain, target, q0=q0, **unkept)
            assert kept[0].success and kept[1].success and fresh.success
            assert np.array_equal(kept[0].q, kept[1].q) and np.array_equal(kept[1].q, fresh.q)
            assert kept[1].iterations == fresh.iterations
    bad = T.copy()
    bad[0, 3] = np.nan
    with pytest.raises(IKInputError, match='NaN'):
        solve(chain, bad, q0=q0, **opts)
    with pytest.raises(IKInputError, match='q0 is not finite'):
        solve(chain, T, q0=np.full(chain.n, np.inf), **opts)
    with pytest.raises(IKInputError, match='NaN'):
        solve(chain, [np.nan, 0.0, 0.3], q0=q0, **opts)
    with pytest.raises(IKInputError, match='more than'):
        solve(chain, [2e6, 0.0, 0.3], q0=q0, **opts)
    skewed = T.copy()
    skewed[:3, :3] *= 1.01
    with pytest.raises(IKInputError, match='orthonormal'):
        solve(chain, skewed, q0=q0, **opts)
    # A seed outside the limits is clamped into them on this path too.
    far = solve(chain, T, q0=chain.upper + 1.0, **opts)
    assert far.success and chain.within_limits(far.q)
    saved = METHODS['dls']
    calls = []

    def prepare(chain, target, options):
        def attempt(start, budget):
            calls.append(1)
            return start, 1
        return attempt

    register_method('dls', prepare)
    try:
        solve(chain, T, q0=q0, **opts)
        assert calls
    finally:
        METHODS['dls'] = saved
    assert solve(chain, T, q0=q0, **opts).success
