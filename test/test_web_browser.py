# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The web view in a real browser: Debian's chromium, headless, driven by playwright.

The page's own inputs are used (typed target, method list, a tolerance), and the server's
state is checked against them: the arm's FK reaches the typed target, the solver used is the
one picked, a refused value shows the library's reason on the page. Needs the system
``chromium`` (apt-get install chromium); the tests are skipped, saying so, without it.
Set IK_WEB_DOCS_SCREENSHOT=1 to also write docs/web_view.png (the README's picture).
"""

import os
from pathlib import Path

from ik_node import SolveOptions
from ik_node.web.app import start
import numpy as np
import pytest
from web_helpers import CHROMIUM, free_port, launch_chromium, open_page, wait_until

# scripts/test.sh installs chromium and sets IK_NODE_REQUIRE_BROWSER: there, a missing browser
# fails the run instead of skipping the browser tests.
if CHROMIUM is None and os.environ.get('IK_NODE_REQUIRE_BROWSER'):
    raise RuntimeError('chromium not found, but scripts/test.sh should have installed it')
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason='needs the system chromium browser (apt-get install chromium)')
DOCS_PNG = Path(__file__).resolve().parent.parent / 'docs' / 'web_view.png'


@pytest.fixture(scope='module')
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = launch_chromium(p)
        yield b
        b.close()


def field(page, label: str):
    """Return the input(s) of the row labelled ``label`` (viser's text inputs lack for=id)."""
    return page.locator(f'xpath=//label[normalize-space()="{label}"]'
                        '/ancestor::div[.//input][1]//input')


def pick(page, label: str, option: str, exact: bool = False) -> None:
    """Choose ``option`` in the select labelled ``label``, once the panel has laid it out."""
    from playwright.sync_api import expect
    select = page.get_by_label(label, exact=exact)
    # The panel may still be expanding: a click then lands outside the viewport.
    select.scroll_into_view_if_needed()
    expect(select).to_be_in_viewport(timeout=10000)
    select.click(force=True)
    page.get_by_role('option', name=option, exact=True).click(force=True)


def type_into(input_locator, text: str) -> None:
    input_locator.fill(text)
    input_locator.press('Enter')


def test_arm_page_follows_typed_target_switches_solver_and_shows_refusals(browser, tmp_path):
    app = start(port=free_port())
    page = open_page(browser)
    try:
        view = app.view
        page.goto(app.url)
        page.get_by_text('REACHED', exact=True).wait_for(timeout=20000)

        # Move the target through the page's target inputs.
        xyz = field(page, 'target xyz [m]')
        assert xyz.count() == 3
        goal = np.array([-0.45, 0.25, 0.35])
        seen = view.last.seq
        for i, v in enumerate(goal):
            type_into(xyz.nth(i), f'{v:.3f}')
        assert wait_until(lambda: view.last.seq > seen and np.allclose(
            view.last.target[:3, 3], goal, atol=1e-9))
        assert view.last.result.success
        np.testing.assert_allclose(view.chain.fk(view.q)[:3, 3], goal, atol=1e-3)
        page.get_by_text('REACHED', exact=True).wait_for()

        # Pick another method in the page's list: the next solve uses it.
        pick(page, 'method', 'ccd')
        assert wait_until(lambda: view.last.result.method == 'ccd')
        page.get_by_text('method ccd').wait_for()
        assert view.controls.settings.method == 'ccd'

        # A refused value: the library's reason on the page, the old settings kept.
        type_into(field(page, 'pos. tolerance [mm]'), '0')
        page.get_by_text('Refused: option position_tolerance', exact=False).wait_for()
        assert view.controls.settings.options['position_tolerance'] == pytest.approx(
            SolveOptions().position_tolerance)      # the previous value stays
        type_into(field(page, 'pos. tolerance [mm]'), '1')
        assert wait_until(lambda: not view.controls.error.visible)
        pick(page, 'method', 'dls')
        assert wait_until(lambda: view.controls.settings.method == 'dls')

        # The collision panel through the page: an obstacle added by its button and put on
        # the tip (what a drag of its gizmo sends) is shown in contact; with 'avoid
        # collisions' ticked the solver gets it and the arm is held, blocked.
        page.get_by_role('button', name='add obstacle').click(force=True)
        assert wait_until(lambda: len(view.collision._spheres) == 1)
        seen = view.last.seq
        view.collision.move(0, view.chain.fk(view.q)[:3, 3])
        assert wait_until(lambda: view.last.seq > seen and view.last.contacts)
        page.get_by_text('obstacle 1', exact=False).first.wait_for()
        page.get_by_label('avoid collisions').check(force=True)
        assert wait_until(lambda: view.controls.settings.options.get('avoid_collisions'))
        assert wait_until(lambda: view.last.held)
        assert view.last.result.status == 'blocked'
        page.get_by_text('BLOCKED', exact=False).first.wait_for()
        page.get_by_role('button', name='remove obstacles').click(force=True)
        page.get_by_label('avoid collisions').uncheck(force=True)
        assert wait_until(lambda: not view.collision._spheres
                          and 'obstacles' not in view.controls.settings.options)

        # Server-side gizmo move (what a drag sends ends in the same request): the page
        # readout follows it.
        T = view.chain.fk(view.q)
        T[:3, 3] = [-0.55, -0.2, 0.3]
        drawn = view.wait_for(view.set_target(T))
        assert drawn.result.success
        page.wait_for_function('v => document.querySelector("input[value=\\"" + v + "\\"]")',
                               arg='-0.55')
        page.wait_for_timeout(3000)   # the 3D canvas fades in with software WebGL
        page.screenshot(path=str(tmp_path / 'web_view.png'))
        if os.environ.get('IK_WEB_DOCS_SCREENSHOT'):
            # the browser's own 'software WebGL' notice is not part of the picture
            page.locator('.mantine-Notification-closeButton').first.click(force=True)
            page.set_viewport_size({'width': 1200, 'height': 720})
            page.wait_for_timeout(1500)
            DOCS_PNG.parent.mkdir(exist_ok=True)
            page.screenshot(path=str(DOCS_PNG))
            from PIL import Image     # a palette PNG is a third of the size
            Image.open(DOCS_PNG).convert('RGB').quantize(colors=128).save(DOCS_PNG,
                                                                          optimize=True)
    finally:
        page.close()
        app.close()


def test_error_page_names_the_problem(browser, tmp_path):
    bad = tmp_path / 'broken.urdf'
    bad.write_text('<robot name="x"><link name="a"/><joint name="j" type="revolute">'
                   '<parent link="a"/><child link="missing"/></joint></robot>')
    app = start(urdf=str(bad), port=free_port())
    page = open_page(browser)
    try:
        page.goto(app.url)
        page.get_by_text('Could not load the robot').first.wait_for(timeout=20000)
        page.get_by_text('broken.urdf').first.wait_for()
    finally:
        page.close()
        app.close()


def test_fabrik_playground_steps_and_refuses(browser, tmp_path):
    from playwright.sync_api import expect
    app = start(fabrik=True, port=free_port())
    page = open_page(browser)
    try:
        pg = app.view
        page.goto(app.url)
        page.get_by_text('FABRIK playground').first.wait_for(timeout=20000)
        pick(page, 'mode', 'step', exact=True)
        assert wait_until(lambda: not pg.forward_button.disabled)
        pg.move_target(0, [0.3, -0.2, 0.5])
        forward = page.get_by_role('button', name='forward pass')
        expect(forward).to_be_enabled(timeout=10000)
        forward.click()
        assert wait_until(lambda: pg.model.wish is not None)
        np.testing.assert_allclose(pg.model.wish.points[-1], [0.3, -0.2, 0.5], atol=1e-9)
        page.get_by_role('button', name='backward pass').click()
        assert wait_until(lambda: pg.model.wish is None and pg.model.passes == 2)
        page.get_by_text('passes stepped 2', exact=False).wait_for()
        type_into(field(page, 'link lengths [m]'), '0.2, -1')
        page.get_by_text('Refused: link lengths', exact=False).wait_for()
        type_into(field(page, 'link lengths [m]'), '0.12')
        assert wait_until(lambda: pg.model.config.lengths == (0.12,))
        page.get_by_role('button', name='solve', exact=True).click()
        assert wait_until(lambda: pg.last.text == 'reached')
        np.testing.assert_allclose(pg.model.points[-1], [0.3, -0.2, 0.5], atol=1e-3)
        page.set_viewport_size({'width': 1200, 'height': 720})   # the chain beside the panel
        page.wait_for_timeout(3000)
        page.screenshot(path=str(tmp_path / 'fabrik_playground.png'))
    finally:
        page.close()
        app.close()
