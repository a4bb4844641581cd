# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The sub-bases of a URDF tree and where FABRIK's forward pass puts them, for drawing.

A sub-base is a link where the paths of two tips part (a torso between two arms, a palm
between fingers). FABRIK on a tree (Aristidou and Lasenby 2011, section 4.2; the rule of
:mod:`ik_node.pointchain.point_tree` and :mod:`ik_node.tree.fabrik`) moves each tip to its
target, and every point proposes to its parent the point at their link length on the line
toward the parent's place; a sub-base takes the **centroid** of its branches' proposals.

:func:`forward_sub_bases` runs that forward pass once on the tree's points at the drawn
joint values (the base, the origin of every moving joint's child link, the sub-bases, the
tips) toward the tips' target positions, and returns each sub-base's proposals and their
centroid, so a page can show the rule at work on a URDF tree as the point-tree playground
does. It is display only: the solver's own pass (joint frames, pose tasks) is in
:mod:`ik_node.tree.fabrik`.
"""

from typing import Mapping, NamedTuple, Sequence

from ik_node.model.link_tree import RobotTree
import numpy as np

__all__ = ['sub_bases', 'SubBase', 'tree_points', 'forward_pass', 'forward_sub_bases']


class SubBase(NamedTuple):
    """
    One sub-base in a forward pass: its link, where it is, its branches' proposals, centroid.

    at (3,), proposals (k, 3) (one per branch with a target below it), centroid (3,) [m],
    base frame.
    """

    link: str
    at: np.ndarray
    proposals: np.ndarray
    centroid: np.ndarray


def sub_bases(robot: RobotTree, base_link: str, tips: Sequence[str]) -> list[str]:
    """Return the links below ``base_link`` (itself included) where two tips' paths part."""
    children: dict[str, set] = {}
    for tip in tips:
        path = robot.ancestors(tip)
        path = path[path.index(base_link):]
        for a, b in zip(path, path[1:]):
            children.setdefault(a, set()).add(b)
    return [link for link, below in children.items() if len(below) > 1]


def tree_points(robot: RobotTree, base_link: str,
                tips: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """
    Return (links, parents (N,)): the point tree of the tips' paths, parents first.

    Kept links: ``base_link`` (node 0, parent -1), the child of every moving joint, the
    sub-bases and the tips; fixed links between them are rigid and left out.
    """
    parts = set(sub_bases(robot, base_link, tips)) | set(tips)
    moving = {j.child for j in robot.joints if j.moves}
    links, parents = [base_link], [-1]
    for tip in tips:
        path = robot.ancestors(tip)
        up = 0
        for link in path[path.index(base_link) + 1:]:
            if link not in moving and link not in parts:
                continue
            if link not in links:
                links.append(link)
                parents.append(up)
            up = links.index(link)
    return links, np.array(parents, dtype=int)


def forward_pass(points: np.ndarray, parents: np.ndarray,
                 targets: Mapping[int, np.ndarray]) -> tuple[np.ndarray, dict[int, list]]:
    """
    Return (f, proposals): one FABRIK forward pass on a point tree, leaves to root.

    points (N, 3) [m], parents (N,) (parents[i] < i); targets {leaf: (3,)}. f (N, 3): the
    forward-pass places (NaN for nodes with no target below); proposals {node: [(3,), ...]}:
    what each branch proposed to node (a sub-base has several; its f is their centroid).
    """
    N = len(points)
    f = np.full((N, 3), np.nan)
    proposals: dict[int, list] = {}
    for i in range(N - 1, -1, -1):
        if i in targets:
            f[i] = np.asarray(targets[i], dtype=float)
        elif i in proposals:
            f[i] = np.mean(proposals[i], axis=0)
        else:
            continue
        j = int(parents[i])
        if j < 0:
            continue
        length = np.linalg.norm(points[i] - points[j])
        v = points[j] - f[i]
        nv = np.linalg.norm(v)
        proposals.setdefault(j, []).append(f[i] + (length * v / nv if nv > 0.0 else 0.0))
    return f, proposals


def forward_sub_bases(robot: RobotTree, arm, q: np.ndarray,
                      targets: np.ndarray) -> list[SubBase]:
    """
    Return each sub-base of ``arm`` (a TreeArm) in one forward pass from ``q`` to ``targets``.

    targets (t, 4, 4): each tip's target pose in the base frame (its position is used).
    """
    links, parents = tree_points(robot, arm.base_link, arm.tip_links)
    positions = arm.tree.positions(q)
    points = np.array([robot.link_pose(arm.base_link, link, positions)[:3, 3]
                       for link in links])
    f, proposals = forward_pass(points, parents, {
        links.index(tip): np.asarray(targets[i])[:3, 3] for i, tip in enumerate(arm.tip_links)})
    out = []
    for link in sub_bases(robot, arm.base_link, arm.tip_links):
        node = links.index(link)
        got = np.array(proposals.get(node, np.zeros((0, 3))))
        out.append(SubBase(link, points[node], got, f[node]))
    return out
