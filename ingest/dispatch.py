"""Handing job files to Celery workers, failing fast and clearly when the broker is down."""

from __future__ import annotations

from collections.abc import Callable

from docent.db.session import redact
from docent.settings import Settings
from ingest.errors import QueueUnavailable


def celery_dispatch(settings: Settings) -> Callable[[int], None]:
    """Send each job file id as one task to the queue at ``settings.broker_url``."""
    # Imported here: Celery's app machinery costs ~0.3 s to import (measured), and only a
    # deployment with a broker dispatches; inline ingest never loads it.
    from ingest.tasks import TASK_NAME, make_celery

    app = make_celery(settings)

    def dispatch(job_file_id: int) -> None:
        try:
            # Fail fast: a person is waiting on the answer, and the job is kept either way.
            app.tasks[TASK_NAME].apply_async(
                (job_file_id,),
                retry=True,
                retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5},
            )
        except Exception as exc:  # kombu/redis raise their own connection errors
            raise QueueUnavailable(
                f"the ingest queue at {redact(settings.broker_url or '')} did not "
                f"answer ({exc.__class__.__name__}); nothing was indexed and the job is "
                "marked failed: start the broker, then retry the job"
            ) from exc

    return dispatch
