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
from ik_node.motion.planner import path_touches
from ik_node.motion.trajectory import cut_at, Segment
import numpy as np

__all__ = ['ObstacleStop', 'plan_stop', 'travel', 'WITHIN_LIMITS', 'EMERGENCY', 'UNAVOIDABLE']

WITHIN_LIMITS, EMERGENCY, UNAVOIDABLE = 'within limits', 'emergency', 'unavoidable'
# Bisection steps for the gentlest emergency scale and the last clear time (judged on the
# stop's travel, no collision check) and for the last clear time by collision checks (when
# the stop leaves the path: a curve).
_SCALE_STEPS = 10
_TIME_STEPS = 20
_CHECKED_STEPS = 12
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
        if not path_touches(chain, ahead[i:i + 2], obstacles):
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
    return not path_touches(chain, stop.samples(now, BLEND_SPACING, t_to), obstacles)


def _stop_travel(stop: Segment, now: float, t_to: float | None = None) -> float:
    """Return the largest joint's travel of ``stop`` from ``now`` to ``t_to`` (None: its end)."""
    end = stop.end if t_to is None else stop.at(t_to).q
    return float(np.max(np.abs(end - stop.at(now).q)))    # a stop never turns back


def _gentlest(commander: MotionCommander, now: float, top: float, short_of: float
              ) -> tuple[Segment, float] | None:
    """
    Return (the stop, its scale) of the lowest scale in [1, ``top``] whose travel is ``short_of``.

    None if even ``top``'s is not. On its travel alone (the stop keeps to the path, where the
    first contact is ``short_of`` ahead or a little more): the caller checks the one found.
    """
    best = commander.stopping(now, top)
    if best is None or _stop_travel(best, now) >= short_of:
        return None
    lo, hi = 1.0, top
    for _ in range(_SCALE_STEPS):
        mid = 0.5 * (lo + hi)
        stop = commander.stopping(now, mid)
        assert stop is not None
        if _stop_travel(stop, now) < short_of:
            hi, best = mid, stop
        else:
            lo = mid
    return best, hi


def _last_clear_time(chain: Chain, stop: Segment, now: float, obstacles: Sequence,
                     short_of: float) -> float:
    """Return the latest time [s] up to which ``stop``'s path from ``now`` is clear."""
    lo, hi = now, stop.t_end
    for _ in range(_TIME_STEPS):       # on its travel, the first contact ``short_of`` ahead
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _stop_travel(stop, now, mid) < short_of else (lo, mid)
    if _clear(chain, stop, now, obstacles, lo):
        return lo
    lo, hi = now, lo
    for _ in range(_CHECKED_STEPS):    # it left the path: by collision checks
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _clear(chain, stop, now, obstacles, mid) else (lo, mid)
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
    contact = path_touches(chain, ahead, obstacles)
    first = commander.stopping(now) if contact else None
    if first is None:
        return None
    braking = _stop_travel(first, now)
    contact_travel = _contact_travel(chain, ahead, obstacles)
    head = (contact, contact_travel, braking)
    unit = 'rad or m' if np.any(chain.prismatic) else 'rad'
    if _clear(chain, first, now, obstacles):
        return first, ObstacleStop(WITHIN_LIMITS, *head, braking, 1.0, unit=unit)
    # The first contact lies between contact_travel - _CONTACT_STEP and contact_travel.
    short_of = contact_travel - _CONTACT_STEP
    top = max(emergency_scale, 1.0)
    if top > 1.0:
        gentlest = _gentlest(commander, now, top, short_of)
        if gentlest is not None and _clear(chain, gentlest[0], now, obstacles):
            stop, scale = gentlest
            return stop, ObstacleStop(EMERGENCY, *head, _stop_travel(stop, now), scale,
                                      unit=unit)
    hardest = commander.stopping(now, top)
    assert hardest is not None
    if top > 1.0 and _clear(chain, hardest, now, obstacles):    # off the path, around it
        return hardest, ObstacleStop(EMERGENCY, *head, _stop_travel(hardest, now), top,
                                     unit=unit)
    t_cut = _last_clear_time(chain, hardest, now, obstacles, short_of)
    step = float(np.max(np.abs(hardest.at(t_cut).v))) if t_cut < hardest.t_end else 0.0
    return cut_at(hardest, t_cut), ObstacleStop(
        UNAVOIDABLE, *head, _stop_travel(hardest, now, t_cut), top, step, unit)
