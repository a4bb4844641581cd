# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Solver: options validated once, records owned; ik_node.solve is the same answer."""

import copy
import pickle
import subprocess
import sys

from conftest import load, URDF_DIR
from ik_node import IKInputError, RestPosture, solve, solve_batch, Solver
from ik_node._jit import JIT_ENABLED
from ik_node.solver import solver_for, SOLVERS_KEPT
import numpy as np
import pytest


@pytest.mark.parametrize('method', ['dls', 'pinv', 'jt', 'fabrik', 'ccd', 'hybrid'])
def test_a_solver_answers_what_solve_answers(method, rng):
    chain = load('panda')
    options = {'position_tolerance': 1e-5, 'timeout': 10.0, 'max_attempts': 50}
    solver = Solver(chain, method, **options)
    assert solver.method == method and solver.options.max_attempts == 50
    for _ in range(4):
        q = chain.random_q(rng)
        seed = np.clip(q + rng.normal(0.0, 0.3, chain.n), chain.lower, chain.upper)
        T = chain.fk(q)
        for target in (T, T[:3, 3]):
            mine = solver.solve(target, seed)
            theirs = solve(chain, target, q0=seed, method=method, **options)
            assert mine.status == theirs.status and mine.attempts == theirs.attempts
            assert np.array_equal(mine.q, theirs.q)
            assert mine.method == theirs.method


def test_a_solver_refuses_bad_options_when_made_and_bad_targets_when_solving():
    chain = load('ur5')
    with pytest.raises(IKInputError, match='damping'):
        Solver(chain, 'fabrik', damping=1e-3)
    with pytest.raises(IKInputError, match='unknown method'):
        Solver(chain, 'newton')
    with pytest.raises(IKInputError, match='joint_weights'):
        Solver(chain, 'dls', joint_weights=[1.0] * (chain.n - 1))
    solver = Solver(chain)
    with pytest.raises(IKInputError, match='NaN'):
        solver.solve([np.nan, 0.0, 0.3])
    with pytest.raises(IKInputError, match='q0'):
        solver.solve(chain.fk(chain.mid), q0=np.zeros(chain.n + 1))


def test_solve_keeps_one_solver_per_chain_and_options_as_given():
    chain = load('panda')
    T = chain.fk(chain.mid + 0.1)
    solve(chain, T, timeout=0.1, restarts=False)
    first = solver_for(chain, 'dls', {'timeout': 0.1, 'restarts': False})
    assert first is not None and first.options.timeout == 0.1
    solve(chain, T, timeout=0.1, restarts=False)
    assert solver_for(chain, 'dls', {'timeout': 0.1, 'restarts': False}) is first
    # Batches with the same options use the same solver.
    solve_batch(chain, np.stack([T, T]), timeout=0.1, restarts=False)
    assert solver_for(chain, 'dls', {'timeout': 0.1, 'restarts': False}) is first
    # Another order, another method or another chain: another solver.
    solve(chain, T, restarts=False, timeout=0.1)
    other = solver_for(chain, 'dls', {'restarts': False, 'timeout': 0.1})
    assert other is not None and other is not first and other.options == first.options
    assert solver_for(chain, 'pinv', {'timeout': 0.1, 'restarts': False}) is None
    assert solver_for(load('panda'), 'dls', {'timeout': 0.1, 'restarts': False}) is None
    # 0 equals False, but is not a boolean: the kept solver does not let it through.
    with pytest.raises(IKInputError, match='restarts'):
        solve(chain, T, timeout=0.1, restarts=0)
    # An option the method does not use is refused whatever was kept before.
    solve(chain, T, damping=1e-3)
    with pytest.raises(IKInputError, match='damping'):
        solve(chain, T, method='fabrik', damping=1e-3)
    # An array cannot be kept: it is validated on every call.
    weights = np.ones(chain.n)
    solve(chain, T, joint_weights=weights)
    assert solver_for(chain, 'dls', {'joint_weights': weights}) is None
    # The chain keeps a bounded number: the oldest goes first.
    for k in range(SOLVERS_KEPT):
        solve(chain, T, max_iterations=10 + k)
    assert len(chain._solvers) == SOLVERS_KEPT
    assert solver_for(chain, 'dls', {'timeout': 0.1, 'restarts': False}) is None
    assert solver_for(chain, 'dls', {'max_iterations': 10 + SOLVERS_KEPT - 1}) is not None


