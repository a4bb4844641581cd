# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Solver families behind ``ik_node.solve``: one kernel module per family, one restart driver.

The table of methods is :data:`ik_node.solvers.table.METHODS`; importing this package
registers nothing.
"""
