"""Run by tests/ingest/test_disk_full.py on a small tmpfs data dir (not a test module):
ingest three documents, fill the disk, then try the three re-marks in place (an access level
change, a supersession declared by metadata, the promotion of a pending document), free the
disk and try them again. Prints one JSON object with what it saw at each step."""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

from docent.settings import Settings
from docent.wiring import Services
from ingest.errors import DiskFull
from tests.ingest.diskfull_scenario import SLACK, consistent, fill
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.ingest.pipeline_support import ingest, snapshot, version, write_doc

PROMOTION_DAY = date(2100, 1, 1)


def marks(services: Services) -> dict[str, Any]:
    """What the registry and the index each say of every document's marks, and the version."""
    fields = ("access_level", "status", "superseded_by")
    registry = {d["source"]: {f: d[f] for f in fields} for d in services.ingestor.documents()}
    index: dict[str, set[str]] = {}
    for payload in snapshot(services).values():
        index.setdefault(payload["source"], set()).add(
            json.dumps({f: payload[f] for f in fields}, sort_keys=True)
        )
    return {
        "registry": registry,
        "index": {source: sorted(values) for source, values in index.items()},
        "version": version(services),
    }


def remark(services: Services, corpus: Path) -> dict[str, Any]:
    """Try each re-mark; what each said."""
    said: dict[str, Any] = {}
    level = ingest(services, [corpus / "first.md"], overrides={"access_level": "confidential"})
    said["access_level"] = [(f["state"], f["error"]) for f in level["files"]]
    supersede = ingest(services, [corpus / "second.md"], overrides={"supersedes": "first.md"})
    said["supersede"] = [(f["state"], f["error"]) for f in supersede["files"]]
    try:
        said["promote"] = services.ingestor.promote_due(PROMOTION_DAY)
    except DiskFull as exc:
        said["promote"] = exc.reason
    return said


def main(data_dir: Path, corpus: Path) -> dict[str, Any]:
    settings = Settings(_env_file=None, env="test", data_dir=data_dir)  # type: ignore[call-arg]
    services = Services(settings, embedder=HashingEmbedder(256))
    seen: dict[str, Any] = {}
    try:
        for name, seed in (("first", 1), ("second", 2)):
            write_doc(corpus / f"{name}.md", name.title(), 3, seed=seed)
        write_doc(corpus / "pending.md", "Pending", 3, seed=3)
        seen["ingested"] = [
            ingest(services, [corpus / "first.md"])["state"],
            ingest(services, [corpus / "second.md"])["state"],
            ingest(services, [corpus / "pending.md"], overrides={"effective_date": "2099-01-01"})[
                "state"
            ],
        ]
        seen["before"] = marks(services)
        seen["ballast_bytes"] = fill(data_dir)
        with (data_dir / "ballast").open("r+b") as ballast:
            ballast.truncate(seen["ballast_bytes"] - SLACK)
        seen["while_full"] = remark(services, corpus)
        seen["after_refusal"] = marks(services)
        seen["consistent_while_full"] = consistent(services)
        (data_dir / "ballast").unlink()
        seen["after_free"] = remark(services, corpus)
        seen["after"] = marks(services)
        seen["consistent_after_free"] = consistent(services)
    finally:
        services.close()
    return seen


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2]))))
