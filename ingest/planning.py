"""Planning an ingest job before anything is recorded: which files it holds (folders
expanded, each file named by its ``source``, files already known to be unusable carrying
their reason), the folder's own manifest, and the job-wide metadata overrides."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from docent.errors import InvalidInput
from ingest.errors import IngestFileError, TooLarge, UnsupportedFile


@dataclass(frozen=True)
class PlannedFile:
    """One file a job will ingest, or a file already known to be unusable (``error`` holds
    the reason, without the source, which sits beside it)."""

    source: str
    path: Path
    error: str | None = None


def _base_folder(given: Path, root: Path | None, manifest: Path | None) -> Path:
    """The folder a file's ``source`` is relative to: the root if given, else the manifest's
    folder when the file is under it (so manifest rows match), else the folder given."""
    if root is not None:
        return root.resolve()
    resolved = given.resolve()
    if manifest is not None:
        manifest_dir = manifest.resolve().parent
        if resolved.is_relative_to(manifest_dir):
            return manifest_dir
    return resolved if resolved.is_dir() else resolved.parent


def _is_hidden(path: Path, base: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(base).parts)


def plan_files(
    paths: Sequence[Path],
    *,
    root: Path | None,
    manifest: Path | None,
    allowed_extensions: Iterable[str],
    max_bytes: int,
) -> list[PlannedFile]:
    """Expand folders recursively to files with an allowed extension and name each file by
    its ``source``. Files we can already tell are unusable carry their error; the rest go on.
    The same source named twice is planned once."""
    allowed = {ext.lower() for ext in allowed_extensions}
    planned: dict[str, PlannedFile] = {}

    def add(file: Path, base: Path) -> None:
        resolved = file.resolve()
        if not resolved.is_relative_to(base):
            source = file.name
            planned.setdefault(
                source,
                PlannedFile(source, resolved, f"is not under the root folder {base}"),
            )
            return
        source = resolved.relative_to(base).as_posix()
        planned.setdefault(source, PlannedFile(source, resolved, _precheck(file, source)))

    def _precheck(file: Path, source: str) -> str | None:
        error: IngestFileError | None = None
        if not file.exists():
            error = IngestFileError(source, "no such file")
        elif file.suffix.lower() not in allowed:
            kind = file.suffix.lower() or "(no extension)"
            error = UnsupportedFile(
                source, f"unsupported file type {kind}; allowed: {', '.join(sorted(allowed))}"
            )
        elif file.stat().st_size > max_bytes:
            size_mb = file.stat().st_size / 2**20
            error = TooLarge(
                source, f"file is {size_mb:.1f} MiB, over the limit of {max_bytes / 2**20:g} MiB"
            )
        return error.reason if error else None

    for given in paths:
        base = _base_folder(given, root, manifest)
        if given.is_dir():
            for file in sorted(given.rglob("*")):
                if (
                    file.is_file()
                    and file.suffix.lower() in allowed
                    and not _is_hidden(file, given)
                ):
                    add(file, base)
        else:
            add(given, base)
    return sorted(planned.values(), key=lambda p: p.source)


OVERRIDE_FIELDS = frozenset(
    {
        "access_level",
        "owner",
        "effective_date",
        "superseded_by",
        "supersedes",
        "groups",
        "doc_type",
        "title",
    }
)


def check_overrides(
    overrides: Mapping[str, str | None], levels: Sequence[str]
) -> dict[str, str | None]:
    """Explicit CLI/API metadata for a whole job, checked before anything is recorded (they
    apply to every file, so a bad one fails the submit, not each file)."""
    unknown = sorted(set(overrides) - OVERRIDE_FIELDS)
    if unknown:
        raise InvalidInput(
            f"unknown metadata field(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(OVERRIDE_FIELDS))}"
        )
    clean: dict[str, str | None] = {k: v for k, v in overrides.items() if v not in (None, "")}
    level = clean.get("access_level")
    if level is not None and level not in levels:
        raise InvalidInput(f"access level {level!r} is not one of {', '.join(levels)}")
    effective = clean.get("effective_date")
    if effective is not None:
        try:
            date.fromisoformat(effective)
        except ValueError:
            raise InvalidInput(f"effective date {effective!r} is not a date (YYYY-MM-DD)") from None
    return clean


MANIFEST_NAME = "MANIFEST.csv"


def folder_manifest(paths: Sequence[Path]) -> Path | None:
    """A single folder that carries its own MANIFEST.csv is read with it: forgetting
    ``--manifest`` must not index confidential documents at the default level."""
    if len(paths) == 1 and paths[0].is_dir() and (paths[0] / MANIFEST_NAME).is_file():
        return paths[0] / MANIFEST_NAME
    return None


def manifests_above(files: Sequence[PlannedFile], chosen: Path | None) -> list[str]:
    """Every MANIFEST.csv in a folder holding a planned file, up to the folder its source is
    named from (the folder given, the root, or the manifest's folder; never above it, where
    anyone who may write a shared folder could plant one), but the job's own (``chosen``).
    Their rows under the job's manifest's, field by field (``ingest.task_metadata``):
    naming another folder's manifest, or several folders at once, must not index a folder's
    confidential files at the default level either."""
    own = chosen.resolve() if chosen is not None else None
    holds: dict[Path, bool] = {}  # folder -> it has a MANIFEST.csv (each asked once)
    found: set[str] = set()
    for planned in files:
        if planned.error is not None:
            continue
        depth = len(Path(planned.source).parts)  # the source's folders, then its base
        for folder in planned.path.parents[:depth]:
            if folder not in holds:
                holds[folder] = (folder / MANIFEST_NAME).is_file()
            manifest = folder / MANIFEST_NAME
            if holds[folder] and manifest != own:
                found.add(str(manifest))
    return sorted(found)
