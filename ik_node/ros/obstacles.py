# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The obstacles the node keeps the arm out of.

The floor and static shapes come from parameters, live shapes from visualization_msgs markers
on the obstacles topic (base frame only).
"""

from typing import Any, Callable

from ik_node.errors import IKError
from ik_node.ros import conversions as conv
import numpy as np
from visualization_msgs.msg import Marker, MarkerArray

__all__ = ['LiveObstacles', 'obstacles_in_force']


class LiveObstacles:
    """Shapes from obstacle markers, by (ns, id); DELETE and DELETEALL remove them."""

    def __init__(self) -> None:
        self.shapes: dict[tuple[str, int], Any] = {}

    def update(self, msg: MarkerArray, base_frame: str, warn: Callable[[str], None]) -> bool:
        """Apply the markers of ``msg``; return True if the shapes changed (not a repeat)."""
        before = self._signature()
        for m in msg.markers:
            key = (m.ns, m.id)
            if m.action == Marker.DELETEALL:
                self.shapes.clear()
            elif m.action == Marker.DELETE:
                self.shapes.pop(key, None)
            elif m.header.frame_id.lstrip('/') not in ('', base_frame):
                warn(f'obstacle marker {m.ns}/{m.id} ignored: its frame '
                     f'{m.header.frame_id!r} is not the base frame {base_frame!r}')
            else:
                try:
                    self.shapes[key] = conv.marker_obstacle(m)
                except (IKError, ValueError) as exc:
                    warn(f'obstacle marker ignored: {exc}')
        return self._signature() != before

    def _signature(self) -> dict:
        return {key: (shape.name, shape.row.tobytes()) for key, shape in self.shapes.items()}


def obstacles_in_force(values: dict[str, Any], live: LiveObstacles) -> list:
    """Return the obstacles in force: floor, static spheres and boxes, live markers."""
    from ik_node.collision import Box, HalfSpace, Sphere
    shapes: list = []
    if values['floor']:
        shapes.append(HalfSpace(normal=(0.0, 0.0, 1.0), offset=values['floor_height'],
                                name='floor'))
    s = values['obstacle_spheres']
    for k in range(0, len(s), 4):
        shapes.append(Sphere(center=s[k:k + 3], radius=s[k + 3], name=f'sphere {k // 4}'))
    b = values['obstacle_boxes']
    for k in range(0, len(b), 6):
        T = np.eye(4)
        T[:3, 3] = b[k:k + 3]
        shapes.append(Box(pose=T, size=b[k + 3:k + 6], name=f'box {k // 6}'))
    shapes.extend(live.shapes.values())
    return shapes
