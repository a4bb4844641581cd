# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
URDF acceptance sweep: every URDF of example-robot-data and rtb-data, ik_node vs urdfdom.

urdfdom is the C++ parser of ROS; it is reached through pinocchio (``pin`` on PyPI), whose
``buildModelFromUrdf`` parses with urdfdom. A URDF that urdfdom loads must load with
``ik_node.model.urdf.read_robot`` too. Exit code 1 when one does not.

    .venv-bench/bin/pip install pin   # once
    .venv-bench/bin/python bench/sweep_urdf.py [--out FILE]
"""

import argparse
from datetime import datetime, timezone
import importlib.metadata
from pathlib import Path
import sys

from common import add_common_arguments, check_kernels, publish


def urdf_files() -> list:
    """Return every *.urdf file shipped by example-robot-data and rtb-data."""
    files = []
    for dist_name in ('example-robot-data', 'rtb-data'):
        dist = importlib.metadata.distribution(dist_name)
        for entry in dist.files or ():
            if entry.suffix == '.urdf':
                files.append((dist_name, Path(dist.locate_file(entry))))
    return sorted(files)


def urdfdom_loads(path: Path):
    """Return True/False whether urdfdom (through pinocchio) loads ``path``; None without pin."""
    try:
        import pinocchio
    except ImportError:
        return None
    try:
        pinocchio.buildModelFromUrdf(str(path))
        return True
    except Exception:  # noqa: B902 - any refusal counts
        return False


def main(argv=None) -> int:
    """Load each URDF with both parsers; write a markdown table of the differences."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument('--out', default=None)
    add_common_arguments(ap)
    args = ap.parse_args(argv)
    check_kernels(args)
    from ik_node.errors import URDFError
    from ik_node.model.urdf import read_robot
    rows, missing = [], 0
    for dist_name, path in urdf_files():
        try:
            read_robot(path)
            ours, why = True, ''
        except URDFError as exc:
            ours, why = False, str(exc)[:120]
        theirs = urdfdom_loads(path)
        rows.append((dist_name, path.name, ours, theirs, why))
        missing += theirs is True and not ours
    stamp = datetime.now(timezone.utc)
    lines = [f"# URDF sweep {stamp.strftime('%Y-%m-%d %H:%M UTC')}", '',
             '`.venv-bench/bin/python bench/sweep_urdf.py`', '',
             f'{len(rows)} URDF files; ik_node loads {sum(r[2] for r in rows)}, urdfdom '
             f'(pinocchio) loads {sum(r[3] is True for r in rows)}; loaded by urdfdom but '
             f'refused by ik_node: {missing}.', '',
             '| package | file | ik_node | urdfdom | ik_node refusal |', '|---|---|---|---|---|']
    for dist_name, name, ours, theirs, why in rows:
        if ours and theirs is not False:
            continue
        lines.append(f"| {dist_name} | {name} | {'yes' if ours else 'no'} | "
                     f"{ {True: 'yes', False: 'no', None: '?'}[theirs]} | {why} |")
    text = '\n'.join(lines) + '\n'
    out = Path(args.out) if args.out else Path(args.out_dir) / (
        f"urdf_sweep_{stamp.strftime('%Y-%m-%d_%H%M')}.md")
    if out.exists():
        raise SystemExit(f'{out} exists; results are never overwritten')
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(text)
    if args.publish:
        print(f"published: {publish('urdf_sweep', text)}")
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
