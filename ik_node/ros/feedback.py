# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The arm's joint_states as ik_node reads them, before the tracker judges them.

:class:`JointStatesIntake` says when each reading was taken on the node clock (by its stamp,
one :class:`ik_node.motion.reading_clock.ReadingClock` per publisher), keeps the newest message (a
model installed later starts from it) and the recent positions by stamp (link frames at a
target's stamp, :class:`ik_node.motion.joint_history.JointHistory`).
"""

import math
from typing import Callable

from ik_node.motion.joint_history import JointHistory
from ik_node.motion.reading_clock import ReadingClock
from ik_node.ros.wire import JointStateReading

__all__ = ['JointStatesIntake', 'Reading']

# (joint names, positions, when taken [s, node clock])
Reading = tuple[tuple[str, ...], tuple[float, ...], float]

_MAX_PUBLISHERS = 16      # publishers (joint name sets) remembered; more: forget them all


class JointStatesIntake:
    """Readings of the arm (see the module docstring)."""

    def __init__(self, joint_states_timeout: float, warn: Callable[[str, str], None],
                 say: Callable[[str], object], epoch_ns: int = 0):
        """
        Start with no reading.

        warn(kind, text): a throttled warning; say(text): a one-off log line. epoch_ns: the
        node clock's origin of the times [s] it works in (``now`` and the answers).
        """
        self.epoch_ns = int(epoch_ns)
        self.newest: Reading | None = None
        self.history = JointHistory(window=2.0, slack=joint_states_timeout)
        self.timeout = joint_states_timeout
        self._warn, self._say = warn, say
        self._clocks: dict[tuple[str, ...], ReadingClock] = {}

    def take(self, msg: JointStateReading, now: float) -> float | None:
        """
        Return when ``msg`` was taken [s, node clock], received ``now``; None if not usable.

        Judged by its stamp: one delivered late is old, however recently it came (warned);
        a sender clock steadily off the node's is shifted by its offset (said once). Each
        publisher (told apart by the joints it names) has its own clock. An unstamped
        reading (stamp 0) counts from its arrival. A usable reading becomes :attr:`newest`.
        """
        stamp_ns = msg.stamp_ns
        taken = (self._judge(tuple(msg.name), (stamp_ns - self.epoch_ns) * 1e-9, now)
                 if stamp_ns else now)
        if taken is None:
            return None
        self.newest = (msg.name, tuple(msg.position.tolist()), taken)
        if stamp_ns and len(msg.name) == len(msg.position):
            self.history.add(stamp_ns * 1e-9, {n: v for n, v in
                                               zip(msg.name, msg.position.tolist())
                                               if math.isfinite(v)})
        return taken

    def _judge(self, names: tuple[str, ...], stamp: float, now: float) -> float | None:
        if len(self._clocks) >= _MAX_PUBLISHERS and names not in self._clocks:
            self._clocks.clear()        # names that keep changing: no memory growth
        clock = self._clocks.setdefault(names, ReadingClock())
        taken = clock.judge(stamp, now)
        if clock.offset_changed:
            self._say(f'joint_states stamps run {abs(clock.offset):.3g} s '
                      f'{"behind" if clock.offset > 0 else "ahead of"} this node clock: '
                      'readings are judged with that offset (are the clocks synchronised?)'
                      if clock.offset else 'joint_states stamps agree with this node clock '
                                           'again')
        if taken is None:
            self._warn('joint_states ahead', f'joint_states stamped {stamp - now:.3g} s ahead '
                       'of this node clock: not used (clocks not synchronised? a steady '
                       'offset is accepted after a second of readings)')
        elif now - taken > self.timeout:
            self._warn('joint_states late', f'a joint_states reading arrived {now - taken:.3g} '
                       's after its stamp: too old to judge the arm by, not used (a busy '
                       'machine or network, or clocks not synchronised)')
        return taken
