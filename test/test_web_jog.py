# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The browser view's jog buttons: standalone in headless chromium, and in ROS mode.

Standalone, holding the page's +z button down moves the drawn tool up (the view's own
Jogger) for as long as it is held, and on release the tool comes to rest within a short
braking distance. In ROS mode the same button publishes the IK node's jog twist, and the real
ik_node moves the simulated arm's tool up.
"""

import os

from ik_node.model.chain import Chain
from ik_node.web.app import start
import numpy as np
import pytest
from web_helpers import CHROMIUM, free_port, launch_chromium, open_page, wait_until
from web_ros_helpers import Q0, URDF


@pytest.mark.skipif(CHROMIUM is None and not os.environ.get('IK_NODE_REQUIRE_BROWSER'),
                    reason='needs the system chromium browser (apt-get install chromium)')
def test_a_held_jog_button_moves_the_tool_in_the_browser_until_released():
    from playwright.sync_api import sync_playwright
    app = start(port=free_port())
    view = app.view
    try:
        with sync_playwright() as p:
            browser = launch_chromium(p)
            page = open_page(browser, height=700)
            page.goto(app.url)
            page.get_by_text('REACHED', exact=True).wait_for(timeout=20000)
            button = page.get_by_role('button', name='+z', exact=True)
            button.scroll_into_view_if_needed()
            box = button.bounding_box()
            page.mouse.move(box['x'] + box['width'] / 2, box['y'] + box['height'] / 2)

            def z() -> float:
                return float(view.chain.fk(view.q)[2, 3])

            z0, q0 = z(), view.q.copy()
            page.mouse.down()
            # Held: the tool goes on rising, far beyond what one short press moves it
            # (HOLD_REPEATS / HOLD_RATE = 0.2 s at 50 mm/s: under 1 cm).
            assert wait_until(lambda: z() > z0 + 0.03, 20.0)
            # ... and goes on rising while it is held. (A repetition that comes late from a
            # busy browser, past the hold, lets the jog brake and start again at the next
            # one: the rise may pause, it does not end. Found once in a CI run: the jog was
            # at rest at the instant 3 cm was passed.)
            z_held = z()
            assert wait_until(lambda: z() > z_held + 0.01, 20.0)
            page.mouse.up()
            z_up = z()
            # Released: the twist ends within the hold, the jogger brakes to rest.
            assert wait_until(lambda: not view.jog.jogger.active, 20.0)
            assert z() - z_up < 0.02, (z() - z_up)
            moved = view.chain.fk(view.q)[:3, 3] - view.chain.fk(q0)[:3, 3]
            assert np.linalg.norm(moved[:2]) < 0.2 * moved[2], moved
            # The frame button switches the jog to the tool frame, the page says so.
            page.get_by_role('button', name='frame', exact=True).click()
            assert wait_until(lambda: view.jog_buttons.teleop.frame == 'tool0', 20.0)
            assert 'jog in the **tool0** frame' in view.jog_buttons.info.content
            page.get_by_text('jog in the tool0 frame', exact=False).wait_for(timeout=20000)
            browser.close()
    finally:
        app.close()


def test_the_ros_view_jog_button_moves_the_arm_through_the_node(tmp_path):
    pytest.importorskip('rclpy')
    from web_ros_helpers import ros_view, ros_world
    with ros_world(tmp_path) as (domain, procs), ros_view(domain) as (view, _, topics):
        assert topics['jog_twist_topic'] == 'jog_twist'
        chain = Chain.from_urdf(URDF, 'base_link', 'tool0')
        assert wait_until(lambda: view.arm_updates > 0 and np.allclose(view.q, Q0, atol=1e-6),
                          60.0)
        z0 = chain.fk(view.q)[2, 3]

        def pressed_and_moved() -> bool:
            view.jog_buttons.hold('r')      # what the held +z button repeats
            return chain.fk(view.q)[2, 3] > z0 + 0.01

        # (pressed again while it holds: the node may still be loading its models)
        assert wait_until(pressed_and_moved, 60.0), procs.logs()
        moved = chain.fk(view.q)[:3, 3] - chain.fk(np.array(Q0))[:3, 3]
        assert np.linalg.norm(moved[:2]) < 0.2 * moved[2], moved
