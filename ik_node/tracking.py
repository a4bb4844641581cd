# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Target tracking of the IK node without ROS: seed, solve, then step safely toward the goal.

:class:`IKTracker` holds what the node knows between callbacks: the measured joint positions
(feedback), the last solution (goal) and the last published command. The node converts
messages to arrays, calls :meth:`IKTracker.solve` and :meth:`IKTracker.step`, and converts the
results back. Times are seconds of a monotonic clock supplied by the caller.
"""

from dataclasses import dataclass
import time
from typing import Any, Mapping, Sequence

from ik_node.chain import Chain
from ik_node.result import IKResult
from ik_node.safety import CommandStepper, StepReport
from ik_node.solve import solve
import numpy as np
from numpy.typing import ArrayLike

__all__ = ['SolveOutcome', 'IKTracker']


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
        self._goal: np.ndarray | None = None
        self._t_cmd = 0.0
        self._reached = True
        self._index_cache: tuple[tuple[str, ...], np.ndarray] | None = None

    def configure(self, method: str, options: Mapping[str, Any], velocity: ArrayLike,
                  output_period: float, joint_states_timeout: float) -> None:
        """Change solver and limits at run time; the command and feedback state are kept."""
        v = np.array(velocity, dtype=float).reshape(-1)
        if v.shape != (self.chain.n,) or not np.all(np.isfinite(v)) or np.any(v <= 0.0):
            raise ValueError(f'velocity must be {self.chain.n} finite numbers > 0')
        self.method = method
        self.options = dict(options)
        self._stepper.v_max = v
        self._stepper.max_dt = float(output_period)
        self.joint_states_timeout = float(joint_states_timeout)

    # Feedback ---------------------------------------------------------------------------

    def update_feedback(self, names: Sequence[str], positions: Sequence[float],
                        now: float) -> bool:
        """
        Record measured positions (by joint name); True if every chain joint was given.

        Messages that miss a chain joint or hold a non-finite position are ignored. The first
        valid one also starts the command from the measured position.
        """
        names = tuple(names)
        if self._index_cache is None or self._index_cache[0] != names:
            lookup = {name: i for i, name in enumerate(names)}
            try:
                index = np.array([lookup[j] for j in self.names], dtype=int)
            except KeyError:
                return False
            self._index_cache = (names, index)
        index = self._index_cache[1]
        if len(positions) != len(names):
            return False
        q = np.asarray(positions, dtype=float)[index]
        if not np.all(np.isfinite(q)):
            return False
        self._q_meas = q
        self._t_meas = now
        if self._stepper.q is None:
            self.start_at(q, now)
        return True

    def start_at(self, q: ArrayLike, now: float) -> None:
        """Assume the arm stands at ``q`` (n,) (clipped into the limits) at time ``now``."""
        self._stepper.reset(q)
        self._t_cmd = now
        self._goal = None
        self._reached = True

    @property
    def ready(self) -> bool:
        """Return True once the arm position is known (feedback or :meth:`start_at`)."""
        return self._stepper.q is not None

    @property
    def command(self) -> np.ndarray | None:
        """Return the last commanded positions (n,), or None before the arm position is known."""
        return self._stepper.q

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
        if q.shape == (self.chain.n,) and np.all(np.isfinite(q)):
            self._goal = self.chain.clip(q)
            self._reached = False
        return SolveOutcome(result=result, target=np.asarray(target, dtype=float),
                            seed_source=source, solve_time=elapsed)

    def step(self, now: float) -> StepReport | None:
        """
        Advance the command toward the goal for the time since the last step.

        Returns None while the arm position is unknown. Without a goal the command holds.
        """
        if not self.ready:
            return None
        goal = self._goal if self._goal is not None else self._stepper.q
        report = self._stepper.step(goal, now - self._t_cmd)
        self._t_cmd = now
        self._reached = report.reached
        return report
