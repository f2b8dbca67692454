"""Fit and check the order retrieval passes its candidates on in (``retrieval/order.py``),
leave one corpus out.

``record``: for each must-answer case of one corpus, one search (no threshold, every fused
candidate kept) and each candidate's order signals with whether its text holds the case's
expected strings. ``report``: per held-out corpus, a pairwise ranker (logistic regression on
signal differences, answer-bearing against not, within one question) fitted on the other
corpora's rows of one split, and how often an answer-bearing passage is in the top 1 / 3 /
5 under the reranker's order and under the blend; then the weights fitted on every corpus.

    python -m evals.order_fit record --corpus NAME --data-dir DIR --cases CASES --out CANDS
    python -m evals.order_fit report CANDS... [--split dev] [--out REPORT.md]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import astuple
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from evals.cases import load_cases
from evals.gate_fit import fit_logistic
from evals.transfer_record import holds
from retrieval.order import ORDER_SIGNALS, EvidenceOrder, pool_signals

if TYPE_CHECKING:
    from docent.wiring import Services
    from evals.cases import Case

Row = dict[str, Any]
CUTOFFS = (1, 3, 5)
POSITIVES_PER_QUESTION = 3  # the best-placed answer-bearing passages paired with every other
# A lighter penalty than the answer gate's, run to convergence: with the term coverage among
# the signals, the gate's default (0.01, 5,000 steps) kept the keyword leg's weight where the
# coverage had taken its place and put one answer-bearing passage fewer in the top five on
# the worst dev fold (evals/reports/transfer.md, change set 7).
ORDER_L2 = 0.001
ORDER_STEPS = 20_000


def record_case(services: Services, case: Case, corpus: str) -> Row:
    from evals.runner import principal_for

    depth = services.settings.fused_top_m
    result = services.searcher.search(case.q, principal_for(case), threshold=0.0, top_k=depth)
    hits = sorted([*result.hits, *result.cut], key=lambda h: h.rank)
    by_relevance = sorted(hits, key=lambda h: -(h.rerank_score or 0.0))  # stable: fused order
    rerank_rank = {h.chunk.chunk_id: r for r, h in enumerate(by_relevance, start=1)}
    signals = pool_signals(case.q, hits, services.word_vectors)
    return {
        "corpus": corpus,
        "qid": case.qid,
        "phrasing": case.phrasing,
        "split": case.split,
        "candidates": [
            {
                "id": h.chunk.chunk_id,
                "rerank_rank": rerank_rank[h.chunk.chunk_id],
                "signals": [float(v) for v in row],
                "holds": holds(case.expect, h.chunk.text),
            }
            for h, row in zip(hits, signals, strict=True)
        ],
    }


def check_rows(rows: Sequence[Row]) -> None:
    """Refuse rows whose candidates carry another number of signals than the order reads."""
    for row in rows:
        for c in row["candidates"]:
            if len(c["signals"]) != len(ORDER_SIGNALS):
                raise ValueError(
                    f"{row['qid']}: a candidate has {len(c['signals'])} signals, the order "
                    f"reads {len(ORDER_SIGNALS)} ({', '.join(ORDER_SIGNALS)}): the rows were "
                    "recorded by another version; record them again (order_fit record)"
                )


def pairs(rows: Sequence[Row]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Signal differences (answer-bearing minus not, and the reverse) with their labels."""
    check_rows(rows)
    diffs: list[NDArray[np.float64]] = []
    for row in rows:
        cands = sorted(row["candidates"], key=lambda c: c["rerank_rank"])
        good = [np.array(c["signals"]) for c in cands if c["holds"]][:POSITIVES_PER_QUESTION]
        bad = [np.array(c["signals"]) for c in cands if not c["holds"]]
        diffs.extend(g - b for g in good for b in bad)
    if not diffs:
        raise ValueError("no question has both an answer-bearing and another candidate")
    x = np.array(diffs)
    return np.r_[x, -x], np.r_[np.ones(len(x)), np.zeros(len(x))]


