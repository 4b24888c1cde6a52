"""Where the chunks of a tournament are played: here, a local process pool, or Ray tasks.

``backend="local"`` spreads the tasks over ``workers`` spawned processes (one process: played in
this one).  ``backend="ray"`` runs the same task function as Ray tasks: on a local Ray instance
started here with ``workers`` CPUs (``ray_address=None``), or on a running cluster
(``ray_address="auto"``, or ``"ray://host:10001"``).  Ray is imported only then; it is the
``ray`` extra (``pip install -e ".[ray]"``).  An already initialised Ray (a test fixture, a
user's own ``ray.init``) is used as it is.

A task's result depends only on the task (its seeds are in it), never on which process or
node plays it, and :func:`run_tasks` yields results in completion order: callers sort them by
their own key, so both backends give the same tables for the same tasks.  The chunking is the
caller's: the same ``workers`` gives the same tasks on both backends.
"""
from __future__ import annotations

import os
import socket
from typing import Any, Callable, Iterable, Iterator, Sequence

BACKENDS = ("local", "ray")
RAY_MISSING = 'the ray backend needs Ray: pip install -e ".[ray]"'


def worker_init() -> None:
    """One thread per worker: the workers already fill the cores."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover
        pass


def init_ray(ray_address: str | None = None, num_cpus: int | None = None) -> Any:
    """The ``ray`` module, initialised: joined to ``ray_address``, or a local instance with
    ``num_cpus`` CPUs (default: every core), without dashboard or worker logs, whose workers
    run at this process's priority."""
    try:
        import ray
    except ImportError as exc:
        raise RuntimeError(RAY_MISSING) from exc
    if not ray.is_initialized():
        if ray_address:
            _check_listening(ray_address)
            try:
                ray.init(address=ray_address, log_to_driver=False)
            except ConnectionError as exc:
                raise RuntimeError(f"cannot join the Ray cluster at ray_address={ray_address!r} "
                                   f"({exc}); expected a running cluster (ray start --head); "
                                   f"one with token authentication also wants "
                                   f"RAY_AUTH_MODE=token here") from exc
        else:
            # Ray runs its task workers at niceness 15: on a machine busy with other work they
            # get only what is left (a tournament 8x slower than the pool's, docs/evaluation.md).
            # A local instance's workers are the work, so they run at our priority, as the
            # pool's do (a RAY_worker_niceness of the user's wins).
            os.environ.setdefault("RAY_worker_niceness", "0")
            ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                     ignore_reinit_error=True)
    return ray


def _check_listening(ray_address: str) -> None:
    """A ``HOST:PORT`` where nothing listens is an error now: ``ray.init`` would wait on it
    (over 10 minutes, measured with Ray 2.60)."""
    host, sep, port = ray_address.rpartition(":")
    if "://" in ray_address or not sep or not port.isdigit():
        return                                   # "auto", "ray://...": Ray's own checks
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise RuntimeError(f"bad value ray_address={ray_address!r}: nothing listens there "
                           f"({exc}); expected a running Ray cluster's HOST:PORT "
                           f"(ray start --head prints it) or 'auto'") from exc


def resolve_workers(workers: int | None, backend: str = "local",
                    ray_address: str | None = None) -> int:
    """``workers``, else every core here (local) or every CPU of the Ray cluster (ray)."""
    if backend not in BACKENDS:
        raise ValueError(f"bad value backend={backend!r}; expected one of {list(BACKENDS)}")
    if workers:
        return workers
    if backend == "ray":
        return max(1, int(init_ray(ray_address).cluster_resources().get("CPU", 1)))
    return os.cpu_count() or 1


def _ray_call(fn: Callable[[Any], Any], task: Any) -> Any:
    worker_init()
    return fn(task)


def run_tasks(fn: Callable[[Any], Any], tasks: Sequence[Any], workers: int,
              backend: str = "local", ray_address: str | None = None) -> Iterator[Any]:
    """``fn(task)`` for every task, yielded as each finishes.  ``fn`` must be a module-level
    function (it is pickled by reference to the worker processes)."""
    if backend not in BACKENDS:
        raise ValueError(f"bad value backend={backend!r}; expected one of {list(BACKENDS)}")
    if backend == "ray":
        yield from _ray_results(fn, tasks, workers, ray_address)
    elif workers <= 1 or len(tasks) <= 1:
        yield from map(fn, tasks)
    else:
        import multiprocessing as mp
        with mp.get_context("spawn").Pool(min(workers, len(tasks)),
                                          initializer=worker_init) as pool:
            yield from pool.imap_unordered(fn, tasks)


def _ray_results(fn: Callable[[Any], Any], tasks: Iterable[Any], workers: int,
                 ray_address: str | None) -> Iterator[Any]:
    ray = init_ray(ray_address, num_cpus=workers)
    remote = ray.remote(num_cpus=1)(_ray_call)
    pending = [remote.remote(fn, t) for t in tasks]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        for ref in pending:          # an error or an early stop: drop what is still queued
            ray.cancel(ref)
