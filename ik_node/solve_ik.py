# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""``solve``: one call shape for every IK method (input checks: ik_node.target_checks)."""

from typing import Callable, Optional, Sequence

from ik_node._jit import JIT_ENABLED
from ik_node.errors import IKInputError
from ik_node.options import COMMON_OPTIONS, kwargs_key, SolveOptions
from ik_node.result import IKResult
from ik_node.solvers import compiled_driver
from ik_node.solvers.dls import METHOD_CODES
from ik_node.solvers.driver import run_restarts
from ik_node.solvers.reach import stretched_reach
from ik_node.solvers.table import Method, METHODS
from ik_node.target_checks import check_target, target_and_seed, target_and_seed_arrays
from numpy.typing import ArrayLike

__all__ = ['solve', 'register_method', 'methods', 'check_target', 'warm_up']

# The built-in Jacobian methods, whose solves the compiled driver can run (a method of the
# same name registered later replaces the entry in METHODS, and runs through the driver).
_COMPILED = {name: METHODS[name] for name in METHOD_CODES} if JIT_ENABLED else {}


# The compiled solves of recent (chain, method, options as given, with their types, lists
# as tuples): the chain and what compiled_driver.kept_for keeps for pose and for point
# targets, found with one lookup (building the options and finding those records cost more
# than a short solve's iterations).
_FAST: dict = {}
_FAST_SIZE = 64


def _frozen(options: dict) -> dict:
    """Return ``options`` with list values as tuples (what they hold, hashable)."""
    for value in options.values():
        if type(value) is list:
            return {k: tuple(v) if type(v) is list else v for k, v in options.items()}
    return options


def register_method(name: str, prepare: Callable,
                    options: frozenset = COMMON_OPTIONS) -> None:
    """
    Add a method to the table (a user's own; the built-in ones are in ``METHODS``).

    ``prepare(chain, target, opts) -> attempt`` with ``attempt(start, budget) ->
    (q, iterations)``: one attempt from ``start`` (n,). The restart driver runs it like
    every other method. ``options``: the option names it uses (at least the common ones).
    """
    if not isinstance(name, str) or not name:
        raise IKInputError(f'method name must be a non-empty string, got {name!r}')
    METHODS[name] = Method(prepare, frozenset(options) | COMMON_OPTIONS)
    _FAST.clear()       # the name may have been a compiled method's


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
    """
    try:
        key: Optional[tuple] = (chain, method, *kwargs_key(_frozen(options)))
        fast = _FAST.get(key)
    except TypeError:       # an option that cannot be hashed (an array of joint weights)
        key = fast = None
    if fast is not None:
        # The kernel checks the target and seed (and clamps the seed) before it solves.
        t, seed = target_and_seed_arrays(chain, target, q0)
        return compiled_driver.solve_kept(fast[1] if t.shape == (4, 4) else fast[2], t, seed,
                                          method)
    spec = METHODS.get(method) if isinstance(method, str) else None
    if spec is None:
        raise IKInputError(f'unknown method {method!r}; available: {list(methods())}')
    t, seed = target_and_seed(chain, target, q0)
    opts = SolveOptions.from_mapping(options, spec.options, method)
    if spec is _COMPILED.get(method) and compiled_driver.applies(opts):
        # The driver's steps in one compiled call (the same answer, less Python).
        code = METHOD_CODES[method]
        pose_kept = compiled_driver.kept_for(chain, code, opts, True)
        if key is not None and pose_kept is not None:
            if len(_FAST) >= _FAST_SIZE:
                _FAST.clear()
            _FAST[key] = (chain, pose_kept, compiled_driver.kept_for(chain, code, opts, False))
        return compiled_driver.solve_one(chain, t, seed, opts, code, method)
    return run_restarts(chain, t, seed, opts, spec.prepare, method,
                        opts.solution_weights(chain.n), spec.rescue)


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
