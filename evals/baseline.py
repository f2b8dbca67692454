"""Rebuild the committed baseline: ingest the sample corpus (the files its manifest lists,
with that manifest) into a fresh data dir, then run the cases, the threshold sweep and the
retrieval-stage eval over it, writing everything under ``evals/reports/``.

    python -m evals.baseline [--out evals/reports] [--thresholds 0.3:0.7:0.025]
                             [--corpus DIR --cases CASES.jsonl]

Any corpus with a ``MANIFEST.csv`` (paths relative to it) and any case file in the eval
format work the same way.

Only manifest-listed files are ingested: the corpus folder also holds a README that
describes the documents (confidential figures included) and is not itself a policy.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docent.wiring import Services
    from evals.cases import Case

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "examples" / "policies"
CASES = ROOT / "evals" / "cases" / "sample.jsonl"


def manifest_files(corpus: Path) -> list[Path]:
    with (corpus / "MANIFEST.csv").open(newline="", encoding="utf-8") as handle:
        return [corpus / row["path"] for row in csv.DictReader(handle)]


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    corpus, cases_file, out = args.corpus.resolve(), args.cases.resolve(), args.out.resolve()
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.chdir(ROOT)  # paths in the reports are relative to the repository

    # Docent is imported here and in the steps below, after the environment is set: the
    # document parsers and the model hub read it when they are imported.
    from docent.settings import Settings
    from docent.wiring import open_services

    with tempfile.TemporaryDirectory(prefix="docent-baseline-") as tmp:
        data_dir = args.data_dir or Path(tmp)
        data_dir.mkdir(parents=True, exist_ok=True)
        settings = Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
        services = open_services(settings)
        try:
            _ingest(services, corpus)
            cases, meta, report = _write_baseline(services, cases_file, out)
            sweep_text = _write_sweep(
                services, cases, meta, out, args.thresholds, args.max_false_abstention
            )
            stage_text = _write_stages(services, cases, meta, out)
        finally:
            services.close()
    print(report)
    print(sweep_text)
    print(stage_text)
    return 0


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "evals" / "reports")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder with MANIFEST.csv")
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--thresholds", default="0.3:0.7:0.025")
    parser.add_argument("--max-false-abstention", type=float, default=None)
    parser.add_argument("--data-dir", type=Path, default=None, help="default: a temp dir")
    return parser.parse_args(argv)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _ingest(services: Services, corpus: Path) -> None:
    started = time.perf_counter()
    job = services.ingestor.submit(
        manifest_files(corpus), root=corpus, manifest=corpus / "MANIFEST.csv"
    )
    services.ingestor.run(job)
    took = time.perf_counter() - started
    _say(f"ingested {services.index.count()} chunks in {took:.0f} s")


def _write_baseline(
    services: Services, cases_file: Path, out: Path
) -> tuple[list[Case], dict[str, Any], str]:
    """Run the cases (with the derived unretrieved stratum) and write the baseline report."""
    from evals.cases import load_cases
    from evals.report import build_report
    from evals.results import write_results
    from evals.runner import chunk_refs, run_cases, run_config, run_meta, with_unretrieved

    settings = services.settings
    chunks = chunk_refs(services)
    cases = with_unretrieved(load_cases(cases_file, settings.access_levels), chunks)
    rows = run_cases(services, cases)
    meta = run_meta(services, _relative(cases_file), run_config(settings, None), rows)
    out.mkdir(parents=True, exist_ok=True)
    write_results(out / "baseline.jsonl", rows, meta)
    report = build_report(rows, {c.qid: c for c in cases}, meta, "Docent baseline")
    (out / "baseline.md").write_text(report, encoding="utf-8")
    _say("wrote baseline report")
    return cases, meta, report


def _write_sweep(
    services: Services,
    cases: list[Case],
    meta: dict[str, Any],
    out: Path,
    thresholds: str,
    max_false_abstention: float | None,
) -> str:
    from evals.runner import sweep_cases
    from evals.sweep import (
        choose_threshold,
        parse_thresholds,
        plot_operating_points,
        rows_by_threshold,
        sweep_table,
    )

    settings = services.settings
    # The threshold is chosen on the dev split only (all cases when the file has none).
    tuning = [c for c in cases if c.split == "dev"] or cases
    graded = sweep_cases(services, tuning, parse_thresholds(thresholds))
    points = rows_by_threshold(graded)
    chosen = choose_threshold(points, max_false_abstention)
    plot_operating_points(points, out / "sweep.png", chosen.threshold)
    sweep_text = (
        f"# Threshold sweep\n\n{len(tuning)} cases"
        + (" (the dev split)" if tuning is not cases else "")
        + ", index_version "
        f"{meta['index_version']}, backend {settings.generator}, top_k {settings.top_k}; "
        "chosen by the lowest wrong-and-confident rate among thresholds whose "
        "false-abstention rate is "
        + (
            "no higher than the sweep's lowest (the gate may add none)"
            if max_false_abstention is None
            else f"at most {max_false_abstention:.0%}"
        )
        + "; ties to the median tied threshold.\n\n"
        f"{sweep_table(points, chosen.threshold)}\n\nchosen: {chosen.threshold:g}\n"
    )
    (out / "sweep.md").write_text(sweep_text, encoding="utf-8")
    _say("wrote sweep")
    return sweep_text


def _write_stages(services: Services, cases: list[Case], meta: dict[str, Any], out: Path) -> str:
    from evals.report import retrieval_stage_table
    from evals.runner import retrieval_rankings

    rankings = retrieval_rankings(services, cases)
    stage_text = (
        f"# Retrieval stages\n\n{len(rankings)} must-answer cases with gold, "
        f"index_version {meta['index_version']}, nothing withheld, no threshold.\n\n"
        f"{retrieval_stage_table(rankings)}\n"
    )
    (out / "retrieval.md").write_text(stage_text, encoding="utf-8")
    return stage_text


def _relative(path: Path) -> Path:
    """Repository-relative when inside the repository, so committed reports do not name a
    developer's home folder."""
    try:
        return path.relative_to(ROOT)
    except ValueError:
        return path


if __name__ == "__main__":
    raise SystemExit(main())
