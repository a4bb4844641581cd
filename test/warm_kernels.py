# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Compile (or load from numba's disk cache) one group of the package's kernels.

Usage: python test/warm_kernels.py GROUP   (GROUP: jacobian or points)

conftest.py runs both groups side by side, before the test workers start: each kernel
compiles once per session, the two groups on the two cores, and the workers and the node
processes they start load the cache. The groups share no solver kernel (only small helpers
such as forward kinematics), so neither compiles the other's. Public calls only, so the
groups follow the kernels' changes.
"""

from pathlib import Path
import sys

import ik_node
import numpy as np

URDF_DIR = Path(__file__).parent / 'urdf'


def _ur5() -> ik_node.Chain:
    return ik_node.Chain.from_urdf(URDF_DIR / 'ur5.urdf', 'base_link', 'tool0')


def jacobian() -> None:
    """Compile the Jacobian methods, with and without null-space objectives, one and batched."""
    chain = _ur5()
    ik_node.warm_up(chain, ['dls', 'pinv', 'jt'])
    target = chain.fk(chain.mid)
    ik_node.solve(chain, target, q0=chain.mid, restarts=False, max_iterations=2, objectives=[
        ik_node.JointLimitAvoidance(1.0), ik_node.Manipulability(0.5),
        ik_node.ObstacleClearance([[0.3, 0.0, 0.5, 0.1]], margin=0.1)])
    ik_node.solve_batch(chain, np.stack([target, target]), max_attempts=1)
    ik_node.solve_batch(chain, np.stack([target[:3, 3], target[:3, 3]]), max_attempts=1)


def points() -> None:
    """Compile FABRIK and CCD (URDF arms and point chains) and the collision checks."""
    # Not 'hybrid': it runs the FABRIK and the dls kernels, one from each group.
    ik_node.warm_up(_ur5(), ['fabrik', 'ccd'])
    zigzag = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.3], [0.1, 0.0, 0.6], [0.0, 0.0, 0.9]])
    ik_node.fabrik(zigzag, [0.3, 0.2, 0.5], max_iterations=2)
    ik_node.fabrik(zigzag, [0.3, 0.2, 0.5], max_iterations=2, constraints=[
        None, ik_node.BallJoint(0.5), ik_node.HingeJoint((1.0, 0.0, 0.0), -1.0, 1.0)])
    ik_node.ccd(zigzag, [0.3, 0.2, 0.5], max_iterations=2)
    ik_node.fabrik_tree(zigzag, [-1, 0, 1, 2], {3: [0.3, 0.2, 0.5]}, max_iterations=2)
    chain = ik_node.Chain.from_urdf(URDF_DIR / 'collision_arm.urdf', 'base_link', 'tip')
    obstacles = [ik_node.HalfSpace((0, 0, 1), 0.0), ik_node.Sphere((0.5, 0.0, 0.3), 0.1)]
    chain.collisions(chain.mid, obstacles)
    chain.min_distance(chain.mid, obstacles)
    chain.path_collides(chain.lower, chain.upper, obstacles=obstacles)


GROUPS = {'jacobian': jacobian, 'points': points}

if __name__ == '__main__':
    GROUPS[sys.argv[1]]()
