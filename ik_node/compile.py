# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
``ik-compile``: compile the package's kernels into numba's disk cache, once per install.

Without it each solver method compiles on its first call (up to a minute). It compiles in two
processes side by side, each running a lane of groups one after the other (:data:`LANES`):
the collision checks and the solver's objectives first, which every solve kernel calls, then
the restart driver with every built-in method, ``solve``'s entry and the driver's helpers that
a registered method's solve calls from Python; beside them the point chains and the motion
layer's checks (paths, the jog's guards, the tracker's), then, once the collision group is
cached, the tree solves, and last ``solve_batch``'s entry, which calls the driver as ``solve``'s
entry does (each entry compiles the driver's code into itself again: the two side by side
once the driver is cached). A group that calls another
group's kernels starts only when that group is done (:data:`AFTER`), so it loads them from
the cache instead of compiling them a second time at the same moment. Then it marks the
cache compiled (:func:`ik_node._jit.compiled`). The ``ik_node`` node started on a fresh
install runs it in the background; ``colcon build`` or ``pip install`` followed by
``ik-compile`` avoids that.

Exit status: 0 when compiled (or already compiled), 1 when a group failed.
"""

import argparse
import fcntl
import sys
import time
from typing import IO, List, Optional, Sequence

__all__ = ['main', 'GROUPS', 'LANES', 'AFTER']


def _demo_arm():
    from ik_node import Chain, share_path
    return Chain.from_urdf(share_path(), 'base_link', 'tool0')


def _demo_obstacles() -> list:
    """Return the obstacles every group compiles with: the floor and a sphere."""
    from ik_node import HalfSpace, Sphere
    return [HalfSpace((0, 0, 1), 0.0), Sphere((0.5, 0.0, 0.3), 0.1)]


def _collision() -> None:
    """Compile the collision checks and the objectives (with the clearance) a solve calls."""
    import ik_node
    from ik_node.collision.clearance import CollisionClearance
    import numpy as np
    chain = _demo_arm()
    obstacles = _demo_obstacles()
    chain.collisions(chain.mid, obstacles)
    chain.min_distance(chain.mid, obstacles)
    # The solve kernels' objectives, with the types the solver passes them (one packed
    # record type for every set of objectives).
    q = np.array(chain.mid)
    for objective in (ik_node.JointLimitAvoidance(1.0),
                      CollisionClearance(obstacles, margin=0.05)):
        objective.cost(chain, q)
        objective.gradient(chain, q)


def _motion() -> None:
    """Compile the motion layer's checks: paths, samples, the jog's guards, the tracker's."""
    from ik_node.collision import checker
    from ik_node.motion import guards
    from ik_node.motion.jog import Jogger
    from ik_node.motion.trajectory import KinematicLimits
    import numpy as np
    chain = _demo_arm()
    obstacles = _demo_obstacles()
    chain.path_collides(chain.lower, chain.upper, obstacles=obstacles)
    checker.samples_collide(chain, chain.lower, chain.upper, 0.05, obstacles)
    # The jog's guards (kinematics, collision distances and their own kernel).
    Jogger(chain, KinematicLimits.of(np.ones(chain.n), np.ones(chain.n), np.ones(chain.n)),
           obstacles=obstacles).warm_up()
    # The tracker's lag and stall checks over its rings.
    guards.load_checks(chain)


def _driver() -> None:
    """
    Compile the restart driver, with every built-in method's attempts in it.

    Called as ``solve`` and ``solve_batch`` call it (one record type for every method and
    option), so that their entries, compiled next in the two lanes side by side, load it.
    """
    import ik_node
    from ik_node.solvers.restarts import drive
    from ik_node.solvers.target_records import Target
    import numpy as np
    chain = _demo_arm()
    rec, ctx = ik_node.Solver(chain).compiled_records(True)
    T = chain.fk(chain.mid)
    position, rotation = np.array(T[:3, 3]), np.array(T[:3, :3])
    q0 = np.array(chain.mid, dtype=np.float64)
    drive(rec, ctx, (Target(position, rotation, True), Target(position, np.eye(3), False)),
          q0, q0.copy(), q0.copy(), 0.0)


