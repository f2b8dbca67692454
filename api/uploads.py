"""Checking and saving uploaded files before they become an ingest job: a safe name, an
allowed type, a size limit, not empty, an audience the uploader may give it; each rejected
file gets its own reason, each accepted one the level it will get."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import BinaryIO

from docent.contracts import Principal
from docent.errors import InvalidInput
from docent.settings import Settings, split_commas
from ingest.errors import IngestFileError
from ingest.grant import (
    LevelOrigin,
    Version,
    level_origin,
    own_audience,
    refusal,
    version_names,
)
from ingest.metadata import doc_id_for, resolve_metadata
from ingest.properties import read_properties

_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]+")
_READ = 1 << 20


@dataclass(frozen=True)
class Accepted:
    """A saved file; once ``with_audience`` has looked at it, also the level and groups it
    will be indexed with and where that level comes from."""

    filename: str
    path: Path
    bytes: int
    access_level: str | None = None
    groups: tuple[str, ...] = ()
    level_from: LevelOrigin | None = None
    # The documents its supersedes / superseded_by name (field, source), own or the form's.
    versions: tuple[Version, ...] = ()


@dataclass(frozen=True)
class Rejected:
    filename: str
    error: str


def safe_name(raw: str | None) -> str | None:
    """The file's base name with anything odd replaced; ``None`` when nothing usable is left."""
    if not raw:
        return None
    base = PureWindowsPath(PurePosixPath(raw).name).name
    cleaned = _UNSAFE.sub("-", base).strip(" .-")
    if not cleaned or cleaned.startswith("."):
        return None
    return cleaned[:200]


def new_upload_dir(settings: Settings) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder = settings.data_dir / "uploads" / f"{stamp}-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True, exist_ok=False)
    return folder


def save_upload(
    stream: BinaryIO, raw_name: str | None, folder: Path, settings: Settings, taken: set[str]
) -> Accepted | Rejected:
    shown = raw_name or "(no name)"
    name = safe_name(raw_name)
    if name is None:
        return Rejected(shown, "the file has no usable name")
    ext = Path(name).suffix.lower()
    allowed = sorted(e.lower() for e in settings.allowed_extensions)
    if ext not in allowed:
        kind = ext or "(no extension)"
        return Rejected(shown, f"unsupported file type {kind}; allowed: {', '.join(allowed)}")
    if name in taken:
        return Rejected(shown, "a file with the same name is already in this upload")
    limit = settings.max_upload_mb * 2**20
    target = folder / name
    size = 0
    with target.open("wb") as out:
        while block := stream.read(_READ):
            size += len(block)
            if size > limit:
                break
            out.write(block)
    if size > limit:
        target.unlink(missing_ok=True)
        return Rejected(shown, f"file is over the limit of {settings.max_upload_mb} MiB")
    if size == 0:
        target.unlink(missing_ok=True)
        return Rejected(shown, "the file is empty")
    taken.add(name)
    return Accepted(name, target, size)


def check_metadata(
    settings: Settings,
    uploader_clearance: str,
    *,
    access_level: str | None,
    effective_date: str | None,
    groups: str | None,
) -> dict[str, str | None]:
    """Validate the form's metadata; an error names the field."""
    levels = list(settings.access_levels)
    level = (access_level or "").strip() or None
    if level is not None:
        if level not in levels:
            raise InvalidInput(f"access_level: {level!r} is not one of {', '.join(levels)}")
        if levels.index(level) > levels.index(uploader_clearance):
            raise InvalidInput(
                f"access_level: {level!r} is above your own clearance ({uploader_clearance})"
            )
    effective = (effective_date or "").strip() or None
    if effective is not None:
        try:
            date.fromisoformat(effective)
        except ValueError:
            raise InvalidInput(
                f"effective_date: {effective!r} is not a date (YYYY-MM-DD)"
            ) from None
    group_list = ",".join(split_commas(groups)) or None
    return {"access_level": level, "effective_date": effective, "groups": group_list}


def with_audience(
    results: Sequence[Accepted | Rejected],
    settings: Settings,
    overrides: dict[str, str | None],
    uploader: Principal,
) -> list[Accepted | Rejected]:
    """Read each accepted file's own metadata and resolve the level and groups it will get
    (its own, the form's, or the default). A file the uploader may not give that audience
    (``ingest.grant``), or whose own metadata is unusable, is refused and deleted. The job
    checks again when it runs; this lets the answer say so before it does."""
    levels = settings.access_levels
    out: list[Accepted | Rejected] = []
    for r in results:
        if not isinstance(r, Accepted):
            out.append(r)
            continue
        try:
            properties = read_properties(r.path, r.filename)
            meta = resolve_metadata(
                r.filename,
                doc_id_for(r.filename),
                properties,
                None,
                overrides,
                levels=levels,
                default_level=settings.default_access_level,
                today=date.today(),
            )
        except IngestFileError as exc:
            r.path.unlink(missing_ok=True)
            out.append(Rejected(r.filename, exc.reason))
            continue
        own = own_audience(properties, None, levels)
        reason = refusal(own, overrides, meta, uploader, levels)
        if reason is not None:
            r.path.unlink(missing_ok=True)
            out.append(Rejected(r.filename, reason))
            continue
        origin = level_origin(own, overrides)
        out.append(
            replace(
                r,
                access_level=meta.access_level,
                groups=meta.groups,
                level_from=origin,
                versions=version_names(meta),
            )
        )
    return out


def refuse_where(
    results: Sequence[Accepted | Rejected], reason_of: Callable[[Accepted], str | None]
) -> list[Accepted | Rejected]:
    """Each accepted file ``reason_of`` gives a reason becomes a rejection with it, its saved
    copy deleted; the rest as they were, in their order."""
    out: list[Accepted | Rejected] = []
    for r in results:
        reason = reason_of(r) if isinstance(r, Accepted) else None
        if isinstance(r, Accepted) and reason is not None:
            r.path.unlink(missing_ok=True)
            out.append(Rejected(r.filename, reason))
        else:
            out.append(r)
    return out


def describe_rejections(rejected: Sequence[Rejected]) -> str:
    return "; ".join(f"{r.filename}: {r.error}" for r in rejected)
