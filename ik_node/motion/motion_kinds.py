# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
How the arm goes to an answered target: the ``motion`` of a goal plan or a solve outcome.

Names only, in a module of their own: the records that carry them
(:class:`ik_node.motion.outcome.SolveOutcome`, read by sim_arm's stepper and the ROS outputs)
then do not import the goal search, and with it the solvers and numba.
"""

__all__ = ['DIRECT', 'PLANNED', 'REFUSED', 'PENDING', 'SUPERSEDED']

# The straight joint line; a path around obstacles; the arm does not move for it.
DIRECT, PLANNED, REFUSED = 'direct', 'planned', 'refused'
# A goal taken mid-motion whose path is planned once the arm has braked (the tracker's).
PENDING = 'pending'
# A goal dropped before its search ended: a newer target (or a restart of the command) came.
SUPERSEDED = 'superseded'
