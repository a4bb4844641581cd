# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
From a URDF and the node's parameters to a ready IKTracker, and the checks of a model change.

Plain functions of the robot model and the parameter values (no node state): the node calls
them when it starts, when ``robot_description`` changes and when a parameter that shapes the
tracker is set. Each raises URDFError or ValueError with the reason a model or a value is not
usable; the node then keeps what it had.
"""

from typing import Any, Sequence

from ik_node.errors import IKError, URDFError
from ik_node.model.chain import Chain
from ik_node.model.link_tree import RobotTree
from ik_node.motion.tracker import IKTracker
from ik_node.ros.parameter_table import command_velocity_limits, limits_from_values, solver_options
from ik_node.ros.tree_setup import build_tree_arm, is_tree, tree_solver_options
import numpy as np

__all__ = ['build_tracker', 'configure_guards', 'forward_order', 'check_carry_over',
           'reconfigure', 'continue_command', 'start_without_feedback', 'ArmMoving']

# [rad or m] between the points of a braking path checked against a new model's limits.
_STOP_SPACING = 0.01


class ArmMoving(ValueError):
    """A model of other joints while the arm moves: it can take over only at rest."""


def build_tracker(text: str, values: dict[str, Any], obstacles: Sequence
                  ) -> tuple[RobotTree, IKTracker]:
    """Return (tree, tracker) for URDF ``text``; URDFError or ValueError if unusable."""
    tree = RobotTree.from_urdf(text)
    auto_base, auto_tip = tree.default_chain()
    base = values['base_link'] or auto_base
    tip = values['tip_link'] or auto_tip
    # Several tips (tip_links): the whole tree is the arm (ik_node.ros.tree_setup).
    chain = (build_tree_arm(text, values, tree) if values['tip_links']
             else Chain.from_urdf(text, base, tip))
    for q in (chain.mid, chain.clip(np.where(chain.continuous, 0.0, chain.lower)),
              chain.clip(np.where(chain.continuous, 0.0, chain.upper))):
        if not np.all(np.isfinite(chain.fk(q))):
            raise URDFError(f'robot {chain.robot_name!r}: the chain {base} -> '
                            f'{chain.tip_link} gives a non-finite pose (check the origins '
                            'and mimic factors)')
    limits = limits_from_values(chain, values, robot=tree)
    tracker = IKTracker(chain, values['solver'], _options(values, chain),
                        limits.velocity, 1.0 / values['output_rate'],
                        values['joint_states_timeout'], acceleration=limits.acceleration,
                        jerk=limits.jerk, goal_budget=values['goal_search_timeout'],
                        plan_budget=values['planning_timeout'], background=True)
    configure_guards(tracker, values)
    forward_order(chain, values)
    if values['avoid_collisions']:
        try:
            # Loads the collision geometry (meshes too) now, not at the first target.
            chain.collisions(chain.mid)
        except IKError as exc:
            raise URDFError(f'collision geometry of robot {chain.robot_name!r} not '
                            f'usable: {exc} (avoid_collisions:=false runs without '
                            'collision checks: not for a real arm)') from exc
        tracker.set_collision_guard(list(obstacles))
    initial = values['initial_positions']
    if initial and len(initial) != chain.n:
        raise ValueError(f'initial_positions must have {chain.n} values (one per joint of '
                         f'{", ".join(chain.joint_names)}), got {len(initial)}')
    return tree, tracker


def _options(values: dict[str, Any], chain: Chain) -> dict[str, Any]:
    """Return the solver options of ``chain``: a tree's (tree_setup), else a chain's."""
    return tree_solver_options(values) if is_tree(chain) else solver_options(values, chain)


def configure_guards(tracker: IKTracker, values: dict[str, Any]) -> None:
    """Set the following error, jump speed, singularity and emergency stop guards."""
    chain = tracker.chain
    # The arm may move at its full limits (catching up with a command that ran ahead) even
    # when the commands use a fraction of them (velocity_scale).
    tracker.set_arm_speed(command_velocity_limits(chain.velocity,
                                                  values['default_velocity_limit'], 1.0))
    tracker.set_following_error(np.where(chain.prismatic,
                                         values['max_following_error_linear'],
                                         values['max_following_error']))
    tracker.set_singularity_thresholds(values['singularity_slowdown'],
                                       values['singularity_stop'],
                                       values['singularity_min_speed'])
    tracker.set_emergency_stop_scale(values['emergency_stop_scale'])


def forward_order(chain: Chain, values: dict[str, Any]) -> np.ndarray:
    """Return the chain indices in forward_command_joints order; ValueError if unusable."""
    names = list(values['forward_command_joints']) or list(chain.joint_names)
    if sorted(names) != sorted(chain.joint_names):
        raise ValueError(f'forward_command_joints must name each chain joint once '
                         f'({", ".join(chain.joint_names)}), got {names}')
    return np.array([chain.joint_names.index(name) for name in names], dtype=int)


def check_carry_over(old: IKTracker | None, new: IKTracker, moving: bool, now: float) -> None:
    """
    Raise ValueError if the new model cannot take over the command stream without a jump.

    moving: whether the commands move the arm now (a goal motion, a jog or a stop). The same
    joints go on from the command (:func:`continue_command`): it, and in motion the stop on
    its path, must be inside the new limits. Other joints while the arm moves: ArmMoving
    (the joints no longer commanded would be held at once, a velocity step).
    """
    if old is None or old.command is None:
        return
    if old.names != new.names:
        if moving:
            raise ArmMoving('the arm is moving and the new model commands other joints '
                            f'({", ".join(new.names)} for {", ".join(old.names)}): the joints '
                            'it leaves would stop at once; it can take over at rest')
        return
    # Exactly: the next command continues from this one, a clip would add to its step.
    outside = new.outside_limits(old.command, tolerance=1e-9)
    stop = old.commander.stopping(now) if old.commander.moving else None
    if not outside and stop is not None:
        for q in stop.samples(now, _STOP_SPACING):
            outside = new.outside_limits(q, tolerance=1e-9)
            if outside:
                outside = f'on the way to rest: {outside}'
                break
    if outside:
        raise ValueError(f"the current command is outside the new model's joint "
                         f'limits ({outside}); moving into them would be a jump')


def reconfigure(tracker: IKTracker, tree: RobotTree | None, values: dict[str, Any],
                obstacles: Sequence | None, now: float, solver_changed: bool) -> np.ndarray:
    """
    Apply new parameter values to a tracker of the same model; return the forward order.

    obstacles: the obstacles in force, None without collision avoidance. Raises IKError or
    ValueError before any change when a value does not fit the model.
    """
    chain = tracker.chain
    forward_index = forward_order(chain, values)     # refused before any change
    limits = limits_from_values(chain, values, tree)
    tracker.configure(values['solver'], _options(values, chain), limits.velocity,
                      1.0 / values['output_rate'], values['joint_states_timeout'],
                      limits.acceleration, limits.jerk, now)
    configure_guards(tracker, values)
    tracker.goal_budget = values['goal_search_timeout']
    tracker.plan_budget = values['planning_timeout']
    tracker.set_collision_guard(obstacles)
    if solver_changed:
        tracker.warm_up(goals=False)    # (the model's install loaded the goal search's)
    return forward_index


def continue_command(old: IKTracker | None, new: IKTracker, last_command: dict[str, float],
                     now: float) -> bool:
    """
    Start ``new`` where the published command stream is, so a model change is no jump.

    Same joints as ``old``: from its command, braking on its path to rest if it moves
    (:meth:`IKTracker.take_over`; returns True then), with its feedback. Joints commanded
    under an earlier model (say A -> B -> A): from what was last published for them, not from
    a lagging arm reading.
    """
    if old is not None and old.names == new.names and old.command is not None:
        return new.take_over(old, now)
    if all(name in last_command for name in new.names):
        last = np.array([last_command[name] for name in new.names])
        if not new.outside_limits(last):
            new.start_at(last, now)
    return False


def start_without_feedback(tracker: IKTracker, values: dict[str, Any], now: float
                           ) -> np.ndarray | None:
    """Assume the arm at initial_positions (or mid-range) when feedback is not required."""
    if tracker.ready or values['require_joint_states']:
        return None
    initial = values['initial_positions']
    q = np.array(initial, dtype=float) if initial else tracker.chain.mid.copy()
    tracker.start_at(q, now)
    return tracker.chain.clip(q)
