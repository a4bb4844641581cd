# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A registered method's solve: the one driver's code, run as Python around Python attempts.

``ik_node.solve_ik.register_method(name, prepare)`` adds a method whose attempt is plain
Python: ``prepare(chain, target, opts) -> attempt`` with ``attempt(start, budget) ->
(q, iterations)``. Compiled code cannot call it, so its solve runs the code object of the
compiled driver, :func:`ik_node.solvers.restarts.drive` (not a copy of its logic), as
Python; the driver's helpers (the final check, the starts, the reach tests) stay compiled.
Its clock is :func:`ik_node._jit.solving_clock`, so loading those helpers on the first such
solve of a process does not eat the budget.
"""

import types
from typing import Callable, Optional

from ik_node._jit import solving_clock
from ik_node.result import IKResult
from ik_node.solvers import restarts
from ik_node.solvers.codes import ATTEMPT_PROBE
from ik_node.solvers.compiled_driver import driver_records
from ik_node.solvers.outcome import result_of
from ik_node.solvers.restarts import DriverRecords
from ik_node.solvers.target_records import make_target, Target
import numpy as np

__all__ = ['RegisteredSolve', 'AttemptBudget', 'PythonAttempts']


class AttemptBudget:
    """The ``budget`` a registered attempt gets: the solve's deadline [s of solving_clock]."""

    __slots__ = ('deadline',)

    def __init__(self, deadline: float):
        """Keep ``deadline``."""
        self.deadline = deadline

    def expired(self) -> bool:
        """Return True once the time budget is spent (a long attempt checks this itself)."""
        return solving_clock() >= self.deadline


class PythonAttempts:
    """
    A registered method's attempts toward one target, and toward its point for the probes.

    The driver calls :meth:`run` through :func:`ik_node.solvers.restarts.run_attempt_of`.
    """

    __slots__ = ('prepare', 'chain', 'opts', 'target', '_main', '_probe')

    def __init__(self, prepare: Callable, chain, opts, target: np.ndarray):
        """Prepare the attempt toward ``target`` (validated (4, 4) pose or (3,) point)."""
        self.prepare = prepare
        self.chain = chain
        self.opts = opts
        self.target = target
        self._main = prepare(chain, target, opts)
        self._probe: Optional[Callable] = None

    def run(self, kind: int, tgt: Target, start: np.ndarray, deadline: float) -> tuple:
        """Run one attempt from ``start`` (n,); return (q (n,) float64, iterations)."""
        attempt = self._main
        if kind == ATTEMPT_PROBE:
            if self._probe is None:
                self._probe = self.prepare(self.chain, np.array(tgt.position), self.opts)
            attempt = self._probe
        q, it = attempt(start.copy(), AttemptBudget(deadline))
        # (an attempt may return any sequence: the compiled check takes float64)
        return np.array(q, dtype=np.float64).reshape(self.chain.n), int(it)


def _python_driver() -> Callable:
    """Return the driver's code as a Python function whose clock is solving_clock."""
    drive = getattr(restarts.drive, 'py_func', restarts.drive)
    return types.FunctionType(drive.__code__, dict(vars(restarts), _now=solving_clock),
                              'drive')


class RegisteredSolve:
    """
    The solve of a registered method on one chain with validated options.

    Keeps the driver's records (the table of random starts included) unless ``rng_seed``
    is None; each solve prepares the method's attempt for its target.
    """

    __slots__ = ('chain', 'opts', 'method', 'prepare', '_rec', '_drive')

    def __init__(self, chain, opts, method: str, prepare: Callable):
        """Keep the chain, ``opts`` and the method's ``prepare``."""
        self.chain = chain
        self.opts = opts
        self.method = method
        self.prepare = prepare
        self._rec: Optional[DriverRecords] = None
        self._drive = _python_driver()

    def solve(self, target: np.ndarray, q0: np.ndarray) -> IKResult:
        """Solve a validated target from a seed inside the limits (``target_and_seed``)."""
        rec = self._rec
        if rec is None or rec.collide.on:
            # (a chain's collision model changes with its held joints: made per solve)
            rec = driver_records(self.chain, self.opts)
            if self.opts.rng_seed is not None:
                self._rec = rec
        tgt = make_target(target)
        tgts = (tgt, Target(tgt.position, np.eye(3), False))
        ctx = PythonAttempts(self.prepare, self.chain, self.opts, target)
        q_out = q0.copy()
        q_blocked = q0.copy()
        o = self._drive(rec, ctx, tgts, q0, q_out, q_blocked,
                        solving_clock() + float(self.opts.timeout))
        return result_of(self.chain, self.opts, self.method, q_out, q_blocked, o, tgt.pose,
                         tgt.position)
