# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Both hands of TALOS at once: the stacked tree solve against one chain per hand.

Robot: TALOS (example-robot-data ``talos_data/robots/talos_reduced.urdf``), base_link ->
gripper_left_base_link and gripper_right_base_link: 16 joints (torso_1, torso_2, 7 per
arm), the torso shared; legs, head and grippers held at 0.

Targets: ``--count`` joint vectors of the tree drawn uniformly within the limits with
``numpy.random.default_rng(--seed)`` and both hands' poses there (reachable by
construction). Seed: mid-range, the same for every method.

- ``tree_dls``: :func:`ik_node.tree.solve.solve_tree`, both hands' full poses at once.
- ``separate``: ``ik_node.solve(method='dls')`` on the left hand's chain (torso + left
  arm), then on the right hand's chain seeded with the torso the left solve chose; the
  right solve moves the torso again. ``broke`` counts targets where the left hand met its
  target after its own solve and no longer does after the right one.
- ``torso_once``: the left hand's chain as above, then the right arm alone (torso_2_link ->
  right hand, the target taken into that frame at the left solve's torso): the torso is the
  left hand's choice, and the right hand gets there only if its arm can from there.

Success, judged with :meth:`ik_node.robot_tree.RobotTree.link_pose` (not the solvers'
kernels): both hands within 1 mm and 0.01 rad, joints within limits. Times are wall time
per target (both solves for ``separate``), after a warm-up solve. ``tree_dls`` is the plain
numpy reference implementation and the chain solves run in the compiled driver: the times
say what each costs today, not what the stacked solve will cost once compiled.

    /work/main/.venv-bench/bin/python bench/bench_tree.py --count 200
"""

import argparse
import importlib.metadata
from pathlib import Path
import sys
import time

from common import add_common_arguments, check_kernels, git_state, machine_description, \
    new_result_path, publish
import numpy as np

POSITION_TOLERANCE = 1e-3    # [m]
ORIENTATION_TOLERANCE = 1e-2  # [rad]
TIPS = ('gripper_left_base_link', 'gripper_right_base_link')


def talos_urdf() -> Path:
    """Return the path of TALOS's reduced URDF in the example-robot-data wheel."""
    dist = importlib.metadata.distribution('example-robot-data')
    for entry in dist.files or ():
        if entry.as_posix().endswith('talos_data/robots/talos_reduced.urdf'):
            return Path(dist.locate_file(entry))
    sys.exit('example-robot-data has no talos_data/robots/talos_reduced.urdf')


def judge(robot, tree, q: np.ndarray, targets: np.ndarray) -> list[bool]:
    """Return, per hand, whether the pose at tree joints ``q`` meets its target."""
    from ik_node.pose import pose_error
    positions = tree.positions(q)
    ok = []
    for tip, T in zip(TIPS, targets):
        dp, do = pose_error(T, robot.link_pose('base_link', tip, positions))
        ok.append(dp <= POSITION_TOLERANCE and do <= ORIENTATION_TOLERANCE)
    return ok


def pinocchio_check(urdf: Path, tree, rng: np.random.Generator, samples: int = 50) -> str:
    """
    Return a line comparing the tree's FK and stacked Jacobian with pinocchio's, or why not.

    pinocchio (fixed base, the URDF's root at its origin) is an independent model of the same
    file: frame placements ``oMf`` and ``LOCAL_WORLD_ALIGNED`` frame Jacobians (linear part
    at the frame origin, base axes), which is the tree's convention.
    """
    try:
        import pinocchio as pin
    except ImportError:
        return 'pinocchio not installed: FK not cross-checked.'
    model = pin.buildModelFromUrdf(str(urdf))
    data = model.createData()
    joints = [model.joints[model.getJointId(name)] for name in tree.joint_names]
    frames = [model.getFrameId(tip) for tip in TIPS]
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
    return (f'FK checked against pinocchio {pin.__version__} at {samples} random joint vectors: '
            f'largest difference {fk_err:.1e} in the tip poses, {jac_err:.1e} in the stacked '
            'Jacobian.')


