# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Keyboard teleop: keys to twists that hold while a key repeats, frame toggle, speeds."""

from ik_node.motion.keyboard import HELP, KeyboardTeleop, KEYS
import numpy as np
import pytest


def test_each_motion_key_moves_one_component_and_holds_while_repeated():
    kb = KeyboardTeleop(linear_speed=0.05, angular_speed=0.3, hold=0.6)
    seen = set()
    for key, (component, sign) in KEYS.items():
        kb.press(key, 0.0)
        twist = kb.twist_at(0.3)
        want = np.zeros(6)
        want[component] = sign * (0.05 if component < 3 else 0.3)
        np.testing.assert_array_equal(twist, want)
        seen.add((component, sign))
    assert len(seen) == 12
    kb.press('w', 1.0)
    kb.press('w', 1.5)                  # the terminal's repeat
    assert kb.twist_at(2.0) is not None
    assert kb.twist_at(2.2) is None     # released: nothing after hold
    # A press of its own hold (a held browser button repeats at 20 Hz).
    kb.press('s', 3.0, hold=0.2)
    assert kb.twist_at(3.15)[0] == -0.05 and kb.twist_at(3.25) is None


def test_space_stops_t_toggles_the_frame_and_plus_minus_scale():
    kb = KeyboardTeleop(frames=('base_link', 'tool0'))
    kb.press('w', 0.0)
    assert kb.press(' ', 0.1).action == 'stop' and kb.twist_at(0.1) is None
    assert kb.press('t', 0.2).frame == 'tool0'
    assert kb.press('t', 0.3).frame == 'base_link'
    kb.press('a', 0.4)
    answer = kb.press('+', 0.5)
    assert answer.linear_speed == pytest.approx(0.05 * 1.25)
    assert kb.twist_at(0.5)[1] == pytest.approx(0.05 * 1.25)
    assert kb.press('x', 0.6).action == ''
    assert 'toggle the frame' in HELP


def test_bad_speeds_are_refused():
    with pytest.raises(ValueError, match='hold'):
        KeyboardTeleop(hold=0.0)
