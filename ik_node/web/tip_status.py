# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Each tip's state on the ROS-mode page of a tree, read from the node's ik_status answers.

The node answers a tip's target with the tip's name (``tip``) and every tip's
``tip.<link>.success`` / ``.position_error`` / ``.orientation_error`` / ``.mode``
(:func:`ik_node.ros.tip_targets.tip_values`); a target it refuses before solving (a NaN, an
unknown frame) gets an ERROR status with the target's stamp only. :class:`TipStates` matches
both to the tip the page sent the target for (by stamp) and keeps, per tip:

- ``refused``: the node refused the target (before moving); the arm stays;
- ``stretched``: out of reach, the arm goes to the nearest pose it found;
- ``going``: solved, the arm is on its way; ``reached`` once the node says the measured arm
  is there (its 'target reached' status);
- ``holding``: the tip holds its pose while another tip moves (the state before any target).

No ROS and no viser here: the page feeds it the statuses' key/values.
"""

from typing import Any, Mapping, NamedTuple, Optional, Sequence

__all__ = ['TipStates', 'TipState', 'STATE_TEXT']

STATE_TEXT = {
    'holding': 'holding',
    'going': 'on its way',
    'reached': 'REACHED',
    'stretched': 'STRETCHED: out of reach, the arm goes to the nearest pose',
    'refused': 'REFUSED',
}
_SENT_KEPT = 1000       # stamps of sent targets remembered (a page sends at most 60 Hz)


class TipState(NamedTuple):
    """One tip's state: its name (see :data:`STATE_TEXT`), errors [m, rad], why if refused."""

    state: str
    position_error: float = float('nan')
    orientation_error: float = float('nan')
    reason: str = ''


class TipStates:
    """The state of each tip of a tree on the page (see the module docstring)."""

    def __init__(self, tips: Sequence[str]):
        self.tips = tuple(tips)
        self.states = {tip: TipState('holding') for tip in self.tips}
        self._sent: dict[str, str] = {}     # stamp text -> tip

    def sent(self, stamp: str, tip: int) -> None:
        """Remember that the target stamped ``stamp`` went to tip index ``tip``."""
        self._sent[stamp] = self.tips[tip]
        if len(self._sent) > _SENT_KEPT:
            self._sent.pop(next(iter(self._sent)))

    def answer(self, level_error: bool, message: str,
               values: Mapping[str, Any]) -> Optional[str]:
        """
        Take one ik_status message, key/values as text; return the tip it changed, or None.

        level_error: the status is an ERROR (a refusal).
        """
        if values.get('reached') == 'True':
            for tip, st in self.states.items():
                if st.state == 'going':
                    self.states[tip] = st._replace(state='reached')
            return None
        tip = str(values.get('tip') or self._sent.get(values.get('target_stamp', ''), ''))
        if tip not in self.states:
            return None
        self._take_errors(values)
        st = self.states[tip]
        if level_error or values.get('motion') == 'refused':
            self.states[tip] = st._replace(state='refused', reason=message)
        elif values.get(f'tip.{tip}.success', values.get('success')) == 'True':
            self.states[tip] = st._replace(state='going', reason='')
        else:
            self.states[tip] = st._replace(state='stretched', reason=message)
        return tip

    def _take_errors(self, values: Mapping[str, Any]) -> None:
        """Take every tip's errors given in ``values`` (a tree's answer gives them all)."""
        for tip, st in self.states.items():
            pe = values.get(f'tip.{tip}.position_error')
            if pe is not None:
                self.states[tip] = st._replace(
                    position_error=float(pe),
                    orientation_error=float(values.get(f'tip.{tip}.orientation_error', 'nan')))

    def text(self) -> str:
        """Return a markdown line per tip: its state, errors and reason."""
        lines = []
        for tip, st in self.states.items():
            line = f'`{tip}`: **{STATE_TEXT[st.state]}**'
            if st.position_error == st.position_error:     # not NaN
                line += (f' · {st.position_error * 1e3:.3f} mm · '
                         f'{st.orientation_error:.4f} rad')
            if st.reason and st.state == 'refused':
                line += f' · {st.reason}'
            lines.append(line)
        return '  \n'.join(lines)
