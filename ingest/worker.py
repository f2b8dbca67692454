"""``docent worker``: a Celery worker that ingests files from the Redis queue."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from celery.signals import worker_process_init, worker_process_shutdown

from docent.errors import ConfigError, DocentError
from docent.settings import Settings
from ingest.tasks import QUEUE, ServicesForWorker, make_celery
from store.lock import ensure_unlocked

log = logging.getLogger(__name__)

# A child loads the embedding model before it takes work; Celery's default 4 s wait for a
# new child would kill it mid-load and start another, forever.
CHILD_START_TIMEOUT_S = 300.0


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity, where the OS tells)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def torch_threads(cores: int, concurrency: int) -> int:
    """Torch threads per worker child, so that ``concurrency`` children together use the
    cores once: two children x two threads on 2 cores ran slower than one child (measured)."""
    return max(1, cores // max(1, concurrency))


def default_concurrency(settings: Settings) -> int:
    """One child on the embedded index (one process owns its folder), else one per core."""
    return 1 if settings.qdrant_url is None else max(1, os.cpu_count() or 1)


def run_worker(
    settings: Settings,
    *,
    services: Callable[[], ServicesForWorker],
    concurrency: int | None,
    loglevel: str,
) -> None:
    """Start the worker; each child builds its own ``services()`` once, at its start."""
    if not settings.broker_url:
        raise ConfigError(
            "docent worker needs a broker: set DOCENT_BROKER_URL (e.g. redis://127.0.0.1:6379/0)"
        )
    if concurrency is None:
        concurrency = default_concurrency(settings)
    if concurrency < 1:
        raise ConfigError("--concurrency must be at least 1")
    if settings.qdrant_url is None and concurrency != 1:
        raise ConfigError(
            f"the embedded index ({settings.index_path}) is owned by one process: "
            "use --concurrency 1, or set DOCENT_QDRANT_URL to a Qdrant server"
        )
    if settings.qdrant_url is None:
        # A second worker on the embedded index would start, then fail every task it took.
        ensure_unlocked(settings.index_path)
    app = make_celery(settings, services=services)
    app.conf.worker_proc_alive_timeout = CHILD_START_TIMEOUT_S
    threads = torch_threads(available_cores(), concurrency)
    log.info("%d worker children, %d torch threads each", concurrency, threads)

    def warm(**_: Any) -> None:
        import torch

        torch.set_num_threads(threads)
        # Built in the child, once: the model, the DB engine and the Qdrant client.
        built = app.conf.docent_services()
        try:
            built.ingestor  # noqa: B018 - building it is the point
            built.index  # noqa: B018
            # The model loads at first use: load it here, not in the first task.
            built.embedder.embed(["warm"])
        except DocentError as exc:  # tasks will retry; say why once, plainly
            log.error("worker could not start its services: %s", exc.message)

    def close(**_: Any) -> None:
        app.conf.docent_services().close()

    worker_process_init.connect(warm, weak=False)
    worker_process_shutdown.connect(close, weak=False)
    app.worker_main(
        [
            "worker",
            f"--concurrency={concurrency}",
            "--pool=prefork",
            f"--loglevel={loglevel}",
            f"--queues={QUEUE}",
            "--without-gossip",
            "--without-mingle",
        ]
    )
