# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The solver settings panel of the arm view: one GUI input per ``ik_node.solve`` option."""

from dataclasses import dataclass, field
import math
from typing import Any, Callable, Dict, List, Optional, Tuple, TYPE_CHECKING

from ik_node.errors import IKError
from ik_node.options import SolveOptions
from ik_node.solve_ik import methods
from ik_node.solvers.objectives import JointLimitAvoidance, Manipulability, Objective, RestPosture
from ik_node.solvers.table import METHODS
import viser

if TYPE_CHECKING:
    from ik_node.web.obstacles import ObstacleEditor

__all__ = ['Settings', 'SolverControls']


@dataclass(frozen=True)
class Settings:
    """What the next solve uses: method, position-only flag and ``solve`` keyword options."""

    method: str = 'dls'
    position_only: bool = False
    options: Dict[str, Any] = field(default_factory=dict)


class SolverControls:
    """
    The 'Solver' panel: every setting of ``ik_node.solve`` the view exposes, validated live.

    Values are checked by the library itself (SolveOptions, the objectives); a refused value
    is shown on the page with the library's reason and the last accepted settings stay in
    use. ``on_change(settings)`` is called after every accepted change.
    """

    def __init__(self, gui: viser.GuiApi, chain, on_change: Callable[[Settings], None],
                 default_timeout_ms: float = 8.0):
        """Build the panel in ``gui`` (a viser GuiApi) for ``chain``."""
        self._chain = chain
        self._on_change = on_change
        # The arm view's collision panel (ik_node.web.obstacles), once it is built.
        self.collision: Optional['ObstacleEditor'] = None
        d = SolveOptions()
        with gui.add_folder('Solver'):
            self.method = gui.add_dropdown('method', list(methods()), initial_value='dls',
                                           hint='ik_node.solve(method=...)')
            self.position_only = gui.add_checkbox('position only', False,
                                                  hint='ignore the gizmo orientation')
            self.position_tolerance = gui.add_number('pos. tolerance [mm]',
                                                     d.position_tolerance * 1e3, step=0.01)
            self.orientation_tolerance = gui.add_number('orient. tolerance [rad]',
                                                        d.orientation_tolerance, step=0.001)
            self.max_iterations = gui.add_number('max iterations', d.max_iterations, step=1)
            self.timeout = gui.add_number('timeout [ms]', default_timeout_ms, step=0.5)
            self.damping = gui.add_number('damping λ₀', d.damping, step=0.0001)
            self.restarts = gui.add_checkbox('restarts', d.restarts,
                                             hint='random restarts when an attempt fails')
            self.max_attempts = gui.add_number('max attempts', d.max_attempts, step=1)
        with gui.add_folder('Null-space objectives'):
            self.limit_weight = gui.add_number('limit avoidance', 0.0, step=0.1)
            self.rest_weight = gui.add_number('rest posture', 0.0, step=0.1,
                                              hint='pull towards the start pose')
            self.manip_weight = gui.add_number('manipulability', 0.0, step=0.1)
        self.error = gui.add_markdown('', visible=False)
        self.inputs = (self.method, self.position_only, self.position_tolerance,
                       self.orientation_tolerance, self.max_iterations, self.timeout,
                       self.damping, self.restarts, self.max_attempts, self.limit_weight,
                       self.rest_weight, self.manip_weight)
        self.rest_posture = tuple(float(v) for v in chain.mid)
        self.settings = self.read()
        for h in self.inputs:
            h.on_update(self._changed)

    def read(self) -> Settings:
        """Return the settings the inputs hold; IKError with the reason when one is refused."""
        iters = self.max_iterations.value
        attempts = self.max_attempts.value
        options: Dict[str, Any] = {
            'position_tolerance': float(self.position_tolerance.value) * 1e-3,
            'orientation_tolerance': float(self.orientation_tolerance.value),
            'max_iterations': int(iters) if float(iters).is_integer() else iters,
            'timeout': float(self.timeout.value) * 1e-3,
            'damping': float(self.damping.value),
            'restarts': bool(self.restarts.value),
            'max_attempts': int(attempts) if float(attempts).is_integer() else attempts,
        }
        SolveOptions.from_kwargs(**options)
        objectives: List[Objective] = []
        weighted: Tuple[Tuple[viser.GuiNumberHandle[float], Callable[[float], Objective]], ...] = (
            (self.limit_weight, lambda w: JointLimitAvoidance(weight=w)),
            (self.rest_weight, lambda w: RestPosture(weight=w, q_rest=self.rest_posture)),
            (self.manip_weight, lambda w: Manipulability(weight=w)))
        for h, make in weighted:
            w = float(h.value)
            if w != 0.0 or not math.isfinite(w):
                obj = make(w)
                obj.cost(self._chain, self._chain.mid)   # the library's own check of it
                objectives.append(obj)
        if objectives:
            options['objectives'] = tuple(objectives)
        if self.collision is not None:
            options.update(self.collision.options())
        # Each method takes only the options it uses (it refuses the others): the panel's
        # values for the others stay in the inputs for when the method changes back.
        method = str(self.method.value)
        used = METHODS[method].options
        options = {name: value for name, value in options.items() if name in used}
        return Settings(method, bool(self.position_only.value), options)

    def _changed(self, event: viser.GuiEvent[Any]) -> None:
        if event.client is None:
            return  # set by the server itself
        self.apply()

    def apply(self) -> Optional[str]:
        """Read the inputs; show and return the refusal, or take them and tell on_change."""
        try:
            settings = self.read()
        except (IKError, TypeError, ValueError) as exc:
            msg = f'Refused: {exc}'
            self.error.content = f'**{msg}**  \n_the previous settings stay in use_'
            self.error.visible = True
            return msg
        self.error.visible = False
        self.error.content = ''
        self.settings = settings
        self._on_change(settings)
        return None