def test_objectives_are_read_on_every_solve():
    """A solver with objectives sees a change of the objective between solves."""
    chain = load('panda')
    p = chain.fk(np.clip(chain.mid + 0.3, chain.lower, chain.upper))[:3, 3]
    options = {'position_tolerance': 1e-6, 'secondary_iterations': 20}
    posture = RestPosture(chain.mid.copy(), weight=1.0)
    solver = Solver(chain, 'dls', objectives=[posture], **options)
    before = solver.solve(p, chain.mid)
    moved = np.clip(chain.mid + 0.5, chain.lower, chain.upper)
    posture.q_rest[:] = moved
    after = solver.solve(p, chain.mid)
    fresh = Solver(chain, 'dls', objectives=[RestPosture(moved)], **options).solve(p, chain.mid)
    assert before.success and after.success
    assert np.array_equal(after.q, fresh.q) and not np.array_equal(after.q, before.q)


def test_a_chain_pickles_and_copies_without_its_solvers():
    chain = load('ur5')
    solve(chain, chain.fk(chain.mid + 0.2))
    assert chain._solvers
    for other in (pickle.loads(pickle.dumps(chain)), copy.copy(chain), copy.deepcopy(chain)):
        assert other._solvers == {}
        # Read-only as the original's: the same kernel types, so nothing compiles again.
        assert not any(a.flags.writeable for a in (*other.model, *other.limits, other.lower))
        assert solve(other, chain.fk(chain.mid + 0.2)).success


# Solves with every kind of option set in a process of its own (another test's chain, e.g.
# an unpickled one with writable arrays, may add a type of its own), then counts the types
# the compiled entry points were compiled or loaded for.
_TYPES_SCRIPT = r"""
import sys
import numpy as np
from ik_node import Chain, RestPosture, solve, solve_batch
from ik_node.solvers import batch_kernel as bk
chain = Chain.from_urdf(sys.argv[1], 'panda_link0', 'panda_link8')
T = chain.fk(chain.mid + 0.2)
for options in ({}, {'rng_seed': None}, {'max_joint_change': 0.3},
                {'avoid_collisions': True}, {'objectives': [RestPosture(chain.mid)]},
                {'method': 'fabrik'}, {'method': 'ccd', 'avoid_collisions': True},
                {'method': 'hybrid', 'max_joint_change': 0.3}, {'method': 'jt'}):
    target = T if options.get('method') in (None, 'hybrid') else T[:3, 3]
    # A budget the attempts decide, not the machine's load (the default is 50 ms).
    assert solve(chain, target, timeout=10.0, **options).success, options
    assert solve_batch(chain, np.stack([target, target]), **options).success.all(), options
print(len(bk.solve_target.signatures), len(bk.solve_targets.signatures))
"""


@pytest.mark.skipif(not JIT_ENABLED, reason='numba is off: no compiled kernel')
def test_every_option_set_runs_one_compiled_kernel():
    """
    Kept records and records made per solve have the same types: one compile serves all.

    Every built-in method too: their attempt records are of one type (MethodAttempts).
    """
    out = subprocess.run([sys.executable, '-c', _TYPES_SCRIPT, str(URDF_DIR / 'panda.urdf')],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ['1', '1']


def test_threads_share_a_chain_while_its_solvers_come_and_go(rng):
    """Two threads solving on one chain with many option sets get the one-thread answers."""
    import threading
    chain = load('panda')
    targets = [chain.fk(chain.random_q(rng)) for _ in range(2 * SOLVERS_KEPT)]
    # More option sets than the chain keeps: the threads evict each other's solvers.
    jobs = [(T, {'max_iterations': 50 + i, 'timeout': 10.0, 'max_attempts': 20})
            for i, T in enumerate(targets)]
    expected = [Solver(load('panda'), **options).solve(T).q for T, options in jobs]
    got: list = [None] * len(jobs)
    errors: list = []

    def work(part: int) -> None:
        try:
            for i in range(part, len(jobs), 2):
                T, options = jobs[i]
                got[i] = solve(chain, T, **options).q
        except Exception as exc:    # noqa: B902 - reported by the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for q, want in zip(got, expected):
        assert np.array_equal(q, want)
    assert len(chain._solvers) <= SOLVERS_KEPT
