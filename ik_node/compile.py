# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
``ik-compile``: compile the package's kernels into numba's disk cache, once per install.

Without it each solver method compiles on its first call (up to a minute). It runs two groups
of kernels side by side, one process each (the restart driver with every built-in method,
objectives and the batch kernel; point chains and the collision checks), then, one after the
other, what combines them (collision-aware solves, the planner's check) and the tree solves
(which run the same driver on the tips' stacked records), then marks the cache compiled
(:func:`ik_node._jit.compiled`). The ``ik_node`` node started on a fresh install runs it in the
background; ``colcon build`` or ``pip install`` followed by ``ik-compile`` avoids that.

Exit status: 0 when compiled (or already compiled), 1 when a group failed.
"""

import argparse
import fcntl
import sys
import time
from typing import Optional, Sequence

__all__ = ['main', 'GROUPS']


def _demo_arm():
    from ik_node import Chain, share_path
    return Chain.from_urdf(share_path(), 'base_link', 'tool0')


def _jacobian() -> None:
    """Compile the restart driver with every built-in method, objectives, one and batched."""
    import ik_node
    import numpy as np
    chain = _demo_arm()
    # One kernel runs every built-in method (one record type): the first method compiles it.
    ik_node.warm_up(chain)
    target = chain.fk(chain.mid)
    objectives = [ik_node.JointLimitAvoidance(1.0), ik_node.Manipulability(0.5),
                  ik_node.ObstacleClearance([[0.3, 0.0, 0.5, 0.1]], margin=0.1)]
    ik_node.solve(chain, target, q0=chain.mid, restarts=False, max_iterations=2,
                  objectives=objectives)
    q = np.array(chain.mid)
    objectives[0].cost(chain, q)        # the objectives' own cost (web view, users)
    objectives[0].gradient(chain, q)
    ik_node.solve_batch(chain, np.stack([target, target]), max_attempts=1)
    ik_node.solve_batch(chain, np.stack([target[:3, 3], target[:3, 3]]), max_attempts=1)


def _points() -> None:
    """Compile FABRIK and CCD on point chains, and the collision checks."""
    import ik_node
    import numpy as np
    chain = _demo_arm()
    zigzag = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.3], [0.1, 0.0, 0.6], [0.0, 0.0, 0.9]])
    ik_node.fabrik(zigzag, [0.3, 0.2, 0.5], max_iterations=2)
    ik_node.fabrik(zigzag, [0.3, 0.2, 0.5], max_iterations=2, constraints=[
        None, ik_node.BallJoint(0.5), ik_node.HingeJoint((1.0, 0.0, 0.0), -1.0, 1.0)])
    ik_node.ccd(zigzag, [0.3, 0.2, 0.5], max_iterations=2)
    ik_node.fabrik_tree(zigzag, [-1, 0, 1, 2], {3: [0.3, 0.2, 0.5]}, max_iterations=2)
    obstacles = [ik_node.HalfSpace((0, 0, 1), 0.0), ik_node.Sphere((0.5, 0.0, 0.3), 0.1)]
    chain.collisions(chain.mid, obstacles)
    chain.min_distance(chain.mid, obstacles)
    chain.path_collides(chain.lower, chain.upper, obstacles=obstacles)


def _combined() -> None:
    """Compile what uses both groups' kernels: collision-aware solves and the planner's check."""
    import ik_node
    from ik_node.collision import checker
    import numpy as np
    chain = _demo_arm()
    target = chain.fk(chain.mid)
    obstacles = [ik_node.HalfSpace((0, 0, 1), 0.0), ik_node.Sphere((0.5, 0.0, 0.3), 0.1)]
    for method in ('dls', 'pinv', 'jt'):
        ik_node.solve(chain, target, q0=chain.mid, method=method, max_iterations=2,
                      avoid_collisions=True, obstacles=obstacles)
    ik_node.solve(chain, target, q0=chain.mid, max_iterations=2, max_joint_change=0.5)
    ik_node.solve_batch(chain, np.stack([target, target]), max_attempts=1,
                        avoid_collisions=True, obstacles=obstacles)
    checker.samples_collide(chain, chain.lower, chain.upper, 0.05, obstacles)
    # The jog's guards (kinematics, collision distances and their own kernel).
    from ik_node.motion.jog import Jogger
    from ik_node.motion.trajectory import KinematicLimits
    Jogger(chain, KinematicLimits.of(np.ones(chain.n), np.ones(chain.n), np.ones(chain.n)),
           obstacles=obstacles).warm_up()
    # A registered method's solve calls the driver's helpers from Python (their own entries).
    from ik_node.options import SolveOptions
    from ik_node.solvers.registered import RegisteredSolve

    def prepare(chain, target, opts):
        return lambda start, budget: (start, 0)

    for opts in (SolveOptions(max_attempts=3), SolveOptions(max_attempts=3, avoid_collisions=True,
                                                            max_joint_change=0.5)):
        registered = RegisteredSolve(chain, opts, 'compile', prepare)
        for t in (chain.fk(chain.mid + 0.3), target[:3, 3] + 0.01):
            registered.solve(t, chain.mid.copy())


def _tree() -> None:
    """
    Compile the tree solve (both methods, with and without collisions) and its checks.

    The kernels take the tips stacked in one record (:class:`ik_node.tree.records.TreeModel`),
    so a one-tip tree on the demo arm compiles what every tree runs, whatever its tip count.
    """
    import ik_node
    from ik_node.tree import solve_tree, TreeChain, TreeSolveOptions
    tree = TreeChain.from_urdf(ik_node.share_path(), 'base_link', ['tool0'])
    T = tree.fk(tree.mid)[0]
    obstacles = [ik_node.HalfSpace((0, 0, 1), 0.0), ik_node.Sphere((0.5, 0.0, 0.3), 0.1)]
    for method in ('dls', 'fabrik'):
        for avoid in (False, True):
            opts = TreeSolveOptions(max_iterations=2, max_attempts=2, avoid_collisions=avoid,
                                    obstacles=obstacles if avoid else ())
            solve_tree(tree, {'tool0': T}, tree.mid, opts, method)
    tree.collisions(tree.mid, obstacles)
    tree.min_distance(tree.mid, obstacles)
    tree.path_collides(tree.lower, tree.upper, obstacles=obstacles)


# Groups that share no solver kernel (only small helpers such as forward kinematics), so
# that neither compiles the other's; then what combines them (after both, alone).
GROUPS = {'jacobian': _jacobian, 'points': _points}
COMBINED = {'combined': _combined, 'tree': _tree}


def _compile_all(quiet: bool) -> int:
    import subprocess
    from ik_node import _jit
    lock_path = _jit.COMPILE_LOG.with_name('ik_node_compile.lock')
    lock_path.parent.mkdir(exist_ok=True)
    with open(lock_path, 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)     # one compile at a time; a second one waits
        # A cache compiled from other sources goes first (the mark with it): numba would
        # load a module's kernels with the old code of the kernels they inlined.
        _jit.drop_stale_cache()
        if _jit.compiled():
            if not quiet:
                print('ik-compile: the kernels are compiled already')
            return 0
        t0 = time.monotonic()
        groups = {name: subprocess.Popen([sys.executable, '-m', 'ik_node.compile',
                                          '--group', name]) for name in GROUPS}
        failed = [name for name, g in groups.items() if g.wait() != 0]
        if not failed:
            for name in COMBINED:
                done = subprocess.run([sys.executable, '-m', 'ik_node.compile', '--group', name])
                failed += [name] if done.returncode != 0 else []
        if failed:
            print(f'ik-compile: compiling {", ".join(failed)} failed', file=sys.stderr)
            return 1
        _jit.mark_compiled()
    if not quiet:
        print(f'ik-compile: compiled the kernels in {time.monotonic() - t0:.0f} s')
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command; return its exit status."""
    p = argparse.ArgumentParser(prog='ik-compile', description=__doc__.split('\n')[1])
    p.add_argument('--group', choices=sorted(GROUPS) + sorted(COMBINED),
                   help='compile one group only (no mark)')
    p.add_argument('--quiet', action='store_true', help='print nothing when it worked')
    args = p.parse_args(argv)
    from ik_node import _jit
    if not _jit.JIT_ENABLED:
        if not args.quiet:
            print('ik-compile: numba is not installed (or IK_NODE_DISABLE_JIT is set): '
                  'nothing to compile')
        return 0
    if args.group:
        {**GROUPS, **COMBINED}[args.group]()
        return 0
    return _compile_all(args.quiet)


if __name__ == '__main__':
    sys.exit(main())
