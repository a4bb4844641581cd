# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The words of a solve's outcome: status names and the message of a failed solve."""

import math

from ik_node.collision import solver_hook
from ik_node.result import (IKResult, STATUS_BLOCKED, STATUS_NOT_CONVERGED, STATUS_OUT_OF_REACH,
                            STATUS_POSITION_ONLY, STATUS_REACHED, STATUS_TOO_FAR)
from ik_node.solvers.codes import (CODE_BLOCKED, CODE_NOT_CONVERGED, CODE_OUT_OF_REACH,
                                   CODE_POSITION_ONLY, CODE_REACHED, CODE_TOO_FAR)
import numpy as np

__all__ = ['STATUS_OF_CODE', 'RESCUE_METHOD', 'failure_message', 'failure_text',
           'out_of_reach', 'result_of']

STATUS_OF_CODE = {CODE_REACHED: STATUS_REACHED, CODE_OUT_OF_REACH: STATUS_OUT_OF_REACH,
                  CODE_NOT_CONVERGED: STATUS_NOT_CONVERGED,
                  CODE_POSITION_ONLY: STATUS_POSITION_ONLY, CODE_TOO_FAR: STATUS_TOO_FAR,
                  CODE_BLOCKED: STATUS_BLOCKED}
# The method of every rescue attempt (see :class:`ik_node.solvers.table.Method`): a result
# the rescue solved says so.
RESCUE_METHOD = 'dls'


def out_of_reach(chain, position: np.ndarray, tolerance: float) -> bool:
    """Return True when ``position`` [m] is provably beyond the chain's reach bound."""
    d = position - chain.reach_origin
    return math.sqrt(float(d @ d)) > chain.reach + tolerance


def failure_text(status: str, beyond_reach: bool, attempts: int, perr: float, oerr: float,
                 pose: bool) -> str:
    """Return why a solve failed and the best errors reached [m, rad]."""
    if beyond_reach:
        why = 'target out of reach (beyond the reach bound of the arm); '
    elif status == STATUS_OUT_OF_REACH:
        why = ('target out of reach (beyond the stretched reach of the arm, or attempts from '
               'several starts stretched to the same distance); ')
    elif status == STATUS_POSITION_ONLY:
        return ("the point is met; the orientation only as nearly as the arm's joints allow "
                f'(fewer than 6): orientation error {oerr:.4g} rad, '
                f'position error {perr:.4g} m, after {attempts} attempt(s)')
    else:
        why = ''
    return (why + f'no solution within tolerance after {attempts} attempt(s); '
            f'best position error {perr:.4g} m'
            + (f', orientation error {oerr:.4g} rad' if pose else ''))


def failure_message(chain, opts, o, pose: bool, position: np.ndarray,
                    q_blocked: np.ndarray) -> str:
    """
    Return the message of a failed solve from its Outcome ``o``.

    position (3,): the target's [m]; q_blocked (n,): the last answer within tolerance that
    collided (read when ``o.blocked``).
    """
    status = STATUS_OF_CODE[int(o.code)]
    perr, oerr, attempts = float(o.position_error), float(o.orientation_error), int(o.attempts)
    if status == STATUS_TOO_FAR:
        message = (failure_text(status, False, attempts, perr, oerr, pose)
                   + f'; attempts held within max_joint_change {opts.max_joint_change:g} '
                   'of the seed')
        if o.too_far_joint >= 0:
            message += (f'; answers within tolerance move '
                        f'{chain.joint_names[int(o.too_far_joint)]} '
                        f'{float(o.too_far_change):.4g} from it')
    else:
        beyond = out_of_reach(chain, position, opts.position_tolerance)
        message = failure_text(status, beyond, attempts, perr, oerr, pose)
    if o.blocked:
        message += ('; answers within tolerance collide: '
                    f'{solver_hook.collision_reason(chain, q_blocked, opts)}')
    return message


def result_of(chain, opts, method: str, q: np.ndarray, q_blocked: np.ndarray, o, pose: bool,
              position: np.ndarray) -> IKResult:
    """Return the IKResult of the driver's answer q (n,) and Outcome ``o``."""
    message = '' if o.success else failure_message(chain, opts, o, pose, position, q_blocked)
    return IKResult.of_solver(q, bool(o.success), float(o.position_error),
                              float(o.orientation_error) if pose else math.nan,
                              int(o.iterations), RESCUE_METHOD if o.rescued else method,
                              int(o.attempts), message, STATUS_OF_CODE[int(o.code)])
