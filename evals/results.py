"""Results files: one JSON object per case (the ``ask --json`` object plus ``qid``,
``stratum``, ``latency_ms`` and the eval's grade), and a ``<name>.meta.json`` sidecar with the
index version and the configuration the run used."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from evals.errors import CaseFileError


def meta_path(results: Path) -> Path:
    """``runs/base.jsonl`` -> ``runs/base.meta.json``."""
    return results.with_name(results.stem + ".meta.json")


def write_results(path: Path, rows: Iterable[Mapping[str, Any]], meta: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    meta_path(path).write_text(
        json.dumps(meta, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )


def read_results(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The sidecar meta and the rows of one run; a bad line or a missing sidecar is named."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CaseFileError(f"{path}: cannot read the results file: {exc}") from exc
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CaseFileError(f"{path} line {number}: not valid JSON ({exc.msg})") from exc
        if not isinstance(row, dict) or not isinstance(row.get("qid"), str):
            raise CaseFileError(f"{path} line {number}: a result needs a string 'qid'")
        grade = row.get("grade")
        if not isinstance(grade, dict) or not isinstance(grade.get("column"), str):
            raise CaseFileError(
                f"{path} line {number}: result {row['qid']!r} has no 'grade.column' "
                "(was it written by `docent eval run`?)"
            )
        rows.append(row)
    sidecar = meta_path(path)
    try:
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CaseFileError(f"{sidecar}: cannot read the run's meta sidecar: {exc}") from exc
    if not isinstance(meta, dict):
        raise CaseFileError(f"{sidecar}: the meta sidecar must be a JSON object")
    return meta, rows
