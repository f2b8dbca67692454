"""Run by tests/ingest/test_disk_full.py inside a private mount namespace whose data dir is a
small tmpfs (not a test module): ingest one document, fill the disk, ingest another, free the
disk, finish the job. Prints one JSON object with what it saw at each step."""

from __future__ import annotations

import errno
import json
import sys
from pathlib import Path
from typing import Any

from docent.settings import Settings
from docent.wiring import Services
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.ingest.pipeline_support import snapshot, write_doc

SLACK = 256 * 1024


def consistent(services: Services, *, but: str | None = None) -> bool:
    """The registry and the index agree (leaving out ``but``'s points, if given)."""
    rows = {d.source: set(d.chunk_ids) for d in services.ingestor.registry.live()}
    indexed: dict[str, set[str]] = {}
    for payload in snapshot(services).values():
        indexed.setdefault(payload["source"], set()).add(payload["chunk_id"])
    if but is not None and but not in rows:
        indexed.pop(but, None)
    return indexed == rows


def fill(folder: Path) -> int:
    """Write a ballast file until the disk is full; return its size. Unbuffered: a buffered
    file keeps the block that did not fit and raises ENOSPC again when it is closed (whether
    it does depended on the free space left modulo the block, a few bytes of SQLite apart)."""
    written = 0
    block = b"\0" * 65536
    with (folder / "ballast").open("wb", buffering=0) as out:
        try:
            while True:
                written += out.write(block)  # the last one may fit in part
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
    return written


def main(data_dir: Path, corpus: Path) -> dict[str, Any]:
    settings = Settings(_env_file=None, env="test", data_dir=data_dir)  # type: ignore[call-arg]
    services = Services(settings, embedder=HashingEmbedder(256))
    seen: dict[str, Any] = {}
    try:
        ingestor = services.ingestor
        first = ingestor.submit([write_doc(corpus / "a" / "first.md", "First", 3, seed=1)])
        ingestor.run(first)
        seen["first"] = ingestor.job_status(first)["state"]

        second = ingestor.submit([write_doc(corpus / "b" / "second.md", "Second", 400, seed=2)])
        # Full, but for a little room: enough for the job's own small writes, far too little
        # for the document's chunks and vectors (about 2,000 of them).
        seen["ballast_bytes"] = fill(data_dir)
        with (data_dir / "ballast").open("r+b") as ballast:
            ballast.truncate(seen["ballast_bytes"] - SLACK)
        try:
            ingestor.run(second)
            seen["run_raised"] = None
        except Exception as exc:  # noqa: BLE001 - recorded for the test to judge
            seen["run_raised"] = type(exc).__name__
    except BaseException:
        services.close()
        raise
    (data_dir / "ballast").unlink()
    try:
        status = ingestor.job_status(second)
        seen["while_full"] = {
            "state": status["state"],
            "files": [(f["state"], f["error"]) for f in status["files"]],
        }
        seen["registry_while_full"] = sorted(d.source for d in ingestor.registry.live())
        seen["consistent_while_full"] = consistent(services)
        seen["consistent_but_second_while_full"] = consistent(services, but="second.md")
        seen["first_still_indexed"] = bool(services.index.chunks_of("first.md"))
        if status["state"] == "failed":
            ingestor.retry(second)
        else:
            ingestor.run(second)
        final = ingestor.job_status(second)
        seen["after_free"] = final["state"]
        seen["consistent_after_free"] = consistent(services)
        seen["documents"] = sorted(d["source"] for d in ingestor.documents())
    finally:
        services.close()
    return seen


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2]))))
