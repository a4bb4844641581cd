# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The tracker's guards: lag and stall, singularity slow-down, the last collision net.

Plain functions and one small class over arrays; :class:`ik_node.motion.tracker.IKTracker`
holds their state and applies them at each step.

- Lag: a command that leads the measured arm by more than :data:`LAG_PAUSE` of the
  following-error limit stops smoothly on its path and goes on below :data:`LAG_RESUME`.
- Stall: a reading a full limit from every command of the :data:`ARM_LATENCY` before it,
  while the arm stood still (:func:`stood_still`), holds the command at the measured
  position (:func:`stall_text` says why).
- Singularity: :class:`SingularityGuard` scales the speed down toward a singularity.
- Collision: :func:`step_blocked` refuses a step into contact (goals and blends are checked
  before, this is the last net).
"""

from typing import Any, Sequence

from ik_node.model.chain import Chain
from ik_node.motion import window_checks
from ik_node.motion.timed_ring import TimedRing
import numpy as np

__all__ = ['ARM_LATENCY', 'STALL_READING_AGE', 'STALL_MOTION', 'STALL_START_GRACE',
           'LAG_PAUSE', 'LAG_RESUME', 'SingularityGuard', 'step_blocked', 'stood_still',
           'following_lag', 'load_checks', 'stall_text']

# A reading is compared with the commands of this long before it [s]: an arm that matches
# any of them is following, if late.
ARM_LATENCY = 0.2
# Only a reading this recent [s, by its stamp, beyond the usual delivery delay
# (ik_node.motion.reading_clock.DeliveryDelay)] can declare the arm stalled: one read late (a
# backlog of messages) shows where the arm was, and holding there would be a jump back.
STALL_READING_AGE = 0.05
# ... and only an arm that stood still [rad or m] over the last ARM_LATENCY of readings: an
# arm that lags but moves is following, however late.
STALL_MOTION = 1e-3
# ... but an arm that has not moved since its command started (at start-up, after a resync
# or a hold, heard again after a gap) gets this long [s] from the command's first step: its
# driver may still be connecting to the command topic. (The lag guard stops the command on
# its path meanwhile.)
STALL_START_GRACE = 1.0
# A lead of the command over the measured arm beyond this fraction of the following-error
# limit makes the motion stop smoothly on its path; it goes on once the lead is below the
# fraction after it.
LAG_PAUSE = 1.0
LAG_RESUME = 0.5


class SingularityGuard:
    """
    Slow down near singularities, with MoveIt Servo's condition-number thresholds.

    A step that raises the condition number kappa of the Jacobian (sigma_max / sigma_min)
    beyond ``slow`` is scaled by (stop - kappa) / (stop - slow), down to ``min_scale`` at
    ``stop`` and beyond: the commanded speed falls smoothly toward a singularity. Steps
    that lower kappa (away from the singularity) are never scaled. With ``min_scale`` 0
    motion toward the singularity stops at ``stop`` (Servo's hard stop); above 0 the arm
    creeps through it. ``slow`` = inf turns this off.
    """

    def __init__(self, slow: float, stop: float, min_scale: float = 0.0):
        if not (1.0 <= slow < stop) and not (slow == np.inf):
            raise ValueError(f'need 1 <= slow < stop, got slow={slow}, stop={stop}')
        if not 0.0 <= min_scale <= 1.0:
            raise ValueError(f'min_scale must be in [0, 1], got {min_scale}')
        self.slow, self.stop, self.min_scale = float(slow), float(stop), float(min_scale)

    @property
    def off(self) -> bool:
        """Return True when the guard never slows the arm (``slow`` = inf)."""
        return self.slow == np.inf

    @staticmethod
    def condition(chain: Chain, q: np.ndarray) -> float:
        """Return the condition number of the Jacobian at ``q`` (inf at a singularity)."""
        s = np.linalg.svd(chain.jacobian(q), compute_uv=False)
        return float(s[0] / s[-1]) if s[-1] > 0.0 else np.inf

    def scale(self, k_now: float, k_ahead: float) -> float:
        """
        Return the speed factor in [0, 1] from kappa now and kappa where the arm would rest.

        Judged where the arm would come to rest if it braked now: a jerk-limited arm needs
        that far to slow down, so the slow-down starts that much earlier.
        """
        if k_ahead <= self.slow or k_ahead <= k_now:
            return 1.0      # clear of it, or moving away from it: full speed
        return float(np.clip((self.stop - k_ahead) / (self.stop - self.slow),
                             self.min_scale, 1.0))


def step_blocked(chain: Chain, obstacles: Sequence[Any] | None, q_prev: np.ndarray,
                 q_new: np.ndarray) -> str:
    """Return why the command q_prev -> q_new may not be sent ('' if it may)."""
    if obstacles is None or np.array_equal(q_prev, q_new):
        return ''
    pairs = chain.collisions(q_new, obstacles)
    if not pairs or chain.collisions(q_prev, obstacles):
        return ''           # clear, or already in contact: let it move out
    return f'step refused, {pairs[0][0]} would touch {pairs[0][1]}: holding'


def stood_still(readings: TimedRing, t: float) -> bool:
    """Return True if the readings (time, q) of the last ARM_LATENCY before ``t`` barely moved."""
    return bool(window_checks.ring_stood_still(readings.times, readings.rows, readings.head,
                                               readings.count, t, ARM_LATENCY, STALL_MOTION))


def following_lag(history: TimedRing, continuous: np.ndarray, q: np.ndarray,
                  t: float) -> np.ndarray:
    """
    Return how far (n,) a reading ``q`` taken at time ``t`` is from its commands.

    history: the commands as stepped, (time [s], q). The distance to the nearest of the
    commands in force during the :data:`ARM_LATENCY` before ``t`` (a command takes a while to
    reach the arm, and the arm a while to move), joint by joint; 0 without a command then.
    One compiled pass over the ring (a Python loop over its ~200 rows took ~30 us at a kHz).
    """
    if history.count == 0:
        return np.zeros(q.shape[0])
    return window_checks.ring_following_lag(history.times, history.rows, history.head,
                                            history.count, continuous,
                                            np.asarray(q, dtype=float), t, ARM_LATENCY)


def load_checks(chain: Chain) -> None:
    """
    Load the compiled kernels of :func:`stood_still` and :func:`following_lag` now.

    For start-up (the tracker's warm-up, ik-compile): loaded on the first reading instead,
    they held that control cycle for 8 ms each (more on a busy machine).
    """
    q = np.array(chain.mid, dtype=float)
    ring = TimedRing(2)
    ring.append(0.0, q)
    stood_still(ring, 1.0)
    following_lag(ring, chain.continuous, q, 1.0)


def stall_text(names: Sequence[str], lag: np.ndarray, limit: np.ndarray,
               over: np.ndarray) -> str:
    """Return why a stalled arm is held: the joints ``over`` their following-error limit."""
    return ('arm not following the commands: ' + ', '.join(
        f'{name} {g:.3g} from its command (limit {lim:.3g})' for name, g, lim, o
        in zip(names, lag, limit, over) if o)
        + '; holding at the measured position, send a new target to go on')
