# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Target tracking of the IK node without ROS: seed, solve, then step safely toward the goal.

:class:`IKTracker` holds what the node knows between callbacks: the measured joint positions
(feedback), the last solution (goal) and the last published command. The node converts
messages to arrays, calls :meth:`IKTracker.solve` and :meth:`IKTracker.step`, and converts the
results back. Times are seconds of a monotonic clock supplied by the caller.
"""

from dataclasses import replace
import math
import time
from typing import Any, Mapping, Sequence

from ik_node.model.chain import Chain
from ik_node.motion import feedback, goal_search, guards
from ik_node.motion.commander import MotionCommander
from ik_node.motion.goal_search import GoalPlan
from ik_node.motion.goal_worker import GoalJob, GoalWorker
from ik_node.motion.guards import SingularityGuard
from ik_node.motion.joint_space import joint_distance
from ik_node.motion.motion_kinds import PENDING, REFUSED, SUPERSEDED
from ik_node.motion.obstacle_stop import ObstacleStop, plan_stop
from ik_node.motion.outcome import FeedbackProblem, SolveOutcome, StepReport
from ik_node.motion.planner import path_touches
from ik_node.motion.reading_clock import DeliveryDelay
from ik_node.motion.streams import is_repeat, is_stream_step
from ik_node.motion.timed_ring import TimedRing
from ik_node.motion.trajectory import KinematicLimits
from ik_node.motion.tree_arm import check_arm_target, solve_on, target_error
from ik_node.result import IKResult, STATUS_BLOCKED
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['IKTracker', 'GAP_PERIODS', 'EMERGENCY_STOP_SCALE', 'default_acceleration',
           'default_jerk']

# A step this many command periods after the one before (no command went out meanwhile: the
# arm stood at the last one) starts the motion again from rest there.
GAP_PERIODS = 5.0
# The most a stop for an obstacle that appeared inside the braking distance may exceed the
# acceleration and jerk limits by (ik_node.motion.obstacle_stop), unless set otherwise.
EMERGENCY_STOP_SCALE = 2.0


def default_acceleration(velocity: ArrayLike) -> np.ndarray:
    """Return (n,) acceleration limits for joints without any [rad/s^2]: full speed in 0.2 s."""
    return 5.0 * np.asarray(velocity, dtype=float)


def default_jerk(velocity: ArrayLike) -> np.ndarray:
    """Return (n,) jerk limits for joints without any [rad/s^3]: full acceleration in 0.1 s."""
    return 50.0 * np.asarray(velocity, dtype=float)


class IKTracker:
    """
    Seeded IK solves and velocity-limited commands for one chain.

    chain: the kinematic chain. method, options: passed to :func:`ik_node.solve`.
    velocity: (n,) finite velocity limits [rad/s or m/s] for the commands; acceleration,
    jerk: (n,) limits [rad/s^2, rad/s^3 or m] (None: :func:`default_acceleration`,
    :func:`default_jerk`). output_period: the command period [s]. joint_states_timeout:
    feedback older than this [s] no longer seeds the solver. Commands follow jerk-limited
    trajectories (:class:`ik_node.motion.commander.MotionCommander`) sampled at their stamps.
    goal_budget, plan_budget [s]: the time a goal's search for collision-free answers and its
    path planning may take. background: search and plan goals on a thread of their own
    (:class:`ik_node.motion.goal_worker.GoalWorker`) while the commands go on; a goal is then
    answered by :meth:`take_events` at a later :meth:`step` (False: at once, in the caller's
    thread).
    """

    def __init__(self, chain: Chain, method: str, options: Mapping[str, Any],
                 velocity: ArrayLike, output_period: float, joint_states_timeout: float,
                 acceleration: ArrayLike | None = None, jerk: ArrayLike | None = None,
                 goal_budget: float = 0.05, plan_budget: float = 0.5,
                 background: bool = False):
        self.chain = chain
        self.names = tuple(chain.joint_names)
        v = np.array(velocity, dtype=float).reshape(-1)
        self._v_max = v
        self._max_dt = float(output_period)
        self._cmd = MotionCommander(chain, self._kinematic_limits(v, acceleration, jerk))
        self.goal_budget = float(goal_budget)
        self.plan_budget = float(plan_budget)
        self._worker = GoalWorker(chain, background)
        self._q_cmd: np.ndarray | None = None       # the last command stepped
        self.configure(method, options, velocity, output_period, joint_states_timeout,
                       acceleration, jerk)
        self._q_meas: np.ndarray | None = None
        self._t_meas = -np.inf
        # Commands as stepped: (time [s], q); readings are judged against the one in force.
        self._history = TimedRing(512)
        self._lag = np.zeros(chain.n)   # |command in force - reading| of the last reading
        # Where the command started, when it first moved, and whether the arm moved since.
        self._start_q: np.ndarray | None = None
        self._first_step: float | None = None
        self._arm_moved = False
        self._readings = TimedRing(256)
        self._delivery = DeliveryDelay()
        self._resync_pending = True     # the next recent reading (re)starts the command
        self._goal: np.ndarray | None = None
        self._t_cmd = 0.0
        self._index_cache: tuple[tuple[str, ...], np.ndarray] | None = None
        self.feedback_problem: FeedbackProblem | None = None
        self.resync_distance: float | None = None
        # Why the last resync came: 'came back' (after a gap) or 'jumped' (between readings).
        self.resync_reason = 'came back'
        self._following_error = np.full(chain.n, np.inf)
        self._guarding = False      # some following-error limit is finite (checked per cycle)
        self._arm_speed: np.ndarray | None = None      # None: the command's velocity
        self._obstacles: tuple | None = None
        self._singularity: SingularityGuard | None = None
        self.condition = 1.0          # Jacobian condition number at the last command
        self._target: np.ndarray | None = None
        self._arrival_reported = True
        # Why the last step held the arm instead of moving it ('' when it did not).
        self.stall = ''
        self._lag_paused: np.ndarray | None = None   # the path left when a lag paused it
        self._last_outcome: SolveOutcome | None = None   # the answer to the target in force
        self._replan = False       # the world changed under the motion: plan again at rest
        self._target_tag: Any = None    # the caller's label of the target in force
        # The newest stream step after the goal being searched: (target, stream, tag,
        # seed source), solved once that goal is taken.
        self._follow_up: tuple | None = None
        # Answers to steps that followed the goal being searched, told after that goal's own
        # answer (answers go out in the order their targets came).
        self._after_goal: list[SolveOutcome] = []
        # The motion in force follows a stream of Cartesian steps (a dragged marker): only
        # then can a singularity ask for unbounded joint speed, so only then does the
        # singularity guard slow it. A goal's joint path has bounded speed everywhere.
        self._streamed = False
        # Answers the tracker gave on its own (a re-plan after the world changed), for the
        # caller to report: drained by :meth:`take_events`.
        self._events: list[SolveOutcome] = []
        # Stops for a new obstacle, for the caller to report (:meth:`take_stops`), and the
        # last one's account, told again with the answer of the re-plan after it.
        self._emergency_scale = EMERGENCY_STOP_SCALE
        self._stops: list[ObstacleStop] = []
        self._stop_note = ''

    def set_singularity_thresholds(self, slow: float, stop: float,
                                   min_scale: float = 0.0) -> None:
        """
        Slow streamed motion near singularities (:class:`ik_node.motion.guards.SingularityGuard`).

        Only a motion that follows a stream of Cartesian steps is slowed: there a singularity
        asks for unbounded joint speed. A goal's joint path is time-parameterised within the
        joint limits everywhere, so passing near a singularity on it is harmless (and a goal
        beyond one would otherwise never be reached).
        """
        guard = SingularityGuard(slow, stop, min_scale)
        self._singularity = None if guard.off else guard

    def _singularity_scale(self, q: np.ndarray, v: np.ndarray, now: float) -> float:
        """Return the speed factor in [0, 1] at ``q`` moving at ``v`` (see the guard)."""
        guard = self._singularity
        if guard is None or not np.any(v):
            return 1.0
        k_now = guard.condition(self.chain, q)
        self.condition = k_now
        return guard.scale(k_now, guard.condition(self.chain,
                                                  self.chain.clip(self._rest_point(now))))

    def set_collision_guard(self, obstacles: Sequence[Any] | None,
                            now: float | None = None) -> None:
        """
        Keep the motion out of contact: self-collision and ``obstacles`` (None: no guard).

        Goals are searched and planned with them, streamed blends are checked against them,
        and each commanded state is checked too. Given ``now`` (the world changed: a new
        obstacle), the motion left is checked at once: when it may touch the new world, the
        arm brakes on its path within its limits, and at rest plans again to its target (or
        refuses it: :meth:`take_events`). The stop is within the limits when that avoids
        contact, else by the rule of :mod:`ik_node.motion.obstacle_stop`
        (:meth:`set_emergency_stop_scale`); :meth:`take_stops` tells how it stopped. The
        solver gets the same obstacles.
        """
        self._obstacles = None if obstacles is None else tuple(obstacles)
        if self._obstacles is None:
            self.options.pop('avoid_collisions', None)
            self.options.pop('obstacles', None)
            return
        self.options.update(avoid_collisions=True, obstacles=self._obstacles)
        self._search_again(now)
        if now is None or not self._cmd.moving:
            return
        planned = plan_stop(self._cmd, self._obstacles, now, self._emergency_scale)
        if planned is None:
            return
        stop, record = planned
        self._cmd.take_stop(stop, now)
        self._stops.append(record)
        self._lag_paused = None
        self._replan = self._target is not None
        self._stop_note = record.text() if self._replan else ''

    def set_emergency_stop_scale(self, scale: float) -> None:
        """
        Set the most (>= 1) a stop for a new obstacle may exceed the acceleration and jerk limits.

        Used only when no stop within the limits avoids contact (the obstacle appeared inside
        the braking distance): see :mod:`ik_node.motion.obstacle_stop`. 1: never exceeded.
        """
        scale = float(scale)
        if not (math.isfinite(scale) and scale >= 1.0):
            raise ValueError(f'emergency stop scale must be a finite number >= 1, got {scale}')
        self._emergency_scale = scale

    def take_stops(self) -> list[ObstacleStop]:
        """Return (and forget) the stops for new obstacles since the last call."""
        stops, self._stops = self._stops, []
        return stops

    def set_arm_speed(self, velocity: ArrayLike | None) -> None:
        """
        Set the fastest the arm itself moves (n,) [rad/s or m/s], None: the command velocity.

        Its hardware limits (the URDF's, where the commands may use only a fraction of them):
        a reading that moved farther than :data:`feedback.JUMP_STEPS` steps at this speed is a
        jump.
        """
        if velocity is None:
            self._arm_speed = None
            return
        v = np.array(velocity, dtype=float).reshape(-1)
        if v.shape != (self.chain.n,) or not np.all(np.isfinite(v)) or np.any(v <= 0.0):
            raise ValueError(f'arm speed must be {self.chain.n} finite numbers > 0')
        self._arm_speed = v

    def set_following_error(self, limit: ArrayLike) -> None:
        """
        Set the largest following error [rad or m] (n,) (inf: off).

        Two guards use it. A command that leads the arm's last measured position by more than
        ``limit`` stops smoothly on its path (within the acceleration and jerk limits) and
        goes on once the arm is within half of it again (the arm lags, or its readings
        stopped). And each reading is compared with the command in force when it was taken
        (by its stamp): an arm that stood still for :data:`guards.ARM_LATENCY` while a full
        ``limit`` from every command of that time is not following (stalled, an e-stop, a
        fault; one that has not moved since the command started gets
        :data:`guards.STALL_START_GRACE`). The next step then holds at the measured position,
        drops the goal and says why in :attr:`stall`.
        """
        limit = np.array(limit, dtype=float).reshape(-1)
        if limit.shape != (self.chain.n,) or np.any(np.isnan(limit)) or np.any(limit <= 0.0):
            raise ValueError(f'following error limits must be {self.chain.n} numbers > 0')
        self._following_error = limit
        self._guarding = bool(np.any(np.isfinite(limit)))

    def _kinematic_limits(self, v: np.ndarray, acceleration: ArrayLike | None,
                          jerk: ArrayLike | None) -> KinematicLimits:
        if v.shape != (self.chain.n,) or not np.all(np.isfinite(v)) or np.any(v <= 0.0):
            raise ValueError(f'velocity must be {self.chain.n} finite numbers > 0')
        a = default_acceleration(v) if acceleration is None else acceleration
        j = default_jerk(v) if jerk is None else jerk
        limits = KinematicLimits.of(v, a, j)
        if limits.velocity.shape != (self.chain.n,):
            raise ValueError(f'acceleration and jerk limits must be {self.chain.n} numbers')
        return limits

    def configure(self, method: str, options: Mapping[str, Any], velocity: ArrayLike,
                  output_period: float, joint_states_timeout: float,
                  acceleration: ArrayLike | None = None, jerk: ArrayLike | None = None,
                  now: float | None = None) -> None:
        """Change solver and limits at run time; the command and feedback state are kept."""
        v = np.array(velocity, dtype=float).reshape(-1)
        limits = self._kinematic_limits(v, acceleration, jerk)
        self.method = method
        self.options = dict(options)
        obstacles = getattr(self, '_obstacles', None)
        if obstacles is not None:       # the collision guard outlives a solver change
            self.options.update(avoid_collisions=True, obstacles=obstacles)
        self._v_max = v
        self._max_dt = float(output_period)
        if now is None:
            self._cmd.limits = limits
        else:
            self._cmd.set_limits(limits, now)
        self.joint_states_timeout = float(joint_states_timeout)
        if hasattr(self, '_worker'):
            self._search_again(now)

    @property
    def limits(self) -> KinematicLimits:
        """Return the velocity, acceleration and jerk limits the commands keep."""
        return self._cmd.limits

    # Feedback ---------------------------------------------------------------------------

    def update_feedback(self, names: Sequence[str], positions: Sequence[float] | np.ndarray,
                        now: float, stamp: float | None = None) -> bool:
        """
        Record measured positions (by joint name); True if every chain joint was given.

        A message is ignored (False, the reason in :attr:`feedback_problem`) when its name and
        position arrays differ in length, when it misses a chain joint or names one twice, or
        when a chain joint's position is not finite, and when the arm stands outside the joint
        limits by more than one velocity-limited step (garbage, or a position the commands
        could only reach by a jump). The first valid message starts the command there.
        Feedback that is fresh again after a gap (or the first after :meth:`start_at`), or that
        jumped from the reading before (:data:`feedback.JUMP_STEPS`), and is
        farther from the command than :data:`feedback.RESYNC_STEPS` steps and
        :data:`feedback.RESYNC_LAG` seconds of motion restarts the command there and drops the
        goal: the arm holds where it is (:attr:`resync_distance` tells how far,
        :attr:`resync_reason` why).
        """
        names = tuple(names)
        self.feedback_problem = None
        self.resync_distance = None
        if len(positions) != len(names):
            return self._refuse_feedback('length', f'{len(names)} names but {len(positions)} '
                                                   'positions')
        if self._index_cache is None or self._index_cache[0] != names:
            found = feedback.chain_index(names, self.names)
            if isinstance(found, FeedbackProblem):
                self.feedback_problem = found
                return False
            self._index_cache = (names, found)
        index = self._index_cache[1]
        q = np.asarray(positions, dtype=float)[index]
        bad = ~np.isfinite(q)
        if np.any(bad):
            return self._refuse_feedback('nonfinite', 'non-finite position of ' + ', '.join(
                name for name, b in zip(self.names, bad) if b))
        outside = self.outside_limits(q)
        if outside:
            # Garbage, or an arm beyond its limits: either way not a position to seed from,
            # hold at, or judge the commands by.
            return self._refuse_feedback(
                'limits', f'arm outside the joint limits ({outside}): reading not used until '
                          'it is back within one step of them')
        was_fresh = self.measured(now) is not None
        t_reading = min(now, now if stamp is None else stamp)
        if t_reading < self._t_meas <= now:
            # Older than the reading in hand (messages out of order, or a backlog behind one
            # already used): it tells nothing new and must not age the feedback. (Unless the
            # clock went back, a simulation restarted: then it is the newest.)
            return True
        speed = self._v_max if self._arm_speed is None else np.maximum(self._arm_speed,
                                                                       self._v_max)
        jumped = was_fresh and feedback.jumped(self._readings, self.chain.continuous, speed,
                                               self._max_dt, q, t_reading)
        # A reading's age counts from when it was taken: one read late (a backlog after a
        # busy spell or at start-up) is neither fresh feedback nor a place to start from.
        self._q_meas = q
        self._t_meas = t_reading
        self._readings.append(t_reading, q)
        # Judged by how much older than usual it came: a steady delivery delay (a busy
        # machine, clocks a little apart) must not keep the command from starting or a
        # stalled arm from being seen; a reading from a backlog is older than usual.
        late = self._delivery.excess(now - t_reading, now)
        recent = late <= feedback.START_READING_AGE
        if self._start_q is not None and not self._arm_moved:
            self._arm_moved = bool(np.max(np.abs(q - self._start_q)) > guards.STALL_MOTION)
        judged = self._arm_moved or (self._first_step is not None
                                     and t_reading - self._first_step
                                     >= guards.STALL_START_GRACE)
        self._lag = (guards.following_lag(self._history, self.chain.continuous, q, t_reading)
                     if judged and late <= guards.STALL_READING_AGE
                     and guards.stood_still(self._readings, t_reading)
                     else np.zeros(self.chain.n))
        if not was_fresh or jumped:
            self._resync_pending = True
            self.resync_reason = 'jumped' if was_fresh else 'came back'
        if self._resync_pending and recent:
            self._resync_pending = False
            if self._q_cmd is None:
                self.start_at(q, now)
            else:
                self._resync(q, now)
        return True

    def inherit_feedback(self, other: 'IKTracker') -> None:
        """
        Take over the measured positions of ``other`` (a tracker of the same joints).

        For a model change that continues the command stream: the feedback stays fresh, so no
        resync follows (the arm is where the old tracker last measured it).
        """
        if other.names == self.names and other._q_meas is not None:
            self._q_meas = other._q_meas.copy()
            self._t_meas = other._t_meas
            self._readings = other._readings.copy()
            self._delivery = other._delivery
            self._resync_pending = other._resync_pending

    def take_over(self, other: 'IKTracker', now: float) -> bool:
        """
        Go on from the command of ``other``, the tracker of the same joints this one replaces.

        For a model change: at rest this tracker stands at ``other``'s command; in motion it
        brakes on ``other``'s path from its state at ``now`` to rest within ``other``'s
        limits (the goal is dropped), so the command keeps its velocity and acceleration
        where standing still at once would be a velocity step. Its feedback is taken over
        too (:meth:`inherit_feedback`). Returns True when it brakes.
        """
        if other.names != self.names or other._q_cmd is None:
            raise ValueError('take_over needs a started tracker of the same joints')
        stop = other._cmd.stopping(now) if other._cmd.moving else None
        self.start_at(other._q_cmd, other._t_cmd)
        if stop is not None:
            self._cmd.take_stop(stop, now)
        self.inherit_feedback(other)
        return stop is not None

    def _away_from_command(self, q: np.ndarray) -> float:
        """Return how far the arm at ``q`` is from the command (0: near, see feedback)."""
        return feedback.away_from_command(self.chain.continuous, self._v_max, self._max_dt, q,
                                          self._q_cmd)

    def _resync(self, q: np.ndarray, now: float) -> None:
        """
        Restart the command at the measured ``q`` if the arm is far from the command.

        An arm heard again near the command goes on from it, but as at a start: its driver,
        restarted, may be heard before it hears the commands (a monitor subscribed to them
        keeps them flowing meanwhile), so until it moves it gets the start's stall grace.
        """
        distance = self._away_from_command(q)
        if distance == 0.0 or self.outside_limits(q):
            self._grant_start_grace()
            return
        self.resync_distance = distance
        self.start_at(q, now)

    def _grant_start_grace(self) -> None:
        """
        Judge the arm as at a start from the command now.

        Its lag counts toward a stall once it moved, or STALL_START_GRACE after the first
        command that moves it.
        """
        assert self._q_cmd is not None
        self._start_q = self._q_cmd.copy()
        self._first_step = None
        self._arm_moved = False

    def outside_limits(self, q: ArrayLike, tolerance: ArrayLike | None = None) -> str:
        """
        Describe the joints of ``q`` (n,) farther outside the limits than ``tolerance``, or ''.

        tolerance: (n,) or scalar [rad or m]; None means one step, ``v_max * output_period``:
        starting the command at the nearest limit would move a joint farther than that at
        once. (An arm resting at a limit often reads a little beyond it.)
        """
        q = np.asarray(q, dtype=float)
        if tolerance is None:
            tolerance = self._v_max * self._max_dt
        return feedback.outside_limits(self.names, self.chain.lower, self.chain.upper, q,
                                       tolerance)

    def _refuse_feedback(self, kind: str, message: str) -> bool:
        self.feedback_problem = FeedbackProblem(kind, message)
        return False

    def start_at(self, q: ArrayLike, now: float) -> None:
        """Assume the arm stands at ``q`` (n,) (clipped into the limits) at time ``now``."""
        q = np.array(q, dtype=float).reshape(-1)
        if q.shape != (self.chain.n,) or not np.all(np.isfinite(q)):
            raise ValueError(f'start position must be {self.chain.n} finite numbers, got '
                             f'{q.tolist()}')
        self._drop_search('the command restarted at the measured arm (a hold, a stall or the '
                          'arm moved otherwise) before its search ended')
        self._q_cmd = self._cmd.reset(q, now)
        self._grant_start_grace()
        self._lag_paused = None
        self._replan = False
        self._t_cmd = now
        self._goal = None
        self._history.clear()
        self._lag = np.zeros(self.chain.n)
        self._target = None
        self._streamed = False
        self._arrival_reported = True

    @property
    def ready(self) -> bool:
        """Return True once the arm position is known (feedback or :meth:`start_at`)."""
        return self._q_cmd is not None

    @property
    def command(self) -> np.ndarray | None:
        """Return the last commanded positions (n,), or None before the arm position is known."""
        return None if self._q_cmd is None else self._q_cmd.copy()

    @property
    def command_time(self) -> float:
        """Return the time [s] of the last command (a step, a start or a command followed)."""
        return self._t_cmd

    @property
    def velocity(self) -> np.ndarray:
        """Return the (n,) command velocity limits [rad/s or m/s]."""
        return self._v_max.copy()

    @property
    def commander(self) -> MotionCommander:
        """Return the motion being commanded (its segments, for trajectory outputs)."""
        return self._cmd

    def move_to(self, q_goal: ArrayLike, now: float | None = None) -> None:
        """
        Make the joint positions ``q_goal`` (n,) the goal, without IK (a home pose, say).

        Clipped into the limits; approached along the straight joint line from where the
        motion comes to rest (from ``now``; None: the last step's time), like a solved goal.
        """
        q = self.chain.clip(self.chain.check_q(q_goal, 'q_goal'))
        if self._q_cmd is None:
            raise RuntimeError('move_to before the arm position is known')
        t = self._t_cmd if now is None else now
        self._drop_search('a joint goal came after it')
        rest = self._rest_point(t)
        self._cmd.follow(np.array([rest, q]), t)
        self._goal = q
        self._streamed = False
        self._target = None
        self._lag_paused = None

    def halt(self, now: float) -> np.ndarray | None:
        """
        Stop: brake on the path within the limits, drop the target; return the rest point.

        For an operator's hold: the arm comes to rest as quickly as its acceleration and jerk
        limits allow (not at once: that is a velocity step a real driver refuses), and
        nothing is planned again. A goal being searched is dropped and answered as such.
        None before the arm position is known.
        """
        if self._q_cmd is None:
            return None
        self._drop_search('a hold came before its search ended')
        rest = self._cmd.stop(now)
        self._goal = None
        self._target = None
        self._replan = False
        self._lag_paused = None
        self._arrival_reported = True
        return rest

    @property
    def goal(self) -> np.ndarray | None:
        """Return the solution being approached (n,), or None."""
        return None if self._goal is None else self._goal.copy()

    @property
    def moving(self) -> bool:
        """Return True while the command has not yet come to rest at the goal (or re-plans)."""
        return (self._cmd.moving or self._lag_paused is not None or self._replan
                or self._worker.busy)

    @property
    def searching(self) -> bool:
        """Return True while a goal is searched in the background (answered at a step)."""
        return self._worker.busy

    def measured(self, now: float) -> np.ndarray | None:
        """Fresh measured positions (n,), or None if there are none younger than the timeout."""
        if self._q_meas is not None and now - self._t_meas <= self.joint_states_timeout:
            return self._q_meas.copy()
        return None

    def feedback_lost(self, now: float) -> bool:
        """
        Return True when readings came, then stopped for over ``joint_states_timeout``.

        While the first readings after a gap are too old to restart the command (older than
        :data:`feedback.START_READING_AGE`: a backlog) and show the arm away from the command
        (moved while unheard), it stays True until a recent one has restarted the command there.
        """
        if self._q_meas is None:
            return False
        if self.measured(now) is None:
            return True
        return self._resync_pending and self._away_from_command(self._q_meas) > 0.0

    def current_q(self, now: float) -> np.ndarray | None:
        """Best knowledge of where the arm is: fresh feedback, else the last command."""
        q = self.measured(now)
        return q if q is not None else self.command

    def tip_pose(self, now: float) -> np.ndarray | None:
        """Return the (4, 4) tip pose in the base frame at :meth:`current_q`, or None."""
        q = self.current_q(now)
        return None if q is None else self.chain.fk(q)

    # Solving and stepping -----------------------------------------------------------------

    def warm_up(self, goals: bool = True) -> None:
        """
        Load the kernels (and OMPL) of solving, goal searches and planning now; state unchanged.

        A solve for a pose at mid-range, the feedback checks, and with ``goals`` a goal search
        and a short plan (about 15 ms once loaded: a solver switch, whose built-in method
        shares every kernel with the others, leaves them out).
        """
        q = self.chain.mid
        solve_on(self.chain, self.chain.fk(q), q0=q, method=self.method, **self.options)
        guards.load_checks(self.chain)      # the feedback checks' kernels too
        if goals:
            goal_search.warm_up(self.chain, self.method, self.options)

    def seed(self, now: float) -> tuple[np.ndarray | None, str]:
        """Return (seed, source): the measured arm first, then the last goal, then the command."""
        q = self.measured(now)
        if q is not None:
            return self.chain.clip(q), 'joint_states'
        if self._goal is not None:
            return self._goal.copy(), 'solution'
        if self.command is not None:
            return self.command, 'command'
        return None, 'cold'

    def solve(self, target: ArrayLike, now: float, stream: bool = False,
              tag: Any = None) -> SolveOutcome | None:
        """
        Answer ``target`` ((4, 4) pose or (3,) position, base frame) and command the motion.

        A step of a stream (``stream`` True: a dragged marker; else a target within
        :data:`streams.STREAM_DISTANCE` and :data:`streams.STREAM_ANGLE` of the last one taken)
        is solved warm from the arm with the tracker's options and blended into the motion from
        the current state; an unreachable one gives the best attempt.
        Any other target is a goal (:func:`ik_node.motion.goal_search.plan_goal`): a
        collision-free answer near the arm and a free (or planned) path to it, or a refusal
        before the arm moves (``outcome.refused``, ``outcome.reason``). With a background
        worker a goal returns None: it is searched while the commands go on, and answered by
        :meth:`take_events` at the step that takes its plan. ``tag``: the caller's label of the
        target (its message header), handed back in the outcome. The newest target wins: one
        that comes while a goal is searched drops that goal (answered as ``superseded``).
        Raises IKInputError for a malformed target (the motion is then unchanged).
        """
        target = check_arm_target(self.chain, target)
        pending = self._worker.pending
        if pending is not None:
            if is_repeat(pending.target, target, True):
                return None         # the goal being searched, sent again: answered once
            if is_stream_step(pending.target, target, stream, True):
                # A stream that starts far from the arm: its first target is searched as a
                # goal, and the newest step after it is taken from there once it is.
                self._drop_follow_up('a newer stream step came before the goal it follows '
                                     'was taken')
                self._follow_up = (target, stream, tag, pending.source)
                return None
        self._drop_search('a newer target came before its search ended')
        # The target the arm is on its way to, sent again (a repeating publisher, a second
        # click): answered again, the motion left as it is. Solved again from the seed now
        # in force, within one command period (it holds up the commands under way); if that
        # is not enough, the answer in force stands. After a live solver switch, see below.
        again = is_repeat(self._target, target, self.moving)
        last = self._last_outcome
        if again and last is not None and last.result.method == self.method:
            return replace(self._answer_again(last, target, now), tag=tag)
        streaming = again or is_stream_step(self._target, target, stream,
                                            self._q_cmd is not None)
        if streaming:
            outcome = replace(self._stream(target, now, again), tag=tag)
            if again:
                return outcome
            if not (outcome.refused and outcome.result.status != STATUS_BLOCKED):
                return outcome
        return self._goal_motion(target, now, tag)

    def _answer_again(self, last: SolveOutcome, target: np.ndarray, now: float
                      ) -> SolveOutcome:
        """Answer the target in force again: a solve within one period, else ``last``."""
        q0, source = self.seed(now)
        options = dict(self.options)
        options['timeout'] = min(float(options.get('timeout', self._max_dt)), self._max_dt)
        t0 = time.perf_counter()
        result = solve_on(self.chain, target, q0=q0, method=self.method, **options)
        elapsed = time.perf_counter() - t0
        return replace(last, result=result if result.success else last.result, target=target,
                       seed_source=source, solve_time=elapsed)

    def _take(self, target: np.ndarray, q: np.ndarray) -> None:
        self._last_outcome = None
        self._goal = q.copy()
        self._target = target.copy()
        self._arrival_reported = False
        self._lag_paused = None
        self._replan = False

    def _stream(self, target: np.ndarray, now: float, again: bool = False,
                from_goal: bool = False) -> SolveOutcome:
        """
        Solve a stream step warm and blend to it (see :meth:`solve`); ``again``: keep.

        from_goal: seed from the goal in force, not the arm (the step follows a goal just
        taken, which the arm has not yet left for).
        """
        q0, source = ((self._goal, 'solution') if from_goal and self._goal is not None
                      else self.seed(now))
        t0 = time.perf_counter()
        result = solve_on(self.chain, target, q0=q0, method=self.method,
                          **self.options)
        elapsed = time.perf_counter() - t0
        if again:
            last = self._last_outcome
            return SolveOutcome(result, target, source, elapsed,
                                path=last.path if last else 'streaming',
                                motion=last.motion if last else 'direct')
        q = np.asarray(result.q, dtype=float)
        if result.status == STATUS_BLOCKED or not (q.shape == (self.chain.n,)
                                                   and np.all(np.isfinite(q))):
            return SolveOutcome(result, target, source, elapsed, motion=REFUSED,
                                reason=result.message or result.status)
        q = self.chain.clip(q)
        why = self._cmd.blend(q, now, self._obstacles)
        if why:
            # Not a small step after all (another branch, or the curve touches something):
            # handled as a goal.
            return SolveOutcome(result, target, source, elapsed, motion=REFUSED, reason=why)
        self._take(target, q)
        self._streamed = True
        self._last_outcome = SolveOutcome(result, target, source, elapsed)
        return self._last_outcome

    def _rest_point(self, now: float) -> np.ndarray:
        """Return where the arm would come to rest if it braked at ``now``."""
        segments = self._cmd.segments
        if not segments:
            assert self._q_cmd is not None
            return self._cmd.sample(now).q
        return segments[0].stopping(now).end

    def _goal_motion(self, target: np.ndarray, now: float, tag: Any = None
                     ) -> SolveOutcome | None:
        """Search and plan a goal (see :meth:`solve`): at once, or in the background."""
        seed, source = self.seed(now)
        moving = self._cmd.moving
        if self._q_cmd is None:
            start = seed
        else:
            start = self._rest_point(now) if moving else self._cmd.sample(now).q
        if start is None:
            raise RuntimeError('a goal before the arm position is known')
        options = {k: v for k, v in self.options.items()
                   if k not in ('avoid_collisions', 'obstacles')}
        # Mid-motion only a straight line is looked for: the answer must blend into the
        # motion; a path around obstacles is planned once the arm has braked (PENDING).
        self._worker.submit(GoalJob(
            target, np.array(start, dtype=float), now, moving, self.method, options,
            self._obstacles if self._obstacles is not None else (), self.goal_budget,
            0.0 if moving else self.plan_budget, source, tag))
        return None if self._worker.background else self._collect(now)

    def poll(self, now: float) -> None:
        """
        Take the plan of the goal searched in the background, if it is ready.

        Its motion starts at ``now`` and its answer waits in :meth:`take_events`.
        :meth:`step` does it too; a caller that does not step (nobody listens to the
        commands, the feedback is lost) still gets its goals answered.
        """
        if self._q_cmd is None:
            return
        outcome = self._collect(now)
        if outcome is None:
            return
        self._events.append(outcome)
        self._events.extend(self._after_goal)
        self._after_goal.clear()
        follow_up, self._follow_up = self._follow_up, None
        if follow_up is None:
            return
        target, stream, tag, _ = follow_up
        answer: SolveOutcome | None = None
        if not outcome.refused:
            answer = replace(self._stream(target, now, from_goal=True), tag=tag)
        if answer is None or (answer.refused and answer.result.status != STATUS_BLOCKED):
            answer = self._goal_motion(target, now, tag)
        if answer is not None:
            self._events.append(answer)

    def _collect(self, now: float) -> SolveOutcome | None:
        """Take the plan of the goal searched, if it is ready, and start its motion."""
        done = self._worker.take()
        if done is None:
            return None
        job, plan, elapsed = done
        outcome = self._outcome(plan, job.target, job.source, elapsed, job.tag)
        if self._stop_note and not job.moving:
            # The re-plan after a stop for a new obstacle: its answer tells that stop too.
            note, self._stop_note = self._stop_note, ''
            outcome = replace(outcome, reason='; '.join(filter(None, (note, outcome.reason))))
        moving = self._cmd.moving
        rest = self._rest_point(now) if moving else self._cmd.sample(now).q
        if job.moving and plan.kind == REFUSED and plan.answers > 0:
            # Collision-free answers exist but need a path around: brake on the path and
            # plan at rest (reported then, :meth:`take_events`).
            why = f'the straight path is blocked ({plan.blocked})'
            return self._brake_to_plan(job, outcome, rest, now, why)
        if plan.kind == REFUSED or plan.waypoints is None:
            return outcome
        path = plan.waypoints
        q = path[-1]
        obstacles = self._obstacles
        if moving and path.shape[0] == 2 and not self._cmd.blend(q, now, obstacles):
            pass        # blended from the motion in progress, no stop needed
        elif np.array_equal(rest, path[0]):
            self._cmd.follow(path, now)
        else:
            # The arm went on while the goal was searched: it comes to rest elsewhere than
            # the search assumed. On from there if that first edge is free too.
            why = path_touches(self.chain, np.array([rest, path[0]]), obstacles or ())
            if why:
                return self._brake_to_plan(job, outcome, rest, now,
                                           f'the path from where the arm stops is blocked '
                                           f'({why})')
            self._cmd.follow(np.vstack([rest[None, :], path]), now)
        self._take(job.target, q)
        self._streamed = False
        self._target_tag = job.tag
        self._last_outcome = outcome
        return outcome

    def _brake_to_plan(self, job: GoalJob, outcome: SolveOutcome, rest: np.ndarray,
                       now: float, why: str) -> SolveOutcome:
        """Brake on the path in force, then plan to ``job``'s target at rest."""
        self._cmd.stop(now)
        self._take(job.target, rest)
        self._target_tag = job.tag
        self._goal = None
        self._replan = True
        self._last_outcome = replace(outcome, motion=PENDING,
                                     reason=f'{why}: braking to plan a path at rest')
        return self._last_outcome

    def _drop_search(self, why: str) -> None:
        """Drop the goal being searched (and the step after it), answered as superseded."""
        job = self._worker.pending
        if job is not None:
            self._worker.cancel()
            self._events.append(self._superseded(job.target, job.start, job.source, job.tag,
                                                 why))
        self._drop_follow_up(why)
        self._events.extend(self._after_goal)
        self._after_goal.clear()

    def _drop_follow_up(self, why: str) -> None:
        """Drop the stream step waiting for the goal being searched, answered as superseded."""
        follow_up, self._follow_up = self._follow_up, None
        if follow_up is not None:
            target, _, tag, source = follow_up
            assert self._q_cmd is not None
            self._after_goal.append(self._superseded(target, self._q_cmd, source, tag, why))

    def _superseded(self, target: np.ndarray, q: np.ndarray, source: str, tag: Any,
                    why: str) -> SolveOutcome:
        result = IKResult(q=q.copy(), success=False, position_error=math.nan,
                          orientation_error=math.nan, iterations=0, method=self.method,
                          attempts=0, message=why)
        return SolveOutcome(result, target, source, 0.0, path='goal', motion=SUPERSEDED,
                            reason=why, tag=tag)

    def _search_again(self, now: float | None) -> None:
        """Search the goal being searched again (the world or the solver changed)."""
        job = self._worker.pending
        if job is None:
            return
        self._worker.cancel()
        self._goal_motion(job.target, self._t_cmd if now is None else now, job.tag)

    @staticmethod
    def _outcome(plan: GoalPlan, target: np.ndarray, source: str, elapsed: float,
                 tag: Any = None) -> SolveOutcome:
        return SolveOutcome(plan.result, target, source, elapsed, path='goal',
                            motion=plan.kind, reason=plan.reason, tag=tag,
                            search_time=plan.search_time, plan_time=plan.plan_time,
                            waypoints=0 if plan.waypoints is None else plan.waypoints.shape[0])

    def take_events(self) -> list[SolveOutcome]:
        """Return (and forget) the answers the tracker gave on its own since the last call."""
        events, self._events = self._events, []
        return events

    def time_to_reach(self, q: ArrayLike, now: float) -> float:
        """
        Return the shortest time [s] in which every joint can go from the arm to ``q`` (n,).

        From the measured position when it is fresh, else from the last command; each joint
        at its command velocity limit. 0 when the arm position is unknown.
        """
        start = self.current_q(now)
        if start is None:
            return 0.0
        diff = joint_distance(self.chain.continuous, np.asarray(q, dtype=float) - start)
        return float(np.max(diff / self._v_max))

    def step(self, now: float) -> StepReport | None:
        """
        Return the command for ``now``: the motion's state then, after the guards.

        Returns None while the arm position is unknown. Without a goal the command holds.
        The guards (see :meth:`set_following_error`, :meth:`set_singularity_thresholds`,
        :meth:`set_collision_guard`) slow the motion down or stop it on its path within the
        limits; only a stalled arm is held at once where it was measured.
        """
        command = self._q_cmd
        if command is None:
            return None
        self.stall = ''
        dt = now - self._t_cmd
        self._t_cmd = now
        if self._cmd.moving and dt > GAP_PERIODS * self._max_dt:
            self._restart_after_gap(now)
        self.poll(now)
        if self._replan and not self._cmd.moving and not self._worker.busy:
            self._plan_again(now)
        self._lag_guard(now)
        sample = self._cmd.sample(now)
        scale = self._singularity_scale(sample.q, sample.v, now) if self._streamed else 1.0
        self._cmd.slow(now, scale)
        hold = self._stalled(now)
        if hold is not None:
            sample_q, v, a = hold, np.zeros(self.chain.n), np.zeros(self.chain.n)
        else:
            sample_q, v, a = sample.q, sample.v, sample.a
            blocked = guards.step_blocked(self.chain, self._obstacles, command, sample_q)
            if blocked:
                # A last net: goals and blends are checked, so only a world that changed
                # closer than the arm can brake (an obstacle appearing next to it) gets
                # here. The command holds where it was, at once; the target is planned
                # again from there (answered by :meth:`take_events`).
                target = self._target
                self.start_at(command, now)
                sample_q, v, a = command, np.zeros(self.chain.n), np.zeros(self.chain.n)
                if target is not None:
                    self._target, self._replan = target, True
                    self._arrival_reported = False
                self.stall = blocked + (', planning again' if target is not None
                                        else ', send a new target to go on')
        self._q_cmd = np.array(sample_q, dtype=float)
        none = np.zeros(self.chain.n, dtype=bool)
        slowed = np.full(self.chain.n, scale < 1.0)
        report = StepReport(q=self._q_cmd.copy(), dt=max(dt, 0.0), nonfinite=none,
                            position_clamped=none, velocity_clamped=slowed,
                            reached=not self.moving, v=np.array(v), a=np.array(a))
        if self._first_step is None and not np.array_equal(report.q, command):
            self._first_step = now
        self._history.append(now, report.q)
        return report

    def follow_external(self, q: ArrayLike, now: float) -> np.ndarray:
        """
        Record ``q`` (n,) as the command at ``now``, stepped by another source (the jogger).

        The goal is dropped and the command stands at rest at ``q`` (a later goal starts
        there: the source hands over at rest). Readings are judged against these commands
        (feedback, resync and the following-error guard go on as for the tracker's own); an
        arm that does not follow is held where it was measured (:attr:`stall` says why).
        Returns the command to publish: ``q``, or that hold.
        """
        self.stall = ''
        self._drop_search('a jog took over before its search ended')
        hold = self._stalled(now)
        if hold is not None:
            return hold
        previous = self._q_cmd
        self._q_cmd = self._cmd.reset(self.chain.check_q(q), now)
        self._t_cmd = now
        self._goal, self._target, self._streamed, self._lag_paused = None, None, False, None
        self._replan, self._arrival_reported = False, True
        if self._first_step is None and (previous is None
                                         or not np.array_equal(self._q_cmd, previous)):
            self._first_step = now
        self._history.append(now, self._q_cmd)
        return self._q_cmd.copy()

    def _restart_after_gap(self, now: float) -> None:
        """
        Start the motion again from rest at the last command after a gap in the commands.

        No command went out for a while (feedback lost, nobody listening, a hold): the arm
        stood at the last one, so the motion may not go on where its clock says. It starts
        again from there, along the path that was left (checked again when it was a curve).
        """
        assert self._q_cmd is not None
        left = [seg.end for seg in self._cmd.segments]
        t0 = now - self._max_dt
        self._cmd.reset(self._q_cmd, t0)
        path = np.vstack([self._q_cmd[None, :], np.array(left)])
        why = path_touches(self.chain, path, self._obstacles) if self._obstacles else ''
        if why:
            self._path_lost(f'the path on after a pause is no longer free ({why})')
            return
        self._cmd.follow(path, t0)

    def _path_lost(self, why: str) -> None:
        """
        Plan again to the target: the arm, at rest, cannot go on along the path it was on.

        A straight line on from where the arm stopped may not pass the certified check
        (stopped within a hair of a contact, or backing out of one) though the path it left
        did; a new plan starts from where it is (:meth:`take_events` answers it). Without a
        target (a joint goal) the arm holds and says why.
        """
        self._goal = None
        if self._target is not None:
            self._replan = True
            return
        self.stall = f'{why}: holding'

    def _plan_again(self, now: float) -> None:
        """Plan again to the target after a stop for a changed world; report the answer."""
        self._replan = False
        target = self._target
        if target is None:
            return
        self._target = None
        outcome = self._goal_motion(target, now, self._target_tag)
        if outcome is not None:
            self._events.append(outcome)

    def _lead(self) -> np.ndarray:
        """Return how far (n,) the command is ahead of the last reading."""
        assert self._q_cmd is not None and self._q_meas is not None
        return joint_distance(self.chain.continuous, self._q_cmd - self._q_meas)

    def lag_ratio(self) -> np.ndarray:
        """
        Return the command's lead over the last reading per joint, over its following error.

        (n,) [1]: 1 is a full limit (:meth:`set_following_error`); 0 without readings, a
        command or a limit. The guards of another command source (the jog) read it.
        """
        limit = self._following_error
        if self._q_meas is None or self._q_cmd is None or not self._guarding:
            return np.zeros(self.chain.n)
        return self._lead() / limit

    def _lag_guard(self, now: float) -> None:
        """Stop on the path while the arm lags beyond the limit; go on once it caught up."""
        limit = self._following_error
        if self._q_meas is None or not self._guarding:
            return
        lead = self._lead()
        if self._lag_paused is None:
            if self._cmd.moving and np.any(lead > guards.LAG_PAUSE * limit):
                left = [seg.end for seg in self._cmd.segments]
                self._cmd.stop(now)
                self._lag_paused = np.array(left)
            return
        if self._cmd.moving or np.any(lead > guards.LAG_RESUME * limit):
            return
        path = np.vstack([self._cmd.sample(now).q[None, :], self._lag_paused])
        self._lag_paused = None
        why = path_touches(self.chain, path, self._obstacles) if self._obstacles else ''
        if why:
            self._path_lost(f'the arm lagged and the path on is no longer free ({why})')
            return
        self._cmd.follow(path, now)

    def _stalled(self, now: float) -> np.ndarray | None:
        """
        Return the measured position to hold at when the arm does not follow, else None.

        A reading still a full limit from the commands in force when it was taken, while
        the arm stood still (:meth:`set_following_error`): the arm is stalled, on an e-stop
        or faulted. The command then holds where the arm was measured, at once, and the goal
        is dropped.
        """
        limit = self._following_error
        if self._q_meas is None or not self._guarding:
            return None
        over = self._lag >= limit * (1.0 - 1e-9)
        if not np.any(over):
            return None
        self.stall = guards.stall_text(self.names, self._lag, limit, over)
        q = self.chain.clip(self._q_meas)
        self.start_at(q, now)
        return q

    def arrived(self, now: float, position_tolerance: float,
                orientation_tolerance: float) -> bool:
        """
        Return True once (and only once per target) the measured arm reached the target.

        The target is the last one solved successfully or not; the measured position must be
        fresh and the tip within the tolerances [m, rad] of it (position only for a (3,)
        target).
        """
        if self._arrival_reported or self._target is None:
            return False
        q = self.measured(now)
        if q is None:
            return False
        pe, oe = target_error(self.chain, self._target, q)
        ok = pe <= position_tolerance and oe <= orientation_tolerance
        if ok:
            self._arrival_reported = True
        return ok
