# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The ROS-mode page of a tree in a real browser: a gizmo per tip driving real ik_node, sim_arm.

ik_node runs with ``tip_links`` (both hands of test/urdf/torso_two_arms.urdf, a target topic
each); the page, in headless chromium, sets each hand's target through its own xyz inputs, and
both hands of the simulated arm get there; each tip's state (reached, refused) is shown on the
page from the node's per-tip status. Needs the system ``chromium`` (skipped without it, as the
other browser tests).
"""

import os
import time

import numpy as np
import pytest
from web_helpers import CHROMIUM, launch_chromium, open_page, wait_until

rclpy = pytest.importorskip('rclpy')

from web_ros_helpers import (ros_tree_world, ros_view, TIP_TOPICS, TIPS, TREE_Q0,  # noqa: E402
                             TREE_URDF)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get('IK_NODE_REQUIRE_BROWSER'),
    reason='needs the system chromium browser (apt-get install chromium)')

# Shoulder and elbow pitch turn about parallel axes: opposite changes move a hand and keep its
# orientation, so a target typed as xyz (the gizmo's orientation kept) is reachable.
DQ = {0: np.array([0.0, 0.0, 0.0, 0.3, -0.3, 0.0, 0.0, 0.0, 0.0, 0.0]),
      1: np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.25, 0.25, 0.0])}
# [m] A typed target is a rounded position and the gizmo's float32 orientation: the node is
# given tolerances a hand can meet with it.
TOLERANCE = 2e-3


def type_xyz(page, tip: str, xyz) -> None:
    """Type a target position into the page's target input of ``tip``, then Enter."""
    field = page.locator(f'xpath=//label[normalize-space()="{tip} target xyz [m]"]'
                         '/ancestor::div[.//input][1]//input')
    assert field.count() == 1
    field.fill(', '.join(f'{v:.4f}' for v in xyz))
    field.press('Enter')


def at_rest(view, hold: float = 0.5, still: float = 1e-5, timeout: float = 20.0) -> bool:
    """Wait until the measured joints stay within ``still`` [rad] for ``hold`` s of readings."""
    since = [view.q.copy(), time.monotonic(), view.arm_updates]

    def resting() -> bool:
        q = view.q.copy()
        if np.max(np.abs(q - since[0])) > still:
            since[:] = [q, time.monotonic(), view.arm_updates]
            return False
        # (held for ``hold`` s while readings kept coming, not a silent stream)
        return time.monotonic() - since[1] >= hold and view.arm_updates > since[2] + 5
    return wait_until(resting, timeout)


def page_says(page, text: str) -> None:
    page.wait_for_function('t => document.body.innerText.includes(t)', arg=text,
                           timeout=60000)


def test_the_ros_page_of_a_tree_drives_each_hand_through_its_topic(tmp_path):
    from ik_node.motion.tree_arm import TreeArm
    from ik_node.tree import TreeChain
    from playwright.sync_api import sync_playwright
    arm = TreeArm(TreeChain.from_urdf(TREE_URDF, 'base_link', TIPS))
    q0 = np.array(TREE_Q0)
    goal_q = q0 + DQ[0] + DQ[1]
    goal = arm.fk(goal_q)
    params = (f'position_tolerance:={TOLERANCE / 2}', 'orientation_tolerance:=0.005')
    with ros_tree_world(tmp_path, *params) as (domain, procs), \
            ros_view(domain) as (view, _, topics):
        assert view.is_tree and view.tips == tuple(TIPS) and view.jog_buttons is None
        assert topics['tip_target_topics'] == TIP_TOPICS
        assert [p.topic_name for p in view.pubs] == ['/' + t for t in TIP_TOPICS]
        # the arm is drawn from joint_states; the gizmos start at the measured hands
        assert wait_until(lambda: view.arm_updates > 0 and np.allclose(view.q, q0, atol=1e-6),
                          60.0), procs.logs()
        np.testing.assert_allclose(view.gizmos.pose(1), arm.fk(q0)[1], atol=1e-4)

        def hand_error(tip: int) -> float:
            return float(np.linalg.norm(arm.fk(view.q)[tip][:3, 3] - goal[tip][:3, 3]))

        with sync_playwright() as p:
            browser = launch_chromium(p)
            try:
                page = open_page(browser, height=900)
                page.goto(f'http://127.0.0.1:{view.server.get_port()}')
                page_says(page, 'left_hand: holding')
                for tip in (0, 1):
                    # (typed again until served: the node may still be preparing its solver)
                    for _ in range(6):
                        type_xyz(page, TIPS[tip], goal[tip][:3, 3])
                        if wait_until(lambda: hand_error(tip) < TOLERANCE, 20.0):
                            break
                    assert hand_error(tip) < TOLERANCE, (view.tip_states.text(),
                                                         procs.logs()[-3000:])
                    page_says(page, f'{TIPS[tip]}: REACHED')
                # Both hands are where they were sent, the first one held while the second moved.
                assert hand_error(0) < TOLERANCE and hand_error(1) < TOLERANCE
                for tip in (0, 1):
                    assert view.tip_states.states[TIPS[tip]].state == 'reached'
                # A hand sent out of reach: refused per tip, on the page, and nothing moves.
                # Read once the arm is at rest: REACHED is within the tolerance, and the arm
                # may still be closing the last fraction of it (by up to 2e-3 rad at load 5-8).
                assert at_rest(view), view.q
                q_before = view.q.copy()
                type_xyz(page, 'right_hand', [2.5, -2.0, 1.0])
                page_says(page, 'right_hand: REFUSED')
                assert view.tip_states.states['left_hand'].state == 'reached'
                assert np.max(np.abs(view.q - q_before)) < 1e-3
                # Not a position (a NaN, two numbers): refused on the page, nothing is sent.
                n = len(view.tip_states._sent)
                for bad in ('nan, 0, 1', '0.1 0.2'):
                    field = page.locator('xpath=//label[normalize-space()="left_hand target '
                                         'xyz [m]"]/ancestor::div[.//input][1]//input')
                    field.fill(bad)
                    field.press('Enter')
                    page_says(page, f"Refused: left_hand target xyz '{bad}'")
                assert len(view.tip_states._sent) == n
                page.screenshot(path=str(tmp_path / 'ros_tree_page.png'))
            finally:
                browser.close()
