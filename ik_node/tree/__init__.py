# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Several end effectors on one URDF tree: the model and its solve.

:mod:`ik_node.tree.chain` holds :class:`TreeChain` (one base link, several tip links, FK and
Jacobians per tip); :mod:`ik_node.tree.solve` holds :func:`solve_tree` and its records.
"""

from ik_node.tree.chain import TreeChain
from ik_node.tree.solve import (MODE_FREE, MODE_HOLD, MODE_TARGET, solve_tree, TipResult,
                                TipTarget, TreeIKResult, TreeSolveOptions)

__all__ = ['TreeChain', 'solve_tree', 'TipTarget', 'TipResult', 'TreeIKResult',
           'TreeSolveOptions', 'MODE_TARGET', 'MODE_HOLD', 'MODE_FREE']
