# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Several tips on one URDF tree (``tip_links``), as real processes: ik_node and sim_arm.

The made-up torso with two arms (test/urdf/torso_two_arms.urdf): a goal on one hand's
topic is reached through the jerk-limited command stream while the other hand holds its
pose; an unreachable hand goal is refused before the arm moves, with each tip's errors on
ik_status; a NaN target on a tip topic is refused with a warning and nothing moves; with
avoid_collisions a hand goal into the other hand is refused and the hands stay apart; an
unknown tip stops the node at start with the reason.
"""

from command_judge import judge_commands
from conftest import URDF_DIR
from ik_node.motion.tree_arm import TreeArm
from ik_node.ros.parameter_table import defaults, IK_NODE_PARAMETERS, limits_from_values
from ik_node.spatial.pose import pose_error
from ik_node.tree import TreeChain
import numpy as np
import pytest
from ros_harness import assert_bad_starts_fail, pose_msg, status_values

rclpy = pytest.importorskip('rclpy')

from diagnostic_msgs.msg import DiagnosticStatus  # noqa: E402, I100
from geometry_msgs.msg import PoseStamped  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

URDF = URDF_DIR / 'torso_two_arms.urdf'
TIPS = ['left_hand', 'right_hand']
TOPICS = ['left_target', 'right_target']
# torso lift, yaw; left shoulder yaw, pitch, elbow, wrist; the same on the right.
Q_START = np.array([0.1, 0.0, 0.3, 0.5, -0.8, 0.2, -0.3, 0.5, -0.8, -0.2])
# Goals that move one arm's own joints only: its 4 joints cannot turn the other hand back
# into its pose, so a reachable goal for one hand leaves the torso where it is.
DQ_LEFT = np.array([0.0, 0.0, 0.4, -0.3, 0.5, 0.3, 0.0, 0.0, 0.0, 0.0])
DQ_RIGHT = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.4, 0.3, 0.4, -0.5])
PERIOD = 0.01
TREE_PARAMS = (f'urdf_file:={URDF}', f'tip_links:={TIPS}', 'avoid_collisions:=false',
               'goal_search_timeout:=0.5')


@pytest.fixture(scope='module')
def arm() -> TreeArm:
    return TreeArm(TreeChain.from_urdf(URDF, 'base_link', TIPS))


class TreeProbe:
    """The harness probe with a publisher per tip topic and the arm's readings by name."""

    def __init__(self, probe, arm: TreeArm):
        self.probe, self.arm = probe, arm
        self.tips = [probe.node.create_publisher(PoseStamped, topic, 10) for topic in TOPICS]
        self.readings: list[np.ndarray] = []
        probe.node.create_subscription(JointState, 'joint_states', self._on_arm, 1000)

    def _on_arm(self, msg: JointState) -> None:
        index = {name: i for i, name in enumerate(msg.name)}
        if all(name in index for name in self.arm.joint_names):
            self.readings.append(np.array([msg.position[index[n]]
                                           for n in self.arm.joint_names]))

    def send(self, tip: int, T: np.ndarray) -> PoseStamped:
        msg = pose_msg(T, 'base_link')
        msg.header.stamp = self.probe.node.get_clock().now().to_msg()
        self.tips[tip].publish(msg)
        return msg

    def reached(self, target: np.ndarray, tol: float = 1e-3) -> bool:
        if not self.readings:
            return False
        return max(pe for pe, _ in self.arm.tip_errors(target, self.readings[-1])) < tol


def start(procs, probe, arm, avoid: bool = False) -> TreeProbe:
    procs.start('sim_arm', f'urdf_file:={URDF}', f'initial_joint_names:={list(arm.joint_names)}',
                f'initial_positions:={Q_START.tolist()}')
    params = [p for p in TREE_PARAMS if not (avoid and p.startswith('avoid_collisions'))]
    procs.start('ik_node', *params, f'tip_target_topics:={TOPICS}')
    tree = TreeProbe(probe, arm)
    # The node is up once it answers a target: the left hand where it is.
    status = probe.answer_to(lambda: tree.send(0, arm.fk(Q_START)[0]))
    assert status is not None and status.level == DiagnosticStatus.OK, procs.logs()
    assert probe.spin_until(lambda: tree.reached(arm.fk(Q_START)), 20.0), procs.logs()
    return tree


def assert_smooth(arm, probe, since: int) -> None:
    """Check the commands since index ``since`` against the velocity, acceleration, jerk limits."""
    assert all(list(m.name) == list(arm.joint_names) for _, m in probe.commands[since:])
    judge_commands(arm, probe, since, limits_from_values(arm, defaults(IK_NODE_PARAMETERS)),
                   PERIOD)


@pytest.fixture
def rig_chain():
    """Return None: a plain probe for the rig (conftest.rig); TreeProbe reads the tree."""
    return None


