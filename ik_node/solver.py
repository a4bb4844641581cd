# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
:class:`Solver`: IK for one chain with one method and its options, validated once.

A solver owns what its solves share: the validated options, the driver's records and the
table of random starts (:class:`ik_node.solvers.compiled_driver.CompiledSolve` for the
built-in methods, :class:`ik_node.solvers.registered.RegisteredSolve` for a registered one).
``ik_node.solve`` is the one-call convenience over it: it keeps the solvers of the options
it was called with on the chain (:func:`solver_for`), so a loop that calls it again with the
same options validates them and builds the records once.
"""

from typing import Optional, Union

from ik_node.errors import IKInputError
from ik_node.options import kwargs_key, SolveOptions
from ik_node.result import IKResult
from ik_node.solvers.attempts import MethodAttempts
from ik_node.solvers.compiled_driver import CompiledSolve
from ik_node.solvers.registered import RegisteredSolve
from ik_node.solvers.restarts import DriverRecords
from ik_node.solvers.table import Method, METHODS
from ik_node.target_checks import target_and_seed, target_and_seed_arrays
from numpy.typing import ArrayLike

__all__ = ['Solver', 'solver_for', 'keep_solver', 'SOLVERS_KEPT']

# How many solvers ``ik_node.solve`` keeps per chain (the oldest goes first).
SOLVERS_KEPT = 64


class Solver:
    """
    IK for ``chain`` with ``method`` and ``options``: validated once, records kept.

    ``Solver(chain, method, **options).solve(target, q0)`` returns what
    ``ik_node.solve(chain, target, q0, method, **options)`` returns. method: one of
    :func:`ik_node.methods`; options: see :class:`ik_node.options.SolveOptions` (an option
    the method does not use is refused). Raises IKInputError for a bad method or option.

    The options, the driver's records and its table of random starts are made once (records
    with objectives are made on each solve: an objective may change between solves, e.g. a
    posture's reference). A solver is not thread-safe: give each thread its own.
    """

    __slots__ = ('chain', 'method', 'options', '_spec', '_driver')

    def __init__(self, chain, method: str = 'dls', **options):
        """Validate ``method`` and ``options`` for ``chain``."""
        spec = METHODS.get(method) if isinstance(method, str) else None
        if spec is None:
            raise IKInputError(f'unknown method {method!r}; available: {sorted(METHODS)}')
        opts = SolveOptions.from_mapping(options, spec.options, method)
        self.chain = chain
        self.method: str = method
        self.options: SolveOptions = opts
        self._spec: Method = spec
        # Joint weights need the chain's size: checked here, once (IKInputError).
        opts.solution_weights(chain.n)
        self._driver: Union[CompiledSolve, RegisteredSolve]
        if spec.build is not None:
            self._driver = CompiledSolve(chain, opts, method, spec.build, spec.rescue)
        else:
            assert spec.prepare is not None     # a registered method has its attempt
            self._driver = RegisteredSolve(chain, opts, method, spec.prepare)

    def solve(self, target: ArrayLike, q0: Optional[ArrayLike] = None) -> IKResult:
        """
        Solve IK: joint values that bring the tip to ``target``.

        target: (4, 4) pose or (3,) position [m] of the tip, in the base_link frame.
        q0: (n,) seed [rad or m]; None starts at mid-range (a cold solve). A seed outside the
        limits is clamped into them first.

        Returns an IKResult; an unreachable target gives success=False and the best attempt.
        Raises IKInputError for a bad target or seed.
        """
        if isinstance(self._driver, CompiledSolve):
            # The kernel checks the target and seed (and clamps the seed) before it solves.
            t, seed = target_and_seed_arrays(self.chain, target, q0)
        else:
            t, seed = target_and_seed(self.chain, target, q0)
        return self._driver.solve(t, seed)

    @property
    def compiled(self) -> bool:
        """Return True for a built-in method (its records run compiled: ``solve_batch``)."""
        return isinstance(self._driver, CompiledSolve)

    def compiled_records(self, pose: bool) -> tuple[DriverRecords, MethodAttempts]:
        """
        Return the compiled driver's records for pose (else point) targets.

        For ``solve_batch``; only for the built-in methods (IKInputError otherwise).
        """
        if not isinstance(self._driver, CompiledSolve):
            raise IKInputError(f'method {self.method!r} is a registered (Python) method: '
                               'it has no compiled records')
        return self._driver.records(pose)

    def __repr__(self) -> str:
        return f'Solver({self.chain!r}, method={self.method!r})'


def solver_for(chain, method: str, options: dict) -> Optional[Solver]:
    """
    Return the solver ``ik_node.solve`` kept on ``chain`` for ``method`` and ``options``.

    options: the keyword options as given (lists count as tuples). None when there is none
    yet, or when the options cannot be kept (a value that cannot be hashed, such as an
    array of joint weights). :func:`keep_solver` keeps one.
    """
    kept = getattr(chain, '_solvers', None)
    if kept is None:
        return None
    try:
        solver = kept.get((method, *kwargs_key(_frozen(options))))
    except TypeError:       # an option that cannot be hashed
        return None
    # A method registered again under the same name since: that solver is stale.
    if solver is not None and solver._spec is not METHODS.get(method):
        return None
    return solver


def keep_solver(solver: Solver, options: dict) -> None:
    """Keep ``solver`` (built from the keyword ``options``) on its chain for solver_for."""
    kept = getattr(solver.chain, '_solvers', None)
    if kept is None:
        return
    try:
        key = (solver.method, *kwargs_key(_frozen(options)))
        hash(key)
    except TypeError:
        return
    if len(kept) >= SOLVERS_KEPT and key not in kept:
        try:
            del kept[next(iter(kept))]
        except (KeyError, RuntimeError, StopIteration):     # another thread evicted it
            pass
    kept[key] = solver


def _frozen(options: dict) -> dict:
    """Return ``options`` with list values as tuples (what they hold, hashable)."""
    for value in options.values():
        if type(value) is list:
            return {k: tuple(v) if type(v) is list else v for k, v in options.items()}
    return options
