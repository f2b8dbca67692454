"""Document metadata: where each field comes from, what it may hold, and the derived status.

Precedence, lowest first: defaults < document properties (front matter, DOCX/PDF
properties, HTML <title>/<meta>) < manifest row < explicit CLI/API fields. A value that
cannot be used (unknown access level, unparseable date) is a ``BadMetadata`` naming the
field and the value; it is never silently replaced, and a document with no access level
anywhere gets the configured default level, never ``public`` by accident.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import hashlib
import io
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path, PurePosixPath

from docent.contracts import Chunk, DocumentMeta, Status
from ingest.errors import BadMetadata

FIELDS: tuple[str, ...] = (
    "title",
    "effective_date",
    "superseded_by",
    "supersedes",
    "access_level",
    "groups",
    "owner",
    "doc_type",
)
_LIST_SPLIT = re.compile(r"[;,]")


def doc_id_for(source: str) -> str:
    """Stable id of a document: the first 16 hex digits of sha1(source)."""
    return hashlib.sha1(source.encode("utf-8")).hexdigest()[:16]


@dataclasses.dataclass(frozen=True)
class ManifestRow:
    """One manifest line, values as written (empty cells are None: "not set here")."""

    path: str
    effective_date: str | None = None
    superseded_by: str | None = None
    access_level: str | None = None
    owner: str | None = None
    groups: str | None = None
    doc_type: str | None = None
    title: str | None = None
    supersedes: str | None = None
    line: int = 0  # line number in the manifest file, for error messages

    def fields(self) -> dict[str, str]:
        return {
            name: value
            for name in FIELDS
            if (value := getattr(self, name, None)) is not None and value.strip()
        }


def _clean_path(raw: str) -> str:
    path = PurePosixPath(raw.strip().replace("\\", "/"))
    return str(path).removeprefix("./")


def read_manifest(path: Path) -> dict[str, ManifestRow]:
    """Rows keyed by ``path`` relative to the manifest's folder. Unknown columns are
    ignored; a manifest without a ``path`` column, a row without a path, a duplicated path
    or a row with more cells than the header is a ``BadMetadata`` naming the row."""
    name = path.name
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadMetadata(name, "manifest", "the manifest cannot be read as UTF-8 text") from exc
    reader = csv.DictReader(io.StringIO(text, newline=""), restkey="__extra__")
    header = [h.strip().lower() for h in (reader.fieldnames or [])]
    if "path" not in header:
        raise BadMetadata(name, "manifest", "the manifest has no 'path' column in its header row")
    reader.fieldnames = header
    known = {f.name for f in dataclasses.fields(ManifestRow)} - {"line"}
    rows: dict[str, ManifestRow] = {}
    try:
        for record in reader:
            line = reader.line_num
            if record.get("__extra__"):
                raise BadMetadata(name, "manifest", f"row {line} has more cells than the header")
            raw_path = (record.get("path") or "").strip()
            if not raw_path:
                if not any((v or "").strip() for k, v in record.items() if k != "__extra__"):
                    continue  # blank line
                raise BadMetadata(name, "path", f"row {line} has no path")
            key = _clean_path(raw_path)
            if key in rows:
                raise BadMetadata(
                    name, "path", f"row {line} repeats path {key!r} (first on row {rows[key].line})"
                )
            values = {
                k: (v.strip() or None) if isinstance(v, str) else None
                for k, v in record.items()
                if k in known and k != "path"
            }
            rows[key] = ManifestRow(path=key, line=line, **values)
    except csv.Error as exc:
        raise BadMetadata(name, "manifest", f"the manifest is not valid CSV ({exc})") from exc
    return rows


def parse_date(value: str, *, source: str, field: str) -> dt.date:
    text = value.strip()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        pass
    try:
        return dt.datetime.fromisoformat(text).date()
    except ValueError:
        raise BadMetadata(
            source, field, f"{field} {value!r} is not a date (expected YYYY-MM-DD)"
        ) from None


def split_list(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    seen: dict[str, None] = {}
    for part in _LIST_SPLIT.split(value):
        if part.strip():
            seen[part.strip()] = None
    return tuple(seen)


def version_names(value: str | None) -> tuple[str, ...]:
    """The documents a ``supersedes`` value names ("a.md, b.md"), as paths."""
    return tuple(_clean_path(p) for p in split_list(value))


def derive_status(
    effective_date: dt.date | None,
    superseded_by: str | None,
    is_superseded_by_other: bool,
    today: dt.date,
) -> Status:
    """superseded (names a successor, or another document supersedes it) > pending
    (effective in the future) > current."""
    if superseded_by or is_superseded_by_other:
        return "superseded"
    if effective_date is not None and effective_date > today:
        return "pending"
    return "current"


def resolve_metadata(
    source: str,
    doc_id: str,
    properties: Mapping[str, str],
    manifest_row: ManifestRow | None,
    overrides: Mapping[str, str | None],
    *,
    levels: Sequence[str],
    default_level: str,
    today: dt.date,
) -> DocumentMeta:
    """Merge the layers, validate every field, derive status (as far as this document
    alone tells; the pipeline re-derives it once it knows who supersedes whom)."""
    if default_level not in levels:
        raise BadMetadata(
            source, "access_level", f"default level {default_level!r} is not configured"
        )
    merged = _merged(properties, manifest_row, overrides)
    level = _access_level(source, merged.get("access_level", default_level), levels)
    effective = (
        parse_date(merged["effective_date"], source=source, field="effective_date")
        if "effective_date" in merged
        else None
    )
    superseded_by = _clean_path(merged["superseded_by"]) if "superseded_by" in merged else None
    if superseded_by == source:
        raise BadMetadata(source, "superseded_by", "superseded_by names the document itself")
    supersedes = version_names(merged.get("supersedes"))
    if source in supersedes:
        raise BadMetadata(source, "supersedes", "supersedes names the document itself")
    return DocumentMeta(
        source=source,
        doc_id=doc_id,
        title=merged.get("title"),
        effective_date=effective,
        superseded_by=superseded_by,
        supersedes=supersedes,
        access_level=level,
        groups=split_list(merged.get("groups")),
        owner=merged.get("owner"),
        doc_type=merged.get("doc_type"),
        status=derive_status(effective, superseded_by, False, today),
    )


def _merged(
    properties: Mapping[str, str],
    manifest_row: ManifestRow | None,
    overrides: Mapping[str, str | None],
) -> dict[str, str]:
    """The known fields of each layer over the one before, blank values skipped."""
    merged: dict[str, str] = {}
    layers: list[Mapping[str, str | None]] = [
        properties,
        manifest_row.fields() if manifest_row else {},
        overrides,
    ]
    for layer in layers:
        for key, value in layer.items():
            if key in FIELDS and value is not None and str(value).strip():
                merged[key] = str(value).strip()
    return merged


def _access_level(source: str, level: str, levels: Sequence[str]) -> str:
    """A configured level, as given or in lower case."""
    if level not in levels:
        lowered = level.lower()
        if lowered not in levels:
            raise BadMetadata(
                source,
                "access_level",
                f"access level {level!r} is not one of {', '.join(levels)}",
            )
        level = lowered
    return level


def check_successors(
    metas: Sequence[DocumentMeta], known_sources: Collection[str]
) -> list[BadMetadata]:
    """One error per document whose ``superseded_by`` (or ``supersedes`` entry) names a
    file that is neither in this batch nor already in the index."""
    present = set(known_sources) | {m.source for m in metas}
    errors: list[BadMetadata] = []
    for meta in metas:
        if meta.superseded_by and meta.superseded_by not in present:
            errors.append(
                BadMetadata(
                    meta.source,
                    "superseded_by",
                    f"superseded_by names {meta.superseded_by!r}, which is not in this batch "
                    "or the index",
                )
            )
        for old in meta.supersedes:
            if old not in present:
                errors.append(
                    BadMetadata(
                        meta.source,
                        "supersedes",
                        f"supersedes names {old!r}, which is not in this batch or the index",
                    )
                )
    return errors


def with_metadata(chunks: Sequence[Chunk], meta: DocumentMeta, index_version: int) -> list[Chunk]:
    """The chunks with the document's metadata stamped on (new values; inputs untouched)."""
    return [
        dataclasses.replace(
            chunk,
            doc_id=meta.doc_id,
            effective_date=meta.effective_date,
            superseded_by=meta.superseded_by,
            status=meta.status,
            access_level=meta.access_level,
            groups=meta.groups,
            owner=meta.owner,
            doc_type=meta.doc_type,
            title=meta.title,
            index_version=index_version,
        )
        for chunk in chunks
    ]
