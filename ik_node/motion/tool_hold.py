# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Holding what a jog does not command: the twist that brings the tool back from its drift.

The jogger's blend keeps the joints in step from rest, a steady velocity or a braking
(:mod:`ik_node.motion.velocity_blend`); from other states mid-blend (the twist turned, a stop
in the middle of a blend between two velocities) it shapes each joint's velocity on its own,
and the tool leaves the commanded direction a little. On a four-joint arm, time-synchronised
blends turned the tilt about 0.3 mrad per stroke, and strokes added up. A :class:`ToolHold`
keeps an anchor pose that moves with the tool only along the command (its origin along the
commanded linear velocity, its rotation about the commanded angular velocity; a zero part
holds) and gives the error twist from the tool to it, which the jogger corrects at a gain
[1/s]:

- the anchor forgets what the arm cannot correct: after each correction it is set to the
  tool plus the part of the error that the correction's own differential IK achieves, so a
  four-joint arm's roll or a direction damped at a singularity never winds up;
- the error is capped (a joint held at its limit, a guard that bends the path): beyond the
  cap the anchor comes along with the tool.

Nothing here imports rclpy; poses are (4, 4) in the base frame.
"""

import math

from ik_node._jit import njit
from ik_node.spatial.rotations import rotation_about_axis, rotation_vector_from_matrix
import numpy as np

__all__ = ['ToolHold', 'HOLD_GAIN', 'HOLD_CAP_LINEAR', 'HOLD_CAP_ANGULAR']

# [1/s] the rate drift is corrected at: about as fast as a blend reaches a velocity (0.1 s);
# a 4-joint arm's 0.2 mrad of tilt decays in about 0.3 s without overshoot.
HOLD_GAIN = 10.0
# [m], [rad]: the largest error held; beyond it the anchor follows the tool.
HOLD_CAP_LINEAR = 0.005
HOLD_CAP_ANGULAR = 0.01


@njit
def _along(d, u):
    """Return the part of ``d`` (3,) along ``u`` (3,) (0 when u is 0)."""
    uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2]
    if uu == 0.0:
        return np.zeros(3)
    return (d[0] * u[0] + d[1] * u[1] + d[2] * u[2]) / uu * u


@njit
def _across(e, direction):
    """Return the parts of the twist ``e`` (6,) across those of ``direction`` (6,)."""
    held = np.empty(6)
    held[:3] = e[:3] - _along(e[:3], direction[:3])
    held[3:] = e[3:] - _along(e[3:], direction[3:])
    return held


@njit
def _rotate(w, R):
    """Return exp(w^) R: ``R`` (3, 3) turned by the rotation vector ``w`` (3,) in the base."""
    angle = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
    if angle == 0.0:
        return R.copy()
    return rotation_about_axis(w / angle, angle) @ R


@njit
def _rotation(T):
    """Return the rotation of ``T`` (4, 4) as a contiguous (3, 3) copy."""
    return np.ascontiguousarray(T[:3, :3])


@njit
def _capped(e, cap):
    norm = math.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2])
    return e * (cap / norm) if norm > cap else e


@njit
def advance(anchor, T_last, T, direction):
    """
    Move ``anchor`` (4, 4, in place) with the tool's motion T_last -> T along ``direction``.

    direction (6,): the command in force over that motion, base frame [v; w]; only the
    directions of its two parts count.
    """
    anchor[:3, 3] += _along(T[:3, 3] - T_last[:3, 3], direction[:3])
    turn = rotation_vector_from_matrix(_rotation(T) @ _rotation(T_last).T)
    anchor[:3, :3] = _rotate(_along(turn, direction[3:]), _rotation(anchor))


@njit
def error_to(anchor, T, direction, cap_linear, cap_angular):
    """
    Return the error twist (6,) [m; rad] from the tool at ``T`` to ``anchor``, held part.

    Held: across ``direction`` (6,) (the command's parts; see :func:`rebase`) and capped.
    The anchor (4, 4) is moved in place to that error from T.
    """
    e = np.empty(6)
    e[:3] = anchor[:3, 3] - T[:3, 3]
    e[3:] = rotation_vector_from_matrix(_rotation(anchor) @ _rotation(T).T)
    e = _across(e, direction)
    e[:3] = _capped(e[:3], cap_linear)
    e[3:] = _capped(e[3:], cap_angular)
    return rebase(anchor, T, e, direction)


@njit
def rebase(anchor, T, e, direction):
    """
    Set ``anchor`` (4, 4, in place) to the tool at ``T`` moved by the error twist ``e`` (6,).

    Only e's parts across ``direction`` (6,) count (they are returned): along the command
    the tool goes where the command takes it, so an error there would change its speed.
    """
    held = _across(e, direction)
    anchor[:3, 3] = T[:3, 3] + held[:3]
    anchor[:3, :3] = _rotate(held[3:], _rotation(T))
    return held


class ToolHold:
    """
    The anchor of one jog (see the module docstring); :meth:`clear` when the arm moved otherwise.

    Per twist step: :meth:`error` (the error twist at the tool's pose, after the motion since
    the last call), then :meth:`achieved` with the part of the error the correction achieves.
    While the arm brakes without a command: :meth:`follow`.
    """

    def __init__(self, cap_linear: float = HOLD_CAP_LINEAR,
                 cap_angular: float = HOLD_CAP_ANGULAR):
        self._caps = (float(cap_linear), float(cap_angular))
        self._anchor: np.ndarray | None = None
        self._last: np.ndarray | None = None
        self._direction = np.zeros(6)

    @property
    def holding(self) -> bool:
        """Return True while an anchor is kept."""
        return self._anchor is not None

    def clear(self) -> None:
        """Drop the anchor: the next :meth:`error` holds the tool where it then is."""
        self._anchor = None
        self._last = None

    def follow(self, T: np.ndarray) -> None:
        """Move the anchor with the tool, now at ``T`` (4, 4), along the last command."""
        if self._anchor is not None:
            advance(self._anchor, self._last, T, self._direction)
            self._last = T

    def error(self, T: np.ndarray, direction: np.ndarray) -> np.ndarray:
        """
        Return the error twist (6,) [m; rad] from the tool at ``T`` to the anchor.

        direction (6,): the twist commanded from now on, base frame (the anchor moves along
        it until the next call). The first call anchors at T (error 0).
        """
        if self._anchor is None:
            self._anchor = np.array(T, dtype=float)
        else:
            advance(self._anchor, self._last, T, self._direction)
        self._last = T
        self._direction = np.array(direction, dtype=float)
        return error_to(self._anchor, T, self._direction, *self._caps)

    def achieved(self, e: np.ndarray) -> None:
        """Keep only ``e`` (6,) of the error at the last :meth:`error`'s pose: what is fixed."""
        if self._anchor is not None:
            rebase(self._anchor, self._last, np.array(e, dtype=float), self._direction)