def fit_order(rows: Sequence[Row]) -> EvidenceOrder:
    x, y = pairs(rows)
    _, weights = fit_logistic(x, y, l2=ORDER_L2, steps=ORDER_STEPS)
    scale = abs(weights[0]) or 1.0  # the reranker's weight as the unit: ratios are the fit
    return EvidenceOrder(*(round(float(w / scale), 4) for w in weights))


def placed(row: Row, order: EvidenceOrder | None) -> int | None:
    """The place of the first answer-bearing candidate under ``order`` (None: the
    reranker's), or None when no candidate holds the answer."""
    cands = row["candidates"]
    if order is None:
        ranked = sorted(cands, key=lambda c: c["rerank_rank"])
    else:
        weights = np.array(astuple(order))
        ranked = sorted(cands, key=lambda c: (-float(weights @ c["signals"]), c["rerank_rank"]))
    return next((i for i, c in enumerate(ranked, start=1) if c["holds"]), None)


def within(rows: Sequence[Row], order: EvidenceOrder | None, k: int) -> int:
    return sum(1 for r in rows if (p := placed(r, order)) is not None and p <= k)


def fold_lines(held: str, rows: Sequence[Row], order: EvidenceOrder) -> list[str]:
    line = [f"| {held} | {len(rows)} |"]
    for k in CUTOFFS:
        line.append(f" {within(rows, None, k)} → {within(rows, order, k)} |")
    phrasings = sorted({str(r.get("phrasing")) for r in rows})
    by = [
        f"{p} {within(sub, None, 5)} → {within(sub, order, 5)}/{len(sub)}"
        for p in phrasings
        if (sub := [r for r in rows if str(r.get("phrasing")) == p])
    ]
    return ["".join(line) + f" {'; '.join(by)} |"]


def report(rows: Sequence[Row], split: str) -> str:
    check_rows(rows)
    chosen = [r for r in rows if r["split"] == split]
    corpora = sorted({r["corpus"] for r in chosen})
    out = [
        f"Split: {split}. Questions whose answer-bearing passage is in the top 1 / 3 / 5, "
        "the reranker's order → the blend fitted on the other corpora:",
        "",
        "| held out | questions | top 1 | top 3 | top 5 | top 5 by phrasing |",
        "|---|---|---|---|---|---|",
    ]
    for held in corpora:
        train = [r for r in chosen if r["corpus"] != held]
        out += fold_lines(held, [r for r in chosen if r["corpus"] == held], fit_order(train))
    every = fit_order(chosen)
    named = ", ".join(f"{n} {w}" for n, w in zip(ORDER_SIGNALS, astuple(every), strict=True))
    out += ["", f"Fitted on every corpus's {split} rows: {named}."]
    return "\n".join(out) + "\n"


def _record(args: argparse.Namespace) -> int:
    from docent.settings import Settings
    from docent.wiring import open_services

    services = open_services(Settings(data_dir=args.data_dir))
    try:
        cases = load_cases(args.cases, services.settings.access_levels)
        rows = [record_case(services, c, args.corpus) for c in cases if c.must_answer]
    finally:
        services.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)
    print(f"{len(rows)} questions -> {args.out}")
    return 0


def _report(args: argparse.Namespace) -> int:
    rows: list[Row] = []
    for path in args.rows:
        with path.open(encoding="utf-8") as handle:
            rows.extend(json.loads(line) for line in handle if line.strip())
    text = report(rows, args.split)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    rec = commands.add_parser("record", help="one corpus's candidates and their signals")
    rec.add_argument("--corpus", required=True)
    rec.add_argument("--data-dir", type=Path, required=True)
    rec.add_argument("--cases", type=Path, required=True)
    rec.add_argument("--out", type=Path, required=True)
    rep = commands.add_parser("report", help="leave one corpus out, then fit on all")
    rep.add_argument("rows", type=Path, nargs="+")
    rep.add_argument("--split", default="dev")
    rep.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return _record(args) if args.command == "record" else _report(args)


if __name__ == "__main__":
    raise SystemExit(main())
