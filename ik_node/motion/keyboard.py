# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Keyboard teleop: key presses become a tool twist that holds while a key repeats.

The layout (:data:`KEYS`), in the spirit of teleop_twist_keyboard but in six axes::

    move   w/s  +x/-x     a/d  +y/-y     r/f  +z/-z          [linear_speed m/s]
    turn   u/o  +rx/-rx   i/k  +ry/-ry   j/l  +rz/-rz        [angular_speed rad/s]
    t      toggle the frame: base <-> tool
    space  stop (no twist until the next motion key)
    + / -  all speeds x1.25 / /1.25

A terminal repeats a held key after a delay (typically 250-600 ms), then some 30 times a
second: a motion key's twist holds for ``hold`` seconds after its last press (longer than
that delay), so a held key moves the tool steadily and a released one stops it ``hold``
later. The publisher (a console script of the ROS layer, which reads the keys in cbreak
mode and stamps the TwistStamped with its clock and :attr:`KeyboardTeleop.frame`) sends
:meth:`KeyboardTeleop.twist_at` every period, and nothing once it is None (the jog's own
command timeout then brakes the arm). Nothing here imports rclpy.
"""

from typing import NamedTuple

import numpy as np

__all__ = ['KEYS', 'KeyboardTeleop', 'KeyAnswer', 'HELP']

# key -> (twist component 0..5, sign).
KEYS = {
    'w': (0, 1.0), 's': (0, -1.0), 'a': (1, 1.0), 'd': (1, -1.0), 'r': (2, 1.0),
    'f': (2, -1.0), 'u': (3, 1.0), 'o': (3, -1.0), 'i': (4, 1.0), 'k': (4, -1.0),
    'j': (5, 1.0), 'l': (5, -1.0),
}
_SPEED_STEP = 1.25

HELP = __doc__.split('::', 1)[1].split('\n\n')[1] if '::' in (__doc__ or '') else ''


class KeyAnswer(NamedTuple):
    """What a key did: 'move', 'stop', 'frame', 'speed' or '' (not a key of the layout)."""

    action: str
    frame: str
    linear_speed: float
    angular_speed: float


class KeyboardTeleop:
    """
    The twist the keys ask for (see the module docstring).

    linear_speed [m/s], angular_speed [rad/s]: the speed of one key; hold [s]: how long a
    twist holds after its key's last press; frames: the (base, tool) frame names sent.
    """

    def __init__(self, linear_speed: float = 0.05, angular_speed: float = 0.3,
                 hold: float = 0.6, frames: tuple[str, str] = ('base_link', 'tool0')):
        for name, value in (('linear_speed', linear_speed), ('angular_speed', angular_speed),
                            ('hold', hold)):
            if not value > 0.0:
                raise ValueError(f'{name} must be > 0, got {value}')
        self.linear_speed = float(linear_speed)
        self.angular_speed = float(angular_speed)
        self.hold = float(hold)
        self.frames = tuple(frames)
        self.frame = self.frames[0]
        self._twist = np.zeros(6)
        self._until = -np.inf

    def press(self, key: str, now: float, hold: float | None = None) -> KeyAnswer:
        """Take one key pressed at ``now`` [s]; a motion key's twist holds ``hold`` [s]."""
        action = ''
        if key in KEYS:
            component, sign = KEYS[key]
            twist = np.zeros(6)
            twist[component] = sign * (self.linear_speed if component < 3
                                       else self.angular_speed)
            until = float(now) + (self.hold if hold is None else float(hold))
            self._twist, self._until, action = twist, until, 'move'
        elif key == ' ':
            self._twist, self._until, action = np.zeros(6), -np.inf, 'stop'
        elif key == 't':
            self.frame = self.frames[1] if self.frame == self.frames[0] else self.frames[0]
            action = 'frame'
        elif key in ('+', '-'):
            f = _SPEED_STEP if key == '+' else 1.0 / _SPEED_STEP
            self.linear_speed *= f
            self.angular_speed *= f
            self._twist = self._twist * f
            action = 'speed'
        return KeyAnswer(action, self.frame, self.linear_speed, self.angular_speed)

    def twist_at(self, now: float) -> np.ndarray | None:
        """Return the (6,) twist to send at ``now`` [s], or None (send nothing)."""
        if now > self._until:
            return None
        return self._twist.copy()
