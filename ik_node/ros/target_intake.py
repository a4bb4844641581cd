# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
A target message as the motion layer takes it: a pose or position in the chain's base frame.

:class:`TargetIntake` turns a header and a pose (PoseStamped, an RViz click, the marker) into
the solver target of :func:`ik_node.spatial.pose.solver_target`, resolving the header's frame at
its stamp (:class:`ik_node.ros.frames.TargetFrames`). A target that cannot be taken (no model, a
hold, the arm position unknown, an unknown frame, a malformed pose) is refused here: logged,
an ERROR status, the marker shown refused.
"""

from typing import Any

from geometry_msgs.msg import Pose
from ik_node.errors import IKError
from ik_node.ros import conversions as conv
from ik_node.ros import status_text
from ik_node.ros.feedback import JointStatesIntake
from ik_node.ros.frames import current_positions, FrameRefused, TargetFrames
from ik_node.ros.kind_log import KindLog
from ik_node.ros.marker_view import MarkerView
from ik_node.ros.node_state import NodeState
from ik_node.ros.outputs import Outputs
from ik_node.ros.tip_targets import tip_refusal
from ik_node.ros.tree_setup import as_tree, is_tree
from ik_node.spatial.pose import solver_target
import numpy as np
from std_msgs.msg import Header

__all__ = ['TargetIntake']


class TargetIntake:
    """Targets into base-frame arrays, or refused (see the module docstring)."""

    def __init__(self, state: NodeState, readings: JointStatesIntake, outputs: Outputs,
                 log: KindLog, marker: MarkerView, tf_buffer: Any = None):
        self._state, self._readings, self._outputs = state, readings, outputs
        self._log, self._marker, self.tf_buffer = log, marker, tf_buffer

    def refuse(self, kind: str, reason: str, header: Header) -> None:
        """Log and publish the refusal of a target for ``reason``."""
        self._log.warn(kind, reason)
        self._outputs.refusal(reason, header)

    def to_base(self, header: Header, pose: Pose, now: float, point_only: bool,
                planar: bool = False, from_marker: bool = False,
                tip: int | None = None) -> np.ndarray | None:
        """
        Return the solver target ((4, 4) or (3,), base frame) of a target message, or None.

        point_only: keep the tool's orientation now (a clicked point); planar: an RViz 2D
        goal (its height and tilt kept from the tool). tip: the index of the tip of a tree
        (``tip_links``) the target is for; its target is then every tip's pose (t, 4, 4),
        the others' held (:meth:`ik_node.motion.tree_arm.TreeArm.target_for`). None:
        refused and told.
        """
        state = self._state
        tracker = state.tracker
        if tracker is None:
            self.refuse('no model', 'no robot model yet', header)
            return None
        if state.paused:
            self.refuse('paused', status_text.PAUSED_REFUSAL, header)
            return None
        if is_tree(tracker.chain) != (tip is not None):
            self.refuse('tip target', tip_refusal(tracker.chain, tip), header)
            return None
        if not tracker.ready:
            self.refuse('not ready', status_text.not_ready(
                state.values['joint_states_topic'], tracker.feedback_problem), header)
            return None
        T_base_frame = self._frame_to_base(header, now)
        if T_base_frame is None:
            return None
        try:
            T_tool = tracker.tip_pose(now)
            assert T_tool is not None    # the tracker is ready
            target = solver_target(T_base_frame @ conv.pose_to_matrix(pose),
                                   T_tool if tip is None else T_tool[tip],
                                   point_only=point_only, planar=planar,
                                   position_only=state.values['position_only'])
            if tip is None:
                return target
            # The other tips hold where the arm is going (its goal), else where it is.
            hold = tracker.goal if tracker.goal is not None else tracker.current_q(now)
            assert hold is not None     # the tracker is ready
            return as_tree(tracker.chain).target_for(tip, target, hold)
        except IKError as exc:
            self.refuse('target', f'target refused: {exc}', header)
            if from_marker:
                self._marker.show(None, 'refused')
            return None

    def _frame_to_base(self, header: Header, now: float) -> np.ndarray | None:
        """Return the (4, 4) pose of the header's frame in the base frame, or None (refused)."""
        tracker, tree = self._state.tracker, self._state.tree
        assert tracker is not None and tree is not None
        frames = TargetFrames(tree, tracker.chain.base_link, self._state.values['frame_prefix'],
                              self._readings.history, self.tf_buffer)
        try:
            return frames.to_base(header, current_positions(self._readings.newest,
                                                            tracker.names,
                                                            tracker.current_q(now)))
        except FrameRefused as exc:
            self.refuse('frame', str(exc), header)
            return None
