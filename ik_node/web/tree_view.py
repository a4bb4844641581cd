# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The tree view (``ik-web --tips a,b``): one gizmo per tip of a URDF tree, solved all at once.

Moving a tip's gizmo posts that tip's pose; one worker thread solves the newest posted pose
for the whole tree (:meth:`ik_node.motion.tree_arm.TreeArm.solve`, warm from the drawn
joints, with the solver picked in the panel: ``dls`` or ``fabrik``) with the other tips
holding where they are drawn, as the node does with a tip target, and draws the arm, each
tip's reached frame and its errors. The sub-bases, the links where the tips' branches part
(a torso between two arms), are drawn as orange spheres and named in the panel. With
``fabrik`` each solve also draws what FABRIK's forward pass does at each sub-base
(:func:`ik_node.web.sub_bases.forward_sub_bases`): its branches' proposals (yellow points, one
per branch, each joined to the sub-base's new place) and their centroid (a red sphere, inside
the see-through orange one when it moves little), the rule by which FABRIK on a tree moves a
sub-base.
"""

import logging
import threading
import time
from typing import Any, Optional

from ik_node.errors import IKError
from ik_node.model.link_tree import RobotTree
from ik_node.motion.tree_arm import TREE_METHODS, TreeArm
from ik_node.web.robot import RobotModel
from ik_node.web.scene import arm_scene, home_pose, TipGizmos
from ik_node.web.sub_bases import forward_sub_bases, sub_bases, SubBase
import numpy as np
import viser

__all__ = ['TreeView', 'sub_bases', 'tree_display_cfg']

SUB_BASE_COLOR = (255, 140, 0)
CENTROID_COLOR = (220, 30, 30)
PROPOSAL_COLOR = (250, 210, 40)

_LOG = logging.getLogger(__name__)


def tree_display_cfg(robot: RobotModel, q: np.ndarray) -> np.ndarray:
    """
    Return the display's actuated joint vector of a tree's joint values q (n,).

    Joints outside the tree take their held values, mimic joints follow their master
    (:meth:`ik_node.TreeChain.positions`).
    """
    names = list(robot.urdf.actuated_joint_names)
    cfg = np.zeros(len(names))
    arm = robot.chain
    assert isinstance(arm, TreeArm)
    for name, value in arm.tree.positions(q).items():
        if name in names:
            cfg[names.index(name)] = value
    return cfg


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
        self.forward: list[SubBase] = []        # the last fabrik solve's forward pass
        self._model = RobotTree.from_urdf(str(robot.path))
        self.sub_bases = sub_bases(self._model, self.arm.base_link, self.arm.tip_links)
        scene = server.scene
        self.display, _ = arm_scene(server, robot)
        self.tips = TipGizmos(server, self.arm.tip_links, self.arm.fk(self.q), self.request)
        self.gizmos, self.reached = self.tips.gizmos, self.tips.reached
        # See-through: the centroid FABRIK moves the sub-base to is often inside it.
        self.spheres = [scene.add_icosphere(f'/base/sub_base_{link}', radius=0.025,
                                            color=SUB_BASE_COLOR, opacity=0.35)
                        for link in self.sub_bases]
        self.centroids = [scene.add_icosphere(f'/base/centroid_{link}', radius=0.018,
                                              color=CENTROID_COLOR, visible=False)
                          for link in self.sub_bases]
        self._draw()
        gui = server.gui
        arm = self.arm
        gui.add_markdown(f'**ik_node** — `{arm.robot_name}`: `{arm.base_link}` → '
                         + ', '.join(f'`{t}`' for t in arm.tip_links) + f', {arm.n} joints  \n'
                         'sub-bases (orange): '
                         + (', '.join(f'`{s}`' for s in self.sub_bases) or 'none'))
        self.method = gui.add_dropdown('solver', list(TREE_METHODS), initial_value='dls')
        self.readout = gui.add_markdown('_drag a gizmo: that tip follows, the others hold_')
        self._worker = threading.Thread(target=self._run, name='ik-web-tree', daemon=True)
        self._worker.start()

    def request(self, tip: int, T: np.ndarray) -> int:
        """Post pose T (4, 4, base frame) for tip index ``tip``; return its request number."""
        with self._cv:
            self._seq += 1
            self._pending = (self._seq, int(tip), np.array(T, dtype=float))
            self._cv.notify()
            return self._seq

    def set_target(self, tip: int, T: np.ndarray) -> int:
        """Move tip ``tip``'s gizmo to T and solve for it; return the request number."""
        self.tips.place(tip, T)
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
        method = self.method.value
        # FABRIK's first forward pass from the drawn pose: what it does at each sub-base.
        self.forward = (forward_sub_bases(self._model, self.arm, self.q, target)
                        if method == 'fabrik' else [])
        t0 = time.perf_counter()
        result = self.arm.solve(target, self.q, method=method, timeout=self.timeout,
                                max_attempts=1)
        took = time.perf_counter() - t0
        self.q = np.array(result.q)
        self._draw()
        lines = [f'{"**REACHED**" if result.success else "**NOT REACHED**: best attempt"} · '
                 f'`{method}` · {result.iterations} iterations · {took * 1e3:.1f} ms']
        for r in result.tips:
            mode = 'target' if r.tip_link == self.arm.tip_links[tip] else 'hold'
            lines.append(f'`{r.tip_link}` ({mode}): {"ok" if r.success else "off"} · '
                         f'{r.position_error * 1e3:.3f} mm · {r.orientation_error:.4f} rad')
        for b in self.forward:
            lines.append(f'sub-base `{b.link}`: centroid of {len(b.proposals)} branch '
                         f'proposals, {np.linalg.norm(b.centroid - b.at) * 1e3:.1f} mm from '
                         'where it was')
        self.readout.content = '  \n'.join(lines)
        return result

    def _draw(self) -> None:
        positions = self.arm.tree.positions(self.q)
        with self.server.atomic():
            self.display.update(tree_display_cfg(self.robot, self.q))
            self.tips.show_reached(self.arm.fk(self.q))
            for link, sphere in zip(self.sub_bases, self.spheres):
                sphere.position = self._model.link_pose(self.arm.base_link, link,
                                                        positions)[:3, 3]
            self._draw_forward()
        self.server.flush()

    def _draw_forward(self) -> None:
        """Draw (or hide) the last forward pass's proposals and centroids at the sub-bases."""
        shown = {b.link: b for b in self.forward}
        for link, centroid in zip(self.sub_bases, self.centroids):
            b = shown.get(link)
            centroid.visible = b is not None and len(b.proposals) > 0
            if not centroid.visible:
                self.server.scene.add_line_segments(
                    f'/base/proposals_{link}', np.zeros((0, 2, 3)), PROPOSAL_COLOR,
                    visible=False)
                self.server.scene.add_point_cloud(f'/base/proposal_points_{link}',
                                                  np.zeros((0, 3)), PROPOSAL_COLOR,
                                                  visible=False)
                continue
            assert b is not None
            centroid.position = b.centroid
            segments = np.stack([b.proposals, np.broadcast_to(b.centroid, b.proposals.shape)],
                                axis=1)
            self.server.scene.add_line_segments(f'/base/proposals_{link}', segments,
                                                PROPOSAL_COLOR, thickness=0.006)
            self.server.scene.add_point_cloud(f'/base/proposal_points_{link}', b.proposals,
                                              PROPOSAL_COLOR, point_size=0.012,
                                              point_shape='circle')
