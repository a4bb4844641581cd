# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The table of ``ik_node.solve`` methods: name -> :class:`Method`.

Every method is an attempt factory run by the one restart driver
(:func:`ik_node.solvers.driver.run_restarts`); a method lists the options it uses beyond the
common ones, and any other option is refused with IKInputError.
"""

from typing import Callable, NamedTuple, Optional

from ik_node.options import COMMON_OPTIONS
from ik_node.solvers.driver import RESCUE_METHOD
from ik_node.solvers.fabrik import ARM_OPTIONS, prepare_arm
from ik_node.solvers.fabrik_chain import MODE_CCD, MODE_FABRIK
from ik_node.solvers.hybrid import HYBRID_OPTIONS, prepare_hybrid
from ik_node.solvers.jacobian import JACOBIAN_OPTIONS, prepare_jacobian

__all__ = ['Method', 'METHODS']


class Method(NamedTuple):
    """
    One solve method.

    prepare(chain, target, opts) -> attempt, where attempt(start, budget) -> (q, iterations)
    runs one attempt from ``start`` (n,); options: every option name the method uses;
    rescue: the prepare of a local attempt the driver runs from the seed when the method's
    own attempt from there failed (None: none; fabrik and ccd use damped least squares,
    which stays on the seed's branch; hybrid runs it itself from a start near the target).
    """

    prepare: Callable
    options: frozenset
    rescue: Optional[Callable] = None


_LOCAL = prepare_jacobian(RESCUE_METHOD)

METHODS: dict[str, Method] = {
    'dls': Method(prepare_jacobian('dls'), COMMON_OPTIONS | JACOBIAN_OPTIONS),
    'pinv': Method(prepare_jacobian('pinv'), COMMON_OPTIONS | JACOBIAN_OPTIONS),
    'jt': Method(prepare_jacobian('jt'), COMMON_OPTIONS | JACOBIAN_OPTIONS),
    'fabrik': Method(prepare_arm(MODE_FABRIK), COMMON_OPTIONS | ARM_OPTIONS, _LOCAL),
    'ccd': Method(prepare_arm(MODE_CCD), COMMON_OPTIONS | ARM_OPTIONS, _LOCAL),
    'hybrid': Method(prepare_hybrid, COMMON_OPTIONS | HYBRID_OPTIONS),
}
