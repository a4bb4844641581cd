# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Fixed solves of every method and option, written to a file, to compare two versions bit for bit.

    python scripts/solve_fingerprint.py OUT.json          # run, write {case: digest}
    python scripts/solve_fingerprint.py OUT.json --diff OLD.json

Each case is one call of the public API with a fixed seed and a budget counted in attempts
(a timeout far beyond what the case needs, so the machine's load changes nothing); its digest
is the SHA-256 of every number of the result (joints, errors, iterations, success). Run it
before and after a change that should not change results (a kernel's signature, a compile
option) and compare: any differing case is listed. Uses only the public API, so it runs on
both sides of a module move.
"""

import argparse
import hashlib
import json
from pathlib import Path
import sys

import ik_node
import numpy as np

TEST_URDF = Path(__file__).resolve().parent.parent / 'test' / 'urdf'
ROBOTS = {
    'ur5': ('ur5.urdf', 'base_link', 'tool0'),
    'panda': ('panda.urdf', 'panda_link0', 'panda_link8'),
    'arm4': ('arm4.urdf', 'base_link', 'tip'),
    'planar3': ('planar3.urdf', 'base_link', 'tip'),
    'prismatic': ('prismatic.urdf', 'base_link', 'tip'),
    'mimic': ('mimic.urdf', 'base_link', 'tip'),
}
# A budget in attempts only: the timeout never ends a case.
FIXED = {'timeout': 30.0, 'max_attempts': 12}


def _digest(*values) -> str:
    h = hashlib.sha256()
    for v in values:
        h.update(np.ascontiguousarray(np.asarray(v, dtype=float)).tobytes())
    return h.hexdigest()[:16]


def _result_digest(r) -> str:
    return _digest(r.q, r.success, r.position_error, r.orientation_error, r.iterations)


def _option_sets(chain):
    mid = np.asarray(chain.mid)
    obstacles = [ik_node.HalfSpace((0, 0, 1), -0.05), ik_node.Sphere((0.3, 0.1, 0.4), 0.08)]
    return {
        'default': {},
        'no_restarts': {'restarts': False},
        'solutions3': {'solutions': 3},
        'weights': {'joint_weights': np.linspace(1.0, 2.0, chain.n).tolist(),
                    'position_weight': 2.0, 'orientation_weight': 0.5},
        'objectives': {'objectives': [ik_node.JointLimitAvoidance(1.0),
                                      ik_node.Manipulability(0.5),
                                      ik_node.RestPosture(mid.tolist(), 0.3)]},
        'max_joint_change': {'max_joint_change': 0.4},
        'collisions': {'avoid_collisions': True, 'obstacles': obstacles},
        'collisions_change': {'avoid_collisions': True, 'obstacles': obstacles,
                              'max_joint_change': 0.5},
    }


def _chain_cases(name, chain, out):
    rng = np.random.default_rng(7)
    lo, hi = np.asarray(chain.lower), np.asarray(chain.upper)
    qs = lo + (hi - lo) * rng.uniform(0.2, 0.8, (3, chain.n))
    targets = [chain.fk(q) for q in qs] + [chain.fk(qs[0])[:3, 3], np.array([9.0, 0.0, 0.5])]
    seeds = lo + (hi - lo) * rng.uniform(0.3, 0.7, (len(targets), chain.n))
    for method in ik_node.methods():
        for label, opts in _option_sets(chain).items():
            for i, (target, seed) in enumerate(zip(targets, seeds)):
                key = f'{name}/{method}/{label}/{i}'
                try:
                    r = ik_node.solve(chain, target, q0=seed, method=method,
                                      **{**FIXED, **opts})
                except ik_node.IKInputError as exc:     # an option the method does not take
                    out[key] = f'refused: {str(exc)[:60]}'
                    continue
                out[key] = _result_digest(r)
    poses = np.stack([chain.fk(q) for q in qs])
    for method in ('dls', 'pinv', 'jt'):
        for label, kw in (('poses', {}), ('collisions', {'avoid_collisions': True})):
            b = ik_node.solve_batch(chain, poses, q0=seeds[:3], method=method, max_attempts=4,
                                    threads=1, **kw)
            out[f'{name}/batch/{method}/{label}'] = _digest(
                b.q, b.success, b.position_error, b.orientation_error)
        b = ik_node.solve_batch(chain, poses[:, :3, 3], method=method, max_attempts=4, threads=1)
        out[f'{name}/batch/{method}/points'] = _digest(b.q, b.success, b.position_error)
    obstacles = [ik_node.HalfSpace((0, 0, 1), 0.0), ik_node.Sphere((0.5, 0.0, 0.3), 0.1)]
    for i, q in enumerate(qs):
        d = chain.min_distance(q, obstacles)
        out[f'{name}/collision/{i}'] = (_digest(d.distance)
                                        + str(sorted(chain.collisions(q, obstacles))))
    out[f'{name}/path_collides'] = str(chain.path_collides(lo, hi, obstacles=obstacles))


def _point_cases(out):
    zigzag = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.3], [0.1, 0.0, 0.6], [0.0, 0.0, 0.9]])
    for i, target in enumerate(([0.3, 0.2, 0.5], [0.0, 0.9, 0.3], [2.0, 0.0, 0.0])):
        out[f'points/fabrik/{i}'] = _digest(
            ik_node.fabrik(zigzag, target, max_iterations=50).points)
        out[f'points/fabrik_constrained/{i}'] = _digest(ik_node.fabrik(
            zigzag, target, max_iterations=50, constraints=[
                None, ik_node.BallJoint(0.5),
                ik_node.HingeJoint((1.0, 0.0, 0.0), -1.0, 1.0)]).points)
        out[f'points/ccd/{i}'] = _digest(ik_node.ccd(zigzag, target, max_iterations=50).points)
        out[f'points/tree/{i}'] = _digest(ik_node.fabrik_tree(
            zigzag, [-1, 0, 1, 2], {3: target}, max_iterations=50).points)


def _tree_cases(out):
    tree = ik_node.TreeChain.from_urdf(TEST_URDF / 'torso_two_arms.urdf', 'base_link',
                                       ['left_hand', 'right_hand'])
    rng = np.random.default_rng(3)
    lo, hi = np.clip(tree.lower, -3.0, 3.0), np.clip(tree.upper, -3.0, 3.0)
    for i in range(3):
        q = lo + (hi - lo) * rng.uniform(0.3, 0.7, tree.n)
        poses = tree.fk(q)
        for method in ('dls', 'fabrik'):
            targets = {'left_hand': poses[0], 'right_hand': poses[1][:3, 3]}
            r = ik_node.solve_tree(tree, targets, q0=(lo + hi) / 2, method=method)
            out[f'tree/{method}/{i}'] = _digest(r.q, r.success)


def fingerprint() -> dict:
    """Return {case: digest} of every fixed solve."""
    out: dict = {}
    for name, (fname, base, tip) in ROBOTS.items():
        _chain_cases(name, ik_node.Chain.from_urdf(TEST_URDF / fname, base, tip), out)
    _point_cases(out)
    _tree_cases(out)
    return out


def main() -> int:
    """Run the command; return its exit status."""
    p = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    p.add_argument('out', help='write the digests here (JSON)')
    p.add_argument('--diff', help='compare with this earlier output; exit 1 if any differs')
    args = p.parse_args()
    now = fingerprint()
    Path(args.out).write_text(json.dumps(now, indent=0, sort_keys=True))
    print(f'{len(now)} cases written to {args.out}')
    if not args.diff:
        return 0
    old = json.loads(Path(args.diff).read_text())
    differ = sorted(k for k in set(old) | set(now) if old.get(k) != now.get(k))
    for k in differ:
        print(f'differs: {k}: {old.get(k)} -> {now.get(k)}')
    print(f'{len(differ)} of {len(now)} cases differ')
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
