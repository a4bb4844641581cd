# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Compute a reachability map in chunks (resumable), here or on a Dask cluster."""

from dataclasses import dataclass, field
import hashlib
import json
import os
from pathlib import Path
import shutil
import sys
from typing import Callable, Optional, Sequence, Union

from ik_node.batch import solve_batch
from ik_node.errors import IKInputError
from ik_node.reach.grid import approach_rotations, available_memory, Grid, map_memory
import numpy as np

__all__ = ['ReachMap', 'reachability', 'load_map', 'solve_chunk']

# Options of solve_batch a map takes by default: a few restarts per pose are enough to tell
# reachable from not (a map, unlike one solve, is judged over many orientations).
MAP_DEFAULTS = {'max_attempts': 20}


@dataclass(frozen=True)
class ReachMap:
    """
    A reachability (capability) map.

    fraction (nx, ny, nz): per voxel the fraction of orientations reached; reachable
    (nx, ny, nz, k) bool: which of the k ``rotations`` (k, 3, 3) is reached at each voxel;
    grid: the voxels; meta: robot, chain ends, solver options.
    """

    fraction: np.ndarray
    reachable: np.ndarray
    rotations: np.ndarray
    grid: Grid
    meta: dict = field(default_factory=dict)

    def save(self, path: Union[str, os.PathLike]) -> Path:
        """Write the map as .npz (arrays and grid metadata), atomically; return the path."""
        path = Path(path)
        tmp = path.with_name(path.name + '.tmp.npz')
        np.savez_compressed(tmp, fraction=self.fraction, reachable=self.reachable,
                            rotations=self.rotations, origin=self.grid.origin,
                            resolution=np.float64(self.grid.resolution),
                            shape=np.array(self.grid.shape),
                            meta=np.array(json.dumps(self.meta)))
        os.replace(tmp, path)
        return path


def load_map(path: Union[str, os.PathLike]) -> ReachMap:
    """Read a map written by :meth:`ReachMap.save`."""
    with np.load(path) as z:
        grid = Grid(z['origin'], float(z['resolution']), tuple(int(s) for s in z['shape']))
        return ReachMap(z['fraction'], z['reachable'], z['rotations'], grid,
                        json.loads(str(z['meta'])))


def solve_chunk(chain, centres: np.ndarray, rotations: np.ndarray, options: dict,
                threads: Optional[int] = None) -> np.ndarray:
    """Return (v, k) bool: which of ``rotations`` the arm reaches at each of ``centres``."""
    v, k = centres.shape[0], rotations.shape[0]
    T = np.zeros((v, k, 4, 4))
    T[:, :, :3, :3] = rotations[None]
    T[:, :, :3, 3] = centres[:, None, :]
    T[:, :, 3, 3] = 1.0
    r = solve_batch(chain, T.reshape(v * k, 4, 4), threads=threads, **options)
    return r.success.reshape(v, k)


def _run_key(chain, grid: Grid, rotations: np.ndarray, options: dict, chunk: int) -> str:
    h = hashlib.sha256()
    h.update(repr((chain.robot_name, chain.base_link, chain.tip_link, chain.joint_names,
                   chain.lower.tolist(), chain.upper.tolist(), grid.origin.tolist(),
                   grid.resolution, grid.shape, chunk, sorted(options.items()))).encode())
    h.update(rotations.tobytes())
    return h.hexdigest()[:16]


