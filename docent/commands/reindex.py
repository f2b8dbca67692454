"""``docent reindex``: re-read, re-chunk and re-embed every live document from the file it was
last ingested from, into the configured index, keeping the metadata the registry holds.

It is also how a data dir written by an older Docent (its index in Qdrant local mode) moves
to the embedded Qdrant Edge index: it builds the new index beside the old folder and, once
every document is in, moves the old folder aside. An embedded index whose sentence vectors
embed units by an older rule is moved aside first and rebuilt in its place."""

from __future__ import annotations

import getpass
import time

import typer

from docent.cli_support import one_line_errors
from docent.errors import InvalidInput


def reindex() -> None:
    """Rebuild the vector and keyword indexes from the document registry."""
    from docent.settings import get_settings
    from docent.wiring import open_services
    from store.open import legacy_index, retire_legacy, retire_outdated

    with one_line_errors():
        settings = get_settings()
        legacy = legacy_index(settings)
        if legacy is not None:
            # One process owns the embedded index: run this job here, not on workers.
            settings = settings.model_copy(update={"broker_url": None})
        outdated = retire_outdated(settings)
        if outdated is not None:
            typer.echo(f"the index of an older unit rule was moved to {outdated}; rebuilding")
        services = open_services(settings, allow_legacy_index=True)
        try:
            started = time.perf_counter()
            services.index  # noqa: B018 - open (create) the new index before the job
            try:
                job_id = services.ingestor.reindex_all(created_by=_user())
            except InvalidInput:
                job_id = None
            errors: list[dict[str, str]] = []
            if job_id is not None:
                typer.echo(f"reindex job {job_id} ...")
                services.ingestor.run(job_id)
                status = services.ingestor.job_status(job_id)
                errors = list(status.get("errors") or [])
                typer.echo(
                    f"  {status['state']}: {status['documents']} documents, "
                    f"{status['chunks']} chunks in {time.perf_counter() - started:.0f} s"
                )
                for err in errors:
                    typer.echo(f"  failed: {err['source']}: {err['reason']}", err=True)
            else:
                typer.echo("nothing to reindex: no documents are registered")
            if legacy is not None:
                if errors:
                    typer.echo(
                        f"the old index in {legacy} is kept until every document is "
                        "reindexed; fix the failures and run `docent reindex` again",
                        err=True,
                    )
                else:
                    moved = retire_legacy(settings)
                    typer.echo(f"the old local-mode index was moved to {moved}")
            if errors:
                raise typer.Exit(1)
        finally:
            services.close()


def _user() -> str | None:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return None


def register(app: typer.Typer) -> None:
    app.command("reindex")(reindex)
