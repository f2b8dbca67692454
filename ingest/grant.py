"""Who may give a document which audience.

A document's own metadata (front matter, document properties, a manifest row) says who may
read it. An explicit field (the upload form, ``docent ingest --access-level/--groups``) may
narrow that audience — raise the level, name groups — but never widen it: a field that
would lower the document's own level, or replace its groups with others, refuses the file.
An uploader may also only put in what they could read themselves (level and groups), so a
file whose own level is above their clearance is refused, not silently relabelled.

All pure: the pipeline calls ``refusal`` before anything of the file is written, and the
upload route calls ``preview`` to show each accepted file's level before the job runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from docent.access import level_rank, visible
from docent.contracts import DocumentMeta, Principal
from ingest.metadata import ManifestRow, split_list

LevelOrigin = Literal["document", "form", "default"]


@dataclass(frozen=True)
class OwnAudience:
    """The level and groups a document names itself (``None`` / ``()`` when it names none)."""

    access_level: str | None
    groups: tuple[str, ...]


def own_audience(
    properties: Mapping[str, str], manifest_row: ManifestRow | None, levels: Sequence[str]
) -> OwnAudience:
    """What the document and its manifest row say, manifest over properties (as in
    ``resolve_metadata``); a level in another case is matched case-insensitively."""
    merged: dict[str, str] = {}
    for layer in (properties, manifest_row.fields() if manifest_row else {}):
        for key in ("access_level", "groups"):
            value = layer.get(key)
            if value is not None and str(value).strip():
                merged[key] = str(value).strip()
    level = merged.get("access_level")
    if level is not None and level not in levels and level.lower() in levels:
        level = level.lower()
    return OwnAudience(level, split_list(merged.get("groups")))


def refusal(
    own: OwnAudience,
    overrides: Mapping[str, str | None],
    meta: DocumentMeta,
    uploader: Principal | None,
    levels: Sequence[str],
) -> str | None:
    """Why this file may not go in with ``meta`` (the resolved metadata), or ``None``.
    ``uploader`` is ``None`` for the command line (an operator with the files at hand)."""
    asked_level = (overrides.get("access_level") or "").strip() or None
    own_rank = level_rank(own.access_level, levels)
    if own.access_level is not None and own_rank is None:
        # "Strictly Confidential" is no level here, so no field can be shown not to lower
        # it: the file's own label is fixed first (without a field it was refused already).
        return (
            f"the document itself says access level {own.access_level!r}, which is not one "
            f"of {', '.join(levels)}; correct the document's own access level"
        )
    if asked_level is not None and own_rank is not None:
        asked_rank = level_rank(asked_level, levels)
        if asked_rank is None or asked_rank < own_rank:
            return (
                f"the document itself says access level {own.access_level!r}; the "
                f"access_level field ({asked_level!r}) may raise it but not lower it"
            )
    asked_groups = split_list(overrides.get("groups"))
    if own.groups and asked_groups and not set(asked_groups) <= set(own.groups):
        return (
            f"the document itself is limited to the groups {', '.join(own.groups)}; the "
            "groups field may narrow that list but not add to it"
        )
    if uploader is not None and not visible(uploader, meta.access_level, meta.groups, levels):
        if not visible(uploader, meta.access_level, (), levels):
            return (
                f"the document's access level {meta.access_level!r} is above your clearance "
                f"({uploader.clearance}); ask someone cleared for it to upload it"
            )
        return (
            f"the document is limited to the groups {', '.join(meta.groups)}, and you are in "
            "none of them; ask someone in them to upload it"
        )
    return None


# An upload of a name that belongs to a document its uploader may not read (it would replace
# it); the same words at upload (api/routes/documents.py) and in the job.
NAME_TAKEN = "this name is taken by a document you cannot replace"


def replacement_refusal(
    source: str,
    registered: OwnAudience,
    new: OwnAudience,
    overrides: Mapping[str, str | None],
    levels: Sequence[str],
) -> str | None:
    """Why an upload may not replace the live document of its name, or ``None``: a
    replacement keeps at least the registered audience unless the upload's own fields say
    otherwise — a lower level only from the access level field, other groups only from the
    groups field (left without a level, a new version of a confidential policy went in at the
    default, and one whose front matter said public went in public: their text reached
    people the live version was kept from)."""
    had, has = level_rank(registered.access_level, levels), level_rank(new.access_level, levels)
    lowered = had is not None and (has is None or has < had)
    widened = bool(registered.groups) and (
        not new.groups or not set(new.groups) <= set(registered.groups)
    )
    lowered = lowered and not (overrides.get("access_level") or "").strip()
    widened = widened and not split_list(overrides.get("groups"))
    if not lowered and not widened:
        return None
    names = ", ".join(registered.groups)
    return (
        f"this replaces {source}, which is {registered.access_level}"
        + (f" for the groups {names}" if names else "")
        + f"; a new version is not readable by more people unless you say so: give access "
        f"level {registered.access_level!r}"
        + (f" and groups {names}" if names else "")
        + ", or choose the new audience in the fields"
    )


Version = tuple[str, str]  # a versions field and the document it names


def version_names(meta: DocumentMeta) -> tuple[Version, ...]:
    """The documents ``meta``'s ``supersedes`` and ``superseded_by`` name (both re-mark
    another document), each with its field."""
    named = [("supersedes", name) for name in meta.supersedes]
    return (*named, *([("superseded_by", meta.superseded_by)] if meta.superseded_by else []))


def unseen_version_refusal(
    versions: Sequence[Version], may_name: Callable[[str], bool]
) -> str | None:
    """Why an upload may not name these documents, or ``None``: each must be one
    ``may_name`` allows (the upload's own files, or a live document its uploader may read),
    and a name of one they may not read and a name of none get the same words."""
    for field, name in versions:
        if not may_name(name):
            return f"{field} names no document you may read: {name!r}"
    return None


def uploader_of(params: Mapping[str, object]) -> Principal | None:
    """Who uploaded a job's files through the API, from its params (``None``: the CLI)."""
    raw = params.get("uploader")
    if not isinstance(raw, Mapping):
        return None
    groups = raw.get("groups")
    return Principal(
        user_id="uploader",
        clearance=str(raw.get("clearance")),
        groups=frozenset(str(g) for g in groups) if isinstance(groups, list) else frozenset(),
    )


def level_origin(own: OwnAudience, overrides: Mapping[str, str | None]) -> LevelOrigin:
    """Where the level a file gets comes from: the form's field, the document, or the default."""
    if (overrides.get("access_level") or "").strip():
        return "form"
    return "document" if own.access_level else "default"