def reachability(chain, resolution: float, directions: int = 16, rolls: int = 1,
                 bounds: Optional[Sequence[float]] = None,
                 out: Union[str, os.PathLike, None] = None, chunk: int = 64,
                 scheduler=None, progress: bool = False,
                 max_memory: Optional[int] = None, **options) -> ReachMap:
    """
    Compute the reachability map of ``chain`` over a voxel grid.

    resolution [m]: voxel edge; bounds: xmin ymin zmin xmax ymax zmax [m] in base_link
    (default: the cube around the reach bound); directions, rolls: the tool orientations per
    voxel (:func:`ik_node.reach.approach_rotations`). options: those of
    :func:`ik_node.solve_batch` (here ``max_attempts`` defaults to 20; ``avoid_collisions``
    makes the map collision-free). Seeds are mid-range, so the map does not depend on where
    or in which order the chunks run.

    out: the .npz to write. With ``out``, finished chunks of ``chunk`` voxels are kept in
    ``<out>.parts/`` until the map is written, and a rerun after an interrupt resumes from
    them. scheduler: None runs here (every core); a Dask scheduler address
    ('tcp://host:8786'), 'local:N' (a local cluster of N worker processes) or a
    distributed.Client runs the chunks as Dask tasks (needs ``ik_node[cluster]``).
    progress: show a progress bar with ETA (tqdm). max_memory [bytes]: refuse a map larger
    than this (default: the memory available now); IKInputError says how much it needs.
    """
    grid = Grid.around(chain, resolution, bounds)
    rotations = approach_rotations(directions, rolls)
    k = rotations.shape[0]
    need = map_memory(grid, k)
    limit = available_memory() if max_memory is None else int(max_memory)
    if need > limit:
        raise IKInputError(f'a map of {grid.shape[0]} x {grid.shape[1]} x {grid.shape[2]} '
                           f'voxels x {k} orientations needs {need / 2**20:.1f} MiB, more '
                           f'than the {limit / 2**20:.1f} MiB available: coarsen the grid, '
                           'narrow the bounds or use fewer orientations')
    if not isinstance(chunk, int) or chunk < 1:
        raise IKInputError(f'chunk must be an integer >= 1, got {chunk!r}')
    opts = {**MAP_DEFAULTS, **options}
    key = _run_key(chain, grid, rotations, opts, chunk)
    bounds_list = [(lo, min(lo + chunk, grid.size)) for lo in range(0, grid.size, chunk)]
    parts = None if out is None else Path(str(out) + '.parts')
    done: dict[int, np.ndarray] = {}
    if parts is not None:
        done = _load_parts(parts, key)
    todo = [i for i in range(len(bounds_list)) if i not in done]
    bar = _progress(progress, grid.size * k, sum(len(v) for v in done.values()) * k)

    def finished(i: int, mask: np.ndarray) -> None:
        done[i] = mask
        if parts is not None:
            tmp = parts / f'chunk_{i:06d}.tmp.npy'
            np.save(tmp, mask)
            os.replace(tmp, parts / f'chunk_{i:06d}.npy')
        bar(mask.size)

    jobs = [(i, grid.centres(*bounds_list[i])) for i in todo]
    if scheduler is None:
        for i, centres in jobs:
            finished(i, solve_chunk(chain, centres, rotations, opts))
    else:
        from ik_node.reach.cluster import run_on_dask
        run_on_dask(scheduler, chain, jobs, rotations, opts, finished)
    bar(None)
    reachable = np.concatenate([done[i] for i in range(len(bounds_list))])
    reachable = reachable.reshape(grid.shape + (k,))
    meta = {'robot': chain.robot_name, 'base_link': chain.base_link,
            'tip_link': chain.tip_link, 'joint_names': list(chain.joint_names),
            'directions': directions, 'rolls': rolls, 'options': _jsonable(opts),
            'method': 'dls', 'fraction': 'reached orientations / orientations'}
    result = ReachMap(reachable.mean(axis=-1), reachable, rotations, grid, meta)
    if out is not None:
        result.save(out)
        if parts is not None:
            shutil.rmtree(parts, ignore_errors=True)
    return result


def _jsonable(opts: dict) -> dict:
    return {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v))
            for k, v in opts.items()}


def _load_parts(parts: Path, key: str) -> dict:
    """Return the finished chunks of this run in ``parts`` (making it for a new run)."""
    stamp = parts / 'run.json'
    if parts.is_dir() and stamp.is_file():
        if json.loads(stamp.read_text()).get('key') != key:
            raise IKInputError(f'{parts} holds chunks of a different map (other robot, grid, '
                               'orientations or options): remove it to start afresh')
        done = {}
        for f in parts.glob('chunk_*.npy'):
            if '.tmp' not in f.name:
                done[int(f.stem.split('_')[1])] = np.load(f)
        return done
    parts.mkdir(parents=True, exist_ok=True)
    stamp.write_text(json.dumps({'key': key}))
    return {}


def _progress(on: bool, total: int, initial: int) -> Callable:
    """Return update(poses) (None closes): a tqdm bar with ETA, or nothing when off."""
    if not on:
        return lambda n: None
    from tqdm import tqdm
    bar = tqdm(total=total, initial=initial, unit='pose', unit_scale=True, file=sys.stderr,
               desc='reachability', smoothing=0.1)

    def update(n: Optional[int]) -> None:
        if n is None:
            bar.close()
        else:
            bar.update(n)
    return update
