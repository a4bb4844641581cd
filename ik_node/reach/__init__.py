# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Reachability and capability maps: which tool poses an arm reaches over a voxel grid.

:func:`reachability` solves, for every voxel centre and every tool orientation of a set,
whether the arm reaches that pose (with :func:`ik_node.solve_batch`), and returns a
:class:`ReachMap` (per voxel the fraction of orientations reached). Long runs are cut into
chunks written as they finish, so an interrupted run resumes; ``scheduler`` sends the chunks
to a Dask cluster instead (:mod:`ik_node.reach.cluster`).
"""

from ik_node.reach.grid import approach_rotations, Grid, map_memory
from ik_node.reach.run import load_map, reachability, ReachMap

__all__ = ['reachability', 'ReachMap', 'load_map', 'Grid', 'approach_rotations',
           'map_memory']
