# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Target tracking of the IK node without ROS: seed, solve, then step safely toward the goal.

:class:`IKTracker` holds what the node knows between callbacks: the measured joint positions
(feedback), the last solution (goal) and the last published command. The node converts
messages to arrays, calls :meth:`IKTracker.solve` and :meth:`IKTracker.step`, and converts the
results back. Times are seconds of a monotonic clock supplied by the caller.
"""

from collections import deque
from dataclasses import dataclass
import time
from typing import Any, Mapping, Sequence

from ik_node.chain import Chain
from ik_node.pose import pose_error
from ik_node.reading_clock import DeliveryDelay
from ik_node.result import IKResult, STATUS_BLOCKED
from ik_node.safety import CommandStepper, StepReport, wrap_angle
from ik_node.solve_ik import solve
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['FeedbackProblem', 'SolveOutcome', 'IKTracker', 'RESYNC_STEPS', 'RESYNC_LAG',
           'JUMP_STEPS', 'ARM_LATENCY', 'STALL_START_GRACE']

# Feedback that comes back (after a gap longer than the timeout, or for the first time) more
# than this many velocity-limited steps from the command means the arm is elsewhere: it was
# restarted, moved by hand, or never where it was assumed. Continuing the command from where
# it was would then be a jump for the arm.
RESYNC_STEPS = 5.0
# ... and more than this much motion [s at v_max]: an arm that lags its command by less is
# following it, not restarted (at a high output rate five steps are only a few ms of motion,
# less than an arm driver's own latency).
RESYNC_LAG = 0.1
# A reading is compared with the commands of this long before it [s]: an arm that matches
# any of them is following, if late.
ARM_LATENCY = 0.2
# Only a reading this recent [s, by its stamp, beyond the usual delivery delay
# (ik_node.reading_clock.DeliveryDelay)] can declare the arm stalled: one read late (a
# backlog of messages) shows where the arm was, and holding there would be a jump back.
STALL_READING_AGE = 0.05
# ... and only an arm that stood still [rad or m] over the last ARM_LATENCY of readings: an
# arm that lags but moves is following, however late.
STALL_MOTION = 1e-3
# ... but an arm that has not moved since its command started (at start-up, after a resync
# or a hold) gets this long [s] from the command's first step: its driver may still be
# connecting to the command topic. (The lead stays within the following error meanwhile.)
STALL_START_GRACE = 1.0
# The command starts, or restarts after a gap, only at a reading at most this old [s, beyond
# the usual delivery delay]: the newest of a backlog, not the first.
START_READING_AGE = 0.1
# A reading farther from the one before than this many steps at the arm's own speed limits
# (for the time between their stamps, at least one output period) is a jump no motion of the
# arm makes: an arm driver restarted, or an arm moved, between two readings. It is judged
# like feedback that comes back after a gap. (The arm's limits, not the commands' scaled
# ones: an arm may catch up with a command that ran ahead at its full speed.)
JUMP_STEPS = 3.0


@dataclass(frozen=True)
class FeedbackProblem:
    """
    Why a joint_states message was ignored.

    kind: 'length', 'missing', 'duplicate', 'nonfinite' or 'limits'; message: the details.
    """

    kind: str
    message: str


@dataclass(frozen=True)
class SolveOutcome:
    """One solved target: the result, the seed it started from and the wall time it took."""

    result: IKResult
    target: np.ndarray          # (4, 4) pose or (3,) position in the base frame
    seed_source: str            # 'joint_states', 'solution', 'command' or 'cold'
    solve_time: float           # [s]


class IKTracker:
    """
    Seeded IK solves and velocity-limited commands for one chain.

    chain: the kinematic chain. method, options: passed to :func:`ik_node.solve`.
    velocity: (n,) finite velocity limits [rad/s or m/s] for the commands. output_period: the
    longest time one command step is sized for [s]. joint_states_timeout: feedback older than
    this [s] no longer seeds the solver.
    """

    def __init__(self, chain: Chain, method: str, options: Mapping[str, Any],
                 velocity: ArrayLike, output_period: float, joint_states_timeout: float):
        self.chain = chain
        self.names = tuple(chain.joint_names)
        self._stepper = CommandStepper(chain.lower, chain.upper, velocity,
                                       continuous=chain.continuous, max_dt=output_period)
        self.configure(method, options, velocity, output_period, joint_states_timeout)
        self._q_meas: np.ndarray | None = None
        self._t_meas = -np.inf
        # Commands as stepped: (time [s], q); readings are judged against the one in force.
        self._history: deque[tuple[float, np.ndarray]] = deque(maxlen=512)
        self._lag = np.zeros(chain.n)   # |command in force - reading| of the last reading
        # Where the command started, when it first moved, and whether the arm moved since.
        self._start_q: np.ndarray | None = None
        self._first_step: float | None = None
        self._arm_moved = False
        self._readings: deque[tuple[float, np.ndarray]] = deque(maxlen=256)
        self._delivery = DeliveryDelay()
        self._resync_pending = True     # the next recent reading (re)starts the command
        self._goal: np.ndarray | None = None
        self._t_cmd = 0.0
        self._reached = True
        self._index_cache: tuple[tuple[str, ...], np.ndarray] | None = None
        self.feedback_problem: FeedbackProblem | None = None
        self.resync_distance: float | None = None
        # Why the last resync came: 'came back' (after a gap) or 'jumped' (between readings).
        self.resync_reason = 'came back'
        self._following_error = np.full(chain.n, np.inf)
        self._arm_speed: np.ndarray | None = None      # None: the command's velocity
        self._obstacles: tuple | None = None
        self._singularity: tuple[float, float, float] | None = None
        self.condition = 1.0          # Jacobian condition number at the last command
        self._target: np.ndarray | None = None
        self._arrival_reported = True
        # Why the last step held the arm instead of moving it ('' when it did not).
        self.stall = ''

    def set_singularity_thresholds(self, slow: float, stop: float,
                                   min_scale: float = 0.0) -> None:
        """
        Slow down near singularities, with MoveIt Servo's condition-number thresholds.

        A step that raises the condition number kappa of the Jacobian (sigma_max / sigma_min)
        beyond ``slow`` is scaled by (stop - kappa) / (stop - slow), down to ``min_scale`` at
        ``stop`` and beyond: the commanded speed falls smoothly toward a singularity. Steps
        that lower kappa (away from the singularity) are never scaled. With ``min_scale`` 0
        motion toward the singularity stops at ``stop`` (Servo's hard stop); above 0 the arm
        creeps through it. ``slow`` = inf turns this off.
        """
        if not (1.0 <= slow < stop) and not (slow == np.inf):
            raise ValueError(f'need 1 <= slow < stop, got slow={slow}, stop={stop}')
        if not 0.0 <= min_scale <= 1.0:
            raise ValueError(f'min_scale must be in [0, 1], got {min_scale}')
        self._singularity = None if slow == np.inf else (float(slow), float(stop),
                                                         float(min_scale))

    def _condition(self, q: np.ndarray) -> float:
        s = np.linalg.svd(self.chain.jacobian(q), compute_uv=False)
        return float(s[0] / s[-1]) if s[-1] > 0.0 else np.inf

    def _singularity_scale(self, q_prev: np.ndarray, q_new: np.ndarray) -> float:
        """Return the factor in [0, 1] for the step q_prev -> q_new (see the thresholds)."""
        if self._singularity is None or np.array_equal(q_prev, q_new):
            return 1.0
        slow, stop, min_scale = self._singularity
        k_prev, k_new = self._condition(q_prev), self._condition(q_new)
        self.condition = k_new
        if k_new <= slow or k_new <= k_prev:
            return 1.0
        return float(np.clip((stop - k_new) / (stop - slow), min_scale, 1.0))

    def set_collision_guard(self, obstacles: Sequence[Any] | None) -> None:
        """
        Refuse steps into contact: self-collision and ``obstacles`` (None: no guard).

        A step that ends in contact (the conservative check of
        :meth:`ik_node.Chain.collisions`, bounding capsules; one step is at most v_max * dt,
        a few hundredths of a radian, so its end stands for the segment) is not taken when
        the command is clear now: the command holds, the goal is dropped and :attr:`stall`
        names the pair. (An arm already in contact may move, so that it can get out.) The
        solver gets the same obstacles.
        """
        self._obstacles = None if obstacles is None else tuple(obstacles)
        if self._obstacles is None:
            self.options.pop('avoid_collisions', None)
            self.options.pop('obstacles', None)
        else:
            self.options.update(avoid_collisions=True, obstacles=self._obstacles)

    def _step_blocked(self, q_prev: np.ndarray, q_new: np.ndarray) -> str:
        """Return why the step q_prev -> q_new may not be taken ('' if it may)."""
        if self._obstacles is None or np.array_equal(q_prev, q_new):
            return ''
        obstacles = self._obstacles
        pairs = self.chain.collisions(q_new, obstacles)
        if not pairs or self.chain.collisions(q_prev, obstacles):
            return ''           # clear, or already in contact: let it move out
        return (f'step refused, {pairs[0][0]} would touch {pairs[0][1]}: holding, send a new '
                'target to go on')

    def set_arm_speed(self, velocity: ArrayLike | None) -> None:
        """
        Set the fastest the arm itself moves (n,) [rad/s or m/s], None: the command velocity.

        Its hardware limits (the URDF's, where the commands may use only a fraction of them):
        a reading that moved farther than :data:`JUMP_STEPS` steps at this speed is a jump.
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

        Two guards use it. A step never takes the command farther than ``limit`` from the
        arm's last measured position (it waits there instead: the arm lags, or its readings
        stopped). And each reading is compared with the command in force when it was taken
        (by its stamp): an arm that stood still for :data:`ARM_LATENCY` while a full ``limit``
        from every command of that time is not following (stalled, an e-stop, a fault; one
        that has not moved since the command started gets :data:`STALL_START_GRACE`). The
        next step then holds at the measured position, drops the goal and says why in
        :attr:`stall`.
        """
        limit = np.array(limit, dtype=float).reshape(-1)
        if limit.shape != (self.chain.n,) or np.any(np.isnan(limit)) or np.any(limit <= 0.0):
            raise ValueError(f'following error limits must be {self.chain.n} numbers > 0')
        self._following_error = limit

    def configure(self, method: str, options: Mapping[str, Any], velocity: ArrayLike,
                  output_period: float, joint_states_timeout: float) -> None:
        """Change solver and limits at run time; the command and feedback state are kept."""
        v = np.array(velocity, dtype=float).reshape(-1)
        if v.shape != (self.chain.n,) or not np.all(np.isfinite(v)) or np.any(v <= 0.0):
            raise ValueError(f'velocity must be {self.chain.n} finite numbers > 0')
        self.method = method
        self.options = dict(options)
        obstacles = getattr(self, '_obstacles', None)
        if obstacles is not None:       # the collision guard outlives a solver change
            self.options.update(avoid_collisions=True, obstacles=obstacles)
        self._stepper.v_max = v
        self._stepper.max_dt = float(output_period)
        self.joint_states_timeout = float(joint_states_timeout)

    # Feedback ---------------------------------------------------------------------------

    def update_feedback(self, names: Sequence[str], positions: Sequence[float],
                        now: float, stamp: float | None = None) -> bool:
        """
        Record measured positions (by joint name); True if every chain joint was given.

        A message is ignored (False, the reason in :attr:`feedback_problem`) when its name and
        position arrays differ in length, when it misses a chain joint or names one twice, or
        when a chain joint's position is not finite, and when the arm stands outside the joint
        limits by more than one velocity-limited step (garbage, or a position the commands
        could only reach by a jump). The first valid message starts the command there.
        Feedback that is fresh again after a gap (or the first after :meth:`start_at`), or that
        jumped from the reading before (:data:`JUMP_STEPS`), and is
        farther from the command than :data:`RESYNC_STEPS` steps and :data:`RESYNC_LAG` seconds
        of motion restarts the command there and
        drops the goal: the arm holds where it is (:attr:`resync_distance` tells how far,
        :attr:`resync_reason` why).
        """
        names = tuple(names)
        self.feedback_problem = None
        self.resync_distance = None
        if len(positions) != len(names):
            return self._refuse_feedback('length', f'{len(names)} names but {len(positions)} '
                                                   'positions')
        if self._index_cache is None or self._index_cache[0] != names:
            lookup: dict[str, int] = {}
            repeated = set()
            for i, name in enumerate(names):
                if name in lookup:
                    repeated.add(name)
                lookup[name] = i
            missing = [j for j in self.names if j not in lookup]
            if missing:
                return self._refuse_feedback('missing', 'chain joints missing: '
                                                        + ', '.join(missing))
            twice = [j for j in self.names if j in repeated]
            if twice:
                return self._refuse_feedback('duplicate', 'chain joints named more than once: '
                                                          + ', '.join(twice))
            self._index_cache = (names, np.array([lookup[j] for j in self.names], dtype=int))
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
        jumped = was_fresh and self._jumped(q, t_reading)
        # A reading's age counts from when it was taken: one read late (a backlog after a
        # busy spell or at start-up) is neither fresh feedback nor a place to start from.
        self._q_meas = q
        self._t_meas = t_reading
        self._readings.append((t_reading, q))
        # Judged by how much older than usual it came: a steady delivery delay (a busy
        # machine, clocks a little apart) must not keep the command from starting or a
        # stalled arm from being seen; a reading from a backlog is older than usual.
        late = self._delivery.excess(now - t_reading, now)
        recent = late <= START_READING_AGE
        if self._start_q is not None and not self._arm_moved:
            self._arm_moved = bool(np.max(np.abs(q - self._start_q)) > STALL_MOTION)
        judged = self._arm_moved or (self._first_step is not None
                                     and t_reading - self._first_step >= STALL_START_GRACE)
        self._lag = (self._following_lag(q, t_reading)
                     if judged and late <= STALL_READING_AGE
                     and self._stood_still(t_reading) else np.zeros(self.chain.n))
        if not was_fresh or jumped:
            self._resync_pending = True
            self.resync_reason = 'jumped' if was_fresh else 'came back'
        if self._resync_pending and recent:
            self._resync_pending = False
            if self._stepper.q is None:
                self.start_at(q, now)
            else:
                self._resync(q, now)
        return True

    def _jumped(self, q: np.ndarray, t: float) -> bool:
        """Return True if ``q`` taken at ``t`` is farther from the reading before than motion."""
        if not self._readings:
            return False
        t_prev, q_prev = self._readings[-1]
        diff = q - q_prev
        diff = np.abs(np.where(self.chain.continuous, wrap_angle(diff), diff))
        dt = max(t - t_prev, self._stepper.max_dt)
        speed = self._stepper.v_max if self._arm_speed is None else np.maximum(
            self._arm_speed, self._stepper.v_max)
        return bool(np.any(diff > JUMP_STEPS * speed * dt))

    def _stood_still(self, t: float) -> bool:
        """Return True if the readings of the last ARM_LATENCY before ``t`` barely moved."""
        if not self._readings or self._readings[0][0] > t - ARM_LATENCY:
            return False        # not enough history to tell
        q_now = self._readings[-1][1]
        for t_r, q_r in reversed(self._readings):
            if np.max(np.abs(q_r - q_now)) > STALL_MOTION:
                return False
            if t_r < t - ARM_LATENCY:
                break
        return True

    def _following_lag(self, q: np.ndarray, t: float) -> np.ndarray:
        """
        Return how far (n,) a reading ``q`` taken at time ``t`` is from its commands.

        The distance to the nearest of the commands in force during the :data:`ARM_LATENCY`
        before ``t`` (a command takes a while to reach the arm, and the arm a while to move),
        joint by joint; 0 without a command then.
        """
        lag = None
        for t_cmd, q_cmd in reversed(self._history):
            if t_cmd > t:
                continue
            diff = q_cmd - q
            d = np.abs(np.where(self.chain.continuous, wrap_angle(diff), diff))
            lag = d if lag is None else np.minimum(lag, d)
            if t_cmd < t - ARM_LATENCY:
                break
        return np.zeros(self.chain.n) if lag is None else lag

    def inherit_feedback(self, other: 'IKTracker') -> None:
        """
        Take over the measured positions of ``other`` (a tracker of the same joints).

        For a model change that continues the command stream: the feedback stays fresh, so no
        resync follows (the arm is where the old tracker last measured it).
        """
        if other.names == self.names and other._q_meas is not None:
            self._q_meas = other._q_meas.copy()
            self._t_meas = other._t_meas
            self._readings = deque(other._readings, maxlen=other._readings.maxlen)
            self._delivery = other._delivery
            self._resync_pending = other._resync_pending

    def _away_from_command(self, q: np.ndarray) -> float:
        """
        Return how far [rad or m] the arm at ``q`` is from the command, or 0 if it is near.

        Near: within :data:`RESYNC_STEPS` velocity-limited steps and :data:`RESYNC_LAG`
        seconds of motion on every joint.
        """
        command = self._stepper.q
        if command is None:
            return 0.0
        diff = q - command
        diff = np.abs(np.where(self.chain.continuous, wrap_angle(diff), diff))
        allowed = self._stepper.v_max * max(RESYNC_STEPS * self._stepper.max_dt, RESYNC_LAG)
        return 0.0 if np.all(diff <= allowed) else float(np.max(diff))

    def _resync(self, q: np.ndarray, now: float) -> None:
        """Restart the command at the measured ``q`` if the arm is far from the command."""
        distance = self._away_from_command(q)
        if distance == 0.0 or self.outside_limits(q):
            return
        self.resync_distance = distance
        self.start_at(q, now)

    def outside_limits(self, q: ArrayLike, tolerance: ArrayLike | None = None) -> str:
        """
        Describe the joints of ``q`` (n,) farther outside the limits than ``tolerance``, or ''.

        tolerance: (n,) or scalar [rad or m]; None means one step, ``v_max * output_period``:
        starting the command at the nearest limit would move a joint farther than that at
        once. (An arm resting at a limit often reads a little beyond it.)
        """
        q = np.asarray(q, dtype=float)
        if tolerance is None:
            tolerance = self._stepper.v_max * self._stepper.max_dt
        clipped = np.clip(q, self.chain.lower, self.chain.upper)
        far = np.abs(clipped - q) > np.asarray(tolerance, dtype=float) + 1e-12
        return ', '.join(f'{name} at {v:.4g} outside [{lo:.4g}, {hi:.4g}]'
                         for name, v, lo, hi, f in zip(self.names, q, self.chain.lower,
                                                       self.chain.upper, far) if f)

    def _refuse_feedback(self, kind: str, message: str) -> bool:
        self.feedback_problem = FeedbackProblem(kind, message)
        return False

    def start_at(self, q: ArrayLike, now: float) -> None:
        """Assume the arm stands at ``q`` (n,) (clipped into the limits) at time ``now``."""
        self._start_q = self._stepper.reset(q).copy()
        self._first_step = None
        self._arm_moved = False
        self._t_cmd = now
        self._goal = None
        self._reached = True
        self._history.clear()
        self._lag = np.zeros(self.chain.n)
        self._target = None
        self._arrival_reported = True

    @property
    def ready(self) -> bool:
        """Return True once the arm position is known (feedback or :meth:`start_at`)."""
        return self._stepper.q is not None

    @property
    def command(self) -> np.ndarray | None:
        """Return the last commanded positions (n,), or None before the arm position is known."""
        return self._stepper.q

    @property
    def velocity(self) -> np.ndarray:
        """Return the (n,) command velocity limits [rad/s or m/s]."""
        return self._stepper.v_max.copy()

    def move_to(self, q_goal: ArrayLike) -> None:
        """
        Make the joint positions ``q_goal`` (n,) the goal, without IK (a home pose, say).

        Clipped into the limits; approached by :meth:`step` like a solved goal.
        """
        q = self.chain.check_q(q_goal, 'q_goal')
        self._goal = self.chain.clip(q)
        self._reached = False
        self._target = None

    @property
    def goal(self) -> np.ndarray | None:
        """Return the solution being approached (n,), or None."""
        return None if self._goal is None else self._goal.copy()

    @property
    def moving(self) -> bool:
        """Return True while the command has not yet reached the goal."""
        return self._goal is not None and not self._reached

    def measured(self, now: float) -> np.ndarray | None:
        """Fresh measured positions (n,), or None if there are none younger than the timeout."""
        if self._q_meas is not None and now - self._t_meas <= self.joint_states_timeout:
            return self._q_meas.copy()
        return None

    def feedback_lost(self, now: float) -> bool:
        """
        Return True when readings came, then stopped for over ``joint_states_timeout``.

        While the first readings after a gap are too old to restart the command (older than
        :data:`START_READING_AGE`: a backlog) and show the arm away from the command (moved
        while unheard), it stays True until a recent one has restarted the command there.
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

    def warm_up(self) -> None:
        """Solve once for a pose at mid-range so compiled kernels are ready; state unchanged."""
        q = self.chain.mid
        solve(self.chain, self.chain.fk(q), q0=q, method=self.method, **self.options)

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

    def solve(self, target: ArrayLike, now: float) -> SolveOutcome:
        """
        Solve for ``target`` ((4, 4) pose or (3,) position, base frame); it becomes the goal.

        An unreachable target gives the best attempt as the goal (``result.success`` False).
        Raises IKInputError for a malformed target (the goal is then unchanged).
        """
        q0, source = self.seed(now)
        t0 = time.perf_counter()
        result = solve(self.chain, target, q0=q0, method=self.method, **self.options)
        elapsed = time.perf_counter() - t0
        q = np.asarray(result.q, dtype=float)
        if result.status == STATUS_BLOCKED:
            pass        # every answer collides: the arm stays where it is going now
        elif q.shape == (self.chain.n,) and np.all(np.isfinite(q)):
            self._goal = self.chain.clip(q)
            self._reached = False
            self._target = np.array(target, dtype=float)
            self._arrival_reported = False
        return SolveOutcome(result=result, target=np.asarray(target, dtype=float),
                            seed_source=source, solve_time=elapsed)

    def time_to_reach(self, q: ArrayLike, now: float) -> float:
        """
        Return the shortest time [s] in which every joint can go from the arm to ``q`` (n,).

        From the measured position when it is fresh, else from the last command; each joint
        at its command velocity limit. 0 when the arm position is unknown.
        """
        start = self.current_q(now)
        if start is None:
            return 0.0
        diff = np.asarray(q, dtype=float) - start
        diff = np.where(self.chain.continuous, wrap_angle(diff), diff)
        return float(np.max(np.abs(diff) / self._stepper.v_max))

    def step(self, now: float) -> StepReport | None:
        """
        Advance the command toward the goal for the time since the last step.

        Returns None while the arm position is unknown. Without a goal the command holds.
        """
        command = self._stepper.q
        if command is None:
            return None
        self.stall = ''
        goal = self._goal if self._goal is not None else command
        report = self._stepper.step(goal, now - self._t_cmd)
        self._t_cmd = now
        self._reached = report.reached
        scale = self._singularity_scale(command, report.q)
        if scale < 1.0:
            q = self._stepper.reset(command + scale * (report.q - command))
            self.condition = self._condition(q)
            self._reached = False
            report = StepReport(q=q, dt=report.dt, nonfinite=report.nonfinite,
                                position_clamped=report.position_clamped,
                                velocity_clamped=report.velocity_clamped | (scale < 1.0),
                                reached=False)
        report = self._follow(command, report, now)
        blocked = self._step_blocked(command, report.q)
        if blocked:
            self.stall = blocked
            self.start_at(command, now)
            report = StepReport(q=command, dt=report.dt, nonfinite=report.nonfinite,
                                position_clamped=report.position_clamped,
                                velocity_clamped=report.velocity_clamped, reached=True)
        if self._first_step is None and not np.array_equal(report.q, command):
            self._first_step = now
        self._history.append((now, report.q.copy()))
        return report

    def _follow(self, command: np.ndarray, report: StepReport, now: float) -> StepReport:
        """Apply the following-error guards (see :meth:`set_following_error`) to a step."""
        limit = self._following_error
        if self._q_meas is None or not np.any(np.isfinite(limit)):
            return report
        # A reading still a full limit from the command in force when it was taken: the
        # command was already held at the limit ahead of the arm, and the arm did not follow.
        over = self._lag >= limit * (1.0 - 1e-9)
        if np.any(over):
            # The arm does not follow: hold it where it was last measured, drop the goal.
            self.stall = ('arm not following the commands: ' + ', '.join(
                f'{name} {lag:.3g} from its command (limit {lim:.3g})' for name, lag, lim, o
                in zip(self.names, self._lag, limit, over) if o)
                + '; holding at the measured position, send a new target to go on')
            q = self._stepper.reset(self._q_meas)
            self.start_at(q, now)
            return StepReport(q=q, dt=report.dt, nonfinite=report.nonfinite,
                              position_clamped=report.position_clamped,
                              velocity_clamped=report.velocity_clamped, reached=True)
        # Never farther than the limit ahead of the last reading; never back either (a step
        # that would go back toward an old reading waits instead).
        meas = command + np.where(self.chain.continuous,
                                  wrap_angle(self._q_meas - command), self._q_meas - command)
        lo = np.minimum(command, meas - limit)
        hi = np.maximum(command, meas + limit)
        q = np.clip(report.q, lo, hi)
        if np.array_equal(q, report.q):
            return report
        q = self._stepper.reset(q)
        self._reached = False
        return StepReport(q=q, dt=report.dt, nonfinite=report.nonfinite,
                          position_clamped=report.position_clamped,
                          velocity_clamped=report.velocity_clamped | (q != report.q),
                          reached=False)

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
        T = self.chain.fk(q)
        target = self._target
        if target.shape == (3,):
            ok = float(np.linalg.norm(T[:3, 3] - target)) <= position_tolerance
        else:
            pe, oe = pose_error(target, T)
            ok = pe <= position_tolerance and oe <= orientation_tolerance
        if ok:
            self._arrival_reported = True
        return ok
