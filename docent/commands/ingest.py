"""``docent ingest``, ``docent docs list|show`` and ``docent worker``: the ingest stage's commands,
built on the services the composition root wires (``docent.wiring``)."""

from __future__ import annotations

import getpass
import json
import logging
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from docent.cli_support import one_line_errors

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from docent.settings import Settings
    from ingest.pipeline import FileResult, Ingestor

POLL_S = 0.5


def _settings() -> Settings:
    from docent.settings import get_settings

    return get_settings()


def _source_of(target: str, paths: list[Path], manifest: Path | None) -> str:
    """``--superseded-by`` names a file: turn it into a source the way the batch is named;
    anything that is not an existing file is taken as a source already."""
    candidate = Path(target)
    if not candidate.is_file() or not paths:
        return target
    first = paths[0].resolve()
    base = first if first.is_dir() else first.parent
    if manifest is not None and candidate.resolve().is_relative_to(manifest.resolve().parent):
        base = manifest.resolve().parent
    resolved = candidate.resolve()
    return resolved.relative_to(base).as_posix() if resolved.is_relative_to(base) else target


def _run_with_progress(ingestor: Ingestor, job_id: str, show: bool) -> None:
    """Ingest with a progress bar on a terminal: files done/total, chunks/s, elapsed, ETA.
    ``show`` false (``--json``, or stdout not a terminal): nothing extra is printed."""
    # rich.progress is imported here, not at the top: `docent` imports this module at every
    # start, and rich.progress takes ~0.25 s to import (measured with -X importtime).
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    total = ingestor.job_status(job_id)["files_total"]
    columns = (
        TextColumn("[bold]ingest"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[chunks]} chunks, {task.fields[rate]} chunks/s"),
        TimeElapsedColumn(),
        TextColumn("ETA {task.fields[eta]}"),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, disable=not show, transient=False) as bar:
        task = bar.add_task("", total=total, chunks=0, rate="-", eta="-")
        if not ingestor.uses_workers:
            _run_inline(ingestor, job_id, bar, task, total)
            return
        ingestor.run(job_id)
        _watch_workers(ingestor, job_id, bar, task)


def _run_inline(ingestor: Ingestor, job_id: str, bar: Progress, task: TaskID, total: int) -> None:
    """Run the job here, advancing the bar as each file finishes."""
    first = ingestor.job_status(job_id)["files_done"]
    bar.update(task, completed=first)
    started, chunks, done = time.monotonic(), 0, first

    def advance(result: FileResult) -> None:
        # Rate and ETA over the whole run: files finish in bursts, one per batch.
        nonlocal chunks, done
        chunks += result.chunks if result.state == "indexed" else 0
        done += 1
        elapsed = max(time.monotonic() - started, 1e-9)
        bar.update(
            task,
            advance=1,
            description=result.source,
            chunks=chunks,
            rate=f"{chunks / elapsed:.1f}",
            eta=_clock(elapsed * (total - done) / max(done - first, 1)),
        )

    ingestor.run(job_id, on_file=advance)


def _watch_workers(ingestor: Ingestor, job_id: str, bar: Progress, task: TaskID) -> None:
    """Follow a job the workers run: they write progress to the DB; watch it there until
    the job ends, with a hint when no worker takes it or it stops moving."""
    started = moved = time.monotonic()
    hinted: set[str] = set()  # one hint per state: a watcher is told once, not every poll
    last: tuple[Any, ...] | None = None
    while True:
        status = ingestor.job_status(job_id)
        now_at = tuple(status[k] for k in ("state", "progress", "files_done", "chunks"))
        if now_at != last:
            last, moved = now_at, time.monotonic()
        rate = "-" if status["chunks_per_s"] is None else f"{status['chunks_per_s']:.1f}"
        bar.update(
            task,
            completed=status["files_done"],
            description=status["state"],
            chunks=status["chunks"],
            rate=rate,
            eta="-" if status["eta_s"] is None else _clock(status["eta_s"]),
        )
        if status["state"] in ("succeeded", "failed", "cancelled"):
            return
        now = time.monotonic()
        hint = worker_hint(job_id, status["state"], now - started, now - moved)
        if hint is not None and status["state"] not in hinted:
            typer.echo(hint, err=True)
            hinted.add(status["state"])
        time.sleep(POLL_S)


