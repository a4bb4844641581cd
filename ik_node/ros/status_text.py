# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The words of ik_node's log lines and statuses that are not the answer to a solve.

(How a solve was answered is :func:`ik_node.ros.outputs.answer_level`.) Plain functions of
the values they name; no rclpy.
"""

from typing import Any, Iterable

import numpy as np

__all__ = ['PAUSED_REFUSAL', 'not_ready', 'feedback_lost', 'resync', 'hold_reply', 'ready',
           'assumed_start', 'parameters_changed']

PAUSED_REFUSAL = 'holding (the hold service was called): target refused until resumed'


def not_ready(topic: str, problem: Any) -> str:
    """Return why a target is refused before the arm position is known."""
    return (f'arm position unknown: waiting for joint_states on {topic}'
            + (f' (last one ignored: {problem.message})' if problem else ''))


def feedback_lost(topic: str, timeout: float) -> str:
    """Return what the node does while no joint_states come."""
    return (f'no joint_states on {topic} for over {timeout:g} s: no command is sent until the '
            'arm is heard again')


def resync(reason: str, distance: float) -> str:
    """Return why the arm is held where it is after a reading far from the commands."""
    return (f'joint_states {reason} {distance:.3g} rad or m away from the last command (arm '
            'restarted or moved?): holding the arm where it is, the goal is dropped')


def hold_reply(paused: bool) -> str:
    """Return the hold service's answer."""
    return ('holding: targets are refused until resumed' if paused
            else 'resumed: targets are served')


def ready(chain: Any, method: str, topics: str) -> str:
    """Return the log line of a model in use."""
    return (f'ready: robot {chain.robot_name!r}, chain {chain.base_link} -> {chain.tip_link}, '
            f'{chain.n} joints ({", ".join(chain.joint_names)}), solver {method}; targets on '
            f'{topics}')


def assumed_start(q: np.ndarray) -> str:
    """Return the log line of a start without feedback at ``q``."""
    return ('require_joint_states is false: assuming the arm at '
            f'{np.round(q, 4).tolist()} until joint_states arrive')


def parameters_changed(changed: Iterable[str], new: dict[str, Any], old_solver: str) -> str:
    """Return the log line of a parameter change (the URDF is named, not shown)."""
    return 'parameters changed: ' + ', '.join(
        f'{name}={new[name]!r}' if name != 'robot_description' else name
        for name in sorted(changed)) + ('' if old_solver == new['solver']
                                        else ' (solver switched)')
