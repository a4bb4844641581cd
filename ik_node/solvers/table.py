# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The table of ``ik_node.solve`` methods: name -> :class:`Method`.

Every method runs through the one restart driver (:func:`ik_node.solvers.restarts.drive`):
a built-in method compiled, with its attempt records (:data:`ik_node.solvers.attempts.BUILDERS`);
a registered one (``register_method``) as Python around its own attempts
(:mod:`ik_node.solvers.registered`). A method lists the options it uses beyond the common
ones, and any other option is refused with IKInputError.
"""

from typing import Callable, NamedTuple, Optional

from ik_node.options import COMMON_OPTIONS
from ik_node.solvers.attempts import BUILDERS
from ik_node.solvers.fabrik_method import ARM_OPTIONS
from ik_node.solvers.hybrid import HYBRID_OPTIONS
from ik_node.solvers.jacobian import JACOBIAN_OPTIONS

__all__ = ['Method', 'METHODS']


class Method(NamedTuple):
    """
    One solve method.

    options: every option name the method uses. build(chain, opts, pose) -> MethodAttempts:
    a built-in method's attempt records (None for a registered method). prepare(chain,
    target, opts) -> attempt, attempt(start, budget) -> (q, iterations): a registered
    method's attempt (None for a built-in one). rescue: the driver runs a damped
    least-squares attempt from the seed when the method's own attempt from there failed
    on a target near the seed's tip (fabrik and ccd: damped least squares stays on the
    seed's branch; hybrid runs it itself from a start near the target).
    """

    options: frozenset
    build: Optional[Callable] = None
    prepare: Optional[Callable] = None
    rescue: bool = False


_JACOBIAN = COMMON_OPTIONS | JACOBIAN_OPTIONS
_ARM = COMMON_OPTIONS | ARM_OPTIONS

METHODS: dict[str, Method] = {
    'dls': Method(_JACOBIAN, BUILDERS['dls']),
    'pinv': Method(_JACOBIAN, BUILDERS['pinv']),
    'jt': Method(_JACOBIAN, BUILDERS['jt']),
    'fabrik': Method(_ARM, BUILDERS['fabrik'], rescue=True),
    'ccd': Method(_ARM, BUILDERS['ccd'], rescue=True),
    'hybrid': Method(COMMON_OPTIONS | HYBRID_OPTIONS, BUILDERS['hybrid']),
}
