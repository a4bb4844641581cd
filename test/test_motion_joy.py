# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Joy mapping: the shipped gamepad and SpaceMouse layouts, deadzones, buttons, bad input."""

import math
from pathlib import Path

from ik_node.errors import IKInputError
from ik_node.motion.joy import FRAME_BASE, FRAME_TOOL, JoyMapping, JoyTeleop
import numpy as np
import pytest

CONFIG = Path(__file__).resolve().parent.parent / 'config'


@pytest.fixture(scope='module')
def xbox() -> JoyMapping:
    return JoyMapping.from_yaml(CONFIG / 'joy_xbox.yaml')


@pytest.fixture(scope='module')
def spacemouse() -> JoyMapping:
    return JoyMapping.from_yaml(CONFIG / 'joy_spacemouse.yaml')


def pad(**axes) -> list[float]:
    """Return the 8 axes of an Xbox pad at rest (triggers released) with ``axes`` set."""
    a = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    for k, v in axes.items():
        a[int(k[1:])] = v
    return a


@pytest.mark.parametrize('path', sorted(CONFIG.glob('joy_*.yaml')), ids=lambda p: p.stem)
def test_every_shipped_layout_loads_and_is_still_at_rest(path):
    mapping = JoyMapping.from_yaml(path)
    used_axes = [t.source for terms in mapping.terms for t in terms if not t.button]
    used_buttons = [t.source for terms in mapping.terms for t in terms if t.button]
    axes = [0.0] * (max(used_axes) + 1)
    buttons = [0] * (max(used_buttons + [mapping.stop or 0, mapping.toggle_frame or 0]) + 1)
    np.testing.assert_array_equal(mapping.twist(axes, buttons), np.zeros(6))
    assert sum(len(terms) > 0 for terms in mapping.terms) == 6     # every axis of the tool
    assert mapping.stop is not None and mapping.toggle_frame is not None


def test_the_gamepad_at_rest_commands_nothing(xbox):
    np.testing.assert_array_equal(xbox.twist(pad(), [0] * 11), np.zeros(6))
    # joy_linux reports 0 for a trigger never pressed: released, not half pressed.
    np.testing.assert_array_equal(xbox.twist([0.0] * 8, [0] * 11), np.zeros(6))


def test_sticks_triggers_and_bumpers_map_to_their_components(xbox):
    np.testing.assert_allclose(xbox.twist(pad(a1=1.0), [0] * 11), [0.1, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(xbox.twist(pad(a0=-1.0), [0] * 11), [0, -0.1, 0, 0, 0, 0])
    np.testing.assert_allclose(xbox.twist(pad(a5=-1.0), [0] * 11), [0, 0, 0.1, 0, 0, 0])
    np.testing.assert_allclose(xbox.twist(pad(a2=-1.0), [0] * 11), [0, 0, -0.1, 0, 0, 0])
    np.testing.assert_allclose(xbox.twist(pad(), [0, 0, 0, 0, 1] + [0] * 6),
                               [0, 0, 0, 0, 0, 0.4])


def test_the_deadzone_is_continuous(xbox):
    dz = xbox.deadzone
    assert xbox.twist(pad(a1=0.9 * dz), [0] * 11)[0] == 0.0
    just = xbox.twist(pad(a1=dz + 1e-6), [0] * 11)[0]
    assert 0.0 < just < 1e-5
    half = xbox.twist(pad(a1=0.5 + 0.5 * dz), [0] * 11)[0]
    assert half == pytest.approx(0.05)


def test_the_spacemouse_maps_six_axes_and_two_buttons(spacemouse):
    axes = [0.5, -0.5, 1.0, 0.0, 0.0, -1.0]
    got = spacemouse.twist(axes, [0, 0])
    dz = spacemouse.deadzone
    s = (0.5 - dz) / (1 - dz)
    np.testing.assert_allclose(got, [0.1 * s, -0.1 * s, 0.1, 0, 0, -0.5])
    teleop = JoyTeleop(spacemouse)
    assert teleop.update(axes, [0, 0]).frame == FRAME_BASE
    assert teleop.update(axes, [1, 0]).frame == FRAME_TOOL      # on the press
    assert teleop.update(axes, [1, 0]).frame == FRAME_TOOL      # held: no second toggle
    assert teleop.update(axes, [0, 0]).frame == FRAME_TOOL
    assert teleop.update(axes, [1, 0]).frame == FRAME_BASE
    stop = teleop.update(axes, [0, 1])
    assert stop.stop and not np.any(stop.twist)


@pytest.mark.parametrize('data, message', [
    ({'deadzone': 1.5}, 'deadzone'),
    ({'frame': 'world'}, 'frame'),
    ({'twist': {'linear_w': []}}, 'twist keys'),
    ({'twist': {'linear_x': [{'axis': -1}]}}, 'index'),
    ({'twist': {'linear_x': [{'axis': 0, 'button': 1}]}}, 'exactly one'),
    ({'twist': {'linear_x': [{'axis': 0, 'scale': 'fast'}]}}, 'scale'),
    ({'twist': {'linear_x': [{'axis': 0, 'gain': 1}]}}, 'unknown keys'),
    ({'buttons': {'explode': 3}}, 'buttons keys'),
    ({'speed': 1}, 'unknown keys'),
])
def test_a_bad_mapping_is_refused_naming_the_key(data, message):
    with pytest.raises(IKInputError, match=message):
        JoyMapping.from_dict(data)


def test_a_message_too_short_or_broken_is_refused(xbox):
    with pytest.raises(IKInputError, match='axis 5'):
        xbox.twist([0.0] * 4, [0] * 11)
    with pytest.raises(IKInputError, match='button 4'):
        xbox.twist(pad(), [0] * 3)
    with pytest.raises(IKInputError, match='nan'):
        xbox.twist(pad(a1=math.nan), [0] * 11)
