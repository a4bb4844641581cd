# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The stop before a new obstacle: within the limits when that avoids it, else an explicit rule.

When the world changes under a motion (an obstacle appears), the motion left is checked
against the new world all the way to its end: a lookahead longer than any braking distance.
When it may touch something, the arm stops on its path (:func:`plan_stop`):

1. ``within limits`` (a controlled stop, IEC 60204-1 category 2; MoveIt's execution monitor
   likewise stops a trajectory whose path left became invalid): the quickest stop under the
   declared acceleration and jerk limits, taken when its path is clear of the new world.
2. ``emergency``: the obstacle appeared inside the braking distance, no stop within the limits
   avoids it. The gentlest stop under at most ``emergency_scale`` x the acceleration and jerk
   limits whose path is clear is taken (found by bisection, so the limits are exceeded no more
   than needed), and reported with its figures. ``emergency_scale`` 1 turns this off.
3. ``unavoidable``: not even the stop at ``emergency_scale`` is clear. The commands follow
   that stop while its path is clear and hold at its last clear state: a velocity step,
   reported with its size (a real driver refuses it and stops on its own brakes, a category 0
   stop). No command is ever in contact.

Every figure is a joint travel: the largest joint's path length [rad or m] from the command
when the obstacle appeared.
"""

import math
from typing import Any, NamedTuple, Sequence

from ik_node.model.chain import Chain
from ik_node.motion.commander import BLEND_SPACING, MotionCommander
from ik_node.motion.planner import path_free
from ik_node.motion.trajectory import cut_at, Segment
import numpy as np

__all__ = ['ObstacleStop', 'plan_stop', 'travel', 'WITHIN_LIMITS', 'EMERGENCY', 'UNAVOIDABLE']

WITHIN_LIMITS, EMERGENCY, UNAVOIDABLE = 'within limits', 'emergency', 'unavoidable'
# Bisection steps for the gentlest clear emergency scale and for the last clear time.
_SCALE_STEPS = 6
_TIME_STEPS = 14
# The first contact on the path left is located this finely [rad or m] (for the report).
_CONTACT_STEP = 0.005


class ObstacleStop(NamedTuple):
    """
    How the arm stopped for a new obstacle (see the module docstring).

    kind: WITHIN_LIMITS, EMERGENCY or UNAVOIDABLE. contact: what would touch what on the
    path left. contact_travel: travel to the first contact on the path left; braking_travel:
    travel of the stop within the limits; stop_travel: travel of the stop taken [rad or m].
    scale: the stop's acceleration and jerk over the limits [1]. velocity_step: the largest
    joint speed dropped at once [rad/s or m/s] (UNAVOIDABLE only, else 0). unit: of the
    figures, 'rad' ('rad or m' for a chain with prismatic joints).
    """

    kind: str
    contact: str
    contact_travel: float
    braking_travel: float
    stop_travel: float
    scale: float
    velocity_step: float = 0.0
    unit: str = 'rad'

    @property
    def level(self) -> str:
        """Return the status level: WARN for a stop within the limits, else ERROR."""
        return 'WARN' if self.kind == WITHIN_LIMITS else 'ERROR'

    def text(self) -> str:
        """Return what happened, with the figures."""
        u = self.unit
        head = (f'a new obstacle on the path ({self.contact} {self.contact_travel:.3f} {u} '
                f'ahead, braking distance {self.braking_travel:.3f} {u})')
        if self.kind == WITHIN_LIMITS:
            return f'{head}: stopped within the limits after {self.stop_travel:.3f} {u}'
        if self.kind == EMERGENCY:
            return (f'{head}: emergency stop at {self.scale:.2f}x the acceleration and jerk '
                    f'limits after {self.stop_travel:.3f} {u}, short of contact')
        return (f'{head}: no stop within {self.scale:.2f}x the acceleration and jerk limits '
                f'(emergency_stop_scale) avoids it; followed that stop for '
                f'{self.stop_travel:.3f} {u} and held at its last clear state: a velocity step '
                f'of {self.velocity_step:.3f} {u}/s')

    def values(self) -> dict[str, Any]:
        """Return the status key/values of this stop."""
        return {'stop': self.kind, 'stop_scale': round(self.scale, 4),
                'contact_travel': round(self.contact_travel, 5),
                'braking_travel': round(self.braking_travel, 5),
                'stop_travel': round(self.stop_travel, 5),
                'velocity_step': round(self.velocity_step, 5)}


def travel(path: np.ndarray) -> float:
    """Return the largest joint's travel [rad or m] along the polyline ``path`` (m, n)."""
    if path.shape[0] < 2:
        return 0.0
    return float(np.max(np.sum(np.abs(np.diff(path, axis=0)), axis=0)))


