# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
r"""
``ik-solve``: solve one IK query from the command line and print the answer as JSON.

Example::

    ik-solve --urdf arm.urdf --base base_link --tip tool0 --xyz 0.4 0.1 0.3 \\
        --quat 0 1 0 0 --method dls

Exit status: 0 when solved, 1 when the target was not reached (the best attempt is still
printed), 2 for bad input (message on stderr).
"""

import argparse
import json
import math
import sys
from typing import Optional, Sequence

from ik_node.errors import IKError
from ik_node.model.chain import Chain
from ik_node.solve_ik import methods, solve, warm_up
from ik_node.spatial.pose import pose_from_xyz_quat

__all__ = ['main', 'add_chain_arguments', 'chain_from_args']


def add_chain_arguments(p: argparse.ArgumentParser) -> None:
    """Add --urdf, --base and --tip, the chain every command works on."""
    p.add_argument('--urdf', required=True, help='URDF file path')
    p.add_argument('--base', required=True, help='base link of the chain')
    p.add_argument('--tip', required=True, help='tip link of the chain')


def chain_from_args(args: argparse.Namespace) -> Chain:
    """Load the chain named by :func:`add_chain_arguments`; raises IKError (URDFError)."""
    return Chain.from_urdf(args.urdf, args.base, args.tip)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog='ik-solve', description=__doc__.split('\n')[0])
    add_chain_arguments(p)
    p.add_argument('--xyz', required=True, type=float, nargs=3, metavar=('X', 'Y', 'Z'),
                   help='target position in the base frame [m]')
    p.add_argument('--quat', type=float, nargs=4, metavar=('X', 'Y', 'Z', 'W'),
                   help='target orientation (x y z w); omit for a position-only target')
    p.add_argument('--method', default='dls', help='solver (default: dls)')
    p.add_argument('--seed', type=float, nargs='+', metavar='Q',
                   help='seed joint values in chain order (default: mid-range)')
    p.add_argument('--position-tolerance', type=float, default=None,
                   help="[m] (default: the library's, 1e-5)")
    p.add_argument('--orientation-tolerance', type=float, default=None,
                   help="[rad] (default: the library's, 1e-4)")
    p.add_argument('--timeout', type=float, default=None,
                   help="[s] (default: the library's, 0.05)")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command; return its exit status."""
    args = _parser().parse_args(argv)
    try:
        chain = chain_from_args(args)
        if args.method not in methods():
            raise IKError(f'unknown method {args.method!r}; available: {list(methods())}')
        # Load the kernels first, so the solve's timeout is spent on restarts, not loading.
        warm_up(chain, [args.method])
        target = (pose_from_xyz_quat(args.xyz, args.quat) if args.quat is not None
                  else args.xyz)
        given = {'position_tolerance': args.position_tolerance,
                 'orientation_tolerance': args.orientation_tolerance,
                 'timeout': args.timeout}
        result = solve(chain, target, q0=args.seed, method=args.method,
                       **{k: v for k, v in given.items() if v is not None})
    except IKError as exc:
        print(f'ik-solve: error: {exc}', file=sys.stderr)
        return 2
    out = {
        'joints': {name: float(v) for name, v in zip(chain.joint_names, result.q)},
        'success': result.success,
        'status': result.status,
        'position_error': result.position_error,
        'orientation_error': (None if math.isnan(result.orientation_error)
                              else result.orientation_error),
        'iterations': result.iterations,
        'method': result.method,
    }
    if result.message:
        out['message'] = result.message
    print(json.dumps(out, indent=2))
    return 0 if result.success else 1


if __name__ == '__main__':
    sys.exit(main())
