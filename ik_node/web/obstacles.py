# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The 'Collision' panel of the arm view: avoidance on or off, the floor, draggable obstacles.

Obstacles are spheres in the chain's base frame, each with its own gizmo to drag it; the
floor is the plane z = 0 of the base frame. They are ``ik_node`` shapes (Sphere, HalfSpace),
so the page solves with exactly what ``solve(..., avoid_collisions=True, obstacles=...)``
takes. Whatever the switch, every drawn pose is checked (``Chain.collisions``): the links and
obstacles in contact turn red and the panel names the pairs.
"""

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ik_node.collision import HalfSpace, Shape, Sphere
import numpy as np
import viser

__all__ = ['ObstacleEditor', 'FLOOR_NAME']

FLOOR_NAME = 'floor'
_RED = (220, 40, 40)
_GREY = (120, 140, 170)


class ObstacleEditor:
    """The collision settings and the obstacles of the arm view (see the module doc)."""

    def __init__(self, server: viser.ViserServer, chain, link_frames: Dict[str, str],
                 on_change: Callable[[], object], reach: float):
        """
        Build the panel and the scene nodes on ``server``.

        link_frames: the scene node of each link's frame (a red marker is added under it while
        the link is in contact); on_change(): called after every change of the collision
        settings or of an obstacle's place; reach [m]: the arm's size, for default sizes.
        """
        self._server = server
        self._chain = chain
        self._on_change = on_change
        self._reach = max(reach, 0.1)
        self._spheres: List[Tuple[Any, Any, float]] = []   # (gizmo, mesh, radius)
        # The pairs last shown (None: show the next ones whatever they are); each draw of a
        # 60 Hz drag would otherwise resend every marker, color and the panel text.
        self._shown: Optional[Tuple[Tuple[str, str], ...]] = None
        gui = server.gui
        with gui.add_folder('Collision'):
            self.avoid = gui.add_checkbox(
                'avoid collisions', False,
                hint='answers must be free of self-contact, the floor and the obstacles')
            self.floor = gui.add_checkbox('floor', False, hint='the plane z = 0 of the base')
            self.radius = gui.add_number('obstacle radius [m]', round(0.12 * self._reach, 3),
                                         min=0.005, step=0.005)
            self.add_button = gui.add_button('add obstacle')
            self.clear_button = gui.add_button('remove obstacles')
            self.contacts = gui.add_markdown('_no contact_')
        self._floor_node = server.scene.add_box(
            '/base/floor', color=_GREY, dimensions=(3.0 * self._reach, 3.0 * self._reach, 0.002),
            position=(0.0, 0.0, -0.001), opacity=0.35, visible=False)
        self._markers = {
            link: server.scene.add_icosphere(f'{node}/contact', radius=0.06 * self._reach,
                                             color=_RED, opacity=0.7, visible=False)
            for link, node in link_frames.items()}
        for handle in (self.avoid, self.floor):
            handle.on_update(self._toggled)
        self.add_button.on_click(self._add_clicked)
        self.clear_button.on_click(lambda _: self.clear())

    # --- what the solver gets ------------------------------------------------------------
    def shapes(self) -> Tuple[Shape, ...]:
        """Return the floor (when on) and the obstacles, in the base frame."""
        out: List[Shape] = [HalfSpace(name=FLOOR_NAME)] if self.floor.value else []
        for k, (gizmo, _, radius) in enumerate(self._spheres):
            out.append(Sphere(center=tuple(float(v) for v in gizmo.position), radius=radius,
                              name=f'obstacle {k + 1}'))
        return tuple(out)

    def options(self) -> Dict[str, Any]:
        """Return the collision options of ``solve``: none while avoidance is off."""
        if not self.avoid.value:
            return {}
        return {'avoid_collisions': True, 'obstacles': self.shapes()}

    # --- obstacles ---------------------------------------------------------------------------
    def default_center(self) -> np.ndarray:
        """Return where a new obstacle appears: in front of the arm, half its reach out."""
        k = len(self._spheres)
        return np.array([0.5 * self._reach, (0.25 * k - 0.25) * self._reach, 0.4 * self._reach])

    def add(self, center: Union[Sequence[float], np.ndarray],
            radius: Optional[float] = None) -> int:
        """Add a draggable sphere at ``center`` (base frame); return how many there are."""
        r = float(self.radius.value if radius is None else radius)
        if not np.isfinite(r) or r <= 0.0:
            self.contacts.content = f'**Refused: obstacle radius must be > 0, got {r}**'
            self._shown = None
            return len(self._spheres)
        k = len(self._spheres) + 1
        gizmo = self._server.scene.add_transform_controls(
            f'/base/obstacles/{k}', scale=max(0.1, 2.5 * r), disable_rotations=True,
            position=np.array(center, dtype=float))
        mesh = self._server.scene.add_icosphere(f'/base/obstacles/{k}/sphere', radius=r,
                                                color=_GREY, opacity=0.8)
        gizmo.on_update(self._dragged)
        self._spheres.append((gizmo, mesh, r))
        self._shown = None
        self._on_change()
        return len(self._spheres)

    def move(self, k: int, center: Union[Sequence[float], np.ndarray]) -> None:
        """Move obstacle ``k`` (0-based) to ``center``, as a drag of its gizmo does."""
        self._spheres[k][0].position = np.array(center, dtype=float)
        self._on_change()

    def clear(self) -> None:
        """Remove every obstacle."""
        for gizmo, mesh, _ in self._spheres:
            mesh.remove()
            gizmo.remove()
        self._spheres.clear()
        self._shown = None
        self._on_change()

    def _dragged(self, event: viser.TransformControlsEvent) -> None:
        self._on_change()

    def _add_clicked(self, event: viser.GuiEvent[Any]) -> None:
        self.add(self.default_center())

    def _toggled(self, event: viser.GuiEvent[Any]) -> None:
        self._floor_node.visible = bool(self.floor.value)
        self._on_change()

    # --- what the drawn pose touches ---------------------------------------------------------
    def contacts_at(self, q: np.ndarray) -> List[Tuple[str, str]]:
        """Return the pairs in contact at q (self-contact, floor, obstacles), switch or not."""
        return self._chain.collisions(q, self.shapes())

    def show(self, pairs: Sequence[Tuple[str, str]]) -> None:
        """Turn the links and obstacles of ``pairs`` red and name the pairs in the panel."""
        if tuple(pairs) == self._shown:
            return
        self._shown = tuple(pairs)
        touched = {name for pair in pairs for name in pair}
        for link, marker in self._markers.items():
            marker.visible = link in touched
        for k, (_, mesh, _) in enumerate(self._spheres):
            mesh.color = _RED if f'obstacle {k + 1}' in touched else _GREY
        self._floor_node.color = _RED if FLOOR_NAME in touched else _GREY
        self.contacts.content = ('**in contact:** ' + ', '.join(f'{a} – {b}' for a, b in pairs)
                                 if pairs else '_no contact_')
