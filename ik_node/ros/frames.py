# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Where a target's frame is: the base, a link of the robot model at the target's stamp, or tf2.

:class:`TargetFrames` answers one question for the node: the (4, 4) pose of a header's frame
in the chain's base frame, or the reason it cannot be known (the node then refuses the
target and says why).
"""

import math
from typing import Any, Sequence

from ik_node.model.link_tree import RobotTree
from ik_node.motion.joint_history import JointHistory
from ik_node.ros import conversions as conv
import numpy as np
from rclpy.time import Time
from std_msgs.msg import Header

__all__ = ['TargetFrames', 'FrameRefused']


class FrameRefused(Exception):
    """A target's frame cannot be resolved; the message says why."""


class TargetFrames:
    """
    Resolve target frames for one robot model.

    tree: the robot model; base_link: the chain base; frame_prefix: the prefix of the model's
    frame names in headers (robot_state_publisher's ``frame_prefix``); history: the measured
    joint positions by stamp; tf_buffer: a tf2 buffer, or None without tf2.
    """

    def __init__(self, tree: RobotTree, base_link: str, frame_prefix: str,
                 history: JointHistory, tf_buffer: Any = None):
        self.tree = tree
        self.base_link = base_link
        self.prefix = frame_prefix.lstrip('/')
        self.history = history
        self.tf_buffer = tf_buffer

    def to_base(self, header: Header, current: dict[str, float]) -> np.ndarray:
        """
        Return the (4, 4) pose of ``header.frame_id`` in the base frame at the header's stamp.

        current: the joint positions now (used for a zero stamp, or without any history).
        Raises FrameRefused with the reason when the frame is unknown or its pose at that
        time is not known.
        """
        frame = header.frame_id.lstrip('/')
        if self.prefix and frame.startswith(self.prefix):
            frame = frame[len(self.prefix):]
        if frame in ('', self.base_link):
            return np.eye(4)
        if frame in self.tree.links:
            return self.tree.link_pose(self.base_link, frame,
                                       self.positions_at(header, current))
        if self.tf_buffer is None:
            raise FrameRefused(f'frame {frame!r} is neither the base frame {self.base_link!r} '
                               'nor a link of the robot, and tf2_ros is not installed to look '
                               'it up')
        try:
            tf = self.tf_buffer.lookup_transform(self.base_link, frame,
                                                 Time.from_msg(header.stamp))
        except Exception as exc:  # noqa: B902  (tf2 raises several unrelated exception types)
            raise FrameRefused(f'no transform from {frame!r} to {self.base_link!r}: '
                               f'{exc}') from exc
        return conv.transform_to_matrix(tf.transform)

    def positions_at(self, header: Header, current: dict[str, float]) -> dict[str, float]:
        """
        Return joint positions at the header's stamp.

        A target in a frame that moves with the arm means that frame at the target's stamp;
        a zero stamp means now. Outside the joint_states history the target is refused:
        resolving it at another time would put it somewhere else.
        """
        stamp = conv.stamp_ns(header.stamp) * 1e-9
        if not stamp or not len(self.history):
            return dict(current)
        positions = self.history.at(stamp)
        if positions is None:
            oldest, newest = self.history.span() or (0.0, 0.0)
            raise FrameRefused(f'target in frame {header.frame_id!r} stamped {stamp:.3f} is '
                               f'outside the joint_states history [{oldest:.3f}, '
                               f'{newest:.3f}]: where that frame was then is not known (stamp '
                               'it now, or 0 for "now")')
        return positions


def current_positions(feedback: tuple | None, names: Sequence[str],
                      q: np.ndarray | None) -> dict[str, float]:
    """Return the last joint_states positions, with the chain joints set to ``q``."""
    positions = {name: float(v) for name, v in zip(*feedback[:2])
                 if math.isfinite(v)} if feedback else {}
    if q is not None:
        positions.update(zip(names, (float(v) for v in q)))
    return positions
