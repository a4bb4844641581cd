# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Stream or goal: how the tracker takes a new target.

A target within :data:`STREAM_DISTANCE` [m] and :data:`STREAM_ANGLE` [rad] of the last one
taken is a step of a stream (a dragged marker, a teleop stream, a scripted path): it is solved
warm from the arm with the node's own budget and blended into the motion. Any other target is
a goal: searched for collision-free answers, reached along a checked (or planned) path, or
refused. The target the arm is on its way to, sent again, is a repeat: answered again, the
motion left as it is.
"""

from ik_node.spatial.pose import pose_error
import numpy as np

__all__ = ['STREAM_DISTANCE', 'STREAM_ANGLE', 'is_repeat', 'is_stream_step']

STREAM_DISTANCE = 0.05
STREAM_ANGLE = 0.35


def is_repeat(last: np.ndarray | None, target: np.ndarray, moving: bool) -> bool:
    """Return True if ``target`` is ``last`` (the one in force) sent again while moving."""
    return (last is not None and moving and target.shape == last.shape
            and bool(np.array_equal(target, last)))


def is_stream_step(last: np.ndarray | None, target: np.ndarray, stream: bool,
                   commanding: bool) -> bool:
    """
    Return True if ``target`` ((4, 4), (3,), a tree's (t, 4, 4)) is a stream step after ``last``.

    stream: the caller says so (a dragged marker: its poses may be far apart on a busy
    queue); commanding: the arm position is known (else every target is a goal).
    """
    if last is None or last.shape != target.shape or not commanding:
        return False
    if stream:
        return True
    if target.shape == (3,):
        return bool(np.linalg.norm(target - last) <= STREAM_DISTANCE)
    # A tree's target holds a pose per tip (t, 4, 4): a step when every tip's is one.
    for a, b in zip(last.reshape(-1, 4, 4), target.reshape(-1, 4, 4)):
        pe, oe = pose_error(a, b)
        if pe > STREAM_DISTANCE or oe > STREAM_ANGLE:
            return False
    return True
