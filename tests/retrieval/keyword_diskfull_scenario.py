"""Run by tests/retrieval/test_keyword_disk_full.py on a small tmpfs data dir (not a test
module): ingest a document, fill the disk, load the keyword index (its snapshot file would
not fit), search it, free the disk and load it again. Prints one JSON object with what it
saw at each step."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import numpy as np

from docent.settings import Settings
from docent.wiring import Services
from retrieval.keyword import KeywordIndex
from tests.ingest.diskfull_scenario import SLACK, fill
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.ingest.pipeline_support import ingest, version, write_doc


class Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def load(services: Services, data_dir: Path) -> dict[str, Any]:
    """A fresh keyword index at the current version: what it logged, found and left on disk."""
    collected = Collected()
    logger = logging.getLogger("retrieval.keyword")
    logger.addHandler(collected)
    try:
        keyword = KeywordIndex(
            services.index,
            data_dir,
            min_free_disk_mb=services.settings.min_free_disk_mb,
        )
        snapshot = keyword.refresh(version(services), wait=True)
        hits = snapshot.search("form", np.ones(len(snapshot.chunks), dtype=bool), 3)
    finally:
        logger.removeHandler(collected)
    folder = data_dir / "keyword"
    return {
        "warnings": collected.messages,
        "hits": len(hits),
        "files": sorted(p.name for p in folder.iterdir()) if folder.exists() else [],
    }


def main(data_dir: Path, corpus: Path) -> dict[str, Any]:
    settings = Settings(_env_file=None, env="test", data_dir=data_dir)  # type: ignore[call-arg]
    services = Services(settings, embedder=HashingEmbedder(256))
    seen: dict[str, Any] = {}
    try:
        doc = write_doc(corpus / "first.md", "First", 3, seed=1)
        seen["ingested"] = ingest(services, [doc])["state"]
        seen["ballast_bytes"] = fill(data_dir)
        with (data_dir / "ballast").open("r+b") as ballast:
            ballast.truncate(seen["ballast_bytes"] - SLACK)
        seen["while_full"] = load(services, data_dir)
        (data_dir / "ballast").unlink()
        seen["after_free"] = load(services, data_dir)
    finally:
        services.close()
    return seen


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2]))))
