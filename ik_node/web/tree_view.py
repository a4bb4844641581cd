# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The tree view (``ik-web --tips a,b``): one gizmo per tip of a URDF tree, solved all at once.

Moving a tip's gizmo posts that tip's pose; one worker thread solves the newest posted pose
for the whole tree (:meth:`ik_node.motion.tree_arm.TreeArm.solve`, warm from the drawn
joints) with the other tips holding where they are drawn, as the node does with a tip
target, and draws the arm, each tip's reached frame and its errors. The sub-bases, the links
where the tips' branches part (a torso between two arms: where FABRIK on a tree puts the
centroid of its branches' proposals), are drawn as orange spheres and named in the panel.
"""

import logging
import threading
import time
from typing import Any, Optional

from ik_node.errors import IKError
from ik_node.model.link_tree import RobotTree
from ik_node.motion.tree_arm import TreeArm
from ik_node.web.arm_display import ArmDisplay
from ik_node.web.ik_view import home_pose
from ik_node.web.robot import RobotModel
import numpy as np
import viser
import viser.transforms as vtf

__all__ = ['TreeView', 'sub_bases']

_LOG = logging.getLogger(__name__)


def sub_bases(robot: RobotTree, base_link: str, tips) -> list[str]:
    """Return the links below ``base_link`` (itself included) where two tips' paths part."""
    children: dict[str, set] = {}
    for tip in tips:
        path = robot.ancestors(tip)
        path = path[path.index(base_link):]
        for a, b in zip(path, path[1:]):
            children.setdefault(a, set()).add(b)
    return [link for link, below in children.items() if len(below) > 1]


def _wxyz(T: np.ndarray) -> np.ndarray:
    return vtf.SO3.from_matrix(T[:3, :3]).wxyz


def _pose(position, wxyz) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = vtf.SO3(np.asarray(wxyz, dtype=float)).normalize().as_matrix()
    T[:3, 3] = position
    return T


