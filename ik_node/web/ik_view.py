# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The standalone arm view: the URDF arm follows a 6-DOF gizmo through ``ik_node.solve``.

Every gizmo move (or a target typed in the panel) posts the target; one worker thread solves
the latest posted target, warm-started from the arm's current joints, and draws the result.
Targets that arrive while a solve runs replace each other, so a fast drag never builds a
backlog: the arm is at most one solve behind the gizmo.
"""

from collections import deque
from dataclasses import dataclass
import logging
import math
import threading
import time
from typing import Any, Deque, Optional

from ik_node import _jit
from ik_node.errors import IKError
from ik_node.result import IKResult
from ik_node.solve_ik import solve, warm_up
from ik_node.web.controls import Settings, SolverControls
from ik_node.web.jog_buttons import JogButtons, StandaloneJog
from ik_node.web.obstacles import ObstacleEditor
from ik_node.web.robot import RobotModel
from ik_node.web.scene import arm_scene, home_pose, pose_of, wxyz_of
import numpy as np
import viser

__all__ = ['IKView', 'Drawn', 'home_pose']

PLOT_SAMPLES = 200
_LOG = logging.getLogger(__name__)
PLOT_PERIOD = 0.1   # [s] between plot refreshes: the plots need not follow at 60 Hz


@dataclass(frozen=True)
class Drawn:
    """
    One solve-and-draw.

    seq: number of the target request it answers; target (4, 4) in the base frame; result of
    ``solve``; solve_time [s]; latency [s] from the request to the arm update being sent;
    wait [s]: the part of it before the solve started (the worker was busy); contacts: the
    pairs in contact at the drawn pose (self-contact, floor, obstacles), checked whatever the
    'avoid collisions' switch; held: the answer was in contact with avoidance on, so the arm
    was left where it was (``result.q`` is not drawn).
    """

    seq: int
    target: np.ndarray
    result: IKResult
    settings: Settings
    solve_time: float
    latency: float
    wait: float = 0.0
    contacts: tuple = ()
    held: bool = False


@dataclass(frozen=True)
class _Request:
    """A posted target: its number, the (4, 4) pose in the base frame, when it was posted."""

    seq: int
    target: np.ndarray
    t_request: float   # time.perf_counter() [s]


# What the readout says while the kernels compile (once after an install; ik-compile does it
# ahead).
COMPILING = ('_compiling the solver kernels, once after an install (about 1-2 minutes on 2 '
             'cores): the arm follows the gizmo once they are ready_')


class IKView:
    """The arm, the target gizmo, the solver panel, readouts and plots on a viser server."""

    def __init__(self, server: viser.ViserServer, robot: RobotModel,
                 q0: Optional[np.ndarray] = None):
        """Draw ``robot`` on ``server`` at q0 (default :func:`home_pose`) and start following."""
        self.server = server
        self.robot = robot
        self.chain = chain = robot.chain
        self.q = home_pose(chain) if q0 is None else np.array(q0, dtype=float)
        # The kernels load (or, once after an install, compile) in the worker thread: the
        # page shows the arm at once and says why it does not follow yet.
        self.ready = threading.Event()
        self.ready_in = math.nan      # [s] the kernels took to get ready
        self._cv = threading.Condition()
        self._pending: Optional[_Request] = None
        self._seq = 0
        self._closed = False
        self.last: Optional[Drawn] = None
        self.drawn_count = 0
        self.history: Deque[Drawn] = deque(maxlen=PLOT_SAMPLES)
        self._plot_time = 0.0

        scene = server.scene
        # Target and reached pose live in the chain's base frame, like ik_node.solve's.
        self.display, T_base = arm_scene(server, robot)
        T_tip = chain.fk(self.q)
        reach = float(np.sum(np.linalg.norm(chain.joint_origins[:, :3, 3], axis=1)))
        self.gizmo = scene.add_transform_controls(
            '/base/target', scale=max(0.15, 0.25 * reach), position=T_tip[:3, 3],
            wxyz=wxyz_of(T_tip))
        self.reached = scene.add_frame('/base/reached', axes_length=0.08, axes_radius=0.006,
                                       position=T_tip[:3, 3], wxyz=wxyz_of(T_tip))
        self.display.update(robot.display_cfg(self.q))
        look = T_base[:3, :3] @ (0.5 * T_tip[:3, 3]) + T_base[:3, 3]
        server.initial_camera.look_at = look
        server.initial_camera.position = look + max(reach, 0.3) * np.array([0.9, -1.3, 0.8])

        gui = server.gui
        gui.configure_theme(control_width='large')
        self.title = gui.add_markdown(f'**ik_node** — `{chain.robot_name}`: '
                                      f'`{chain.base_link}` → `{chain.tip_link}`, '
                                      f'{chain.n} joints')
        self.problems = gui.add_markdown(
            '\n'.join(f'⚠ {w}' for w in robot.warnings), visible=bool(robot.warnings))
        self.readout = gui.add_markdown(
            '_drag the gizmo: the arm follows_' if _jit.compiled() else COMPILING)
        self.target_xyz = gui.add_vector3('target xyz [m]', tuple(np.round(T_tip[:3, 3], 4)),
                                          step=0.001)
        self.controls = SolverControls(gui, chain, self._settings_changed)
        self.collision = ObstacleEditor(server, chain, self.display.link_frames(),
                                        self.controls.apply, reach)
        self.controls.collision = self.collision
        with gui.add_folder('Plots'):
            empty = (np.zeros(0),) * 3
            self.plot_error = gui.add_uplot(
                empty[:2], (viser.uplot.Series(label='solve'),
                            viser.uplot.Series(label='position error [mm]', stroke='red')),
                title='position error [mm]', aspect=2.0)
            self.plot_time = gui.add_uplot(
                empty[:2], (viser.uplot.Series(label='solve'),
                            viser.uplot.Series(label='solve time [ms]', stroke='blue')),
                title='solve time [ms]', aspect=2.0)
        self.jog = StandaloneJog(chain, lambda: self.q.copy(), self._jogged)
        self.jog_buttons = JogButtons(gui, (chain.base_link, chain.tip_link), self.jog.send)
        self.gizmo.on_update(self._gizmo_moved)
        self.target_xyz.on_update(self._xyz_typed)
        self._worker = threading.Thread(target=self._run, name='ik-web-solver', daemon=True)
        self._worker.start()
        self.request(T_tip)   # the readouts start filled, from a solve like every other

    # --- inputs -----------------------------------------------------------------------------
    def _gizmo_moved(self, event: viser.TransformControlsEvent) -> None:
        self._show_target(self.gizmo.position)
        self.request(pose_of(self.gizmo.position, self.gizmo.wxyz))

    def _xyz_typed(self, event: viser.GuiEvent[Any]) -> None:
        if event.client is None:        # our own write (_show_target)
            return
        T = pose_of(np.array(self.target_xyz.value), self.gizmo.wxyz)
        self.gizmo.position = T[:3, 3]
        self.request(T)

    def _show_target(self, position: np.ndarray) -> None:
        """
        Write ``position`` into the target field, when a target comes from elsewhere.

        Written with the request, never when an answer is drawn: the field may hold a newer
        value typed meanwhile, and an older answer's target written over it would undo it
        (and be sent with the next coordinate typed).
        """
        tx, ty, tz = (float(v) for v in np.round(position, 4))
        # viser defines the value setter apart from its getter, so mypy takes it as read-only
        self.target_xyz.value = (tx, ty, tz)  # type: ignore[misc]

    def _settings_changed(self, settings: Settings) -> None:
        self.request(pose_of(self.gizmo.position, self.gizmo.wxyz))

    def _jogged(self, q: np.ndarray) -> None:
        """Draw the arm at ``q`` from a jog step; the gizmo follows the tool."""
        self.q = q
        T_tip = self.chain.fk(q)
        with self.server.atomic():
            self.display.update(self.robot.display_cfg(q))
            self.reached.position = self.gizmo.position = T_tip[:3, 3]
            self.reached.wxyz = self.gizmo.wxyz = wxyz_of(T_tip)
            self._show_target(T_tip[:3, 3])

    def set_target(self, T: np.ndarray) -> int:
        """Move the gizmo to T (4, 4, base frame) and solve for it; return the request number."""
        T = np.asarray(T, dtype=float)
        self.gizmo.position = T[:3, 3]
        self.gizmo.wxyz = wxyz_of(T)
        self._show_target(T[:3, 3])
        return self.request(T)

    def request(self, T: np.ndarray) -> int:
        """Post target T (4, 4, base frame) for the worker; return its request number."""
        with self._cv:
            self._seq += 1
            self._pending = _Request(self._seq, np.array(T, dtype=float), time.perf_counter())
            self._cv.notify()
            return self._seq

    def wait_for(self, seq: int, timeout: float = 5.0) -> Optional[Drawn]:
        """Wait until request ``seq`` (or a later one) is drawn; return that, None on timeout."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while self.last is None or self.last.seq < seq:
                left = deadline - time.monotonic()
                if left <= 0.0 or self._closed:
                    return None
                self._cv.wait(left)
            return self.last

    def close(self) -> None:
        """Stop the worker and jog threads."""
        self.jog_buttons.close()
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._worker.join(timeout=5.0)

    # --- the worker -------------------------------------------------------------------------
    def _warm_up(self) -> None:
        t0 = time.perf_counter()
        warm_up(self.chain)
        self.ready_in = time.perf_counter() - t0
        if self.readout.content == COMPILING:
            self.readout.content = (f'_solver kernels ready in {self.ready_in:.0f} s: drag the '
                                    'gizmo, the arm follows_')
        self.ready.set()

    def _run(self) -> None:
        self._warm_up()
        while True:
            with self._cv:
                while self._pending is None and not self._closed:
                    self._cv.wait()
                req = self._pending
                if self._closed or req is None:   # None only when closed (the loop above)
                    return
                self._pending = None
            settings = self.controls.settings
            drawn: Optional[Drawn]
            try:
                drawn = self._solve_and_draw(req.seq, req.target, req.t_request, settings)
            except IKError as exc:
                self.readout.content = f'**Refused by the solver:** {exc}'
                drawn = None
            except Exception as exc:  # noqa: B902  (the page must say so, not go stale)
                _LOG.exception('solve-and-draw failed')
                self.readout.content = f'**Internal error:** {type(exc).__name__}: {exc}'
                drawn = None
            if drawn is not None:
                with self._cv:
                    self.history.append(drawn)
                # Shown before it is told drawn: wait_for's caller reads the readouts.
                self._show(drawn)
            with self._cv:
                if drawn is not None:
                    self.last = drawn
                    self.drawn_count += 1
                self._cv.notify_all()

    def _solve_and_draw(self, seq: int, T: np.ndarray, t_request: float,
                        settings: Settings) -> Drawn:
        target = T[:3, 3].copy() if settings.position_only else T
        t0 = time.perf_counter()
        result = solve(self.chain, target, q0=self.q, method=settings.method,
                       **settings.options)
        t1 = time.perf_counter()
        contacts = tuple(self.collision.contacts_at(result.q))
        # With avoidance on, an answer in contact (the best attempt of a blocked solve) is
        # not drawn: the arm stays at its last pose, as the node holds a real arm.
        held = bool(contacts) and bool(settings.options.get('avoid_collisions'))
        if held:
            contacts = tuple(self.collision.contacts_at(self.q))
        else:
            self.q = np.array(result.q)
        T_tip = self.chain.fk(self.q)
        with self.server.atomic():
            self.display.update(self.robot.display_cfg(self.q))
            self.reached.position = T_tip[:3, 3]
            self.reached.wxyz = wxyz_of(T_tip)
            self.collision.show(contacts)
        self.server.flush()
        return Drawn(seq, T, result, settings, t1 - t0, time.perf_counter() - t_request,
                     t0 - t_request, contacts, held)

    def _show(self, d: Drawn) -> None:
        r = d.result
        if d.held:
            state = ('**BLOCKED**: no collision-free answer; the arm stays where it was'
                     + (f' ({r.message})' if r.message else ''))
        elif r.success:
            state = '**REACHED**'
        else:
            state = ('**NOT REACHABLE**: the arm shows the stretched best attempt'
                     + (f' ({r.message})' if r.message else ''))
        contact = ('**in contact:** ' + ', '.join(f'{a} – {b}' for a, b in d.contacts) + '  \n'
                   if d.contacts else '')
        orient = ('—' if math.isnan(r.orientation_error)
                  else f'{r.orientation_error:.4f} rad')
        self.readout.content = (
            f'{state}  \n'
            f'method `{r.method}`{" (position only)" if d.settings.position_only else ""} · '
            f'{r.iterations} iterations · {r.attempts} attempt(s)  \n'
            f'position error {r.position_error * 1e3:.3f} mm · orientation error {orient}  \n'
            + contact
            + f'solve {d.solve_time * 1e3:.2f} ms · solve-and-draw {d.latency * 1e3:.2f} ms')
        now = time.monotonic()
        if now - self._plot_time >= PLOT_PERIOD:
            self._plot_time = now
            h = list(self.history)
            x = np.array([e.seq for e in h], dtype=float)
            self.plot_error.data = (x, np.array([e.result.position_error * 1e3 for e in h]))
            self.plot_time.data = (x, np.array([e.solve_time * 1e3 for e in h]))