QUEUED_HINT_S = 30  # no worker took the job
STALLED_HINT_S = 120  # a running job whose progress has not moved


def worker_hint(job_id: str, state: str, waited_s: float, unmoved_s: float) -> str | None:
    """What to tell someone watching a job the workers run, once per state: nobody took it,
    or it stopped moving (its workers stopped, or the broker lost its queued tasks)."""
    if state == "queued" and waited_s > QUEUED_HINT_S:
        return (
            f"waiting for a worker to take job {job_id}: is `docent worker` "
            "running with the same DOCENT_BROKER_URL?"
        )
    if state == "running" and unmoved_s > STALLED_HINT_S:
        return (
            f"job {job_id} has not moved for {unmoved_s / 60:.0f} min: a large file may still "
            "be embedding, or its workers stopped, or a broker restarted without persistence "
            "lost the tasks it held; if so, run `docent ingest` on the same files again "
            "(files already indexed are skipped)."
        )
    return None


class _EchoHandler(logging.Handler):
    """A log line to stderr as it is at the time (the progress bar redirects it above)."""

    def emit(self, record: logging.LogRecord) -> None:
        typer.echo(record.getMessage(), err=True)


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}"


def ingest(
    paths: list[Path] = typer.Argument(
        ...,
        help="Files or folders (searched recursively). A file's source is its path "
        "relative to the folder given, or to the manifest's folder.",
    ),
    manifest: Path | None = typer.Option(
        None,
        "--manifest",
        help="CSV: path,effective_date,superseded_by,access_level,owner"
        "[,groups,doc_type,title]; paths relative to its folder.",
    ),
    access_level: str | None = typer.Option(None, "--access-level", help="Override for all."),
    owner: str | None = typer.Option(None, "--owner", help="Override for all files."),
    effective: str | None = typer.Option(None, "--effective", help="YYYY-MM-DD, for all."),
    superseded_by: str | None = typer.Option(
        None, "--superseded-by", help="The file (or source) that replaces these."
    ),
    as_json: bool = typer.Option(
        False,
        "--json",
        help="Print the job as GET /api/jobs/{id} shows it (documents, chunks, skipped, "
        "errors, index_version, seconds, files, ...).",
    ),
) -> None:
    """Ingest documents into the index (inline, or through the workers when a broker is set).

    Unchanged files are skipped; a file that cannot be read is reported and leaves what is
    indexed untouched. Exit code 1 when any file failed."""
    from docent.wiring import open_services
    from ingest.errors import QueueUnavailable

    started = time.monotonic()
    with one_line_errors():
        services = open_services(_settings())
        try:
            ingestor = services.ingestor
            overrides = {
                "access_level": access_level,
                "owner": owner,
                "effective_date": effective,
                "superseded_by": _source_of(superseded_by, paths, manifest)
                if superseded_by
                else None,
            }
            if not ingestor.uses_workers:
                ingestor.promote_due()  # pending documents whose day has come
            job_id = ingestor.submit(
                paths, manifest=manifest, overrides=overrides, created_by=_user()
            )
            show = sys.stdout.isatty() and not as_json
            if show:
                _echo_embedder_choice()
            try:
                _run_with_progress(ingestor, job_id, show)
            except QueueUnavailable:
                # The job is kept, its files failed with the reason: --json still prints it.
                if as_json:
                    typer.echo(json.dumps(ingestor.job_status(job_id)))
                typer.echo(
                    f"job {job_id}: once the broker answers, retry the job (the jobs page, "
                    f"POST /api/jobs/{job_id}/retry) or run `docent ingest` again",
                    err=True,
                )
                raise
            status = ingestor.job_status(job_id)
        finally:
            services.close()
    _echo_summary(status, time.monotonic() - started, as_json)
    if status["errors"]:
        raise typer.Exit(1)


