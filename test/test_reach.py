# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Reachability maps: content, file, resume, refusal, CLI, and a real local Dask cluster."""

from conftest import load, URDF_DIR
from ik_node import IKInputError, reachability, solve_batch
from ik_node.reach import approach_rotations, load_map
from ik_node.reach.cli import main
import numpy as np
import pytest

# A 4 x 4 x 3 grid across the UR5's workspace edge, 4 directions: 192 poses.
BOUNDS = [0.0, -0.4, 0.0, 1.2, 0.8, 0.9]
SMALL = {'resolution': 0.3, 'directions': 4, 'bounds': BOUNDS, 'chunk': 16,
         'max_attempts': 8}


@pytest.fixture(scope='module')
def ur5_map():
    """Return the UR5 and its map computed here (one process, every core)."""
    chain = load('ur5')
    return chain, reachability(chain, **SMALL)


def test_map_holds_what_solve_batch_says(ur5_map):
    chain, m = ur5_map
    assert m.fraction.shape == (4, 4, 3) and m.reachable.shape == (4, 4, 3, 4)
    assert 0.0 < m.fraction.mean() < 1.0       # the grid crosses the workspace edge
    R = approach_rotations(4)
    np.testing.assert_allclose(np.einsum('kij,kil->kjl', R, R), np.broadcast_to(np.eye(3),
                               (4, 3, 3)), atol=1e-12)
    i, j, k = np.argwhere(m.fraction > 0)[0]
    centre = m.grid.origin + (np.array([i, j, k]) + 0.5) * m.grid.resolution
    T = np.tile(np.eye(4), (4, 1, 1))
    T[:, :3, :3] = R
    T[:, :3, 3] = centre
    r = solve_batch(chain, T, max_attempts=8)
    np.testing.assert_array_equal(r.success, m.reachable[i, j, k])


def test_file_and_resume(ur5_map, tmp_path):
    chain, m = ur5_map
    out = tmp_path / 'map.npz'
    parts = tmp_path / 'map.npz.parts'
    calls = []
    import ik_node.reach.run as run
    real = run.solve_chunk

    def stop_after_two(*args, **kwargs):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(1)
        return real(*args, **kwargs)

    run.solve_chunk = stop_after_two
    try:
        with pytest.raises(KeyboardInterrupt):
            reachability(chain, out=out, **SMALL)
    finally:
        run.solve_chunk = real
    assert len(list(parts.glob('chunk_*.npy'))) == 2 and not out.exists()
    counted = []

    def count(*args, **kwargs):
        counted.append(1)
        return real(*args, **kwargs)

    run.solve_chunk = count
    try:
        resumed = reachability(chain, out=out, **SMALL)
    finally:
        run.solve_chunk = real
    assert len(counted) == 1                   # 3 chunks of 16 voxels, 2 were done
    np.testing.assert_array_equal(resumed.reachable, m.reachable)
    back = load_map(out)
    np.testing.assert_array_equal(back.fraction, m.fraction)
    assert back.grid.shape == (4, 4, 3) and back.grid.resolution == 0.3
    assert back.meta['tip_link'] == 'tool0' and not parts.exists()
    with pytest.raises(IKInputError, match='different map'):
        parts.mkdir()
        (parts / 'run.json').write_text('{"key": "other"}')
        reachability(chain, out=out, **SMALL)


def test_too_large_grid_is_refused_with_its_size():
    chain = load('ur5')
    with pytest.raises(IKInputError,
                       match=r'300 x 300 x 300 voxels x 64 orientations needs 1853\.9 MiB'):
        reachability(chain, 0.001, directions=64, bounds=[0, 0, 0, 0.3, 0.3, 0.3],
                     max_memory=2**30)


def test_cli_writes_map_and_picture(tmp_path, capsys):
    out, png = tmp_path / 'm.npz', tmp_path / 'm.png'
    rc = main(['--urdf', str(URDF_DIR / 'ur5.urdf'), '--base', 'base_link', '--tip', 'tool0',
               '--resolution', '0.4', '--directions', '2', '--bounds', *map(str, BOUNDS),
               '--out', str(out), '--png', str(png), '--max-attempts', '4', '--no-progress'])
    assert rc == 0 and 'voxels reachable' in capsys.readouterr().out
    assert load_map(out).fraction.shape == (3, 3, 3)
    assert png.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    assert main(['--urdf', str(URDF_DIR / 'ur5.urdf'), '--base', 'base_link', '--tip',
                 'tool0', '--resolution', '-1', '--out', str(out)]) == 2


def test_local_dask_cluster_gives_the_same_map(ur5_map):
    import os
    chain, m = ur5_map
    before = dict(os.environ)
    on_cluster = reachability(chain, scheduler='local:2', **SMALL)
    np.testing.assert_array_equal(on_cluster.reachable, m.reachable)
    # The workers' variables Dask set here (OMP_NUM_THREADS=1, ...) are given back.
    after = dict(os.environ)
    assert {k: after.get(k) for k in set(before) | set(after) if before.get(k) != after.get(k)
            and k != 'PYTEST_CURRENT_TEST'} == {}


def test_a_function_naming_ik_node_can_be_sent_to_workers():
    # What Dask and Ray do with a user's task: pickle it with cloudpickle, ik_node by name
    # (a plain module, which cloudpickle sends by reference).
    import types

    import cloudpickle
    import ik_node
    assert type(ik_node) is types.ModuleType
    task = cloudpickle.loads(cloudpickle.dumps(lambda: ik_node.solve_batch))
    assert task() is ik_node.solve_batch