class TreeView:
    """The tree, a gizmo and a reached frame per tip, its sub-bases and the tips' errors."""

    def __init__(self, server: viser.ViserServer, robot: RobotModel,
                 q0: Optional[np.ndarray] = None, timeout: float = 0.05):
        """Draw the tree of ``robot`` (its chain a TreeArm) at q0 and start following."""
        assert isinstance(robot.chain, TreeArm)
        self.server, self.robot = server, robot
        self.arm: TreeArm = robot.chain
        self.timeout = float(timeout)
        self.q = home_pose(self.arm) if q0 is None else self.arm.clip(q0)
        self.ready = threading.Event()      # the worker runs (app.main waits on it)
        self._cv = threading.Condition()
        self._pending: Optional[tuple[int, int, np.ndarray]] = None    # (seq, tip, pose)
        self._seq = 0
        self._closed = False
        self.last: Optional[tuple[int, Any]] = None        # (seq, TreeIKResult)
        self._model = RobotTree.from_urdf(str(robot.path))
        self.sub_bases = sub_bases(self._model, self.arm.base_link, self.arm.tip_links)
        scene = server.scene
        scene.add_grid('/grid', width=2.0, height=2.0, cell_size=0.1, section_size=0.5)
        self.display = ArmDisplay(server, robot)
        T_base = robot.urdf.get_transform(self.arm.base_link, robot.urdf.base_link)
        scene.add_frame('/base', show_axes=False, position=T_base[:3, 3], wxyz=_wxyz(T_base))
        T = self.arm.fk(self.q)
        self.gizmos, self.reached = [], []
        for i, tip in enumerate(self.arm.tip_links):
            gizmo = scene.add_transform_controls(f'/base/target_{tip}', scale=0.15,
                                                 position=T[i, :3, 3], wxyz=_wxyz(T[i]))
            gizmo.on_update(self._on_gizmo(i))
            self.gizmos.append(gizmo)
            self.reached.append(scene.add_frame(f'/base/reached_{tip}', axes_length=0.06,
                                                axes_radius=0.005, position=T[i, :3, 3],
                                                wxyz=_wxyz(T[i])))
        self.spheres = [scene.add_icosphere(f'/base/sub_base_{link}', radius=0.025,
                                            color=(255, 140, 0)) for link in self.sub_bases]
        self._draw()
        gui = server.gui
        arm = self.arm
        gui.add_markdown(f'**ik_node** — `{arm.robot_name}`: `{arm.base_link}` → '
                         + ', '.join(f'`{t}`' for t in arm.tip_links) + f', {arm.n} joints  \n'
                         'sub-bases (orange): '
                         + (', '.join(f'`{s}`' for s in self.sub_bases) or 'none'))
        self.readout = gui.add_markdown('_drag a gizmo: that tip follows, the others hold_')
        self._worker = threading.Thread(target=self._run, name='ik-web-tree', daemon=True)
        self._worker.start()

    def _on_gizmo(self, tip: int):
        """Return the callback of tip ``tip``'s gizmo: post its pose."""
        def moved(event: viser.TransformControlsEvent) -> None:
            gizmo = self.gizmos[tip]
            self.request(tip, _pose(gizmo.position, gizmo.wxyz))
        return moved

    def request(self, tip: int, T: np.ndarray) -> int:
        """Post pose T (4, 4, base frame) for tip index ``tip``; return its request number."""
        with self._cv:
            self._seq += 1
            self._pending = (self._seq, int(tip), np.array(T, dtype=float))
            self._cv.notify()
            return self._seq

    def set_target(self, tip: int, T: np.ndarray) -> int:
        """Move tip ``tip``'s gizmo to T and solve for it; return the request number."""
        self.gizmos[tip].position = T[:3, 3]
        self.gizmos[tip].wxyz = _wxyz(T)
        return self.request(tip, T)

    def wait_for(self, seq: int, timeout: float = 10.0) -> Optional[Any]:
        """Wait until request ``seq`` (or a later one) is drawn; return its result or None."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while self.last is None or self.last[0] < seq:
                left = deadline - time.monotonic()
                if left <= 0.0 or self._closed:
                    return None
                self._cv.wait(left)
            return self.last[1]

    def close(self) -> None:
        """Stop the worker."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._worker.join(timeout=5.0)

    def _run(self) -> None:
        self.ready.set()
        while True:
            with self._cv:
                while self._pending is None and not self._closed:
                    self._cv.wait()
                if self._closed or self._pending is None:
                    return
                seq, tip, T = self._pending
                self._pending = None
            result = None
            try:
                result = self._solve(tip, T)
            except IKError as exc:
                self.readout.content = f'**Refused by the solver:** {exc}'
            except Exception as exc:  # noqa: B902  (the page must say so, not go stale)
                _LOG.exception('tree solve failed')
                self.readout.content = f'**Internal error:** {type(exc).__name__}: {exc}'
            with self._cv:
                if result is not None:
                    self.last = (seq, result)
                self._cv.notify_all()

    def _solve(self, tip: int, T: np.ndarray) -> Any:
        """Solve the tree for tip ``tip`` at T, the other tips held; draw and tell."""
        target = self.arm.target_for(tip, T, self.q)
        t0 = time.perf_counter()
        result = self.arm.solve(target, self.q, timeout=self.timeout, max_attempts=1)
        took = time.perf_counter() - t0
        self.q = np.array(result.q)
        self._draw()
        lines = [f'{"**REACHED**" if result.success else "**NOT REACHED**: best attempt"} · '
                 f'{result.iterations} iterations · {took * 1e3:.1f} ms']
        for r in result.tips:
            mode = 'target' if r.tip_link == self.arm.tip_links[tip] else 'hold'
            lines.append(f'`{r.tip_link}` ({mode}): {"ok" if r.success else "off"} · '
                         f'{r.position_error * 1e3:.3f} mm · {r.orientation_error:.4f} rad')
        self.readout.content = '  \n'.join(lines)
        return result

    def _draw(self) -> None:
        T = self.arm.fk(self.q)
        positions = self.arm.tree.positions(self.q)
        with self.server.atomic():
            cfg = np.zeros(len(self.robot.urdf.actuated_joint_names))
            names = list(self.robot.urdf.actuated_joint_names)
            for name, value in positions.items():
                if name in names:
                    cfg[names.index(name)] = value
            self.display.update(cfg)
            for i, frame in enumerate(self.reached):
                frame.position, frame.wxyz = T[i, :3, 3], _wxyz(T[i])
            for link, sphere in zip(self.sub_bases, self.spheres):
                sphere.position = self._model.link_pose(self.arm.base_link, link,
                                                        positions)[:3, 3]
        self.server.flush()
