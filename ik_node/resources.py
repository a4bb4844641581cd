# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Files the package ships in ``share/ik_node`` (URDFs, parameters), found from anywhere.

A path such as ``config/urdf/demo_arm.urdf`` is resolved from the package, never from the
working directory: the source tree next to the ``ik_node`` module (a clone or an editable
install), the ament index (a colcon install), then ``<sys.prefix>/share/ik_node`` (pip).
"""

import os
from pathlib import Path
import sys

from ik_node.errors import URDFError

__all__ = ['share_path', 'DEMO_ARM']

DEMO_ARM = 'config/urdf/demo_arm.urdf'   # the bundled 6-joint arm (UR5 sized), base_link->tool0


def _candidates(relative: str) -> list[Path]:
    found = [Path(__file__).resolve().parent.parent / relative]
    try:
        from ament_index_python.packages import get_package_share_directory
        found.append(Path(get_package_share_directory('ik_node')) / relative)
    except Exception:  # noqa: B902  (no ament index, or the package is not in it)
        pass
    found.append(Path(sys.prefix) / 'share' / 'ik_node' / relative)
    return found


def share_path(relative: str | os.PathLike = DEMO_ARM) -> Path:
    """
    Return the absolute path of a file shipped in share/ik_node, e.g. ``config/ik_node.yaml``.

    Default: the bundled demo arm's URDF. Raises URDFError naming the places looked in when
    the file is in none of them.
    """
    candidates = _candidates(os.fspath(relative))
    for path in candidates:
        if path.is_file():
            return path
    raise URDFError(f'{os.fspath(relative)} is not shipped with this install of ik_node '
                    f'(looked in {", ".join(str(c) for c in candidates)})')
