# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
One attempt of any built-in method, for the restart driver: :class:`MethodAttempts`.

Every built-in method hands the driver (:func:`ik_node.solvers.restarts.drive`) the same
record type, so one compiled driver serves them all: its ``family`` says which kernel an
attempt runs (:func:`method_attempt`):

- :data:`FAMILY_JACOBIAN` ('dls', 'pinv', 'jt'): :func:`ik_node.solvers.jacobian.jacobian_attempt`
  with the method's passes;
- :data:`FAMILY_ARM` ('fabrik', 'ccd'): :func:`ik_node.solvers.arm_fabrik.arm_attempt`;
  its rescue attempt (:data:`ik_node.solvers.codes.ATTEMPT_RESCUE`) is damped least squares
  from the seed, with the ``jacobian`` passes;
- :data:`FAMILY_HYBRID` ('hybrid'): :func:`ik_node.solvers.hybrid.hybrid_attempt`, a FABRIK
  phase finished by damped least squares.

A record holds the passes of both kernels (those it does not use are idle: an ArmParams of
no iterations), so every method has the same numba type and the driver compiles once.
"""

from typing import Callable, NamedTuple

from ik_node._jit import njit_inline
from ik_node.solvers.arm_fabrik import arm_attempt, ArmParams, MODE_CCD, MODE_FABRIK
from ik_node.solvers.codes import ATTEMPT_LAZY, ATTEMPT_MAIN, ATTEMPT_RESCUE
from ik_node.solvers.dls import METHOD_CODES, METHOD_DLS
from ik_node.solvers.fabrik_method import arm_params, polish_iterations
from ik_node.solvers.hybrid import hybrid_attempt, NEAR_ORIENTATION, NEAR_POSITION
from ik_node.solvers.jacobian import jacobian_attempt, jacobian_attempts, JacobianAttempts

__all__ = ['MethodAttempts', 'method_attempt', 'BUILDERS', 'FAMILY_JACOBIAN', 'FAMILY_ARM',
           'FAMILY_HYBRID']

FAMILY_JACOBIAN = 0
FAMILY_ARM = 1
FAMILY_HYBRID = 2


class MethodAttempts(NamedTuple):
    """
    The records of a built-in method's attempts (:func:`method_attempt`).

    family: FAMILY_*; jacobian: the Jacobian passes (the method's own, or those of the
    damped least-squares rescue or finish); arm: the FABRIK/CCD parameters (max_iter 0 when
    idle); near_position [m], near_orientation [rad]: hybrid's start this near the target
    runs damped least squares first.
    """

    family: int
    jacobian: JacobianAttempts
    arm: ArmParams
    near_position: float
    near_orientation: float


@njit_inline
def method_attempt(rec, ctx, kind, tgt, start, deadline):
    """
    Run one attempt of the method of ``ctx`` from ``start`` (n,); return (q, iterations).

    rec: the driver's records (model, limits, ...); kind: ATTEMPT_*; tgt: the Target the
    attempt aims at (a pose's point for a probe); deadline [s of the kernels' clock].
    Inlined into the driver (a call would count references to every array of rec and ctx),
    with the Jacobian attempt, the driver's hot path; the FABRIK family's is a call.
    """
    if ctx.family == FAMILY_JACOBIAN or kind == ATTEMPT_RESCUE:
        return jacobian_attempt(rec.model, rec.limits, ctx.jacobian, kind, tgt, start,
                                deadline)
    # The FABRIK family's first attempt is like any other (only a Jacobian method leaves
    # the clearance out of it).
    return _fabrik_family_attempt(rec, ctx, ATTEMPT_MAIN if kind == ATTEMPT_LAZY else kind,
                                  tgt, start, deadline)


@njit_inline
def _fabrik_family_attempt(rec, ctx, kind, tgt, start, deadline):
    """
    Run one attempt of 'fabrik' or 'ccd' (FAMILY_ARM), or of 'hybrid'.

    Inlined too: compiled on its own, it would optimise the code of both kernels it calls
    once more (5 s of a compile into an empty cache) for one call less.
    """
    if ctx.family == FAMILY_ARM:
        q, it, _, _, _, polish_it = arm_attempt(rec.model, rec.limits, tgt, ctx.arm, start)
        return q, it + polish_it
    return hybrid_attempt(rec, ctx, kind, tgt, start, deadline)


def _idle_arm(opts) -> ArmParams:
    return arm_params(MODE_FABRIK, opts, 0, 0)


def _jacobian(code: int) -> Callable:
    def build(chain, opts, pose: bool) -> MethodAttempts:
        return MethodAttempts(FAMILY_JACOBIAN, jacobian_attempts(code, chain, opts, pose),
                              _idle_arm(opts), 0.0, 0.0)
    return build


def _arm(mode: int) -> Callable:
    def build(chain, opts, pose: bool) -> MethodAttempts:
        arm = arm_params(mode, opts, opts.max_iterations, polish_iterations(mode, opts))
        return MethodAttempts(FAMILY_ARM, jacobian_attempts(METHOD_DLS, chain, opts, pose),
                              arm, 0.0, 0.0)
    return build


def _hybrid(chain, opts, pose: bool) -> MethodAttempts:
    return MethodAttempts(FAMILY_HYBRID, jacobian_attempts(METHOD_DLS, chain, opts, pose),
                          arm_params(MODE_FABRIK, opts, opts.fabrik_iterations, 0),
                          NEAR_POSITION * chain.length_scale, NEAR_ORIENTATION)


# name -> build(chain, opts, pose) -> MethodAttempts, for pose (else point) targets.
BUILDERS: dict[str, Callable] = {
    **{name: _jacobian(code) for name, code in METHOD_CODES.items()},
    'fabrik': _arm(MODE_FABRIK), 'ccd': _arm(MODE_CCD), 'hybrid': _hybrid}