def test_a_goal_for_each_hand_is_reached_smoothly_while_the_other_holds(rig, arm):
    procs, probe = rig
    tree = start(procs, probe, arm)
    q = Q_START
    for tip, dq in ((0, DQ_LEFT), (1, DQ_RIGHT)):
        other = 1 - tip
        held = arm.fk(q)[other]
        goal = arm.fk(q + dq)
        n_cmd, n_arm = len(probe.commands), len(tree.readings)
        # Refusals count: a refused goal fails here with its reason, not after a timeout.
        status = probe.answer_to(lambda: tree.send(tip, goal[tip]), refusal=True)
        assert status is not None and status.level == DiagnosticStatus.OK, (
            status and status.message, procs.logs())
        values = status_values(status)
        assert values['tip'] == TIPS[tip] and values['path'] == 'goal', values
        assert values[f'tip.{TIPS[tip]}.mode'] == 'target'
        assert values[f'tip.{TIPS[other]}.mode'] == 'hold'
        for name in TIPS:
            assert values[f'tip.{name}.success'] == 'True', values
            assert float(values[f'tip.{name}.position_error']) < 1e-4
        assert probe.spin_until(lambda: tree.reached(goal), 30.0), procs.logs()
        moved = max(np.max(np.abs(r - q)) for r in tree.readings[n_arm:])
        assert moved > 0.3      # the arm went there, not only the solver
        # The other hand held its pose at every reading on the way.
        drift = max(pose_error(held, arm.fk(r)[other])[0] for r in tree.readings[n_arm:])
        assert drift < 1e-3, drift
        assert_smooth(arm, probe, n_cmd)
        q = tree.readings[-1]


def test_an_unreachable_hand_goal_is_refused_per_tip_and_nothing_moves(rig, arm):
    procs, probe = rig
    tree = start(procs, probe, arm)
    far = arm.fk(Q_START)[1].copy()
    far[:3, 3] = [2.5, -2.0, 1.0]        # beyond the right arm's reach
    n_arm = len(tree.readings)
    status = probe.answer_to(lambda: tree.send(1, far), refusal=True)
    assert status is not None and status.level == DiagnosticStatus.ERROR, procs.logs()
    values = status_values(status)
    assert 'refused before moving' in status.message and 'right_hand' in status.message
    assert values['motion'] == 'refused' and values['tip'] == 'right_hand', values
    assert values['tip.right_hand.success'] == 'False'
    assert float(values['tip.right_hand.position_error']) > 1.0
    # The left hand kept its pose in the best attempt: it is not dragged off by the right.
    assert values['tip.left_hand.success'] == 'True', values
    probe.spin_for(0.5)
    moved = [np.max(np.abs(r - Q_START)) for r in tree.readings[n_arm:]]
    assert moved and max(moved) < 1e-6


def test_a_nan_tip_target_is_refused_with_a_warning_and_nothing_moves(rig, arm):
    procs, probe = rig
    tree = start(procs, probe, arm)
    n_arm = len(tree.readings)
    bad = arm.fk(Q_START)[0].copy()
    bad[0, 3] = np.nan
    status = probe.answer_to(lambda: tree.send(0, bad), refusal=True)
    assert status is not None and status.level == DiagnosticStatus.ERROR, procs.logs()
    assert 'refused' in status.message, status.message
    probe.spin_for(0.5)
    still = [np.max(np.abs(r - Q_START)) for r in tree.readings[n_arm:]]
    assert still and max(still) < 1e-6
    assert 'target refused' in procs.logs() and 'WARN' in procs.logs()
    # The node goes on: a good goal for the same tip is served after it.
    goal = arm.fk(Q_START + DQ_LEFT)
    status = probe.answer_to(lambda: tree.send(0, goal[0]), refusal=True)
    assert status is not None and status.level == DiagnosticStatus.OK, (
        status and status.message, procs.logs())
    assert probe.spin_until(lambda: tree.reached(goal), 30.0), procs.logs()


def test_with_avoid_collisions_the_hands_are_kept_apart(rig, arm):
    procs, probe = rig
    tree = start(procs, probe, arm, avoid=True)
    # The left hand asked to a pose its arm takes only reaching across into the right arm
    # (with the right hand held, the torso cannot turn: its 4 joints reach 6-D poses only
    # where they are).
    q_into = Q_START.copy()
    q_into[2:6] = [-1.42, -1.06, 1.8, 1.59]
    assert ('left_hand', 'r_upper_arm') in arm.collisions(q_into)
    n_arm = len(tree.readings)
    status = probe.answer_to(lambda: tree.send(0, arm.fk(q_into)[0]), refusal=True)
    assert status is not None and status.level == DiagnosticStatus.ERROR, procs.logs()
    assert 'no collision-free answer' in status.message, status.message
    assert status_values(status)['tip'] == 'left_hand'
    probe.spin_for(0.5)
    moved = [np.max(np.abs(r - Q_START)) for r in tree.readings[n_arm:]]
    assert moved and max(moved) < 1e-6
    # A goal clear of the other hand is reached, and no reading on the way is in contact.
    goal = arm.fk(Q_START + DQ_LEFT)
    status = probe.answer_to(lambda: tree.send(0, goal[0]), refusal=True)
    assert status is not None and status.level == DiagnosticStatus.OK, (
        status and status.message, procs.logs())
    assert probe.spin_until(lambda: tree.reached(goal), 30.0), procs.logs()
    assert all(arm.collisions(r) == [] for r in tree.readings[n_arm:])


INVALID_TREE_START = [
    (['tip_links:=[left_hand, nowhere]', 'avoid_collisions:=false'],
     "tip_links[1] 'nowhere' is not a link"),
    (['tip_links:=[left_hand, right_hand]', 'avoid_collisions:=false', 'solver:=ccd'],
     "solver 'ccd' does not solve trees"),
    (['tip_links:=[left_hand, right_hand]', 'tip_target_topics:=[only_one]'],
     'tip_target_topics must name one topic per tip'),
]


def test_invalid_tree_parameters_stop_the_node_at_start_with_the_reason(tmp_path):
    # All at once (each process only starts and exits): the reasons must not mix.
    assert_bad_starts_fail(tmp_path, URDF, INVALID_TREE_START)
