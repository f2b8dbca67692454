"""Celery on Redis: one task per file, carrying only the ``job_files`` id.

Delivery is at-least-once by design: a task is acknowledged only after it finished
(``acks_late``), a task whose worker child died is handed back to the queue at once
(``task_reject_on_worker_lost``), and a task taken by a worker that vanished entirely comes
back after the broker's ``visibility_timeout`` (set from ``broker_visibility_timeout_s``,
never Redis's default hour). That is safe because ``Ingestor.run_file`` is idempotent:
chunk ids, and so point ids, are stable, and the registry records a document only after
its points are written. Transient faults (``Unavailable``: DB, Qdrant) are retried with
exponential backoff; when the retries run out the file is marked failed.

Each worker child builds its own services once (``worker_process_init``), from the factory
the composition root gives ``make_celery`` (``docent worker``); the parent process never opens
the index, which in embedded mode only one process may hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from celery import Celery, Task

from docent.errors import ConfigError
from docent.settings import Settings
from ingest.faults import TRANSIENT

if TYPE_CHECKING:
    from docent.contracts import Embedder
    from ingest.pipeline import Ingestor
    from store.protocol import ChunkIndex

TASK_NAME = "docent.ingest_file"
QUEUE = "docent-ingest"
MAX_RETRIES = 6
RETRY_BACKOFF_MAX_S = 300


class ServicesForWorker(Protocol):
    """What a worker child builds once and runs its tasks on (the root's ``Services``): the
    child opens the index and loads the model at start, and closes them at its end."""

    @property
    def ingestor(self) -> Ingestor: ...

    @property
    def index(self) -> ChunkIndex: ...

    @property
    def embedder(self) -> Embedder: ...

    def close(self) -> None: ...


def make_celery(
    settings: Settings,
    *,
    services: Callable[[], ServicesForWorker] | None = None,
    eager: bool = False,
) -> Celery:
    """A Celery app on ``settings.broker_url`` with the ingest task registered.

    ``services`` builds what the task runs on, once per process, at first use (a worker
    child: at its start). Without it the app only sends tasks (dispatch, the worker's health
    check) and refuses to run one. ``eager`` runs tasks in the calling process, for tests."""
    if not settings.broker_url and not eager:
        raise ConfigError("DOCENT_BROKER_URL is not set; without a broker ingest runs inline")
    app = Celery("docent", broker=settings.broker_url or "memory://", set_as_current=False)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_transport_options={"visibility_timeout": settings.broker_visibility_timeout_s},
        broker_connection_retry_on_startup=True,
        task_default_queue=QUEUE,
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        worker_hijack_root_logger=False,
        task_always_eager=eager,
        task_eager_propagates=eager,
        result_backend="cache+memory://" if eager else None,
    )
    current_services = _built_once(services)
    app.conf.docent_services = current_services  # the worker warms it at process start

    @app.task(  # type: ignore[untyped-decorator]
        name=TASK_NAME,
        shared=False,  # shared tasks join every app made later, with this app's closure
        bind=True,
        autoretry_for=TRANSIENT,
        retry_backoff=2,
        retry_backoff_max=RETRY_BACKOFF_MAX_S,
        retry_jitter=True,
        max_retries=MAX_RETRIES,
    )
    def ingest_file(self: Task, job_file_id: int) -> dict[str, Any]:
        # On the last try a service that still does not answer fails the file, so the job
        # settles instead of waiting forever for a task that will never run again.
        last_try = self.request.retries >= MAX_RETRIES
        ingestor = current_services().ingestor
        result = ingestor.run_file(job_file_id, transient="fail" if last_try else "raise")
        return {"job_file_id": job_file_id, "state": result.state, "chunks": result.chunks}

    return app


def _built_once(
    services: Callable[[], ServicesForWorker] | None,
) -> Callable[[], ServicesForWorker]:
    """``services()``, built at the first call in this process and kept; an app given no
    factory refuses to run a task."""
    holder: dict[str, ServicesForWorker] = {}

    def current_services() -> ServicesForWorker:
        if services is None:
            raise ConfigError(
                "this Celery app only sends ingest tasks; `docent worker` builds one that runs them"
            )
        if "services" not in holder:
            holder["services"] = services()
        return holder["services"]

    return current_services
