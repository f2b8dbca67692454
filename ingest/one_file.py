"""One file read for the index: partitioned, its metadata resolved, chunked by heading
path, and classified against what the registry holds."""

from __future__ import annotations

from collections.abc import Callable

from ingest import jobs
from ingest.batching import Prepared
from ingest.errors import EmptyDocument, UnreadableFile
from ingest.registry import ContentChanged, Registry, WriteResult
from ingest.task_metadata import TaskMetadata

# A file's progress through the stages (``jobs.set_progress``): read, chunked, embedded; the
# write that follows makes it done.
PARSED, CHUNKED, EMBEDDED = 0.2, 0.3, 0.9


def chunk_file(
    task: jobs.FileTask,
    started: float,
    *,
    metadata: TaskMetadata,
    registry: Registry,
    chunk_tokens: int,
    progress: Callable[[float], None],
) -> WriteResult | Prepared:
    """Partition, resolve metadata, chunk and classify: a ``WriteResult`` when no vectors
    are needed (unchanged, or metadata re-marked in place), else ``Prepared``."""
    # Imported here: unstructured pulls in spaCy and torch (seconds), which listing
    # documents or watching a job never needs.
    from ingest.chunking import chunk_by_heading
    from ingest.partition import partition_file

    if not task.path.is_file():
        raise UnreadableFile(task.source, "no such file")
    parsed = partition_file(task.path, task.source)
    progress(PARSED)
    meta = metadata.resolve(task, parsed.properties)
    chunks = chunk_by_heading(
        parsed.elements,
        source=task.source,
        doc_id=meta.doc_id,
        budget_tokens=chunk_tokens,
        root_title=meta.title,
    )
    if not chunks:
        raise EmptyDocument(task.source, "no text to index after partitioning")
    progress(CHUNKED)
    force = bool(task.params.get("force"))
    change = registry.classify(meta, chunks, force)
    if change == "unchanged":
        return WriteResult("unchanged", len(chunks), None)
    if change == "metadata":
        written = registry.write(meta, chunks, None, force=force)
        if not isinstance(written, ContentChanged):
            return written
        # The content changed under us since classify: embed and write.
    return Prepared(task, meta, tuple(chunks), force, started)
