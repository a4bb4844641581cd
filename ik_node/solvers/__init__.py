# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Solver families; importing this package registers every method with ``ik_node.solve``."""

from functools import partial

from ik_node.solve import register_method
from ik_node.solvers.jacobian import solve_jacobian

for _name in ('dls', 'pinv', 'jt'):
    register_method(_name, partial(solve_jacobian, method=_name))

# The FABRIK family registers 'fabrik', 'ccd' and 'hybrid' on import (hybrid reuses the
# Jacobian solver, so it comes after it).
from ik_node.solvers import ccd, fabrik, hybrid  # noqa: E402, F401, I100
