# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Jogging: a streamed tool twist or joint velocities become jerk-limited joint commands.

Each control period the caller gives the latest command (:meth:`Jogger.twist` or
:meth:`Jogger.joint_velocities`, each with its time) and asks for the next joint command at
``now`` (:meth:`Jogger.step`). One step:

1. the wanted joint velocity v: for a twist, differential IK at the commanded state
   (:func:`ik_node.motion.twist_ik.joint_velocity_for_twist`: position first, then the
   orientation, then the null-space objectives, these only while the twist is not zero);
   for joint jogging, the velocities given.
   No command for ``timeout`` [s] (or :meth:`Jogger.stop`): v = 0;
2. v is scaled as a whole (so the tool keeps its direction) to the velocity limits, then by
   the guards of :mod:`ik_node.motion.jog_guards`, each judging the state ahead (where the arm
   would rest if it braked from v): the Jacobian's condition number (twists only), the room
   left before each joint's limit less a margin, and the clearance to obstacles and the arm
   itself (when a collision guard is set);
3. a jerk-limited blend (:mod:`ik_node.motion.velocity_blend`, Ruckig's velocity interface)
   takes the commanded state (q, v, a) toward that velocity under the acceleration and jerk
   limits, in step (every joint's velocity on one line: the tool keeps its direction) from
   rest or a steady velocity; the command is its sample at ``now``. A twist change, a timeout
   or a guard is thus never a step in v or a;
4. last, a commanded state in contact is never sent: a sample that would touch (and is not
   leaving a contact the arm is already in) is replaced by holding still (reported as
   ``REASON_CONTACT``; the guards are tuned so that it does not happen).

The state is the last command (the arm follows it, as with a position interface): start it,
and restart it after the arm moved otherwise, with :meth:`Jogger.reset` from the measured
joints, or with :meth:`Jogger.take_over` from another motion's commanded state (a jog that
interrupts a goal motion); :attr:`Jogger.state` is where a motion that takes over from the
jog starts. Nothing here imports rclpy; every time is the caller's clock [s], non-decreasing.
"""

import math
from typing import NamedTuple, Sequence

from ik_node.errors import IKInputError
from ik_node.motion.jog_guards import (GUARD_COLLISION, GUARD_JOINT_LIMIT, GUARD_NONE,
                                       guard_record, GUARD_SINGULARITY, GUARD_VELOCITY,
                                       guarded_velocity, pair_clearances)
from ik_node.motion.tool_hold import HOLD_GAIN, ToolHold
from ik_node.motion.trajectory import JointSample, KinematicLimits
from ik_node.motion.twist_ik import joint_velocity_for_twist
from ik_node.motion.velocity_blend import nearest_in_step, VelocityBlend
from ik_node.solvers.objectives import objective_gradient, objectives_active, pack_objectives
import numpy as np
from numpy.typing import ArrayLike
from ruckig import ControlInterface, InputParameter, Result, Ruckig, RuckigError, Trajectory

__all__ = ['JogSettings', 'JogStep', 'Jogger', 'MODE_IDLE', 'MODE_TWIST', 'MODE_JOINT',
           'MODE_STOPPING', 'REASON_NONE', 'REASON_VELOCITY', 'REASON_SINGULARITY',
           'REASON_JOINT_LIMIT', 'REASON_COLLISION', 'REASON_CONTACT', 'strongest_reason']

# What the jogger does (JogStep.mode).
MODE_IDLE = 'idle'            # at rest, no command in force
MODE_TWIST = 'twist'          # following a tool twist
MODE_JOINT = 'joint'          # following joint velocities
MODE_STOPPING = 'stopping'    # the command timed out or was stopped; braking to rest

# What slowed the step most (JogStep.reason).
REASON_NONE = ''
REASON_VELOCITY = 'velocity'          # a joint's velocity limit
REASON_SINGULARITY = 'singularity'    # the condition number ahead
REASON_JOINT_LIMIT = 'joint_limit'    # a joint's room before its limit (and margin)
REASON_COLLISION = 'collision'        # the clearance ahead
REASON_CONTACT = 'contact'            # the blended sample would touch: held still
# Weakest to strongest: of several slow-downs over a while, the one to tell.
_REASON_RANK = {REASON_NONE: 0, REASON_VELOCITY: 1, REASON_JOINT_LIMIT: 2,
                REASON_SINGULARITY: 3, REASON_COLLISION: 4, REASON_CONTACT: 5}


def strongest_reason(a: str, b: str) -> str:
    """Return the stronger of two REASON_* (by rank: velocity, joint_limit, ..., contact)."""
    return a if _REASON_RANK[a] >= _REASON_RANK[b] else b


# The reason of each guard code of ik_node.motion.jog_guards.guarded_velocity.
_REASONS = {GUARD_NONE: REASON_NONE, GUARD_VELOCITY: REASON_VELOCITY,
            GUARD_SINGULARITY: REASON_SINGULARITY, GUARD_JOINT_LIMIT: REASON_JOINT_LIMIT,
            GUARD_COLLISION: REASON_COLLISION}

# A velocity below this [rad/s or m/s] in every joint (and acceleration below it per s) is
# rest.
_EPS_REST = 1e-9
# The largest change of a blend's target velocity, as a fraction of the target it was planned
# for, taken as the Jacobian's change as the arm moves rather than a new command (the blend
# under way goes on: see Jogger._keeps_blend).
_SAME_TARGET = 0.02


def _read_only(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view


class JogSettings(NamedTuple):
    """
    How a :class:`Jogger` follows its commands; defaults as MoveIt Servo's where it has one.

    timeout [s]: a command older than this stops the arm (Servo: 0.1).
    singularity_slowdown, singularity_stop: condition numbers of the Jacobian from which a
    twist toward a singularity slows, and at which it is slowest (Servo: 17, 30);
    singularity_min_scale: the fraction of the speed left at singularity_stop (0: Servo's hard
    stop; the node's ``singularity_min_speed``: 0.1, the arm creeps through).
    joint_limit_margin [rad or m]: each joint stops this far before its limit (Servo: 0.1);
    joint_limit_deceleration: the fraction of the acceleration limit the slow-down before a
    limit plans with (the rest is headroom for the jerk-limited blend).
    clearance_slowdown, self_clearance_slowdown, clearance_stop [m]: the clearance ahead from
    which a motion toward an obstacle, or toward another link of the arm, slows, and at which
    it stops (Servo's scene and self proximity thresholds: 2 cm and 1 cm);
    clearance_min_rate [m/rad]: a pair whose clearance falls slower than this per radian of
    joint motion is not slowed (see :func:`ik_node.motion.jog_guards.clearance_scale`).
    damping [1]: the singular value below which the differential IK damps
    (:mod:`ik_node.motion.twist_ik`), of the angular level as it is and of the linear one
    times the chain's length scale [m].
    null_space_gain [1/s]: the rate the null-space objectives are descended at.
    max_linear_speed [m/s], max_angular_speed [rad/s]: larger twists are refused (bad input),
    not clipped; joint velocities above the joints' velocity limits are refused likewise.
    """

    timeout: float = 0.1
    singularity_slowdown: float = 17.0
    singularity_stop: float = 30.0
    singularity_min_scale: float = 0.1
    joint_limit_margin: float = 0.1
    joint_limit_deceleration: float = 0.5
    clearance_slowdown: float = 0.02
    self_clearance_slowdown: float = 0.01
    clearance_stop: float = 0.0
    clearance_min_rate: float = 0.01
    damping: float = 0.05
    null_space_gain: float = 1.0
    max_linear_speed: float = 1.0
    max_angular_speed: float = math.pi

    def checked(self) -> 'JogSettings':
        """Return self; IKInputError naming the first setting out of range."""
        for name in self._fields:
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise IKInputError(f'jog setting {name} must be a finite number >= 0, got '
                                   f'{value!r}')
        for name in ('timeout', 'max_linear_speed', 'max_angular_speed', 'damping',
                     'joint_limit_deceleration'):
            if not getattr(self, name) > 0.0:
                raise IKInputError(f'jog setting {name} must be > 0, got {getattr(self, name)}')
        if not 1.0 <= self.singularity_slowdown < self.singularity_stop:
            raise IKInputError('jog settings need 1 <= singularity_slowdown < singularity_stop,'
                               f' got {self.singularity_slowdown}, {self.singularity_stop}')
        if not self.clearance_stop < min(self.clearance_slowdown,
                                         self.self_clearance_slowdown):
            raise IKInputError('jog settings need clearance_stop below clearance_slowdown and '
                               f'self_clearance_slowdown, got {self.clearance_stop}')
        if self.singularity_min_scale > 1.0 or self.joint_limit_deceleration > 1.0:
            raise IKInputError('jog settings singularity_min_scale and '
                               'joint_limit_deceleration must be <= 1')
        return self


class JogStep(NamedTuple):
    """
    One jog command and why it is what it is.

    sample: the commanded joint state at the step's time (q, v, a) (n,) each. mode: MODE_*.
    scale: the factor [0, 1] the wanted velocity got (1: as commanded). reason: REASON_* of
    the guard that set it. condition: the Jacobian's condition number at the command (nan
    for joint jogging). clearance: the smallest clearance [m] at the command (inf without a
    collision guard).
    """

    sample: JointSample
    mode: str
    scale: float
    reason: str
    condition: float
    clearance: float


class _Command(NamedTuple):
    mode: str
    values: np.ndarray      # twist (6,) in the base frame, or joint velocities (n,)
    frame: str              # the twist's frame ('' for joint velocities)
    t: float


class Jogger:
    """
    Turn streamed jog commands into jerk-limited joint commands (see the module docstring).

    chain: an :class:`ik_node.Chain`. limits: its :class:`KinematicLimits` (n,) each.
    settings: :class:`JogSettings`. obstacles: the collision guard (None: off; a sequence,
    possibly empty, of ik_node shapes in the base frame: self-collision and those). The chain
    must then have collision geometry (:meth:`ik_node.Chain.from_urdf`). objectives:
    null-space objectives (:mod:`ik_node.solvers.objectives`) for twists.
    """

    def __init__(self, chain, limits: KinematicLimits, settings: JogSettings = JogSettings(),
                 obstacles: Sequence | None = None, objectives: Sequence = ()):
        if limits.velocity.shape != (chain.n,):
            raise IKInputError(f'limits must have {chain.n} values per kind, one per joint '
                               f'{list(chain.joint_names)}, got {limits.velocity.shape[0]}')
        self.chain = chain
        self.limits = limits
        self.settings = settings.checked()
        self._index = {name: i for i, name in enumerate(chain.joint_names)}
        self._objectives = pack_objectives(chain, objectives)
        self._use_objectives = objectives_active(self._objectives)
        self._damping_linear = settings.damping * chain.length_scale
        self._ruckig = Ruckig(chain.n)
        self._blend_plan = VelocityBlend(limits.acceleration, limits.jerk)
        # The time on _blend_plan of the last step's sample (None: the state is not on it).
        self._on_trajectory: float | None = None
        self._blend_target: np.ndarray | None = None    # the velocity the blend plans for
        self._brake_input = InputParameter(chain.n)
        self._brake_input.control_interface = ControlInterface.Velocity
        # Planned at half the acceleration limit: a controller that joins the braking's
        # ends with a quintic peaks up to about 1.8 x the planned acceleration (see preview).
        self._brake_input.max_acceleration = (limits.acceleration / 2.0).tolist()
        self._brake_input.max_jerk = limits.jerk.tolist()
        self._brake_input.max_velocity = limits.velocity.tolist()
        self._brake_input.target_velocity = [0.0] * chain.n
        self._brake_input.target_acceleration = [0.0] * chain.n
        self._brake_trajectory = Trajectory(chain.n)
        self._obstacles: tuple | None = None
        # (q.tobytes(), clearances at q): the contact check of one step is the clearance now
        # of the next.
        self._kept_clearances: tuple | None = None
        self._no_clearances = np.zeros(0)
        self._no_jacobian = np.zeros((0, chain.n))      # joint jogging: no singularity guard
        self.set_obstacles(obstacles)
        self._state = JointSample.rest(np.zeros(chain.n))
        self._t = -math.inf
        self._command: _Command | None = None
        self._hold = ToolHold()

    # -- state -----------------------------------------------------------------------------

    def reset(self, q: ArrayLike, now: float) -> None:
        """Stand at rest at ``q`` (n,) [rad or m] from ``now`` [s]; the command is dropped."""
        qa = self.chain.check_q(q)
        if not np.array_equal(qa, self._state.q) or not self._resting(self._state):
            self._hold.clear()
        self._state = JointSample.rest(qa)
        self._t = float(now)
        self._command = None
        self._on_trajectory = None

    def take_over(self, state: JointSample, now: float) -> None:
        """
        Go on from a moving commanded ``state`` (q, v, a) at ``now``: a jog mid-goal-motion.

        The next steps blend from that state, so the hand-over from another motion (e.g. a
        :class:`ik_node.motion.trajectory.Motion` sampled at ``now``) is as smooth as any
        twist change; the command is dropped (the arm brakes unless a command comes).
        """
        q = self.chain.check_q(state.q, 'state.q')
        v = self.chain.check_q(state.v, 'state.v')
        a = self.chain.check_q(state.a, 'state.a')
        if not (np.array_equal(q, self._state.q) and self._resting(self._state)
                and not np.any(v) and not np.any(a)):
            self._hold.clear()      # the arm moved otherwise: hold it where it is now
        self._state = JointSample(q, v, a)
        self._t = float(now)
        self._command = None
        self._on_trajectory = None

    def restart_from_rest(self, now: float, q: ArrayLike | None = None) -> None:
        """
        Go on from rest at ``q`` (n,) from ``now`` [s]; the command stays.

        For a long gap in the steps (the caller's timer paused): the arm held the last
        command, so the blend must start from rest there, not from where it would be by now.
        q: the last command published (None: the jogger's last commanded position; another
        when the jogger took over a motion during the gap, at that motion's state then).
        """
        q = self._state.q if q is None else self.chain.check_q(q)
        if not np.array_equal(q, self._state.q):
            self._hold.clear()
        self._state = JointSample.rest(np.array(q, dtype=float))
        self._t = float(now)
        self._on_trajectory = None

    def warm_up(self) -> None:
        """Step once at mid-range so compiled kernels are loaded; the state is kept."""
        saved = self._state, self._t, self._command
        self.reset(self.chain.mid, 0.0)
        self.joint_velocities(self.chain.joint_names[:1], [0.01 * self.limits.velocity[0]],
                              0.0)
        self.step(0.01)
        twist = np.zeros(6)
        twist[0] = 1e-3
        self.twist(twist, 0.01)
        self.step(0.02)
        self.step(0.03)         # the tool hold follows the motion since the last step
        self._state, self._t, self._command = saved
        self._on_trajectory = None
        self._hold.clear()

    @property
    def active(self) -> bool:
        """Return True while a command is in force or the arm still brakes from one."""
        return self._command is not None or not self._resting(self._state)

    @property
    def t(self) -> float:
        """Return the time [s] of :attr:`state` (-inf before :meth:`reset`)."""
        return self._t

    @property
    def state(self) -> JointSample:
        """Return the last commanded state, as read-only views of the jogger's arrays."""
        s = self._state
        return JointSample(_read_only(s.q), _read_only(s.v), _read_only(s.a))

    def set_obstacles(self, obstacles: Sequence | None) -> None:
        """Set the collision guard: None (off) or the obstacles (self-collision included)."""
        self._kept_clearances = None
        self._obstacles = None if obstacles is None else tuple(obstacles)
        # No geometry: IKInputError now, not mid-motion.
        self._guards = guard_record(self.chain, self.limits, self.settings, self._obstacles)

    # -- commands --------------------------------------------------------------------------

    def twist(self, twist: ArrayLike, now: float, frame: str | None = None) -> None:
        """
        Command the tool twist ``twist`` (6,): linear [m/s], angular [rad/s], from ``now``.

        frame: the chain's base_link (default) or tip_link; the twist is of the tool origin,
        its components in that frame's axes. IKInputError (and the command in force is kept)
        for a bad shape, NaN/Inf, a speed above the settings' maxima or an unknown frame.
        """
        try:
            x = np.array(twist, dtype=float).reshape(-1)
        except (TypeError, ValueError) as exc:
            raise IKInputError(f'twist must be 6 numbers: {exc}') from exc
        if x.shape != (6,):
            raise IKInputError(f'twist must be 6 numbers (linear xyz, angular xyz), got '
                               f'{x.shape[0]}')
        values = x.tolist()
        if not all(map(math.isfinite, values)):
            raise IKInputError(f'twist has NaN or Inf: {values}')
        # math.hypot scales its arguments: a huge twist gives a huge speed, not an overflow.
        lin, ang = math.hypot(*values[:3]), math.hypot(*values[3:])
        if lin > self.settings.max_linear_speed:
            raise IKInputError(f'twist linear speed {lin:.6g} m/s is above the limit '
                               f'{self.settings.max_linear_speed} m/s')
        if ang > self.settings.max_angular_speed:
            raise IKInputError(f'twist angular speed {ang:.6g} rad/s is above the limit '
                               f'{self.settings.max_angular_speed} rad/s')
        frame = self.chain.base_link if frame in (None, '') else frame
        if frame not in (self.chain.base_link, self.chain.tip_link):
            raise IKInputError(f'twist frame {frame!r} is unknown: use {self.chain.base_link!r}'
                               f' or {self.chain.tip_link!r}')
        self._command = _Command(MODE_TWIST, x, frame, float(now))

    def joint_velocities(self, names: Sequence[str], velocities: ArrayLike,
                         now: float) -> None:
        """
        Command joint velocities [rad/s or m/s] by joint name from ``now``; others stand.

        IKInputError (and the command in force is kept) for an unknown or repeated name,
        lengths that differ, NaN/Inf, or a velocity above the joint's limit.
        """
        names = list(names)
        try:
            values = np.array(velocities, dtype=float).reshape(-1)
        except (TypeError, ValueError) as exc:
            raise IKInputError(f'joint velocities must be numbers: {exc}') from exc
        if len(names) != values.shape[0]:
            raise IKInputError(f'{len(names)} joint names but {values.shape[0]} velocities')
        v = np.zeros(self.chain.n)
        seen = set()
        for name, value in zip(names, values):
            i = self._index.get(name)
            if i is None:
                raise IKInputError(f'unknown joint {name!r}: the chain has '
                                   f'{list(self.chain.joint_names)}')
            if name in seen:
                raise IKInputError(f'joint {name!r} is named twice')
            seen.add(name)
            if not math.isfinite(value):
                raise IKInputError(f'velocity of joint {name!r} is {value}')
            if abs(value) > self.limits.velocity[i] * (1.0 + 1e-9):
                raise IKInputError(f'velocity {value:.6g} of joint {name!r} is above its limit '
                                   f'{self.limits.velocity[i]:.6g}')
            v[i] = value
        self._command = _Command(MODE_JOINT, v, '', float(now))

    def stop(self, now: float) -> None:
        """Drop the command from ``now``: the arm brakes to rest within its limits."""
        self._command = None

    # -- the control step ------------------------------------------------------------------

    def step(self, now: float) -> JogStep:
        """Return the command at ``now`` [s] (see the module docstring); state advances."""
        now = float(now)
        if self._t == -math.inf:
            raise IKInputError('the jogger has no state yet: call reset(q, now) (or take_over) '
                               'first')
        if not now >= self._t:
            raise IKInputError(f'jog time went back: {now} after {self._t}')
        dt = now - self._t
        s = self._state
        q = s.q
        cmd = self._command
        if cmd is not None and now - cmd.t > self.settings.timeout:
            self._command = cmd = None
        condition, clearance = math.nan, math.inf
        scale, reason = 1.0, REASON_NONE
        if cmd is None:
            v_want = np.zeros(self.chain.n)
            mode = MODE_IDLE if self._resting(s) else MODE_STOPPING
            if mode == MODE_STOPPING and self._hold.holding:
                self._hold.follow(self.chain.fk(q))
        else:
            mode = cmd.mode
            J, condition = None, math.nan
            if cmd.mode == MODE_TWIST:
                J = self.chain.jacobian(q)
                v_want, condition = self._twist_velocity(q, J, cmd)
            else:
                self._hold.clear()      # joints jogged: the tool holds nothing
                v_want = cmd.values
            v_want, scale, reason, condition, clearance = self._guarded(q, v_want, J,
                                                                        condition)
        on, self._on_trajectory = self._on_trajectory, None
        nxt = self._blend(s, v_want, dt, on)
        if self._obstacles is not None and not np.array_equal(nxt.q, q):
            d_next = self._smallest(nxt.q)
            if d_next < 0.0 and d_next < self._smallest(q):
                nxt, reason, scale = JointSample.rest(q), REASON_CONTACT, 0.0
                self._on_trajectory = None
        self._state, self._t = nxt, now
        return JogStep(self.state, mode, scale, reason, condition, clearance)

    def _resting(self, s: JointSample) -> bool:
        return bool(np.abs(s.v).max(initial=0.0) <= _EPS_REST
                    and np.abs(s.a).max(initial=0.0) <= _EPS_REST)

    def _smallest(self, q: np.ndarray) -> float:
        """Return the smallest signed clearance [m] at ``q`` (exact where it is < 0)."""
        return float(np.min(self._pair_clearances(q), initial=math.inf))

    def _pair_clearances(self, q: np.ndarray) -> np.ndarray:
        """
        Return the signed clearances [m] at ``q``: the self pairs', then the obstacle pairs'.

        Exact up to the slow-down distance, lower bounds above it. The last q's are kept:
        the contact check of one step is the clearance now of the next.
        """
        key = q.tobytes()
        kept = self._kept_clearances
        if kept is not None and kept[0] == key:
            return kept[1]
        d = pair_clearances(self._guards, np.array(q, dtype=float))
        self._kept_clearances = (key, d)
        return d

    def _twist_velocity(self, q: np.ndarray, J: np.ndarray, cmd: _Command
                        ) -> tuple[np.ndarray, float]:
        """Return (v, J's condition number or nan) for the twist of ``cmd`` at ``q``."""
        x = cmd.values
        T = self.chain.fk(q)
        if cmd.frame != self.chain.base_link:
            R = T[:3, :3]
            x = np.concatenate([R @ x[:3], R @ x[3:]])
        e = self._hold.error(T, x)
        gradient = None
        # A zero twist holds the arm still: the null space moves only along with the tool.
        if self._use_objectives and np.any(x):
            gradient = objective_gradient(self.chain.model, self.chain.n, q, self.chain.lower,
                                          self.chain.upper, self._objectives)
        # With the drift back to the tool hold's anchor at HOLD_GAIN; the anchor keeps what
        # that achieves.
        back = HOLD_GAIN * e if np.any(e) else None
        solution = joint_velocity_for_twist(J, x, self._damping_linear, self.settings.damping,
                                            gradient, self.settings.null_space_gain, back)
        if back is not None:
            self._hold.achieved(solution.corrected / HOLD_GAIN)
        return solution.v, solution.condition

    def _guarded(self, q: np.ndarray, v: np.ndarray, J: np.ndarray | None,
                 condition: float = math.nan) -> tuple[np.ndarray, float, str, float, float]:
        """
        Return (v scaled, scale, reason, condition, clearance) (see the module doc).

        J: the (6, n) Jacobian at q for a twist (the singularity guard), None for joint jogging;
        condition: its condition number when known (nan: computed here). One compiled call
        (:func:`ik_node.motion.jog_guards.guarded_velocity`).
        """
        d_now = self._no_clearances
        kept = self._kept_clearances
        if self._obstacles is not None and kept is not None and kept[0] == q.tobytes():
            d_now = kept[1]
        # Fresh float arrays: the kernel is compiled for one array type (writable, C order).
        qa = np.array(q, dtype=float)
        v, scale, code, condition, clearance, d_now = guarded_velocity(
            self._guards, qa, np.array(v, dtype=float),
            self._no_jacobian if J is None else np.array(J, dtype=float), float(condition),
            d_now)
        if d_now.shape[0]:
            self._kept_clearances = (qa.tobytes(), d_now)
        return v, float(scale), _REASONS[int(code)], float(condition), float(clearance)

    def _blend(self, s: JointSample, v_target: np.ndarray, dt: float,
               on: float | None) -> JointSample:
        """
        Return the state ``dt`` [s] after ``s`` on the blend toward ``v_target``.

        on: the time of ``s`` on the last step's blend (None: s is not on it).
        """
        if dt <= 0.0:
            return s
        if self._resting(s) and not np.any(v_target):
            return JointSample.rest(s.q)
        if on is not None and self._keeps_blend(v_target, dt, on):
            self._on_trajectory = on + dt
            return self._blend_plan.at(self._on_trajectory)
        # A stroke resumed while the arm brakes: in step to the nearest velocity on the
        # braking's line, followed to its end (_keeps_blend); the next plan, from a steady
        # velocity, reaches the exact target in step.
        self._blend_plan.plan(s, nearest_in_step(s, v_target, _SAME_TARGET))
        self._on_trajectory = dt
        self._blend_target = v_target
        return self._blend_plan.at(dt)

    def _keeps_blend(self, v_target: np.ndarray, dt: float, on: float) -> bool:
        """
        Return True when the step goes on on the last blend rather than planning a new one.

        A blend keeps the joints in step (the tool in its direction) from rest or a steady
        velocity, seldom from a blend's middle (:mod:`ik_node.motion.velocity_blend`); so a
        blend under way is followed to its end while the target stays within _SAME_TARGET of
        the one it was planned for (the Jacobian's change as the arm moves, not a new
        command); the next plan, from a steady velocity, reaches the exact target.
        """
        planned = self._blend_target
        if planned is None or on + dt >= self._blend_plan.duration:
            return False
        return bool(np.linalg.norm(v_target - planned)
                    <= _SAME_TARGET * np.linalg.norm(planned))

    def preview(self, lead: float) -> tuple[JointSample, float, np.ndarray]:
        """
        Return (the state ``lead`` [s] after the last step, time [s] to rest, rest position).

        The state ahead is on the last step's blend, the command in force held meanwhile (no
        new guard, no timeout); from it, the arm brakes to rest within the limits in the time
        returned, at the rest position (n,), planned at half the acceleration limit, so that
        a quintic between the two (what joint_trajectory_controller interpolates from
        positions, velocities and accelerations) stays within the limit. For a trajectory
        controller: a point ahead that the next message replaces, and a rest point it brakes
        to if no message comes.
        """
        if self._on_trajectory is None:
            s = self._state
        else:
            s = self._blend_plan.at(self._on_trajectory + float(lead))
        if self._resting(s):
            return JointSample.rest(s.q), 0.0, s.q
        inp = self._brake_input
        inp.current_position = s.q.tolist()
        inp.current_velocity = s.v.tolist()
        inp.current_acceleration = s.a.tolist()
        inp.max_velocity = np.maximum(self.limits.velocity, np.abs(s.v)).tolist()
        brake = self._brake_trajectory
        try:
            result = self._ruckig.calculate(inp, brake)
        except RuckigError as exc:
            raise IKInputError(f'Ruckig found no braking from v={s.v.tolist()}') from exc
        if result not in (Result.Working, Result.Finished):
            raise IKInputError(f'Ruckig found no braking from v={s.v.tolist()}: {result}')
        duration = float(brake.duration)
        return s, duration, np.array(brake.at_time(duration)[0])
