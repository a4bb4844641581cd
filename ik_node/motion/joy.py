# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Joystick teleop: a ``sensor_msgs/Joy``-like (axes, buttons) pair becomes a tool twist.

The mapping is a YAML file (``config/joy_xbox.yaml``, ``config/joy_spacemouse.yaml``)::

    joy_teleop:
      deadzone: 0.1          # |stick| below this is 0; above, rescaled so the output is
                             # continuous: sign(a) (|a| - deadzone) / (1 - deadzone)
      frame: base            # the frame a twist starts in: base or tool
      twist:                 # each component: a list of terms, summed
        linear_x: [{axis: 1, scale: 0.1}]                # [m/s] at full stick
        linear_z: [{axis: 5, scale: 0.1, trigger: true},  # a trigger: 0 released, 1 pressed
                   {axis: 2, scale: -0.1, trigger: true}]
        angular_z: [{button: 4, scale: 0.5}]             # [rad/s] while the button is held
      buttons:
        toggle_frame: 6      # base <-> tool, on the press
        stop: 1              # no twist while held; the caller brakes (Jogger.stop)

Components: linear_x/y/z [m/s], angular_x/y/z [rad/s]; a component not given is 0. A trigger
axis reads 1 released and -1 pressed (joy_linux); it is mapped to (1 - a) / 2, and an exact 0
(what joy_linux reports for a trigger not touched since it started) counts as released.
Nothing here imports rclpy.
"""

from dataclasses import dataclass
import math
import os
from typing import Any, Mapping, NamedTuple, Sequence

from ik_node.errors import IKInputError
import numpy as np
import yaml

__all__ = ['COMPONENTS', 'FRAME_BASE', 'FRAME_TOOL', 'JoyTerm', 'JoyMapping', 'JoyCommand',
           'JoyTeleop']

COMPONENTS = ('linear_x', 'linear_y', 'linear_z', 'angular_x', 'angular_y', 'angular_z')
FRAME_BASE = 'base'
FRAME_TOOL = 'tool'
_TERM_KEYS = {'axis', 'button', 'scale', 'trigger'}


class JoyTerm(NamedTuple):
    """One input of a twist component: ``scale`` times an axis (deadzoned) or a button."""

    source: int         # the axis or button index
    scale: float
    button: bool = False
    trigger: bool = False


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise IKInputError(f'{where} must be a finite number, got {value!r}')
    return float(value)


def _index(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise IKInputError(f'{where} must be an index >= 0, got {value!r}')
    return value


def _term(raw: Any, where: str) -> JoyTerm:
    if not isinstance(raw, Mapping):
        raise IKInputError(f'{where} must be a mapping like {{axis: 0, scale: 0.1}}, got {raw!r}')
    unknown = set(raw) - _TERM_KEYS
    if unknown:
        raise IKInputError(f'{where} has unknown keys {sorted(unknown)}: use {sorted(_TERM_KEYS)}')
    if ('axis' in raw) == ('button' in raw):
        raise IKInputError(f'{where} needs exactly one of axis or button')
    button = 'button' in raw
    index = _index(raw['button' if button else 'axis'], f'{where} index')
    trigger = raw.get('trigger', False)
    if not isinstance(trigger, bool) or (trigger and button):
        raise IKInputError(f'{where} trigger must be true or false, and only for an axis')
    return JoyTerm(index, _number(raw.get('scale', 1.0), f'{where} scale'), button, trigger)


@dataclass(frozen=True)
class JoyMapping:
    """
    A joystick layout: the terms (6 tuples, :data:`COMPONENTS` order), deadzone and buttons.

    toggle_frame, stop: button indices, or None when the layout has none.
    """

    terms: tuple[tuple[JoyTerm, ...], ...]
    deadzone: float = 0.1
    frame: str = FRAME_BASE
    toggle_frame: int | None = None
    stop: int | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = 'joy_teleop') -> 'JoyMapping':
        """Return the mapping of the ``joy_teleop`` dict ``data``; IKInputError names a bad key."""
        if not isinstance(data, Mapping):
            raise IKInputError(f'{where} must be a mapping')
        unknown = set(data) - {'deadzone', 'frame', 'twist', 'buttons'}
        if unknown:
            raise IKInputError(f'{where} has unknown keys {sorted(unknown)}')
        deadzone = _number(data.get('deadzone', 0.1), f'{where}.deadzone')
        if not 0.0 <= deadzone < 1.0:
            raise IKInputError(f'{where}.deadzone must be in [0, 1), got {deadzone}')
        frame = data.get('frame', FRAME_BASE)
        if frame not in (FRAME_BASE, FRAME_TOOL):
            raise IKInputError(f'{where}.frame must be {FRAME_BASE} or {FRAME_TOOL}, got '
                               f'{frame!r}')
        twist = data.get('twist', {}) or {}
        if not isinstance(twist, Mapping) or set(twist) - set(COMPONENTS):
            raise IKInputError(f'{where}.twist keys must be among {list(COMPONENTS)}')
        terms = []
        for name in COMPONENTS:
            raw = twist.get(name, []) or []
            if isinstance(raw, Mapping):
                raw = [raw]
            terms.append(tuple(_term(t, f'{where}.twist.{name}[{k}]') for k, t in enumerate(raw)))
        buttons = data.get('buttons', {}) or {}
        if not isinstance(buttons, Mapping) or set(buttons) - {'toggle_frame', 'stop'}:
            raise IKInputError(f'{where}.buttons keys must be among toggle_frame, stop')
        picked = {key: None if buttons.get(key) is None
                  else _index(buttons[key], f'{where}.buttons.{key}')
                  for key in ('toggle_frame', 'stop')}
        return cls(tuple(terms), deadzone, frame, picked['toggle_frame'], picked['stop'])

    @classmethod
    def from_yaml(cls, path: str | os.PathLike) -> 'JoyMapping':
        """Return the mapping of a YAML file with a top-level ``joy_teleop`` key."""
        with open(path, encoding='utf-8') as f:
            data = yaml.safe_load(f)
        if not isinstance(data, Mapping) or 'joy_teleop' not in data:
            raise IKInputError(f'{os.fspath(path)}: no joy_teleop key at the top level')
        return cls.from_dict(data['joy_teleop'], f'{os.fspath(path)}: joy_teleop')

    def twist(self, axes: Sequence[float], buttons: Sequence[int]) -> np.ndarray:
        """
        Return the (6,) twist [m/s, rad/s] of one Joy message's ``axes`` and ``buttons``.

        IKInputError when a term names an axis or button the message does not have, or an
        axis it uses is NaN/Inf (no motion should come of a broken message).
        """
        out = np.zeros(6)
        for c, terms in enumerate(self.terms):
            for term in terms:
                if term.button:
                    if term.source >= len(buttons):
                        raise IKInputError(f'{COMPONENTS[c]} uses button {term.source}; the '
                                           f'message has {len(buttons)}')
                    out[c] += term.scale * (1.0 if buttons[term.source] else 0.0)
                    continue
                if term.source >= len(axes):
                    raise IKInputError(f'{COMPONENTS[c]} uses axis {term.source}; the message '
                                       f'has {len(axes)}')
                a = float(axes[term.source])
                if not math.isfinite(a):
                    raise IKInputError(f'axis {term.source} is {a}')
                if term.trigger:
                    a = 0.0 if a == 0.0 else 0.5 * (1.0 - a)
                out[c] += term.scale * self._deadzoned(a)
        return out

    def _deadzoned(self, a: float) -> float:
        a = min(max(a, -1.0), 1.0)
        if abs(a) <= self.deadzone:
            return 0.0
        return math.copysign((abs(a) - self.deadzone) / (1.0 - self.deadzone), a)


class JoyCommand(NamedTuple):
    """What one Joy message asks: the twist (6,), the frame it is in, and whether to stop."""

    twist: np.ndarray
    frame: str
    stop: bool


class JoyTeleop:
    """A :class:`JoyMapping` with the state a stream of messages needs: the frame toggle."""

    def __init__(self, mapping: JoyMapping):
        self.mapping = mapping
        self.frame = mapping.frame
        self._toggle_held = False

    def update(self, axes: Sequence[float], buttons: Sequence[int]) -> JoyCommand:
        """Return the command of one message (the frame toggles on the button's press)."""
        m = self.mapping
        twist = m.twist(axes, buttons)
        if m.toggle_frame is not None:
            held = m.toggle_frame < len(buttons) and bool(buttons[m.toggle_frame])
            if held and not self._toggle_held:
                self.frame = FRAME_TOOL if self.frame == FRAME_BASE else FRAME_BASE
            self._toggle_held = held
        stop = m.stop is not None and m.stop < len(buttons) and bool(buttons[m.stop])
        if stop:
            twist = np.zeros(6)
        return JoyCommand(twist, self.frame, stop)
