# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Several end effectors at once: the tree solves against one chain per tip and against pink.

Robots (URDFs of the example-robot-data wheel):

- ``talos``: TALOS's upper body (``talos_data/robots/talos_reduced.urdf``), base_link ->
  both grippers: 16 joints (torso_1, torso_2 shared, 7 per arm), full poses of both hands;
  legs, head and grippers held at 0.
- ``allegro``: the Allegro right hand (``allegro_hand_description``), palm_link -> the four
  fingertips: 16 joints, 4 per finger, none shared; fingertip positions.

Targets: ``--count`` joint vectors of the tree drawn uniformly within the limits with
``numpy.random.default_rng(--seed)``, and the tips' poses there (reachable by construction).
Seed: mid-range, the same for every method. Success: every tip within 1 mm (and 0.01 rad for
poses), judged by the tree's FK (checked against pinocchio's in the same run).

- ``dls``, ``fabrik``: :class:`ik_node.tree.TreeSolver`, every tip at once; budget
  ``--timeout`` per target, random restarts within it.
- ``separate``: ``ik_node.Solver(method='dls')`` on each tip's chain in turn, each seeded
  with what the previous ones left (same tolerances, each with the budget); ``broke``
  counts targets where a tip met its target after its own solve and no longer does at the
  end (a later chain moved a shared joint).
- ``pink``: pink's differential IK (``pink.solve_ik``, one FrameTask per tip, QP solver
  daqp, its configuration and velocity limits) on pinocchio's model of the same joints
  (the rest locked at 0), iterated with dt = 1 (a Gauss-Newton step per iteration) from the
  seed until every tip is within tolerance, ``--pink-iterations`` or the budget; pink has
  no restarts.

Times are wall time per target after a warm-up solve, on whatever else the machine runs.

    .venv-bench/bin/python bench/bench_tree.py --count 200
"""

import argparse
import importlib.metadata
from pathlib import Path
import sys
import time

from common import add_common_arguments, check_kernels, eta_text, git_state, \
    machine_description, new_result_path, publish
import numpy as np

POSITION_TOLERANCE = 1e-3    # [m]
ORIENTATION_TOLERANCE = 1e-2  # [rad]
ROBOTS = {
    'talos': ('talos_data/robots/talos_reduced.urdf', 'base_link',
              ('gripper_left_base_link', 'gripper_right_base_link'), True),
    'allegro': ('allegro_hand_description/urdf/allegro_right_hand.urdf', 'palm_link',
                ('link_3.0_tip', 'link_7.0_tip', 'link_11.0_tip', 'link_15.0_tip'), False),
}
METHODS = ('dls', 'fabrik', 'separate', 'pink')


def robot_urdf(relative: str) -> Path:
    """Return the path of a URDF in the example-robot-data wheel."""
    dist = importlib.metadata.distribution('example-robot-data')
    for entry in dist.files or ():
        if entry.as_posix().endswith(relative):
            return Path(dist.locate_file(entry))
    sys.exit(f'example-robot-data has no {relative}')


def met(tree, q: np.ndarray, goals: np.ndarray, pose: bool) -> list[bool]:
    """Return, per tip, whether the tree's FK at ``q`` meets its goal."""
    from ik_node.spatial.pose import pose_error
    T = tree.fk(q)
    out = []
    for Ti, G in zip(T, goals):
        if pose:
            dp, do = pose_error(G, Ti)
            out.append(dp <= POSITION_TOLERANCE and do <= ORIENTATION_TOLERANCE)
        else:
            out.append(float(np.linalg.norm(G[:3, 3] - Ti[:3, 3])) <= POSITION_TOLERANCE)
    return out


