# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The FABRIK playground page (``ik-web --fabrik``): a point chain to drag, constrain and step.

Settings are read into a :class:`~ik_node.web.playground.PlaygroundConfig` and checked by it
and the library; a refused value is shown on the page and the previous settings stay. In
'live' mode every target or root move solves at once; in 'step' mode the buttons run one
forward pass (the wished points are drawn in orange), one backward pass, or one iteration.
"""

from functools import partial
import math
import threading
from typing import Any, List, Optional, Union

from ik_node.errors import IKError
from ik_node.web.playground import (CONSTRAINT_KINDS, MAX_END_EFFECTORS, MAX_LINKS, Playground,
                                    PlaygroundConfig, Status)
import numpy as np
import viser

__all__ = ['FabrikPlayground']

CHAIN_COLOR = (40, 90, 200)
JOINT_COLOR = (20, 30, 60)
WISH_COLOR = (245, 130, 30)
ROOT_COLOR = (200, 30, 30)


class FabrikPlayground:
    """The playground's scene and panel on a viser server."""

    def __init__(self, server: viser.ViserServer):
        """Build the page on ``server`` with the default chain and solve it once."""
        self.server = server
        self.model = Playground()
        self._lock = threading.RLock()
        self.last: Status = self.model.status('rest pose')
        scene, gui = server.scene, server.gui
        scene.add_grid('/grid', width=2.0, height=2.0, cell_size=0.1, section_size=0.5)
        server.initial_camera.position = (1.3, -1.6, 1.0)
        server.initial_camera.look_at = (0.0, 0.0, 0.45)
        c = self.model.config
        gui.configure_theme(control_width='large')
        gui.add_markdown('**ik_node FABRIK playground**: drag the targets (and the root when '
                         'it moves); step the passes in step mode.')
        self.readout = gui.add_markdown('')
        self.error = gui.add_markdown('', visible=False)
        with gui.add_folder('Chain'):
            self.n_links = gui.add_slider('links', 1, MAX_LINKS, 1, c.n_links)
            self.lengths = gui.add_text('link lengths [m]', ', '.join(map(str, c.lengths)),
                                        hint='one length for every link, or one per link')
            self.end_effectors = gui.add_slider('end effectors', 1, MAX_END_EFFECTORS, 1,
                                                c.end_effectors)
            self.branch_links = gui.add_slider('links per branch', 1, 8, 1, c.branch_links)
            self.moving_root = gui.add_checkbox('moving root', False,
                                                hint='show a gizmo for the root anchor')
        with gui.add_folder('Constraints'):
            self.constraint = gui.add_dropdown('joints', list(CONSTRAINT_KINDS),
                                               initial_value=c.constraint)
            self.hinge_limit = gui.add_number('hinge limit [deg]',
                                              round(math.degrees(c.hinge_limit), 3), step=1.0)
            self.cone_angle = gui.add_number('cone half-angle [deg]',
                                             round(math.degrees(c.cone_angle), 3), step=1.0)
        with gui.add_folder('Solver'):
            self.max_iterations = gui.add_number('max iterations', c.max_iterations, step=1)
            self.tolerance = gui.add_number('tolerance [mm]', c.tolerance * 1e3, step=0.01)
            self.min_change = gui.add_number('stall threshold [mm]', c.min_change * 1e3,
                                             step=0.0001)
        with gui.add_folder('Run'):
            self.mode = gui.add_dropdown('mode', ['live', 'step'], initial_value='live')
            self.forward_button = gui.add_button('forward pass')
            self.backward_button = gui.add_button('backward pass')
            self.iteration_button = gui.add_button('one iteration')
            self.solve_button = gui.add_button('solve')
            self.reset_button = gui.add_button('reset pose')
        settings = (self.n_links, self.lengths, self.end_effectors, self.branch_links,
                    self.constraint, self.hinge_limit, self.cone_angle, self.max_iterations,
                    self.tolerance, self.min_change)
        for h in settings:
            h.on_update(self._settings_changed)
        self.moving_root.on_update(self._moving_root_toggled)
        self.mode.on_update(self._mode_picked)
        for button, action in ((self.forward_button, 'forward'),
                               (self.backward_button, 'backward'),
                               (self.iteration_button, 'iteration')):
            button.on_click(partial(self._step_clicked, action))
        self.solve_button.on_click(self._solve_clicked)
        self.reset_button.on_click(self._reset_clicked)
        self.target_gizmos: List[viser.TransformControlsHandle] = []
        self.root_gizmo: Optional[viser.TransformControlsHandle] = None
        self._draw_gizmos()
        self._mode_changed()
        self.solve()

    def close(self) -> None:
        """Nothing runs in the background here (the server's threads call the handlers)."""

    # --- settings ---------------------------------------------------------------------------
    def read_config(self) -> PlaygroundConfig:
        """Return the settings the inputs hold; IKError when one is refused."""
        try:
            lengths = tuple(float(v) for v in str(self.lengths.value).replace(';', ',')
                            .split(',') if v.strip())
        except ValueError as exc:
            raise IKError(f'link lengths must be numbers separated by commas: {exc}') from exc

        def count(h: Union[viser.GuiNumberHandle[Any], viser.GuiSliderHandle[Any]]
                  ) -> Union[int, float]:
            v = float(h.value)
            return int(v) if v.is_integer() else v
        return self.model.with_config(
            n_links=count(self.n_links), lengths=lengths,
            end_effectors=count(self.end_effectors), branch_links=count(self.branch_links),
            constraint=str(self.constraint.value),
            hinge_limit=math.radians(float(self.hinge_limit.value)),
            cone_angle=math.radians(float(self.cone_angle.value)),
            max_iterations=count(self.max_iterations),
            tolerance=float(self.tolerance.value) * 1e-3,
            min_change=float(self.min_change.value) * 1e-3)

    def _settings_changed(self, event: viser.GuiEvent[Any]) -> None:
        if event.client is not None:
            self.apply_settings()

    def _moving_root_toggled(self, _event: viser.GuiEvent[Any]) -> None:
        self._draw_gizmos()

    def _mode_picked(self, _event: viser.GuiEvent[Any]) -> None:
        self._mode_changed()

    def _step_clicked(self, kind: str, _event: viser.GuiEvent[Any]) -> None:
        self.step(kind)

    def _solve_clicked(self, _event: viser.GuiEvent[Any]) -> None:
        self.solve()

    def _reset_clicked(self, _event: viser.GuiEvent[Any]) -> None:
        self.reset()

    def apply_settings(self) -> str:
        """Take the inputs' settings (or show why not); return the refusal or ''."""
        try:
            config = self.read_config()
        except IKError as exc:
            self.error.content = f'**Refused: {exc}**  \n_the previous settings stay in use_'
            self.error.visible = True
            return str(exc)
        self.error.visible = False
        with self._lock:
            shape_changed = (config.n_links, config.end_effectors, config.branch_links,
                             config.lengths, config.constraint) != (
                self.model.config.n_links, self.model.config.end_effectors,
                self.model.config.branch_links, self.model.config.lengths,
                self.model.config.constraint)
            if shape_changed:
                self.model.configure(config)
                self._draw_gizmos()
            else:
                self._set_config(config)
        self._after_change()
        return ''

    def _set_config(self, config: PlaygroundConfig) -> None:
        # Solver settings and limits only: keep the pose, re-project it onto new limits.
        old = self.model.config
        self.model.config = config
        if (config.hinge_limit, config.cone_angle) != (old.hinge_limit, old.cone_angle):
            self.model.reset()

    def _mode_changed(self) -> None:
        stepping = self.mode.value == 'step'
        for b in (self.forward_button, self.backward_button, self.iteration_button):
            b.disabled = not stepping
        if not stepping:
            self.solve()

    # --- actions ----------------------------------------------------------------------------
    def _after_change(self) -> None:
        if self.mode.value == 'live':
            self.solve()
        else:
            with self._lock:
                self._show(self.model.status('moved: step the passes'))

    def solve(self) -> Status:
        """Solve from the current pose and draw it."""
        with self._lock:
            status = self.model.solve()
            self._show(status)
        return status

    def reset(self) -> Status:
        """Put the chain back in its rest pose and draw it."""
        with self._lock:
            status = self.model.reset()
            self._show(status)
        return status

    def step(self, kind: str) -> Status:
        """Run one pass or iteration and draw it; a refusal is shown on the page."""
        try:
            with self._lock:
                status = self.model.step(kind)
                self._show(status)
        except IKError as exc:
            self.error.content = f'**Refused: {exc}**'
            self.error.visible = True
            return self.last
        self.error.visible = False
        return status

    def move_target(self, k: int, position) -> Status:
        """Move target k [m] (as a drag does) and follow it; return the status."""
        with self._lock:
            self.model.move_target(k, position)
        self.target_gizmos[k].position = np.asarray(position, dtype=float)
        self._after_change()
        return self.last

    # --- drawing ----------------------------------------------------------------------------
    def _draw_gizmos(self) -> None:
        for g in self.target_gizmos:
            g.remove()
        self.target_gizmos = []
        for k, t in enumerate(self.model.targets):
            g = self.server.scene.add_transform_controls(
                f'/target{k}', scale=0.2, disable_rotations=True, position=t)
            g.on_update(partial(self._target_dragged, k))
            self.target_gizmos.append(g)
        if self.root_gizmo is not None:
            self.root_gizmo.remove()
            self.root_gizmo = None
        if self.moving_root.value:
            self.root_gizmo = self.server.scene.add_transform_controls(
                '/root', scale=0.15, disable_rotations=True, position=self.model.root)
            self.root_gizmo.on_update(self._root_dragged)

    def _target_dragged(self, k: int, event: viser.TransformControlsEvent) -> None:
        with self._lock:
            self.model.move_target(k, event.target.position)
        self._after_change()

    def _root_dragged(self, event: viser.TransformControlsEvent) -> None:
        with self._lock:
            self.model.move_root(event.target.position)
        self._after_change()

    def _show(self, status: Status) -> None:
        m = self.model
        self.last = status
        scene = self.server.scene
        seg = np.stack([m.points[m.parents[1:]], m.points[1:]], axis=1)
        with self.server.atomic():
            scene.add_line_segments('/chain/links', seg, CHAIN_COLOR, thickness=0.015)
            scene.add_point_cloud('/chain/joints', m.points, JOINT_COLOR, point_size=0.035,
                                  point_shape='circle')
            scene.add_point_cloud('/chain/root', m.root[None, :], ROOT_COLOR,
                                  point_size=0.06, point_shape='circle')
            if m.wish is not None:
                wp = m.wish.points
                scene.add_line_segments('/chain/wish', np.stack([wp[:-1], wp[1:]], axis=1),
                                        WISH_COLOR, thickness=0.008)
            else:
                scene.add_line_segments('/chain/wish', np.zeros((0, 2, 3)), WISH_COLOR)
        d = m.end_distances()
        tree = (f'tree: {len(m.leaves)} end effectors (free joints; constraints apply to a '
                'single chain)  \n' if m.is_tree else '')
        self.readout.content = (
            f'**{status.text}**  \n{tree}'
            f'distance to target{"s" if m.is_tree else ""}: '
            + ', '.join(f'{v * 1e3:.2f} mm' for v in d) + '  \n'
            f'iterations {status.iterations} · passes stepped {status.passes}  \n'
            f'link length error {status.length_error:.1e} m · '
            f'max constraint violation {math.degrees(status.violation):.2e} deg')