def _contact_travel(chain: Chain, ahead: np.ndarray, obstacles: Sequence) -> float:
    """Return the travel along ``ahead`` (m, n) to its first contact (its length if none)."""
    for i in range(ahead.shape[0] - 1):
        if not path_free(chain, ahead[i:i + 2], obstacles):
            continue
        a, b = ahead[i], ahead[i + 1]
        steps = max(1, int(math.ceil(np.max(np.abs(b - a)) / _CONTACT_STEP)))
        for k in range(steps + 1):
            q = a + (k / steps) * (b - a)
            if chain.collisions(q, obstacles):
                return travel(np.vstack([ahead[:i + 1], q[None, :]]))
        return travel(ahead[:i + 2])     # the certified check's possible contact
    return travel(ahead)


def _clear(chain: Chain, stop: Segment, now: float, obstacles: Sequence,
           t_to: float | None = None) -> bool:
    """Return True when ``stop``'s path from ``now`` (to ``t_to``, None: its end) is clear."""
    return not path_free(chain, stop.samples(now, BLEND_SPACING, t_to), obstacles)


def _last_clear_time(chain: Chain, stop: Segment, now: float, obstacles: Sequence) -> float:
    """Return the latest time [s] up to which ``stop``'s path from ``now`` is clear."""
    lo, hi = now, stop.t_end
    for _ in range(_TIME_STEPS):
        mid = 0.5 * (lo + hi)
        if _clear(chain, stop, now, obstacles, mid):
            lo = mid
        else:
            hi = mid
    return lo


def plan_stop(commander: MotionCommander, obstacles: Sequence, now: float,
              emergency_scale: float) -> tuple[Segment, ObstacleStop] | None:
    """
    Return the stop to take from ``now`` and its record, or None when the path left is clear.

    commander: the motion in force; obstacles: the new world; emergency_scale (>= 1): the most
    the acceleration and jerk limits may be exceeded by when no stop within them avoids
    contact (see the module docstring).
    """
    chain = commander.chain
    ahead = commander.remaining_path(now)
    contact = path_free(chain, ahead, obstacles)
    first = commander.stopping(now) if contact else None
    if first is None:
        return None
    braking = travel(first.samples(now, BLEND_SPACING))
    head = (contact, _contact_travel(chain, ahead, obstacles), braking)
    unit = 'rad or m' if np.any(chain.prismatic) else 'rad'
    if _clear(chain, first, now, obstacles):
        return first, ObstacleStop(WITHIN_LIMITS, *head, braking, 1.0, unit=unit)
    top = commander.stopping(now, emergency_scale) if emergency_scale > 1.0 else first
    assert top is not None
    if top is not first and _clear(chain, top, now, obstacles):
        lo, hi, best = 1.0, emergency_scale, top
        for _ in range(_SCALE_STEPS):
            mid = 0.5 * (lo + hi)
            stop = commander.stopping(now, mid)
            assert stop is not None
            if _clear(chain, stop, now, obstacles):
                hi, best = mid, stop
            else:
                lo = mid
        return best, ObstacleStop(EMERGENCY, *head, travel(best.samples(now, BLEND_SPACING)),
                                  hi, unit=unit)
    t_cut = _last_clear_time(chain, top, now, obstacles)
    step = float(np.max(np.abs(top.at(t_cut).v))) if t_cut < top.t_end else 0.0
    return cut_at(top, t_cut), ObstacleStop(
        UNAVOIDABLE, *head, travel(top.samples(now, BLEND_SPACING, t_cut)),
        max(emergency_scale, 1.0), step, unit)