class Pink:
    """pink's differential IK on pinocchio's model of the tree's joints."""

    def __init__(self, urdf: Path, tree, pose: bool, iterations: int):
        import pinocchio as pin
        from pink.tasks import FrameTask
        self.pin = pin
        full = pin.buildModelFromUrdf(str(urdf))
        keep = set(tree.joint_names)
        lock = [full.getJointId(n) for n in full.names[1:] if n not in keep]
        self.model = pin.buildReducedModel(full, lock, pin.neutral(full))
        assert self.model.nq == self.model.nv == tree.n, 'pink: a joint with nq != nv'
        self.data = self.model.createData()
        self.cols = [self.model.joints[self.model.getJointId(n)].idx_q
                     for n in tree.joint_names]
        self.tasks = [FrameTask(tip, position_cost=1.0,
                                orientation_cost=1.0 if pose else 0.0)
                      for tip in tree.tip_links]
        self.tree, self.pose, self.iterations = tree, pose, iterations

    def solve(self, goals: np.ndarray, q0: np.ndarray, timeout: float) -> np.ndarray:
        """Iterate pink from ``q0`` until every tip meets its goal; return the tree's q."""
        import pink
        pin = self.pin
        q = pin.neutral(self.model)
        q[self.cols] = q0
        cfg = pink.Configuration(self.model, self.data, q)
        for task, G in zip(self.tasks, goals):
            task.set_target(pin.SE3(G[:3, :3].copy(), G[:3, 3].copy()))
        end = time.perf_counter() + timeout
        for _ in range(self.iterations):
            if all(self._met(cfg, G, task.frame) for task, G in zip(self.tasks, goals)):
                break
            if time.perf_counter() > end:
                break
            v = pink.solve_ik(cfg, self.tasks, 1.0, solver='daqp', safety_break=False)
            cfg.integrate_inplace(v, 1.0)
        return np.array(cfg.q[self.cols])

    def _met(self, cfg, G: np.ndarray, frame: str) -> bool:
        T = cfg.get_transform_frame_to_world(frame)
        if np.linalg.norm(T.translation - G[:3, 3]) > POSITION_TOLERANCE:
            return False
        if not self.pose:
            return True
        R = G[:3, :3].T @ T.rotation
        return float(np.linalg.norm(self.pin.log3(R))) <= ORIENTATION_TOLERANCE


def separate(solvers, cols, tree, goals: np.ndarray, q0: np.ndarray, pose: bool):
    """Solve each tip's chain in turn; return (q, tips broken by a later chain's solve)."""
    q = q0.copy()
    own = []
    for k, (solver, col) in enumerate(zip(solvers, cols)):
        r = solver.solve(goals[k] if pose else goals[k][:3, 3], q[col])
        q[col] = r.q
        own.append(met(tree, q, goals, pose)[k])
    end = met(tree, q, goals, pose)
    return q, sum(1 for a, b in zip(own, end) if a and not b)


def pinocchio_check(urdf: Path, tree, rng: np.random.Generator, samples: int = 50) -> str:
    """Return a line comparing the tree's FK and stacked Jacobian with pinocchio's."""
    try:
        import pinocchio as pin
    except ImportError:
        return 'pinocchio not installed: FK not cross-checked.'
    model = pin.buildModelFromUrdf(str(urdf))
    data = model.createData()
    joints = [model.joints[model.getJointId(name)] for name in tree.joint_names]
    frames = [model.getFrameId(tip) for tip in tree.tip_links]
    fk_err = jac_err = 0.0
    for q in tree.random_q(rng, samples):
        qp = pin.neutral(model)
        for j, v in zip(joints, q):
            qp[j.idx_q] = v
        pin.computeJointJacobians(model, data, qp)
        pin.updateFramePlacements(model, data)
        T, J = tree.fk_and_jacobian(q)
        for i, fid in enumerate(frames):
            fk_err = max(fk_err, float(np.max(np.abs(data.oMf[fid].homogeneous - T[i]))))
            Jp = pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)
            cols = [j.idx_v for j in joints]
            jac_err = max(jac_err, float(np.max(np.abs(Jp[:, cols] - J[6 * i:6 * i + 6]))))
    return (f'{tree.robot_name}: FK checked against pinocchio {pin.__version__} at {samples} '
            f'random joint vectors: largest difference {fk_err:.1e} in the tip poses, '
            f'{jac_err:.1e} in the stacked Jacobian.')


