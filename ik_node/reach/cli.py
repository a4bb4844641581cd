# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
r"""
``ik-reach``: compute a reachability map of an arm and write it as .npz (and a PNG).

Example::

    ik-reach --urdf arm.urdf --base base_link --tip tool0 --resolution 0.1 \\
        --directions 16 --out map.npz --png map.png

Interrupt (Ctrl-C) and rerun the same command to resume from the finished chunks.
``--scheduler tcp://host:8786`` (or ``local:4``) runs the chunks on a Dask cluster.
Exit status: 0 when written, 2 for bad input (message on stderr), 130 when interrupted.
"""

import argparse
import sys
from typing import Optional, Sequence

from ik_node.cli import add_chain_arguments, chain_from_args
from ik_node.errors import IKError

__all__ = ['main']


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog='ik-reach', description=__doc__.split('\n')[1])
    add_chain_arguments(p)
    p.add_argument('--resolution', type=float, required=True, help='voxel edge [m]')
    p.add_argument('--bounds', type=float, nargs=6,
                   metavar=('XMIN', 'YMIN', 'ZMIN', 'XMAX', 'YMAX', 'ZMAX'),
                   help='box to map [m] (default: the cube around the reach bound)')
    p.add_argument('--directions', type=int, default=16,
                   help='approach directions per voxel (default 16)')
    p.add_argument('--rolls', type=int, default=1, help='tool rolls per direction (default 1)')
    p.add_argument('--out', required=True, help='the .npz to write')
    p.add_argument('--png', help='also draw horizontal slices into this PNG')
    p.add_argument('--chunk', type=int, default=64, help='voxels per chunk (default 64)')
    p.add_argument('--scheduler', help="Dask scheduler address or 'local:N'")
    p.add_argument('--max-attempts', type=int, default=20, help='restarts per pose')
    p.add_argument('--position-tolerance', type=float, help='[m] (default: library)')
    p.add_argument('--orientation-tolerance', type=float, help='[rad] (default: library)')
    p.add_argument('--avoid-collisions', action='store_true',
                   help='count a pose reached only with a collision-free answer')
    p.add_argument('--no-progress', action='store_true', help='no progress bar')
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command; return its exit status."""
    from ik_node.reach.run import reachability
    args = _parser().parse_args(argv)
    options = {'max_attempts': args.max_attempts}
    if args.position_tolerance is not None:
        options['position_tolerance'] = args.position_tolerance
    if args.orientation_tolerance is not None:
        options['orientation_tolerance'] = args.orientation_tolerance
    if args.avoid_collisions:
        options['avoid_collisions'] = True
    try:
        chain = chain_from_args(args)
        reach_map = reachability(chain, args.resolution, args.directions, args.rolls,
                                 args.bounds, out=args.out, chunk=args.chunk,
                                 scheduler=args.scheduler, progress=not args.no_progress,
                                 **options)
        if args.png:
            from ik_node.reach.plot import plot_slices
            plot_slices(reach_map, args.png)
    except IKError as exc:
        print(f'ik-reach: error: {exc}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f'ik-reach: interrupted; rerun the same command to resume from '
              f'{args.out}.parts', file=sys.stderr)
        return 130
    g = reach_map.grid
    print(f'ik-reach: wrote {args.out}: {g.shape[0]} x {g.shape[1]} x {g.shape[2]} voxels of '
          f'{g.resolution:g} m, {reach_map.rotations.shape[0]} orientations, '
          f'{(reach_map.fraction > 0).mean():.1%} of voxels reachable')
    return 0


if __name__ == '__main__':
    sys.exit(main())
