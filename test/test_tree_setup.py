# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The node's tree setup (tip_links): the tracker it builds and what it refuses."""

from pathlib import Path

from conftest import URDF_DIR
from ik_node.errors import URDFError
from ik_node.motion.tree_arm import TreeArm
from ik_node.ros.parameter_table import check_values, defaults, IK_NODE_PARAMETERS
from ik_node.ros.robot_setup import build_tracker
from ik_node.ros.tree_setup import tip_topics
import pytest

URDF = (URDF_DIR / 'torso_two_arms.urdf').read_text()
CONFIG = Path(__file__).resolve().parents[1] / 'config'


def values(**changes):
    v = defaults(IK_NODE_PARAMETERS)
    v.update(tip_links=['left_hand', 'right_hand'], avoid_collisions=False)
    v.update(changes)
    return v


def test_tip_links_build_one_tracker_for_the_whole_tree():
    _, tracker = build_tracker(URDF, values(), [])
    assert isinstance(tracker.chain, TreeArm)
    assert tracker.names[:2] == ('torso_lift', 'torso_yaw') and len(tracker.names) == 10
    assert 'head_pan' not in tracker.names
    assert set(tracker.options) == {'position_tolerance', 'orientation_tolerance',
                                    'max_iterations', 'max_attempts', 'timeout'}


def test_tip_topics_default_to_the_tip_names_or_follow_the_parameter():
    assert tip_topics(values()) == ['left_hand/target_pose', 'right_hand/target_pose']
    assert tip_topics(values(tip_target_topics=['l', 'r'])) == ['l', 'r']


def test_avoid_collisions_gives_the_tracker_the_trees_collision_model():
    _, tracker = build_tracker(URDF, values(avoid_collisions=True), [])
    arm = tracker.chain
    q = arm.mid.copy()
    q[[arm.joint_names.index('l_shoulder_yaw'), arm.joint_names.index('r_shoulder_yaw')]] = [
        -0.75, 0.75]
    # The arms crossed in front of the torso: a contact across the branches.
    assert ('l_upper_arm', 'r_upper_arm') in arm.collisions(q)
    assert arm.collisions(arm.mid) == [] and arm.min_distance(q).distance < 0.0
    assert arm.path_collides(arm.mid, q)


@pytest.mark.parametrize('changes, words', [
    ({'position_only': True}, 'position_only is not available'),
    ({'solver': 'ccd'}, "solver 'ccd' does not solve trees"),
])
def test_what_a_tree_cannot_take_is_refused_with_the_reason(changes, words):
    with pytest.raises(ValueError, match=words):
        build_tracker(URDF, values(**changes), [])


def test_an_unknown_or_repeated_tip_is_refused_naming_it():
    with pytest.raises(URDFError, match="'nowhere' is not a link"):
        build_tracker(URDF, values(tip_links=['left_hand', 'nowhere']), [])
    with pytest.raises(URDFError, match='repeats'):
        build_tracker(URDF, values(tip_links=['left_hand', 'left_hand']), [])


def test_parameter_combinations_of_a_tree_are_checked():
    assert 'one topic per tip' in check_values(IK_NODE_PARAMETERS,
                                               values(tip_target_topics=['a']))
    assert 'not both' in check_values(IK_NODE_PARAMETERS, values(tip_link='left_hand'))
    assert check_values(IK_NODE_PARAMETERS, values()) is None


def test_the_talos_config_holds_valid_tree_values():
    yaml = pytest.importorskip('yaml')
    data = yaml.safe_load((CONFIG / 'talos_upper_body.yaml').read_text())
    params = data['/**']['ros__parameters']
    v = defaults(IK_NODE_PARAMETERS)
    assert set(params) <= set(v)
    v.update(params)
    assert check_values(IK_NODE_PARAMETERS, v) is None
    assert len(v['tip_links']) == 2 and not v['avoid_collisions']
