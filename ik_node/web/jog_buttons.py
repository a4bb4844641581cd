# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Jog buttons in the browser view: the tool moves along one axis while a button is held.

A held button acts as a held key of :mod:`ik_node.motion.keyboard` (the same layout and
speeds): the page repeats it :data:`HOLD_RATE` times a second while the pointer holds it
down, and each repetition holds the twist for :data:`HOLD_REPEATS` repetitions; on release
the repetitions stop, the twist ends that much later and the arm brakes to rest within its
limits (a click is a short nudge). **stop** ends it at once, **frame** switches between the
base and the tool frame, **faster** and **slower** scale the speeds. A thread calls ``send(twist,
frame, now)`` every period while a twist holds, and ``send(None, frame, now)`` every period
after it until the receiver says it rests: the standalone view steps its own
:class:`ik_node.motion.jog.Jogger` (:class:`StandaloneJog`), the ROS view publishes a
TwistStamped on the IK node's jog topic. No rclpy here.
"""

import threading
import time
from typing import Any, Callable, Optional

from ik_node.motion.jog import Jogger
from ik_node.motion.keyboard import KeyboardTeleop
from ik_node.motion.limits import joint_limits
from ik_node.motion.trajectory import KinematicLimits
import numpy as np

__all__ = ['JogButtons', 'StandaloneJog', 'BUTTONS', 'HOLD_RATE', 'HOLD_REPEATS']

# (label, key of ik_node.motion.keyboard.KEYS or a command key)
BUTTONS = (('+x', 'w'), ('-x', 's'), ('+y', 'a'), ('-y', 'd'), ('+z', 'r'), ('-z', 'f'),
           ('+rx', 'u'), ('-rx', 'o'), ('+ry', 'i'), ('-ry', 'k'), ('+rz', 'j'), ('-rz', 'l'))
HOLD_RATE = 20.0        # [Hz] a held button repeats this often (viser's on_hold)
HOLD_REPEATS = 4        # a repetition holds the twist this many repetitions (jitter room)
# send(twist (6,) or None, frame, now [s]) -> True while the arm still moves.
Send = Callable[[Optional[np.ndarray], str, float], bool]


class JogButtons:
    """The jog folder of a viser page and the thread that streams its twist (module doc)."""

    def __init__(self, gui: Any, frames: tuple[str, str], send: Send, rate: float = 50.0):
        self.teleop = KeyboardTeleop(frames=frames)
        self._send, self._period = send, 1.0 / rate
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        with gui.add_folder('Jog'):
            self.info = gui.add_markdown(self._text())
            for label, key in BUTTONS:
                button = gui.add_button(label)
                button.on_hold(lambda _, key=key: self.hold(key), callback_hz=HOLD_RATE)
            commands = gui.add_button_group('jog', ('stop', 'frame', 'faster', 'slower'))
            keys = {'stop': ' ', 'frame': 't', 'faster': '+', 'slower': '-'}
            commands.on_click(lambda event: self.press(keys[event.target.value]))
        self._thread = threading.Thread(target=self._run, name='ik-web-jog', daemon=True)
        self._thread.start()

    def _text(self) -> str:
        t = self.teleop
        return (f'jog in the **{t.frame}** frame · {t.linear_speed * 1e3:.0f} mm/s · '
                f'{t.angular_speed:.2f} rad/s while a button is held')

    def hold(self, key: str) -> None:
        """Act as motion key ``key`` held down (what a held button repeats)."""
        self.press(key, HOLD_REPEATS / HOLD_RATE)

    def press(self, key: str, hold: float | None = None) -> None:
        """Act as key ``key`` of the layout, a motion key's twist holding ``hold`` [s]."""
        with self._lock:
            answer = self.teleop.press(key, time.monotonic(), hold)
        if answer.action in ('frame', 'speed'):
            self.info.content = self._text()
        self._wake.set()

    def close(self) -> None:
        """Stop the thread."""
        self._closed = True
        self._wake.set()
        self._thread.join(timeout=5.0)

    def _run(self) -> None:
        moving = False
        while not self._closed:
            if not moving:
                self._wake.wait()
                self._wake.clear()
                if self._closed:
                    return
            now = time.monotonic()
            with self._lock:
                twist, frame = self.teleop.twist_at(now), self.teleop.frame
            try:
                moving = self._send(twist, frame, now) or twist is not None
            except Exception:  # noqa: B902  (a bad jog must not end the page's jog thread)
                moving = False
            time.sleep(self._period)


class StandaloneJog:
    """
    Jog the standalone view's arm: a Jogger within the URDF's velocity limits.

    get_q() gives the arm's joints (n,), set_q(q) draws them. The tool frame is the chain's
    tip_link; the base frame its base_link.
    """

    def __init__(self, chain: Any, get_q: Callable[[], np.ndarray],
                 set_q: Callable[[np.ndarray], None]):
        limits = joint_limits(chain)
        self.jogger = Jogger(chain, KinematicLimits.of(limits.velocity, limits.acceleration,
                                                       limits.jerk))
        self._get_q, self._set_q = get_q, set_q

    def send(self, twist: Optional[np.ndarray], frame: str, now: float) -> bool:
        """Step the jogger to ``now`` [s] toward ``twist`` (None: brake); True while moving."""
        jogger = self.jogger
        if not jogger.active:
            jogger.reset(self._get_q(), now)
        if twist is not None:
            jogger.twist(twist, now, frame)
        else:
            jogger.stop(now)
        step = jogger.step(now)
        self._set_q(np.array(step.sample.q))
        return jogger.active
