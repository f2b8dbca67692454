"""Which adapter a deployment gets: ``ServerIndex`` when ``DOCENT_QDRANT_URL`` is set, else
``EdgeIndex`` under ``<data_dir>/index/<collection>``.

A data dir written by an older Docent holds its index in Qdrant local mode
(``<data_dir>/qdrant``), a format this version does not read: opening it would look like an
empty index. It is refused with the one command that rebuilds it from the registry. So is an
embedded index whose sentence vectors embed units by an older rule (``store.ids.UNIT_TEXT``):
``docent reindex`` moves it aside and rebuilds it in its place."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

from docent.settings import Settings
from store.edge import META_FILE, EdgeIndex
from store.errors import LegacyIndex
from store.ids import REBUILD_COMMAND, UNIT_TEXT
from store.lock import FolderLock
from store.protocol import ChunkIndex

log = logging.getLogger(__name__)


def legacy_folder(settings: Settings) -> Path:
    """Where Qdrant local mode kept its files (Docent 0.1)."""
    return settings.data_dir / "qdrant"


def legacy_index(settings: Settings) -> Path | None:
    """The old local-mode folder when it holds this collection, else None."""
    if settings.qdrant_url:
        return None
    folder = legacy_folder(settings)
    return folder if (folder / "collection" / settings.collection).is_dir() else None


def retire_legacy(settings: Settings) -> Path | None:
    """Move the old local-mode folder aside once the new index has been rebuilt."""
    folder = legacy_index(settings)
    if folder is None:
        return None
    target = folder.with_name(f"qdrant.replaced-{time.strftime('%Y%m%d%H%M%S')}")
    folder.rename(target)
    log.info("old local-mode index moved to %s", target)
    return target


def outdated_units(settings: Settings) -> str | None:
    """What the embedded index's sentence vectors embed when it is not this version's rule
    (an index ``docent reindex`` rebuilds), else None."""
    meta_path = settings.index_path / META_FILE
    if settings.qdrant_url or not meta_path.exists():
        return None
    try:
        recorded = json.loads(meta_path.read_text(encoding="utf-8")).get("unit_text")
    except (OSError, ValueError):
        return None  # opening it reports what is wrong
    return None if recorded == UNIT_TEXT else str(recorded or "bare sentences")


def retire_outdated(settings: Settings) -> Path | None:
    """Move an embedded index of an older unit rule aside (``<collection>.replaced-<time>``
    beside it), so the reindex that follows builds this version's in its place; refused
    while another process has it open."""
    if outdated_units(settings) is None:
        return None
    folder = settings.index_path
    lock = FolderLock(folder)
    lock.acquire()  # raises IndexLocked, naming the process that has it open
    try:
        target = folder.with_name(f"{folder.name}.replaced-{time.strftime('%Y%m%d%H%M%S')}")
        folder.rename(target)
    finally:
        lock.release()
    log.info("index of an older unit rule moved to %s", target)
    return target


def open_index(
    settings: Settings, model_name: str, dimension: int, *, allow_legacy: bool = False
) -> ChunkIndex:
    """The configured adapter, ensured (created, or checked against the model)."""
    index: ChunkIndex
    if settings.qdrant_url:
        from store.server import ServerIndex

        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        index = ServerIndex.connect(
            settings.qdrant_url, key, settings.collection, model_name, dimension
        )
    else:
        legacy = legacy_index(settings)
        if legacy is not None and not allow_legacy:
            raise LegacyIndex(
                f"the vector index in {legacy} was written by an older Docent (Qdrant local "
                f"mode), which this version no longer reads. Rebuild it from the document "
                f"registry with: {REBUILD_COMMAND}"
            )
        index = EdgeIndex(
            settings.index_path, model_name, dimension, hnsw_min_points=settings.hnsw_min_points
        )
    index.ensure()
    return index
