"""Helpers the pipeline, jobs, Celery and CLI tests share (not a test module)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from docent.settings import Settings
from docent.wiring import Services
from ingest.pipeline import Ingestor
from store.ids import point_id

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "policies"
BAD = ROOT / "tests" / "fixtures" / "bad"


# For what the registry's transactions decide: run on SQLite and on PostgreSQL
# (the ``services`` fixture in conftest.py takes the parameter).
BOTH_DBS = pytest.mark.parametrize("services", ["sqlite", "postgresql"], indirect=True)


def make_services(settings: Settings, database_url: str | None, embedder: Any) -> Services:
    update: dict[str, Any] = {"database_url": database_url} if database_url else {}
    return Services(settings.model_copy(update=update), embedder=embedder)


def ingestor_over(services: Services, **options: Any) -> Ingestor:
    """An ``Ingestor`` on ``services``' own dependencies, as the root wires it, with the
    constructor's other options (``dispatch``, ``batch_texts``) given here."""
    return Ingestor(
        services.settings,
        services.sessions,
        index=lambda: services.index,
        embedder=lambda: services.embedder,
        **options,
    )


def copy_sample(dest: Path, names: list[str] | None = None) -> Path:
    """A private copy of the sample corpus (or some of its files, with a manifest of just
    those rows) that a test may change."""
    dest.mkdir(parents=True, exist_ok=True)
    if names is None:
        shutil.copytree(SAMPLE, dest, dirs_exist_ok=True)
        return dest
    lines = (SAMPLE / "MANIFEST.csv").read_text().splitlines()
    kept = [lines[0]] + [line for line in lines[1:] if line.split(",", 1)[0] in names]
    (dest / "MANIFEST.csv").write_text("\n".join(kept) + "\n")
    for name in names:
        shutil.copy2(SAMPLE / name, dest / name)
    return dest


def snapshot(services: Services) -> dict[str, dict[str, Any]]:
    """Every point in the index: point id -> payload."""
    return {point_id(c.chunk_id): c.to_payload() for c in services.index.scroll()}


def vectors(services: Services, source: str) -> dict[str, list[float]]:
    """The chunk vectors of one document: chunk_id -> vector."""
    ids = [c.chunk_id for c in services.index.chunks_of(source)]
    stored = services.index.get(ids, vectors=("chunk",))
    return {cid: item.vectors["chunk"].tolist() for cid, item in stored.items()}


def ingest(services: Services, paths: list[Path], **kwargs: Any) -> dict[str, Any]:
    ingestor = services.ingestor
    job_id = ingestor.submit(paths, **kwargs)
    ingestor.run(job_id)
    return ingestor.job_status(job_id)


def version(services: Services) -> int:
    from docent.db.session import session_scope
    from docent.db.state import index_version

    with session_scope(services.sessions) as session:
        return index_version(session)


def write_doc(path: Path, title: str, sections: int, *, front: str = "", seed: int = 0) -> Path:
    """A Markdown policy with ``sections`` headed sections of a few sentences each."""
    parts = [front, f"# {title}", ""] if front else [f"# {title}", ""]
    for n in range(sections):
        parts += [f"## Section {n + 1}", ""]
        parts += [
            f"Rule {seed}.{n}.{k}: staff on team {k} must file form {n * 7 + k} "
            f"within {k + 2} working days of the event it records."
            for k in range(4)
        ]
        parts.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts))
    return path
