"""How one file's faults become values: a reason the file failed with and whether trying
again can succeed (``retryable``), or (for a service that did not answer, when the caller
will retry) the exception itself.

Retryable: a service that did not answer, a full disk, a server-side fault or an unexpected
one (a fixed bug or a freed resource can make the next try succeed). Not retryable: the
file's own fault (``IngestFileError``: unsupported, corrupt, encrypted, empty, too large, bad
metadata, refused), which fails the same way until the file itself is changed."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from sqlalchemy.exc import InterfaceError, OperationalError

from docent.errors import DocentError, Unavailable, public_message
from ingest.errors import IngestFileError
from ingest.jobs import FileTask

log = logging.getLogger("ingest.pipeline")
T = TypeVar("T")
Transient = Literal["fail", "raise"]

# A service that did not answer (Qdrant, or the DB before or after Services wrapped it):
# worth another try later, unlike a file's own fault.
TRANSIENT: tuple[type[Exception], ...] = (Unavailable, OperationalError, InterfaceError)


# What a job shows for a database that did not answer (never the vendor's text: job views
# reach editors and operators; the text is logged).
DB_DOWN = "the database did not answer; try again shortly"


@dataclass(frozen=True)
class Failed:
    reason: str
    retryable: bool = True


def attempt(task: FileTask, transient: Transient, step: Callable[[], T]) -> T | Failed:
    """Run one step for one file; its faults become the file's reason to fail. A transient
    fault with ``transient="raise"`` propagates, so a worker can retry the task later."""
    try:
        return step()
    except IngestFileError as exc:
        return Failed(exc.reason, exc.retryable)
    except TRANSIENT as exc:
        if transient == "raise":
            raise
        log.warning("%s: %s", task.source, exc)  # the vendor's text, for the operator
        return Failed(public_message(exc) if isinstance(exc, Unavailable) else DB_DOWN)
    except DocentError as exc:
        if exc.http_status >= 500:
            log.warning("%s: %s", task.source, exc)
        return Failed(public_message(exc), retryable=exc.http_status >= 500)
    except Exception as exc:  # one file's unexpected fault must not stop the batch
        # The class name only at ERROR: a library's message may quote the document.
        log.error("%s: ingest failed (%s)", task.source, type(exc).__name__)
        log.debug("%s: ingest failed", task.source, exc_info=True)
        return Failed(f"internal error while ingesting ({type(exc).__name__})")