def run_robot(name: str, args: argparse.Namespace) -> tuple[list[str], str]:
    """Solve ``args.count`` targets on one robot with every method; (table rows, check)."""
    from ik_node import Solver
    from ik_node.tree import TreeChain, TreeSolveOptions, TreeSolver
    relative, base, tips, pose = ROBOTS[name]
    urdf = robot_urdf(relative)
    tree = TreeChain.from_urdf(urdf, base, list(tips))
    rng = np.random.default_rng(args.seed)
    goals = [tree.fk(q) for q in tree.random_q(rng, args.count)]
    opts = TreeSolveOptions(position_tolerance=POSITION_TOLERANCE,
                            orientation_tolerance=ORIENTATION_TOLERANCE, timeout=args.timeout)
    trees = {m: TreeSolver(tree, opts, m) for m in ('dls', 'fabrik')}
    chains = [tree.tip_chain(i) for i in range(len(tips))]
    cols = [np.array([tree.joint_names.index(n) for n in c.joint_names]) for c in chains]
    chain_solvers = [Solver(c, 'dls', position_tolerance=POSITION_TOLERANCE,
                            orientation_tolerance=ORIENTATION_TOLERANCE, timeout=args.timeout)
                     for c in chains]
    peer = Pink(urdf, tree, pose, args.pink_iterations)

    def solve(method: str, G: np.ndarray) -> tuple[np.ndarray, int]:
        if method in trees:
            targets = {t: (G[i] if pose else G[i][:3, 3]) for i, t in enumerate(tips)}
            return trees[method].solve(targets, tree.mid).q, 0
        if method == 'separate':
            return separate(chain_solvers, cols, tree, G, tree.mid, pose)
        return peer.solve(G, tree.mid, args.timeout), 0

    # Warm-up: a reachable target and one out of reach (every kernel a method may call,
    # the polish and the demoted pass too, loads before the timing starts).
    far = np.array(goals[0])
    far[:, :3, 3] += 10.0 * tree.length_scale
    rows = []
    for method in METHODS:
        solve(method, goals[0])
        solve(method, far)
        ok, times, broke = [], [], 0
        t_start = time.perf_counter()
        for k, G in enumerate(goals):
            t0 = time.perf_counter()
            q, b = solve(method, G)
            times.append(time.perf_counter() - t0)
            ok.append(all(met(tree, q, G, pose)) and tree.within_limits(q))
            broke += int(b > 0)
            if (k + 1) % max(args.count // 4, 1) == 0:
                print(f'{name} {method}: {eta_text(t_start, k + 1, args.count)}',
                      file=sys.stderr, flush=True)
        ms = np.array(times) * 1e3
        rows.append(f'| {name} | {method} | {100 * np.mean(ok):.1f} % | {np.median(ms):.2f} | '
                    f'{np.percentile(ms, 95):.2f} | {np.max(ms):.2f} | '
                    + (f'{broke} / {args.count}' if method == 'separate' else '-') + ' |')
    head = (f'{name}: {tree.n} joints, {len(tree.shared_joints)} shared, {len(tips)} tips '
            f'({"poses" if pose else "positions"})')
    return [head] + rows, pinocchio_check(urdf, tree, np.random.default_rng(args.seed + 1))


def main(argv=None) -> None:
    """Run the benchmark and write its report to a new file in bench/out."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--count', type=int, default=200, help='targets per robot (200)')
    parser.add_argument('--seed', type=int, default=2026, help='target generator seed')
    parser.add_argument('--timeout', type=float, default=0.05,
                        help='budget per target and method [s] (0.05)')
    parser.add_argument('--pink-iterations', type=int, default=200,
                        help="pink's iteration cap per target (200)")
    parser.add_argument('--robots', nargs='+', default=list(ROBOTS), choices=list(ROBOTS))
    add_common_arguments(parser)
    args = parser.parse_args(argv)
    check_kernels(args)
    lines = ['| robot | method | solved | median [ms] | p95 [ms] | max [ms] | '
             'separate: a tip broken by a later chain |', '|---|---|---|---|---|---|---|']
    heads, checks = [], []
    for name in args.robots:
        rows, check = run_robot(name, args)
        heads.append(rows[0])
        lines += rows[1:]
        checks.append(check)
    table = ('; '.join(heads) + f'. {args.count} targets each from FK of default_rng('
             f'{args.seed}) joint vectors, seed mid-range, success: every tip within '
             f'{POSITION_TOLERANCE * 1e3:g} mm (and {ORIENTATION_TOLERANCE:g} rad for poses), '
             f'budget {args.timeout * 1e3:g} ms per target.\n\n' + '\n'.join(lines) + '\n\n'
             + '\n'.join(checks) + '\n')
    report = (f'# bench_tree\n\n{machine_description()}, {git_state()}\n\n'
              f'    {" ".join(sys.argv)}\n\n{table}')
    path = new_result_path('tree', 'md', args.out_dir)
    path.write_text(report)
    print(report)
    print(f'written to {path}')
    if args.publish:
        print(f"published: {publish('tree', table)}")


if __name__ == '__main__':
    main()
