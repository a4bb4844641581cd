# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The node's state on ``ik_status`` once a second: what a user who looks at it finds.

Besides the answers to targets (one status per event, named '<node>: ik'), the status topic
carries a status named '<node>: state' every ``STATE_PERIOD`` (1 s, as diagnostic_updater
publishes): the model, the solver, who is in control (a goal or a jog), the arm (at rest,
moving, holding, not heard), the last target's answer and the last warning or error with its
age. Its level is the arm's health now: ERROR while holding after a stall, WARN while the
model or the arm's readings are missing or targets are paused, else OK. The status topic is
TRANSIENT_LOCAL (:data:`ik_node.ros.qos.STATUS_QOS`), so a subscriber that comes late, such
as ``ros2 topic echo --once /ik_status``, gets the latest statuses at once.
"""

from typing import Any

from ik_node.ros.cycle_watch import CycleWatch
from ik_node.ros.node_state import NodeClock, NodeState
from ik_node.ros.outputs import Outputs

__all__ = ['StateReport', 'STATE_PERIOD', 'arm_state']

STATE_PERIOD = 1.0      # [s]


def arm_state(state: NodeState, now: float) -> tuple[str, str]:
    """Return (level, words) for the arm now: 'OK', 'WARN' or 'ERROR', and what it does."""
    tracker = state.tracker
    if tracker is None:
        return 'WARN', 'no model yet: waiting for the URDF (robot_description or urdf_file)'
    if tracker.stall:
        return 'ERROR', f'holding: {tracker.stall}'
    if state.feedback_lost(now):
        return 'WARN', 'joint_states lost: holding the last command until the arm is heard'
    if not tracker.ready:
        return 'WARN', 'waiting for joint_states (or initial_positions) to know where the arm is'
    if state.paused:
        return 'WARN', 'paused by the hold service: targets are refused until resumed'
    if tracker.searching:
        return 'OK', 'searching a goal'
    if tracker.moving:
        return 'OK', 'moving'
    return 'OK', 'at rest'


class StateReport:
    """Publish the node's state every STATE_PERIOD (see the module docstring)."""

    def __init__(self, node: Any, state: NodeState, clock: NodeClock, outputs: Outputs,
                 jog: Any, cycles: CycleWatch):
        self._node, self._state, self._clock = node, state, clock
        self._outputs, self._jog, self._cycles = outputs, jog, cycles
        self._timer = node.create_timer(STATE_PERIOD, self.publish)

    def publish(self) -> None:
        """Publish the state status now."""
        try:
            level, message, values = self.summary()
        except Exception as exc:     # a report must never take the node down
            self._node.get_logger().error(f'state report failed: {exc!r}',
                                          throttle_duration_sec=10.0)
            return
        self._outputs.state(level, message, values)

    def summary(self) -> tuple[str, str, dict[str, Any]]:
        """Return (level, message, values) of the state status."""
        state, now = self._state, self._clock.now()
        level, arm = arm_state(state, now)
        tracker = state.tracker
        values: dict[str, Any] = {'solver': state.values['solver'], 'arm': arm}
        if tracker is not None:
            chain = tracker.chain
            values['model'] = (f'{chain.robot_name}: {chain.base_link} -> {chain.tip_link}, '
                               f'{chain.n} joints')
        else:
            values['model'] = 'none'
        values['control'] = 'jog' if self._jog.jogging else 'goal'
        answer = self._outputs.last_answer
        if answer is not None:
            values['last_target'] = answer[1]
            values['last_target_stamp'] = answer[2]
        problem = self._outputs.last_problem
        if problem is not None:
            values['last_problem'] = f'{problem[0]}: {problem[1]}'
            values['last_problem_age_s'] = round((self._clock.now_ns() - problem[2]) * 1e-9, 1)
        if self._cycles.late:
            # Command ticks held off while the arm moved (ik_node.ros.cycle_watch).
            values['late_cycles'] = self._cycles.late
            values['longest_late_cycle_ms'] = round(self._cycles.longest * 1e3)
        return level, f'{values["control"]} in control, arm {arm}', values
