# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Pictures of a reachability map: horizontal slices of the reached fraction (matplotlib)."""

import os
from pathlib import Path
from typing import Optional, Union

from ik_node.errors import IKInputError
from ik_node.reach.run import ReachMap
import numpy as np

__all__ = ['plot_slices']


def plot_slices(reach_map: ReachMap, path: Union[str, os.PathLike],
                slices: Optional[int] = 6) -> Path:
    """
    Draw ``slices`` horizontal slices (z = const) of the map's fraction into a PNG at path.

    Each panel shows, seen from above, the fraction of orientations reached per voxel at one
    height (0: none, 1: every orientation).
    """
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise IKInputError("pictures need matplotlib: pip install 'ik_node[reach]'") from exc
    g = reach_map.grid
    nz = g.shape[2]
    ks = np.unique(np.linspace(0, nz - 1, min(slices or nz, nz)).round().astype(int))
    cols = min(3, len(ks))
    rows = -(-len(ks) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.6 * rows), squeeze=False)
    ext = [g.origin[0], g.origin[0] + g.shape[0] * g.resolution,
           g.origin[1], g.origin[1] + g.shape[1] * g.resolution]
    image = None
    for ax, k in zip(axes.flat, ks):
        z = g.origin[2] + (k + 0.5) * g.resolution
        image = ax.imshow(reach_map.fraction[:, :, k].T, origin='lower', extent=ext,
                          vmin=0.0, vmax=1.0, cmap='viridis')
        ax.set_title(f'z = {z:.3f} m')
        ax.set_xlabel('x [m]')
        ax.set_ylabel('y [m]')
    for ax in list(axes.flat)[len(ks):]:
        ax.axis('off')
    if image is not None:
        fig.colorbar(image, ax=axes, label='fraction of orientations reached')
    meta = reach_map.meta
    fig.suptitle(f"{meta.get('robot', '')}: {meta.get('base_link', '')} -> "
                 f"{meta.get('tip_link', '')}")
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
