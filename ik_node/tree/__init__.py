# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Several end effectors on one URDF tree: the model and its solve.

:mod:`ik_node.tree.chain` holds :class:`TreeChain` (one base link, several tip links, FK and
Jacobians per tip); :mod:`ik_node.tree.solve` holds :func:`solve_tree` and
:class:`TreeSolver` (methods 'dls' and 'fabrik'); :mod:`ik_node.tree.targets` the targets
and results, :mod:`ik_node.tree.options` the options.
"""

from ik_node.tree.chain import TreeChain
from ik_node.tree.options import TreeSolveOptions
from ik_node.tree.solve import solve_tree, TreeSolver
from ik_node.tree.targets import (MODE_FREE, MODE_HOLD, MODE_TARGET, TipResult, TipTarget,
                                  TreeIKResult)

__all__ = ['TreeChain', 'solve_tree', 'TreeSolver', 'TipTarget', 'TipResult', 'TreeIKResult',
           'TreeSolveOptions', 'MODE_TARGET', 'MODE_HOLD', 'MODE_FREE']