def run(count: int, seed: int) -> tuple[dict, str]:
    """Solve ``count`` targets both ways; return the figures and the table as Markdown."""
    from ik_node import Chain, solve
    from ik_node.robot_tree import RobotTree
    from ik_node.tree.chain import TreeChain
    from ik_node.tree.solve import solve_tree, TreeSolveOptions

    urdf = talos_urdf()
    tree = TreeChain.from_urdf(urdf, 'base_link', list(TIPS))
    robot = RobotTree.from_urdf(urdf)
    chains = [tree.tip_chain(i) for i in range(len(TIPS))]
    cols = [np.array([tree.joint_names.index(n) for n in c.joint_names]) for c in chains]
    arm = Chain.from_urdf(urdf, 'torso_2_link', TIPS[1])
    arm_cols = np.array([tree.joint_names.index(n) for n in arm.joint_names])
    rng = np.random.default_rng(seed)
    goals = [tree.fk(q) for q in tree.random_q(rng, count)]
    opts = TreeSolveOptions(max_attempts=10)
    solve_tree(tree, {TIPS[0]: goals[0][0], TIPS[1]: goals[0][1]}, tree.mid, opts)
    for c, col, k in zip(chains, cols, range(2)):
        solve(c, goals[0][k], tree.mid[col])
    solve(arm, arm.fk(arm.mid), arm.mid)

    rows: dict[str, list] = {'tree_dls': [], 'separate': [], 'torso_once': []}
    broke = 0
    for T in goals:
        t0 = time.perf_counter()
        r = solve_tree(tree, {TIPS[0]: T[0], TIPS[1]: T[1]}, tree.mid, opts)
        dt = time.perf_counter() - t0
        rows['tree_dls'].append((all(judge(robot, tree, r.q, T)) and tree.within_limits(r.q),
                                 dt))

        q = tree.mid.copy()
        t0 = time.perf_counter()
        left = solve(chains[0], T[0], q[cols[0]])
        q[cols[0]] = left.q
        right = solve(chains[1], T[1], q[cols[1]])
        dt = time.perf_counter() - t0
        left_after_own = judge(robot, tree, q, T)[0]
        q[cols[1]] = right.q
        ok = judge(robot, tree, q, T)
        broke += int(left_after_own and not ok[0])
        rows['separate'].append((all(ok) and tree.within_limits(q), dt))

        q = tree.mid.copy()
        t0 = time.perf_counter()
        left = solve(chains[0], T[0], q[cols[0]])
        q[cols[0]] = left.q
        torso = robot.link_pose('base_link', 'torso_2_link', tree.positions(q))
        right = solve(arm, np.linalg.solve(torso, T[1]), q[arm_cols])
        q[arm_cols] = right.q
        dt = time.perf_counter() - t0
        rows['torso_once'].append((all(judge(robot, tree, q, T)) and tree.within_limits(q), dt))

    figures = {}
    lines = ['| method | solved | median [ms] | p95 [ms] | left hand broken by the right solve |',
             '|---|---|---|---|---|']
    for name, values in rows.items():
        solved = np.array([v[0] for v in values])
        times = np.array([v[1] for v in values]) * 1e3
        figures[name] = (solved.mean(), np.median(times), np.percentile(times, 95))
        extra = f'{broke} / {count}' if name == 'separate' else '-'
        lines.append(f'| {name} | {100 * solved.mean():.1f} % | {np.median(times):.2f} | '
                     f'{np.percentile(times, 95):.2f} | {extra} |')
    figures['broke'] = broke
    check = pinocchio_check(urdf, tree, np.random.default_rng(seed + 1))
    head = (f'TALOS upper body ({tree.n} joints, shared {len(tree.shared_joints)}), '
            f'{count} targets from FK of default_rng({seed}) joint vectors, seed mid-range, '
            f'success: both hands within {POSITION_TOLERANCE * 1e3:g} mm and '
            f'{ORIENTATION_TOLERANCE:g} rad. tree_dls is the numpy reference solve (10 '
            'attempts), the chain solves are ik_node.solve(dls) in the compiled driver.\n\n')
    return figures, head + '\n'.join(lines) + '\n\n' + check + '\n'


def main(argv=None) -> None:
    """Run the benchmark and write its report to a new file in bench/out."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--count', type=int, default=200, help='targets (default 200)')
    parser.add_argument('--seed', type=int, default=2026, help='target generator seed')
    add_common_arguments(parser)
    args = parser.parse_args(argv)
    check_kernels(args)
    _, table = run(args.count, args.seed)
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
