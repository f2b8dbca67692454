"""Handing job files to Celery workers, failing fast and clearly when the broker is down."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from docent.db.session import redact
from ingest.errors import QueueUnavailable

if TYPE_CHECKING:
    from docent.wiring import Services


def celery_dispatch(services: Services) -> Callable[[int], None]:
    from ingest.tasks import make_celery

    app = make_celery(services.settings)

    def dispatch(job_file_id: int) -> None:
        try:
            # Fail fast: a person is waiting on the answer, and the job is kept either way.
            app.tasks["docent.ingest_file"].apply_async(
                (job_file_id,),
                retry=True,
                retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5},
            )
        except Exception as exc:  # kombu/redis raise their own connection errors
            raise QueueUnavailable(
                f"the ingest queue at {redact(services.settings.broker_url or '')} did not "
                f"answer ({exc.__class__.__name__}); nothing was indexed and the job is "
                "marked failed: start the broker, then retry the job"
            ) from exc

    return dispatch
