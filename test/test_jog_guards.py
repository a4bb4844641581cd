# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
ik_node.motion.jog_guards: the jog's guards, compiled as one kernel per control cycle.

Each guard's law is checked on hand-made cases; the whole kernel is checked, bit for bit,
against the guards written out with numpy array operations (as the jogger ran them before
they were compiled) on random states that reach every guard.
"""

import math

from conftest import URDF_DIR
import ik_node
from ik_node.collision import kernels
from ik_node.model import kinematics
from ik_node.motion import jog_guards as g
from ik_node.motion.jog import JogSettings
from ik_node.motion.trajectory import KinematicLimits
import numpy as np
import pytest

V = np.array([2.0, 2.0, 2.0, 3.0, 3.0, 3.0])
A = np.array([5.0, 5.0, 5.0, 10.0, 10.0, 10.0])
J = np.full(6, 500.0)
FLOOR = ik_node.HalfSpace(normal=(0, 0, 1), offset=0.0, name='floor')
SPHERE = ik_node.Sphere(center=(-0.585, 0.15, 0.303), radius=0.06, name='obstacle')


@pytest.fixture(scope='module')
def demo() -> ik_node.Chain:
    return ik_node.Chain.from_urdf(ik_node.share_path(), 'base_link', 'tool0')


def limits(n: int) -> KinematicLimits:
    return KinematicLimits.of(np.resize(V, n), np.resize(A, n), np.resize(J, n))


# --- Each guard's law ---------------------------------------------------------------------

def test_braking_lookahead_is_half_the_slowest_joints_stop_plus_the_period():
    v = np.array([1.0, -2.0, 0.0])
    a = np.array([5.0, 4.0, 1.0])
    j = np.array([100.0, 100.0, 1.0])
    # Joint 1: 2 / 4 + 4 / 100 = 0.54 s to stop; joint 2 does not move (its 1 s is no stop).
    assert g.braking_lookahead(v, a, j, 0.01) == pytest.approx(0.5 * 0.54 + 0.01)
    assert g.braking_lookahead(np.zeros(3), a, j, 0.01) == 0.01


def test_singularity_scale_slows_only_toward_the_singularity():
    assert g.singularity_scale(10.0, 16.0, 17.0, 30.0, 0.1) == 1.0       # clear of it
    assert g.singularity_scale(25.0, 20.0, 17.0, 30.0, 0.1) == 1.0       # moving away
    assert g.singularity_scale(18.0, 23.5, 17.0, 30.0, 0.1) == pytest.approx(0.5)
    assert g.singularity_scale(29.0, 40.0, 17.0, 30.0, 0.1) == 0.1       # never below min
    assert g.singularity_scale(29.0, math.inf, 17.0, 30.0, 0.1) == 0.1


def test_a_joint_may_move_only_as_fast_as_it_can_stop_before_its_margin():
    q = np.array([0.0, 0.9, -0.9, 0.0])
    lower, upper = np.full(4, -1.0), np.array([1.0, 1.0, 1.0, math.inf])
    b = np.array([2.0, 2.0, 2.0, 2.0])
    # Joint 1 has 0.1 - 0.05 rad of room left toward its upper limit: sqrt(2 * 2 * 0.05).
    v = np.array([0.1, 1.0, 1.0, 5.0])
    factor, joint = g.joint_limit_scale(q, v, lower, upper, 0.05, b)
    assert joint == 1 and factor == pytest.approx(math.sqrt(0.2) / 1.0)
    # Away from the limits (joint 2 turns up from its lower one), or without one: never slowed.
    assert g.joint_limit_scale(q, np.array([0.1, -1.0, 1.0, 5.0]), lower, upper, 0.05, b) == \
        (1.0, -1)
    # Past the margin: stopped; of two joints bound alike, the first is named.
    factor, joint = g.joint_limit_scale(np.array([0.98, 0.98, 0.0, 0.0]),
                                        np.array([1.0, 1.0, 0.0, 0.0]), lower, upper, 0.05, b)
    assert (factor, joint) == (0.0, 0)


def test_a_pair_slows_only_while_it_closes_under_the_slowdown_distance():
    now = np.array([0.030, 0.015, 0.012, 0.008])
    ahead = np.array([0.025, 0.010, 0.0125, 0.0079])
    # Pair 1 closes to 1 cm: half way from 2 cm to 0; pair 2 opens; pair 3 closes by 0.1 mm,
    # less than 0.01 m/rad of the 0.2 rad travel: turning about its own axis, not slowed.
    factor, pair = g.clearance_scale(now, ahead, 0.2, 0.02, 0.0, 0.01)
    assert pair == 1 and factor == pytest.approx(0.5)
    factor, pair = g.clearance_scale(now, np.array([0.03, 0.02, 0.02, 0.01]), 0.2, 0.02, 0.0,
                                     0.01)
    assert (factor, pair) == (1.0, -1)
    # Closing into contact (or past the stop distance): stopped.
    factor, pair = g.clearance_scale(now, np.array([0.03, -0.002, 0.02, 0.01]), 0.2, 0.02,
                                     0.0, 0.01)
    assert (factor, pair) == (0.0, 1)


def test_pair_clearances_are_the_collision_kernels_self_then_obstacle_pairs(demo):
    lim = limits(demo.n)
    q = np.array([0.0, -0.8, 1.2, -1.95, -1.57, 0.0])
    rec = g.guard_record(demo, lim, JogSettings(), [FLOOR, SPHERE])
    setup = demo.collision_setup
    d_self, d_obs, _ = kernels.distances(*setup.model.flat, q,
                                         setup.packed([FLOOR, SPHERE]).rows, 0.02)
    np.testing.assert_array_equal(g.pair_clearances(rec, q),
                                  np.concatenate([d_self, d_obs.ravel()]))


# --- The kernel against the guards written out with numpy -----------------------------------

def reference(chain, lim, st, obstacles, q, v, J_now, condition):
    """Return (v, scale, code, condition, clearance) of the guards as numpy operations."""
    def cond(Jm):
        s = np.linalg.svd(Jm if Jm.shape[1] >= 6 else Jm[:3], compute_uv=False)
        return float(s[0] / s[-1]) if s[-1] > 0.0 else math.inf

    def clearances(qc):
        setup = chain.collision_setup
        d_self, d_obs, _ = kernels.distances(
            *setup.model.flat, qc, setup.packed(obstacles).rows,
            max(st.clearance_slowdown, st.self_clearance_slowdown))
        return d_self, d_obs.ravel()

    def pair_factor(now, ahead, travel, slowdown):
        approaching = (ahead < slowdown) & (now - ahead > st.clearance_min_rate * travel)
        if not np.any(approaching):
            return 1.0
        f = np.where(approaching, np.clip((ahead - st.clearance_stop)
                                          / (slowdown - st.clearance_stop), 0.0, 1.0), 1.0)
        return float(f.min()) if f.min() < 1.0 else 1.0

    scale, code = 1.0, g.GUARD_NONE
    over = float((np.abs(v) / lim.velocity).max(initial=0.0))
    if over > 1.0:
        scale, code = 1.0 / over, g.GUARD_VELOCITY
    v = v * scale
    if not v.any():
        return v, scale, code, math.nan, math.inf
    speed = np.abs(v)
    t = np.where(speed > 0.0, speed / lim.acceleration + lim.acceleration / lim.jerk, 0.0)
    ahead = q + v * (0.5 * float(np.max(t, initial=0.0)) + 0.0)
    factors = []
    if J_now is None:
        condition = math.nan
    else:
        if math.isnan(condition):
            condition = cond(J_now)
        k_ahead = cond(chain.jacobian(ahead))
        f = 1.0
        if not (not k_ahead > st.singularity_slowdown or k_ahead <= condition):
            f = (st.singularity_min_scale if not math.isfinite(k_ahead) else
                 min(max((st.singularity_stop - k_ahead)
                         / (st.singularity_stop - st.singularity_slowdown),
                         st.singularity_min_scale), 1.0))
        factors.append((f, g.GUARD_SINGULARITY))
    room = np.where(v > 0.0, chain.upper - q, q - chain.lower) - st.joint_limit_margin
    allowed = np.sqrt(2.0 * (st.joint_limit_deceleration * lim.acceleration)
                      * np.maximum(room, 0.0))
    bound = speed > allowed
    ratio = np.ones_like(speed)
    ratio[bound] = allowed[bound] / speed[bound]
    factors.append((float(ratio.min()) if bound.any() else 1.0, g.GUARD_JOINT_LIMIT))
    clearance = math.inf
    if obstacles is not None:
        self_now, scene_now = clearances(q)
        self_ahead, scene_ahead = clearances(ahead)
        clearance = float(min(np.min(self_now, initial=math.inf),
                              np.min(scene_now, initial=math.inf)))
        travel = float(np.max(np.abs(ahead - q)))
        factors.append((pair_factor(self_now, self_ahead, travel, st.self_clearance_slowdown),
                        g.GUARD_COLLISION))
        factors.append((pair_factor(scene_now, scene_ahead, travel, st.clearance_slowdown),
                        g.GUARD_COLLISION))
    f, why = min(factors, key=lambda fw: fw[0])
    if f < 1.0:
        v, scale, code = v * f, scale * f, why
    return v, scale, code, condition, clearance


def random_states(chain, rng, count):
    """Yield (q, v): near the limits, the floor and the sphere often, at up to 3x the limit."""
    lim = limits(chain.n)
    q_floor = np.array([0.0, -0.6, 1.2, -1.95, -1.57, 0.0])[:chain.n]
    for k in range(count):
        kind = k % 3
        if kind == 0:       # anywhere within the limits
            q = rng.uniform(np.maximum(chain.lower, -math.pi), np.minimum(chain.upper, math.pi))
        elif kind == 1:     # a joint near a limit
            q = rng.uniform(-1.0, 1.0, chain.n)
            i = rng.integers(chain.n)
            room = rng.uniform(-0.02, 0.3)
            q[i] = chain.upper[i] - room if rng.random() < 0.5 else chain.lower[i] + room
            q = np.clip(q, chain.lower, chain.upper)
            q[~np.isfinite(q)] = 0.0        # (a continuous joint has no limit to be near)
        else:               # near the floor (the demo arm's wrist)
            q = q_floor + rng.normal(0.0, 0.08, chain.n)
        v = rng.normal(0.0, 1.0, chain.n) * lim.velocity * rng.choice([0.05, 0.5, 1.5, 3.0])
        if rng.random() < 0.05:
            v[:] = 0.0
        yield q, v


@pytest.mark.parametrize('arm, obstacles', [('demo', [FLOOR, SPHERE]), ('demo', None),
                                            ('arm4', [FLOOR]), ('demo', [])])
def test_the_kernel_equals_the_guards_written_out_bit_for_bit(demo, arm, obstacles):
    chain = demo if arm == 'demo' else ik_node.Chain.from_urdf(URDF_DIR / 'arm4.urdf',
                                                               'base_link', 'tip')
    lim = limits(chain.n)
    st = JogSettings()
    rec = g.guard_record(chain, lim, st, obstacles)
    rng = np.random.default_rng(7)
    no_jacobian = np.zeros((0, chain.n))
    seen = set()
    for k, (q, v) in enumerate(random_states(chain, rng, 900)):
        twist = k % 2 == 0
        J_now = chain.jacobian(q) if twist else None
        condition = math.nan
        if twist and k % 4 == 0:        # the twist's own condition number, given
            s = np.linalg.svd(J_now, compute_uv=False)
            condition = float(s[0] / s[-1])
        d_now = np.zeros(0)
        if obstacles is not None and k % 3 == 0:     # the clearances now, kept from before
            d_now = g.pair_clearances(rec, q)
        got = g.guarded_velocity(rec, q, v, no_jacobian if J_now is None else J_now,
                                 condition, d_now)
        want = reference(chain, lim, st, obstacles, q, v, J_now, condition)
        np.testing.assert_array_equal(got[0], want[0], err_msg=f'state {k}')
        assert got[1:3] == want[1:3], (k, got[1:3], want[1:3])
        assert (got[3] == want[3] or (math.isnan(got[3]) and math.isnan(want[3]))), k
        assert got[4] == want[4], k
        if obstacles is not None and v.any():
            np.testing.assert_array_equal(got[5], g.pair_clearances(rec, q))
        seen.add(int(got[2]))
    # Every guard decided some of the states (else the comparison proves little).
    want_seen = {g.GUARD_NONE, g.GUARD_VELOCITY, g.GUARD_JOINT_LIMIT, g.GUARD_SINGULARITY}
    if obstacles and arm == 'demo':      # (the 4-joint arm's states keep off the floor)
        want_seen.add(g.GUARD_COLLISION)
    assert want_seen <= seen, seen


def test_the_record_without_obstacles_keeps_the_chains_kinematics(demo):
    rec = g.guard_record(demo, limits(demo.n), JogSettings(), None)
    assert not rec.collision and rec.obstacles.shape[0] == 0
    q = np.array([0.1, -1.0, 1.2, -1.5, -1.57, 0.3])
    np.testing.assert_array_equal(kinematics.jacobian(rec.model, demo.n, q), demo.jacobian(q))
    assert g.pair_clearances(rec, q).shape == (0,)
