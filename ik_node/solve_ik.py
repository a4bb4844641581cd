# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""``solve``: one call shape for every IK method (input checks: ik_node.target_checks)."""

from typing import Callable, Optional, Sequence

from ik_node.errors import IKInputError
from ik_node.options import COMMON_OPTIONS
from ik_node.result import IKResult
from ik_node.solver import keep_solver, Solver, solver_for
from ik_node.solvers.stretched_reach import stretched_reach
from ik_node.solvers.table import Method, METHODS
from ik_node.target_checks import check_target, target_and_seed
from numpy.typing import ArrayLike

__all__ = ['solve', 'register_method', 'methods', 'check_target', 'warm_up']


def register_method(name: str, prepare: Callable,
                    options: frozenset = COMMON_OPTIONS) -> None:
    """
    Add a method to the table (a user's own; the built-in ones are in ``METHODS``).

    ``prepare(chain, target, opts) -> attempt`` with ``attempt(start, budget) ->
    (q, iterations)``: one attempt from ``start`` (n,); ``budget.expired()`` tells a long
    attempt that the timeout is spent. The restart driver runs it like every other method
    (its code as Python: :mod:`ik_node.solvers.registered`). ``options``: the option names
    it uses (at least the common ones).
    A :class:`ik_node.Solver` made before keeps the method it was made with.
    """
    if not isinstance(name, str) or not name:
        raise IKInputError(f'method name must be a non-empty string, got {name!r}')
    METHODS[name] = Method(frozenset(options) | COMMON_OPTIONS, prepare=prepare)


def methods() -> tuple[str, ...]:
    """Return the names accepted by ``solve(method=...)``."""
    return tuple(sorted(METHODS))


def solve(chain, target: ArrayLike, q0: Optional[ArrayLike] = None, method: str = 'dls',
          **options) -> IKResult:
    """
    Solve IK for ``chain``: joint values that bring the tip to ``target``.

    target: (4, 4) pose or (3,) position [m] of the tip, in the base_link frame.
    q0: (n,) seed [rad or m]; None starts at mid-range (a cold solve). A seed outside the
    limits is clamped into them first (a warning-free convenience: the returned q is what
    counts).
    method: one of :func:`methods` ('dls', 'pinv', 'jt', and the FABRIK family).
    options: see :class:`ik_node.options.SolveOptions`; an option the method does not use
    is refused.

    Returns an IKResult; an unreachable target gives success=False and the best attempt.
    Raises IKInputError for a bad target, seed, method or option.

    The same as ``Solver(chain, method, **options).solve(target, q0)``; the solver is kept
    on the chain for the options given (as given: same names, order and values), so a loop
    that calls this with the same options validates them and builds the solver once.
    """
    solver = solver_for(chain, method, options)
    if solver is None:
        if not isinstance(method, str) or method not in METHODS:
            raise IKInputError(f'unknown method {method!r}; available: {list(methods())}')
        target_and_seed(chain, target, q0)      # a bad target is named before a bad option
        solver = Solver(chain, method, **options)
        keep_solver(solver, options)
    return solver.solve(target, q0)


def warm_up(chain, method_names: Optional[Sequence[str]] = None, *,
            reach: bool = True) -> None:
    """
    Load (or compile) the kernels of ``method_names`` (default: all) for ``chain`` now.

    The first call of a compiled kernel in a process loads it from numba's disk cache (about
    0.25 s; compiling on a fresh install takes longer). A solve's ``timeout`` does not count
    that time, but the call takes it: call this before latency-sensitive work. ``reach``:
    also estimate the chain's stretched reach now (it runs the dls kernel whatever the
    methods; found on the first far target otherwise).
    """
    target = chain.fk(chain.mid)
    chain.jacobian(chain.mid)     # used by the driver's out-of-reach test
    if reach:
        stretched_reach(chain)
    for name in method_names or methods():
        for t in (target, target[:3, 3]):
            solve(chain, t, q0=chain.mid, method=name, restarts=False, max_iterations=2,
                  position_tolerance=1e-12)
