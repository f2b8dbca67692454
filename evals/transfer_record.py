"""Record one corpus's cases for the transfer report (``evals/transfer.py``): every case
(and its derived ``unretrieved`` twin) asked once with the answer gate open — the draft
answer, graded, with the gate's signals — and once with it shut, to see what a non-answer
shows first (the closest passages and their excerpts).

    python -m evals.transfer_record --corpus NAME --data-dir DIR --cases CASES.jsonl \
        --out ROWS.jsonl

The data dir must already hold the corpus's index (``docent ingest`` or
``python -m evals.baseline --data-dir``). One search per case; the rest is replayed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evals.cases import Case, normalise

if TYPE_CHECKING:
    from docent.wiring import Services
    from evals.runner import ReplaySearcher
    from generate.extractive import ExtractiveGenerator
    from generate.result import AskResult


def holds(expect: Sequence[str], text: str) -> bool:
    """Every expected string in ``text`` (normalised as the grader compares)."""
    body = normalise(text)
    return bool(expect) and all(normalise(e) in body for e in expect)


def first_screen(case: Case, held: Mapping[str, Any]) -> dict[str, bool]:
    """Whether a non-answer's first screen shows the expected text: in an excerpt under a
    closest passage, or anywhere in those passages' text (the asker must open them)."""
    closest = held.get("closest") or []
    texts = {r["id"]: r.get("text") or "" for r in held.get("retrieved") or []}
    return {
        "excerpt": any(holds(case.expect, str(c.get("excerpt") or "")) for c in closest),
        "passages": any(holds(case.expect, texts.get(c["id"], "")) for c in closest),
    }


def record_case(
    services: Services,
    case: Case,
    grader: Any,
    corpus: str,
    gates: tuple[ExtractiveGenerator, ExtractiveGenerator],
    replay: ReplaySearcher,
) -> dict[str, Any]:
    """One case, its search made once (``replay``): the draft with the gate open and what
    shows with it shut (``gates``, from ``open_and_shut``)."""
    from evals.runner import principal_for, replay_asker
    from generate.ask import ask_json

    opened, shut = gates
    threshold = services.settings.relevance_threshold
    principal = principal_for(case)
    draft = replay_asker(services, replay, opened).ask(case.q, principal, threshold=threshold)
    draft_json = ask_json(draft)
    column, _, leaks = grader.grade_output(case, draft_json)
    raw = json.loads(draft.generation.raw_output) if draft.generation else {}
    held = replay_asker(services, replay, shut).ask(case.q, principal, threshold=threshold)
    held_json = ask_json(held)
    # A past-version answer (or any answer drafted without the gate) is shown whatever the
    # gate says: it carries no signals.
    signals = (raw.get("answer_gate") or {}).get("signals")
    return {
        "corpus": corpus,
        "qid": case.qid,
        "stratum": case.stratum,
        "phrasing": case.phrasing,
        "split": case.split,
        "must_answer": case.must_answer,
        "draft_outcome": draft_json["outcome"],
        "draft_column": column,
        "leaks": len(leaks),
        "signals": signals if draft_json["outcome"] == "answered" else None,
        "gated": bool(signals) and draft_json["outcome"] == "answered",
        "held_outcome": held_json["outcome"],
        "held_tier": held_json["tier"],
        "first_screen": first_screen(case, held_json) if case.must_answer else None,
        "passages": passages(case, held) if case.must_answer else None,
        "retrieved_hold": [holds(case.expect, r["text"]) for r in held_json["retrieved"]]
        if case.must_answer
        else None,
    }


def passages(case: Case, held: AskResult) -> list[dict[str, Any]]:
    """Every readable passage by rank, with whether each of its units (best first) holds
    the expected text, and its place in the answerer's order: what the report needs to
    compare excerpt and ordering choices without asking again."""
    units: dict[str, list[str]] = {}
    for cid, text in held.generation.pointers if held.generation else ():
        units.setdefault(cid, []).append(text)
    return [
        {
            "id": hit.chunk.chunk_id,
            "status": hit.chunk.status,
            "order": list(units).index(hit.chunk.chunk_id) if hit.chunk.chunk_id in units else 99,
            "units": [holds(case.expect, t) for t in units.get(hit.chunk.chunk_id, [])[:4]],
            "text": holds(case.expect, hit.chunk.text),
        }
        for hit in sorted(held.hits, key=lambda h: h.rank)
    ]


def open_and_shut(
    services: Services, rules: frozenset[str] | None = None
) -> tuple[ExtractiveGenerator, ExtractiveGenerator]:
    """The deployment's extractive answerer with its gate open (every draft answers) and
    shut (none does), reading questions with ``rules`` (default: the deployment's)."""
    from generate.answer_gate import AnswerGate
    from generate.extractive import ExtractiveGenerator
    from generate.question_types import ALL_RULES

    base = services.generator
    if isinstance(base, ExtractiveGenerator):
        weights, gate, read = base.weights, base.gate, base.rules
    else:
        weights, gate, read = None, AnswerGate(), ALL_RULES
    read = read if rules is None else rules
    return (
        ExtractiveGenerator(weights=weights, gate=replace(gate, threshold=0.0), rules=read),
        ExtractiveGenerator(weights=weights, gate=replace(gate, threshold=1.0), rules=read),
    )


def record_readings(
    services: Services,
    cases: Sequence[Case],
    corpus: str,
    readings: Mapping[str, frozenset[str] | None],
) -> dict[str, list[dict[str, Any]]]:
    """One corpus's rows under each reading of its questions (label -> the question-phrase
    rules to read with; None: the deployment's): every case and its ``unretrieved`` twin
    searched once, that search replayed for each reading."""
    from evals.runner import Grader, chunk_refs, replay_search, with_unretrieved

    chunks = chunk_refs(services)
    grader = Grader(chunks, services.settings.access_levels)
    every = with_unretrieved(cases, chunks)
    gates = {label: open_and_shut(services, rules) for label, rules in readings.items()}
    rows: dict[str, list[dict[str, Any]]] = {label: [] for label in readings}
    for n, case in enumerate(every, start=1):
        replay = replay_search(services, case)
        for label, pair in gates.items():
            rows[label].append(record_case(services, case, grader, corpus, pair, replay))
        if n % 50 == 0:
            print(f"{corpus}: {n}/{len(every)}", file=sys.stderr, flush=True)
    return rows


def record(services: Services, cases: Sequence[Case], corpus: str) -> list[dict[str, Any]]:
    """One corpus's rows as the deployment reads its questions."""
    return record_readings(services, cases, corpus, {corpus: None})[corpus]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--cases", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from docent.settings import Settings
    from docent.wiring import open_services
    from evals.cases import load_cases

    services = open_services(Settings(data_dir=args.data_dir))
    try:
        cases = load_cases(args.cases, services.settings.access_levels)
        rows = record(services, cases, args.corpus)
    finally:
        services.close()  # the embedded index has one owner at a time
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