def _single() -> None:
    """Compile ``solve``'s entry with every built-in method and objectives."""
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
    # Collision-aware solves run the same kernels (the collision check is a value of the
    # records, not a type).
    obstacles = _demo_obstacles()
    for method in ('dls', 'pinv', 'jt'):
        ik_node.solve(chain, target, q0=chain.mid, method=method, max_iterations=2,
                      avoid_collisions=True, obstacles=obstacles)
    ik_node.solve(chain, target, q0=chain.mid, max_iterations=2, max_joint_change=0.5)


def _batch() -> None:
    """Compile ``solve_batch``'s entry (pose and point targets, with collisions)."""
    import ik_node
    import numpy as np
    chain = _demo_arm()
    target = chain.fk(chain.mid)
    ik_node.solve_batch(chain, np.stack([target, target]), max_attempts=1)
    ik_node.solve_batch(chain, np.stack([target[:3, 3], target[:3, 3]]), max_attempts=1)
    obstacles = _demo_obstacles()
    ik_node.solve_batch(chain, np.stack([target, target]), max_attempts=1,
                        avoid_collisions=True, obstacles=obstacles)


def _points() -> None:
    """Compile FABRIK and CCD on point chains and point trees, and on arms (no collision)."""
    import ik_node
    from ik_node.options import SolveOptions
    from ik_node.solvers.arm_fabrik import arm_attempt
    from ik_node.solvers.attempts import BUILDERS
    from ik_node.solvers.target_records import Target
    import numpy as np
    zigzag = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.3], [0.1, 0.0, 0.6], [0.0, 0.0, 0.9]])
    ik_node.fabrik(zigzag, [0.3, 0.2, 0.5], max_iterations=2)
    ik_node.fabrik(zigzag, [0.3, 0.2, 0.5], max_iterations=2, constraints=[
        None, ik_node.BallJoint(0.5), ik_node.HingeJoint((1.0, 0.0, 0.0), -1.0, 1.0)])
    ik_node.ccd(zigzag, [0.3, 0.2, 0.5], max_iterations=2)
    ik_node.fabrik_tree(zigzag, [-1, 0, 1, 2], {3: [0.3, 0.2, 0.5]}, max_iterations=2)
    # The arm methods' attempt, with the types the driver passes it (the driver group then
    # loads it): it calls no collision kernel, so it compiles here while the
    # collision group runs.
    chain = _demo_arm()
    arm = BUILDERS['fabrik'](chain, SolveOptions(), True).arm
    T = chain.fk(chain.mid)
    arm_attempt(chain.model, chain.limits, Target(np.array(T[:3, 3]), np.array(T[:3, :3]), True),
                arm, chain.mid.copy())


def _registered() -> None:
    """Compile the driver's helpers that a registered method's solve calls from Python."""
    from ik_node.options import SolveOptions
    from ik_node.solvers.registered import RegisteredSolve
    chain = _demo_arm()
    target = chain.fk(chain.mid)

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
    obstacles = _demo_obstacles()
    for method in ('dls', 'fabrik'):
        for avoid in (False, True):
            opts = TreeSolveOptions(max_iterations=2, max_attempts=2, avoid_collisions=avoid,
                                    obstacles=obstacles if avoid else ())
            solve_tree(tree, {'tool0': T}, tree.mid, opts, method)
    tree.collisions(tree.mid, obstacles)
    tree.min_distance(tree.mid, obstacles)
    tree.path_collides(tree.lower, tree.upper, obstacles=obstacles)


GROUPS = {'batch': _batch, 'collision': _collision, 'driver': _driver, 'motion': _motion,
          'points': _points, 'registered': _registered, 'single': _single, 'tree': _tree}
