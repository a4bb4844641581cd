# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Run the chunks of a reachability map as Dask distributed tasks (``ik_node[cluster]``).

The chain is sent to every worker once (``scatter``); each chunk is one task that returns
its (v, k) mask; results come back as they finish. A worker runs one chunk per thread it
has, each on one core (``solve_batch(threads=1)``), so a cluster of many machines is used by
starting ``dask worker tcp://scheduler:8786`` on each (one process per machine, one thread
per core) and passing that address.
"""

import os
import shutil
import tempfile
from typing import Callable

from ik_node.errors import IKInputError
import numpy as np

__all__ = ['run_on_dask', 'connect']


def connect(scheduler):
    """
    Return (client, close) for ``scheduler``: an address, 'local:N' or a Client.

    'local:N' starts a local cluster of N worker processes with one thread each (closed by
    ``close()``); an address connects to a running scheduler.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise IKInputError('running on a cluster needs Dask distributed: pip install '
                           "'ik_node[cluster]' (or dask[distributed])") from exc
    if isinstance(scheduler, Client):
        return scheduler, lambda: None
    if isinstance(scheduler, str) and scheduler.startswith('local:'):
        try:
            workers = int(scheduler.split(':', 1)[1])
        except ValueError as exc:
            raise IKInputError(f"scheduler 'local:N' needs a worker count, got {scheduler!r}") \
                from exc
        # The workers' scratch space in a folder of our own, removed on close (Dask's
        # default, dask-scratch-space in the temporary folder, stays behind).
        import dask
        scratch = tempfile.mkdtemp(prefix='ik_node_dask_')
        # Dask's nannies set the workers' variables (OMP_NUM_THREADS=1, PYTHONHASHSEED, ...) in
        # this process's environment to start them, and leave them: everything the caller
        # starts later would inherit them. They are given back on close.
        before = dict(os.environ)
        with dask.config.set({'temporary-directory': scratch}):
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None, local_directory=scratch)
        client = Client(cluster)
        set_by_dask = {k: v for k, v in os.environ.items() if before.get(k) != v}

        def close() -> None:
            client.close()
            cluster.close()
            shutil.rmtree(scratch, ignore_errors=True)
            for key, value in set_by_dask.items():
                if os.environ.get(key) == value:        # not changed since by the caller
                    if key in before:
                        os.environ[key] = before[key]
                    else:
                        del os.environ[key]
        return client, close
    if isinstance(scheduler, str):
        client = Client(scheduler)
        return client, client.close
    raise IKInputError("scheduler must be an address, 'local:N' or a Client, got "
                       f'{scheduler!r}')


def _task(chain, centres: np.ndarray, rotations: np.ndarray, options: dict) -> np.ndarray:
    from ik_node.reach.run import solve_chunk
    return solve_chunk(chain, centres, rotations, options, threads=1)


def run_on_dask(scheduler, chain, jobs: list, rotations: np.ndarray, options: dict,
                finished: Callable) -> None:
    """Run ``jobs`` [(index, centres)] as tasks; call finished(index, mask) as each ends."""
    from distributed import as_completed
    client, close = connect(scheduler)
    try:
        chain_f = client.scatter(chain, broadcast=True)
        rot_f = client.scatter(rotations, broadcast=True)
        futures = {}
        for i, centres in jobs:
            f = client.submit(_task, chain_f, centres, rot_f, options, pure=False)
            futures[f] = i
        for f in as_completed(futures):
            finished(futures[f], f.result())
    finally:
        close()