def _echo_embedder_choice() -> None:
    """Say which precision the embedder chose, above the progress bar."""
    chosen = logging.getLogger("ingest.embedding")
    chosen.setLevel(logging.INFO)
    if not any(isinstance(h, _EchoHandler) for h in chosen.handlers):
        chosen.addHandler(_EchoHandler(logging.INFO))


def _echo_summary(status: dict[str, Any], seconds: float, as_json: bool) -> None:
    """The job as ``GET /api/jobs/{id}`` shows it (``--json``), or one line and its errors."""
    if as_json:
        typer.echo(json.dumps(status))
        return
    typer.echo(
        f"{status['documents']} documents ({status['skipped']} unchanged), "
        f"{status['chunks']} chunks, {len(status['errors'])} errors; "
        f"index version {status['index_version']}; {seconds:.1f}s"
    )
    for error in status["errors"]:
        typer.echo(f"  failed: {error['source']}: {error['reason']}", err=True)


def _user() -> str | None:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return None


docs_app = typer.Typer(no_args_is_help=True, help="The indexed documents (an admin view).")


@docs_app.command("list")
def docs_list(
    as_json: bool = typer.Option(False, "--json", help="Print {documents: [...]}, as the API."),
) -> None:
    """List the indexed documents with their status, access level and chunk count."""
    from docent.wiring import open_services

    with one_line_errors():
        services = open_services(_settings())
        try:
            rows = services.ingestor.documents()
        finally:
            services.close()
    if as_json:
        typer.echo(json.dumps({"documents": rows}))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("source", "status", "access", "effective", "chunks")
    for row in rows:
        table.add_row(
            row["source"],
            row["status"],
            row["access_level"],
            row["effective_date"] or "",
            str(row["chunk_count"]),
        )
    Console().print(table)
    typer.echo(f"{len(rows)} documents")


@docs_app.command("show")
def docs_show(
    source: str = typer.Argument(..., help="The document's source, as `docs list` shows it."),
    as_json: bool = typer.Option(
        False, "--json", help="Print {document, chunks}, as GET /api/documents/{id}."
    ),
) -> None:
    """Show one document's metadata and its chunks (heading path, kind, status, text)."""
    from docent.wiring import open_services

    with one_line_errors():
        services = open_services(_settings())
        try:
            view = services.ingestor.document(source)
        finally:
            services.close()
    if as_json:
        typer.echo(json.dumps(view))
        return
    for key, value in view["document"].items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        typer.echo(f"{key}: {'-' if shown in (None, '') else shown}")
    for chunk in view["chunks"]:
        heading = " > ".join(chunk["heading_path"])
        typer.echo(f"\n--- {chunk['id']} [{chunk['kind']}, {chunk['status']}] {heading}")
        typer.echo(chunk["text"])


def worker(
    concurrency: int | None = typer.Option(
        None,
        "--concurrency",
        help="Worker processes. Default 1 on the embedded index (one process owns its "
        "folder; more is refused), else one per CPU core with a Qdrant server. The "
        "cores are divided between them: each embeds on cores/N torch threads.",
    ),
    loglevel: str = typer.Option("INFO", "--loglevel", help="Celery log level."),
) -> None:
    """Start a Celery worker that ingests files from the queue (needs DOCENT_BROKER_URL)."""
    from docent.wiring import open_services
    from ingest.worker import run_worker

    with one_line_errors():
        settings = _settings()
        run_worker(
            settings,
            services=lambda: open_services(settings),  # built in each child, at its start
            concurrency=concurrency,
            loglevel=loglevel,
        )


def register(app: typer.Typer) -> None:
    """Add this package's commands to the ``docent`` app."""
    app.command("ingest")(ingest)
    app.command("worker")(worker)
    app.add_typer(docs_app, name="docs")