# Two processes side by side, each compiling its lane's groups in turn: the collision checks
# and the driver with every method (the critical path) in one, the rest balanced against it
# in the other. Into an empty cache on 2 idle cores the lanes end at 106 s and 109 s (120 s
# when one group compiled the driver into solve's entry and then into solve_batch's).
LANES = (('collision', 'driver', 'single', 'registered'), ('points', 'motion', 'tree', 'batch'))
# group -> the group whose kernels it calls (with what that one needed): it starts once that
# group is in the cache. The groups share only small helpers (forward kinematics, ...)
# otherwise; a registered method's helpers call the Jacobian attempt's kernels.
AFTER = {'driver': 'collision', 'motion': 'collision', 'tree': 'collision', 'single': 'driver',
         'batch': 'driver', 'registered': 'driver'}


# A lane process reports each group on stdout, and hears of the other lane's on stdin.
_REPORT = 'ik-compile-lane:'


def _lane(index: int) -> int:
    """
    Compile the groups of lane ``index`` in this process, in turn; return 0.

    One process per lane, not per group: a process compiles numba's own helpers (np.empty,
    np.dot, ...) anew, which numba does not cache on disk, and loads the kernels the
    groups before it left in the cache; in one process they are in memory already. A group
    that needs another lane's group (:data:`AFTER`) waits for its report (on stdin).
    """
    import traceback
    status: dict = {}

    def report(name: str, ok: bool) -> None:
        status[name] = ok
        print(f'{_REPORT} {"done" if ok else "failed"} {name}', flush=True)

    for name in LANES[index]:
        needed = AFTER.get(name)
        while needed is not None and needed not in status:
            line = sys.stdin.readline()
            if not line:                          # the parent is gone
                return 1
            word, other = line.split()
            status[other] = word == 'done'
        if needed is not None and not status[needed]:
            report(name, False)
            continue
        try:
            GROUPS[name]()
        except Exception:
            traceback.print_exc()
            report(name, False)
        else:
            report(name, True)
    return 0


def _run_lanes(failed: list) -> None:
    """Run a process per lane; pass each one's reports to the others; collect the failed."""
    import subprocess
    import threading
    lanes = [subprocess.Popen([sys.executable, '-m', 'ik_node.compile', '--lane', str(i)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for i in range(len(LANES))]
    ins: List[IO[str]] = []
    outs: List[IO[str]] = []
    for lane in lanes:
        assert lane.stdin is not None and lane.stdout is not None     # (pipes, as asked)
        ins.append(lane.stdin)
        outs.append(lane.stdout)
    lock = threading.Lock()

    def tell_others(i: int, line: str) -> None:
        with lock:
            for j, other in enumerate(ins):
                if j != i:
                    try:
                        other.write(line)
                        other.flush()
                    except (BrokenPipeError, ValueError):
                        pass                      # that lane has ended

    def follow(i: int) -> None:
        reported = set()
        for line in outs[i]:
            if not line.startswith(_REPORT):
                print(line, end='', flush=True)
                continue
            word, name = line[len(_REPORT):].split()
            reported.add(name)
            if word != 'done':
                failed.append(name)
            tell_others(i, f'{word} {name}\n')
        lanes[i].wait()
        for name in LANES[i]:
            if name not in reported:              # the lane ended early (a crash)
                failed.append(name)
                tell_others(i, f'failed {name}\n')

    threads = [threading.Thread(target=follow, args=(i,)) for i in range(len(lanes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for stdin in ins:
        try:
            stdin.close()
        except BrokenPipeError:
            pass                                  # (a report it could not take: ended)


def _compile_all(quiet: bool) -> int:
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
        failed: list = []
        _run_lanes(failed)
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
    p.add_argument('--group', choices=sorted(GROUPS),
                   help='compile one group only (no mark)')
    p.add_argument('--quiet', action='store_true', help='print nothing when it worked')
    p.add_argument('--lane', type=int, choices=range(len(LANES)), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    from ik_node import _jit
    if not _jit.JIT_ENABLED:
        if not args.quiet:
            print('ik-compile: numba is not installed (or IK_NODE_DISABLE_JIT is set): '
                  'nothing to compile')
        return 0
    if args.group:
        GROUPS[args.group]()
        return 0
    if args.lane is not None:
        return _lane(args.lane)
    return _compile_all(args.quiet)


if __name__ == '__main__':
    sys.exit(main())
