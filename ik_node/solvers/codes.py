# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Named integer codes the compiled driver and the attempts share (kinds and outcomes)."""

__all__ = ['ATTEMPT_MAIN', 'ATTEMPT_PROBE', 'ATTEMPT_RESCUE', 'ATTEMPT_LAZY',
           'CODE_REACHED', 'CODE_OUT_OF_REACH', 'CODE_NOT_CONVERGED', 'CODE_SKIPPED',
           'CODE_POSITION_ONLY', 'CODE_TOO_FAR', 'CODE_BLOCKED']

# What an attempt is for: the method's own (toward the target), a position-only probe of
# the target's point, a local rescue from the seed, the method's own with the collision
# clearance left out (a Jacobian method tries each start so first, see
# ik_node.solvers.jacobian).
ATTEMPT_MAIN = 0
ATTEMPT_PROBE = 1
ATTEMPT_RESCUE = 2
ATTEMPT_LAZY = 3

# Outcome codes of a solve (worded as ik_node.result's STATUS_* by ik_node.solvers.outcome).
CODE_REACHED = 0
CODE_OUT_OF_REACH = 1
CODE_NOT_CONVERGED = 2
CODE_SKIPPED = 3          # not solved (an invalid target of a batch)
CODE_POSITION_ONLY = 4
CODE_TOO_FAR = 5
CODE_BLOCKED = 6
