# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
FABRIK as an ``ik_node.solve`` method ('fabrik'); 'ccd' and 'hybrid' build on it.

``solve(chain, target, method='fabrik')`` runs FABRIK on the joint positions of the URDF arm
and maps each backward pass to joint angles (:mod:`ik_node.solvers.arm_fabrik`). The answer
is a q inside the limits whose forward kinematics is checked here, after the kernel, against
the tolerances; the FABRIK points themselves are never reported.

Targets. A (3,) position is the main case. A (4, 4) pose is handled too: the last joint's
origin is carried by the target frame in the forward pass, and two virtual points on the tip
frame are aligned with their places on the target frame in the backward pass; this converges
more slowly than for positions and is not always within the orientation tolerance, so for
poses prefer ``method='hybrid'`` (FABRIK start, DLS finish).

Options (besides the common ones: tolerances, max_iterations per attempt, max_attempts,
timeout, restarts, solutions, rng_seed; see :class:`ik_node.options.SolveOptions`):

- ``tip_weight`` (3.0 for 'fabrik', 1.0 for 'ccd'): weight of the tip (and of the virtual
  orientation points) against the FABRIK joint point in each joint's alignment.
- ``fabrik_points`` ('next'): each joint aligns the next joint point off its axis with its
  FABRIK target; 'all' aligns every point beyond it.
- ``min_change`` [m] (position_tolerance / 1000): an attempt stops as stalled when the tip
  moves less than this in one iteration.
- ``orientation_points_offset`` [m] (0.1): distance of the virtual orientation points from
  the tip.
- ``progress_window`` (10): an attempt also stops as stalled when its error did not halve
  over this many iterations (0: off). FABRIK and CCD converge linearly, and a few targets
  creep towards the tolerance for hundreds of iterations.
- ``polish_iterations`` (5): when an attempt stops short of the tolerance, at most this many
  damped least-squares (Levenberg-Marquardt) steps finish it from the best q found. With 0
  the method is pure FABRIK (or CCD) and relies on random restarts instead: at the default
  10 µm, pure CCD on a UR5 pose meets 3 targets in 20 within a 1 s budget, with the polish
  all 20 in 0.4 ms (median).

Restarts, the budget, the final check and the choice among solutions are the driver's
(:mod:`ik_node.solvers.restarts`); the attempt is
:func:`ik_node.solvers.attempts.method_attempt`. The point-chain solver (no URDF) is
:func:`ik_node.pointchain.point_fabrik`.
"""

from ik_node.solvers.arm_fabrik import ArmParams, MODE_CCD, MODE_FABRIK

__all__ = ['arm_params', 'polish_iterations', 'ARM_OPTIONS']

# An attempt that did not halve its error over ``progress_window`` iterations is stalled.
_PROGRESS = 0.5

ARM_OPTIONS = frozenset({'tip_weight', 'fabrik_points', 'min_change',
                         'orientation_points_offset', 'progress_window', 'polish_iterations'})

# Per-mode defaults of the options whose SolveOptions default is None.
_TIP_WEIGHT = {MODE_FABRIK: 3.0, MODE_CCD: 1.0}
_POLISH = {MODE_FABRIK: 5, MODE_CCD: 5}


def arm_params(mode: int, opts, max_iterations: int, polish: int) -> ArmParams:
    """Return the kernel record for ``mode`` from validated options."""
    tip_weight = _TIP_WEIGHT[mode] if opts.tip_weight is None else opts.tip_weight
    min_change = (1e-3 * opts.position_tolerance if opts.min_change is None
                  else opts.min_change)
    return ArmParams(mode=mode, tol_p=float(opts.position_tolerance),
                     tol_o=float(opts.orientation_tolerance), max_iter=int(max_iterations),
                     min_change=float(min_change),
                     s_virtual=float(opts.orientation_points_offset),
                     tip_weight=float(tip_weight), next_only=opts.fabrik_points == 'next',
                     window=int(opts.progress_window), progress=_PROGRESS,
                     polish_iter=int(polish))


def polish_iterations(mode: int, opts) -> int:
    """Return the polish steps of ``mode`` from validated options (the mode's default)."""
    return _POLISH[mode] if opts.polish_iterations is None else int(opts.polish_iterations)
