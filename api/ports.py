"""What the API needs from the other stages, as Protocols, and how it reaches them through
``Services`` (``services.asker``, ``services.ingestor``). A missing stage is a clear 503,
not an AttributeError."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from docent.contracts import Principal
from docent.errors import Unavailable
from docent.wiring import Services


class AskerPort(Protocol):
    def ask(self, question: str, principal: Principal) -> Any: ...


class IngestorPort(Protocol):
    def submit(
        self,
        paths: Sequence[Path],
        *,
        root: Path | None,
        manifest: Path | None,
        overrides: Mapping[str, str | None] | None,
        created_by: str | None,
        uploader: Principal | None = None,
        levels: Mapping[str, str] | None = None,
        groups: Mapping[str, Sequence[str]] | None = None,
    ) -> str: ...

    def run(self, job_id: str) -> None: ...

    def cancel(self, job_id: str) -> None: ...

    def retry(self, job_id: str) -> None: ...

    def retire(self, source: str) -> int: ...

    def reindex_all(self, *, created_by: str | None = None) -> str: ...

    def job_status(self, job_id: str) -> dict[str, Any]: ...


def asker_of(services: Services) -> AskerPort:
    asker = getattr(services, "asker", None)
    if asker is None:
        raise Unavailable("the answer stage is not available in this build")
    port: AskerPort = asker
    return port


def ingestor_of(services: Services) -> IngestorPort:
    ingestor = getattr(services, "ingestor", None)
    if ingestor is None:
        raise Unavailable("the ingest stage is not available in this build")
    port: IngestorPort = ingestor
    return port


def ask_json_of(result: Any) -> dict[str, Any]:
    """The DESIGN.md ``/api/ask`` JSON for an ask result (generate's ``ask_json``)."""
    from generate.ask import ask_json

    out: dict[str, Any] = ask_json(result)
    return out
