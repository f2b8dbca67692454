"""The metadata a job's file gets. A reindex re-reads the registry's row; otherwise
defaults < the document's own (front matter, properties) < its manifest row < the job's
fields — refused when those fields would lower the document's own level or widen its groups,
or give the uploader more than they may read (``ingest/grant.py``); a ``superseded_by`` must
name a document in the batch or the index, and an upload's versions fields one its uploader
may read."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from docent.access import visible
from docent.contracts import DocumentMeta, Principal
from docent.db.session import session_scope
from docent.errors import InvalidInput
from docent.settings import Settings
from ingest import jobs
from ingest.document_rows import meta_from_row
from ingest.errors import IngestFileError, Refused
from ingest.grant import (
    NAME_TAKEN,
    OwnAudience,
    own_audience,
    refusal,
    replacement_refusal,
    unseen_version_refusal,
    uploader_of,
    version_names,
)
from ingest.metadata import (
    FIELDS,
    ManifestRow,
    check_successors,
    doc_id_for,
    read_manifest,
    resolve_metadata,
)
from ingest.registry import Registry


class TaskMetadata:
    def __init__(
        self,
        registry: Registry,
        settings: Settings,
        sessions: sessionmaker[Session],
        today: Callable[[], date],
    ) -> None:
        self.registry = registry
        self._settings = settings
        self._sessions = sessions
        self._today = today
        self._manifests: dict[tuple[str, int], dict[str, ManifestRow]] = {}

    def resolve(self, task: jobs.FileTask, properties: Mapping[str, str]) -> DocumentMeta:
        if task.kind == "reindex":
            row = self.registry.get(task.source)
            if row is None:
                raise IngestFileError(task.source, "is no longer in the registry")
            meta = meta_from_row(row)
            if meta.status == "pending" and (
                meta.effective_date is None or meta.effective_date <= self._today()
            ):
                meta = replace(meta, status="current")
            return meta
        manifest_row = self._manifest_row(task)
        overrides = dict(task.params.get("overrides") or {})
        levels = self._settings.access_levels
        meta = resolve_metadata(
            task.source,
            doc_id_for(task.source),
            properties,
            manifest_row,
            overrides,
            levels=levels,
            default_level=self._settings.default_access_level,
            today=self._today(),
        )
        own = own_audience(properties, manifest_row, levels)
        uploader = uploader_of(task.params)
        reason = refusal(own, overrides, meta, uploader, levels)
        if reason is None and uploader is not None:
            reason = self._replacement_refusal(meta, uploader, overrides)
        if reason is not None:
            raise Refused(task.source, reason)
        if meta.superseded_by or meta.supersedes:
            with session_scope(self._sessions) as session:
                batch = jobs.batch_sources(session, task.job_id)
            if uploader is not None:
                reason = unseen_version_refusal(
                    version_names(meta),
                    lambda name: name in batch or self._may_read_live(name, uploader),
                )
                if reason is not None:
                    raise Refused(task.source, reason)
            # A successor named by superseded_by must exist (batch or index). A predecessor
            # named by supersedes may arrive later: it is written superseded when it does.
            problems = check_successors([meta], self.registry.live_sources() | batch)
            for problem in problems:
                if problem.field == "superseded_by":
                    raise problem
        return meta

    def _replacement_refusal(
        self, meta: DocumentMeta, uploader: Principal, overrides: Mapping[str, str | None]
    ) -> str | None:
        """The upload checked its name when it arrived; the job checks again when it runs
        (another upload of the name may have gone in first, or a retry comes later): a
        document of this name its uploader may not read is not theirs to replace, and a
        live one keeps at least its audience (``ingest.grant.replacement_refusal``)."""
        row = self.registry.get(meta.source)
        if row is None:
            return None
        levels = self._settings.access_levels
        if not visible(uploader, row.access_level, row.groups or (), levels):
            return NAME_TAKEN
        if row.retired:
            return None
        return replacement_refusal(
            meta.source,
            OwnAudience(row.access_level, tuple(row.groups or ())),
            OwnAudience(meta.access_level, meta.groups),
            overrides,
            levels,
        )

    def _may_read_live(self, source: str, uploader: Principal) -> bool:
        """Whether ``source`` is a live document ``uploader`` may read."""
        row = self.registry.get(source)
        levels = self._settings.access_levels
        return (
            row is not None
            and not row.retired
            and visible(uploader, row.access_level, row.groups or (), levels)
        )

    def _manifest_row(self, task: jobs.FileTask) -> ManifestRow | None:
        """The file's rows in the manifests of the folders holding it (outermost first) and
        in the job's manifest, merged field by field, a blank cell skipped: a named manifest
        of owners or dates leaves a folder manifest's level in force (older jobs record no
        folder manifests)."""

        def row_in(manifest: Path, outside: str | None) -> list[ManifestRow]:
            """The file's row, keyed by its path from the manifest's folder (``outside``
            for a file not under it)."""
            folder = manifest.parent
            inside = task.path.is_relative_to(folder)
            key = task.path.relative_to(folder).as_posix() if inside else outside
            row = self.manifest_rows(manifest).get(key) if key is not None else None
            return [row] if row is not None else []

        above = sorted(
            (Path(m) for m in task.params.get("folder_manifests") or ()), key=lambda m: len(m.parts)
        )
        rows = [row for manifest in above for row in row_in(manifest, None)]
        named = task.params.get("manifest")
        if named:
            rows += row_in(Path(named), task.source)
        if not rows:
            return None
        fields: dict[str, str] = {}
        for row in rows:
            fields.update(row.fields())
        merged: dict[str, Any] = {name: fields.get(name) for name in FIELDS}
        return replace(rows[-1], **merged)

    def manifest_rows(self, manifest: Path) -> dict[str, ManifestRow]:
        if not manifest.is_file():
            raise InvalidInput(f"manifest {manifest}: no such file")
        key = (str(manifest.resolve()), manifest.stat().st_mtime_ns)
        if key not in self._manifests:
            self._manifests[key] = read_manifest(manifest)
        return self._manifests[key]
