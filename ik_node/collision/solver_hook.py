# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
What the restart driver calls for ``avoid_collisions``: the clearance objective and the check.

- :func:`clearance_objectives` gives the objectives to add to the solve's own (none unless
  ``avoid_collisions``);
- :func:`collision_reason` is the final check of an answer that met the tolerances: None
  when it is collision-free, else a reason naming the pair in contact; the driver then
  treats the attempt as failed and restarts.
"""

from typing import Optional

from ik_node.collision.clearance import CollisionClearance
from ik_node.errors import IKInputError

__all__ = ['clearance_objectives', 'collision_reason']


def clearance_objectives(chain, opts, task_rows: int = 6) -> tuple:
    """
    Return (CollisionClearance(...),) when ``opts.avoid_collisions``, else ().

    ``task_rows`` (6 for a pose, 3 for a position): with no more joints than task rows there
    is no null space to keep clear in, and only the final check and restarts act.
    """
    if not opts.avoid_collisions:
        if opts.obstacles:
            raise IKInputError('option obstacles needs avoid_collisions=True')
        return ()
    if chain.n <= task_rows:
        return ()
    return (CollisionClearance(tuple(opts.obstacles), opts.collision_margin,
                               opts.collision_weight),)


def collision_reason(chain, q, opts) -> Optional[str]:
    """Return None when ``q`` is collision-free (or collisions are off), else the reason."""
    if not opts.avoid_collisions:
        return None
    pairs = chain.collisions(q, opts.obstacles)
    if not pairs:
        return None
    a, b = pairs[0]
    more = f' (and {len(pairs) - 1} more pair(s))' if len(pairs) > 1 else ''
    return f'{a} collides with {b}{more}'
