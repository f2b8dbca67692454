"""The run report: readable Markdown tables computed from result rows and their cases.

The same text is printed by ``docent eval run`` and committed as ``evals/reports/*.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evals.cases import MUST_ANSWER, STRATA, Case, GoldRef, normalise
from evals.metrics import (
    Rate,
    Tally,
    abstention_rates,
    check_citations,
    context_precision,
    latency_table,
    recall_at_k,
    retrieval_scores,
    tally,
)
from evals.split_report import split_section
from generate.ask import CLOSEST_PASSAGES


def ranked_of(row: Mapping[str, Any], key: str = "ranked") -> list[tuple[str, list[str]]]:
    """(source, heading_path) pairs of a row's ranked list (falls back to ``retrieved``)."""
    items = row.get(key)
    if items is None:
        items = row.get("retrieved") or []
    return [(str(i.get("source")), list(i.get("heading_path") or [])) for i in items]


def outcome_table(counts: Mapping[str, Tally]) -> list[str]:
    lines = [
        "| stratum | n | correct | wrong-and-confident | abstained |",
        "|---|---|---|---|---|",
    ]
    order = [s for s in STRATA if s in counts] + [s for s in counts if s not in STRATA]
    for stratum in order:
        t = counts[stratum]
        name = f"**{stratum}**" if stratum == "all" else stratum
        lines.append(
            f"| {name} | {t.n} | {t.rate('correct')} | {t.rate('wrong')} | {t.rate('abstained')} |"
        )
    return lines


def build_report(
    rows: Sequence[Mapping[str, Any]],
    cases: Mapping[str, Case],
    meta: Mapping[str, Any],
    title: str = "Docent eval run",
) -> str:
    config = meta.get("config") or {}
    lines = [
        f"# {title}",
        "",
        f"- cases: {len(rows)} from `{meta.get('cases_file')}` "
        f"(+ derived `unretrieved`: {sum(1 for r in rows if r.get('stratum') == 'unretrieved')})",
        f"- index_version: {meta.get('index_version')} ({meta.get('chunks')} chunks); "
        f"index fingerprint `{str(meta.get('index_fingerprint') or 'not recorded')[:16]}`; "
        f"prompt hash `{str(meta.get('prompt_hash') or 'not recorded')[:16]}`",
        "- configuration: "
        + ", ".join(f"{k}={config[k]}" for k in sorted(config) if config[k] is not None),
        "",
        "## Outcomes (Wilson 95 % intervals)",
        "",
        "correct = the outcome the stratum asks for (an answer containing every expected "
        "substring and no stale one, or any non-answer on a must-abstain stratum); "
        "wrong-and-confident = an answer that is not correct, or any output that leaks; "
        "abstained = a non-answer where an answer was expected.",
        "",
    ]
    lines += outcome_table(tally((str(r["stratum"]), r["grade"]["column"]) for r in rows))
    if by_split := split_section(rows, cases):
        lines += ["", *by_split]

    rates = abstention_rates((str(r["stratum"]), str(r.get("outcome"))) for r in rows)
    lines += [
        "",
        "## Abstention, both ways",
        "",
        "| measure | rate |",
        "|---|---|",
        f"| false abstention (non-answer on must-answer strata) | {rates.false_abstention} |",
        f"| answered a must-abstain question | {rates.answered_must_abstain} |",
        "| must-answer cases left insufficient_evidence whose closest passages (offered to "
        f"read) hold the right section | {_offered(rows, cases)} |",
        "| must-answer cases left insufficient_evidence where a closest passage's excerpt "
        "(its sentence nearest the question) holds the expected answer | "
        f"{_excerpted(rows, cases)} |",
    ]
    lines += ["", *_retrieval_section(rows, cases)]
    lines += ["", *_safety_section(rows, str(config.get("backend") or ""))]
    lines += ["", *reasons_section(rows)]
    lines += ["", *_latency_section(rows)]
    lines += ["", *_failures_section(rows)]
    return "\n".join(lines) + "\n"


def _left_unanswered(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Must-answer cases whose outcome was ``insufficient_evidence``: those offered closest
    passages instead of an answer."""
    return [
        r
        for r in rows
        if r.get("stratum") in MUST_ANSWER and r.get("outcome") == "insufficient_evidence"
    ]


def _offered(rows: Sequence[Mapping[str, Any]], cases: Mapping[str, Case]) -> str:
    """Must-answer cases left ``insufficient_evidence`` (with gold) whose closest passages,
    offered to read, hold a gold section: the asker was pointed at the answer although none
    was quoted."""
    held = [r for r in _left_unanswered(rows) if _gold(cases, r)]
    pointed = sum(
        recall_at_k(_gold(cases, r), ranked_of(r, "closest"), CLOSEST_PASSAGES, "section") > 0
        for r in held
        if r.get("closest")
    )
    return str(Rate(pointed, len(held)))


def _excerpted(rows: Sequence[Mapping[str, Any]], cases: Mapping[str, Case]) -> str:
    """Must-answer cases left ``insufficient_evidence`` (with expected strings) where the
    excerpt shown under a closest passage holds every expected string: the asker read the
    answer although none was quoted as one."""
    held = [
        (r, case)
        for r in _left_unanswered(rows)
        if (case := cases.get(str(r["qid"]))) is not None and case.expect
    ]
    shown = sum(
        any(
            all(normalise(e) in normalise(str(c.get("excerpt") or "")) for e in case.expect)
            for c in r.get("closest") or []
        )
        for r, case in held
    )
    return str(Rate(shown, len(held)))


def _gold(cases: Mapping[str, Case], row: Mapping[str, Any]) -> tuple[GoldRef, ...]:
    case = cases.get(str(row["qid"]))
    return case.gold if case else ()


def _retrieval_section(rows: Sequence[Mapping[str, Any]], cases: Mapping[str, Case]) -> list[str]:
    scored = [r for r in rows if r.get("stratum") in MUST_ANSWER and _gold(cases, r)]
    lines = [
        "## Retrieval (must-answer cases with gold)",
        "",
        "Ranked list = the reranked candidates before the relevance cut (`ranked` in each row).",
        "",
        "| level | n | recall@1 | recall@5 | recall@10 | MRR |",
        "|---|---|---|---|---|---|",
    ]
    for level in ("section", "document"):
        s = retrieval_scores([(_gold(cases, r), ranked_of(r)) for r in scored], level)
        lines.append(
            f"| {level} | {s.n} | {s.recall[1]:.2f} | {s.recall[5]:.2f} | {s.recall[10]:.2f} "
            f"| {s.mrr:.2f} |"
        )
    precisions = [
        p
        for r in scored
        if (p := context_precision(_gold(cases, r), ranked_of(r, "retrieved"))) is not None
    ]
    mean = sum(precisions) / len(precisions) if precisions else 0.0
    lines += [
        "",
        f"Context precision (share of passages sent to the model that are gold): "
        f"{mean:.2f} over {len(precisions)} cases that sent passages.",
    ]
    return lines


BY_CONSTRUCTION = {
    "extractive": "guaranteed by construction (the extractive backend quotes a shown block "
    "verbatim and cites it); not evidence",
}
BY_CHECKS = "guaranteed by the checks (`generate/checks.py`) for any backend; see the reasons"


def reasons_section(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Outcomes by reason: which stage decided each non-answer, and how often the checks had
    to change what the backend produced — the evidence the guaranteed rows are not."""
    counts: dict[tuple[str, str], int] = {}
    for r in rows:
        key = (str(r.get("outcome")), str(r.get("reason_code") or "none"))
        counts[key] = counts.get(key, 0) + 1
    lines = [
        "## Outcomes by reason",
        "",
        "| outcome | reason | cases |",
        "|---|---|---|",
    ]
    lines += [f"| {o} | {why} | {n} |" for (o, why), n in sorted(counts.items())]
    return lines


def _safety_section(rows: Sequence[Mapping[str, Any]], backend: str = "") -> list[str]:
    leaking = [r for r in rows if r.get("leaks")]
    answered = [r for r in rows if r.get("outcome") == "answered"]
    checks = [check_citations(r) for r in answered]
    citations = sum(c.citations for c in checks)
    not_retrieved = sum(len(c.not_retrieved) for c in checks)
    figs = sum(c.figures for c in checks)
    unsupported = sum(len(c.unsupported_figures) for c in checks)
    cited = Rate(sum(c.citations > 0 for c in checks), len(checks))
    guaranteed = BY_CONSTRUCTION.get(backend, BY_CHECKS)
    lines = [
        "## Leaks and citations",
        "",
        "| check | result | what it shows |",
        "|---|---|---|",
        f"| cases leaking text above the asker's level (must be 0) | {len(leaking)} | measured |",
        f"| answers with at least one citation | {cited} | {guaranteed} |",
        f"| cited ids not among the retrieved | {not_retrieved} of {citations} | {guaranteed} |",
        f"| figures in answers absent from the cited text | {unsupported} of {figs} "
        f"| {guaranteed} |",
    ]
    for r in leaking:
        lines.append(f"| leak in {r['qid']} | {'; '.join(r['leaks'])} | measured |")
    return lines


def _latency_section(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    timings = [
        {**(r.get("timings_ms") or {}), "total (wall)": float(r.get("latency_ms") or 0.0)}
        for r in rows
    ]
    lines = ["## Latency (ms)", "", "| stage | p50 | p95 | n |", "|---|---|---|---|"]
    for stage, (p50, p95, n) in latency_table(timings).items():
        lines.append(f"| {stage} | {p50:.1f} | {p95:.1f} | {n} |")
    return lines


def _failures_section(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    lines = ["## Cases not correct", "", "| qid | stratum | column | why |", "|---|---|---|---|"]
    bad = [r for r in rows if r["grade"]["column"] != "correct"]
    for r in sorted(bad, key=lambda r: (r["grade"]["column"], str(r["qid"]))):
        reason = str(r["grade"].get("reason", "")).replace("|", "\\|")
        lines.append(f"| {r['qid']} | {r['stratum']} | {r['grade']['column']} | {reason} |")
    if not bad:
        lines.append("| – | – | – | every case is correct |")
    return lines


RETRIEVAL_STAGES = (
    ("bm25", "BM25 only"),
    ("vector", "vector only"),
    ("fused", "fused (RRF)"),
    ("reranked", "fused + rerank"),
)


def retrieval_stage_table(
    rankings: Sequence[tuple[Case, Mapping[str, Sequence[tuple[str, Sequence[str]]]]]],
) -> str:
    """recall@5, recall@10 and MRR per retrieval stage, at section and document level."""
    lines = [
        "| stage | n | section R@1 | section R@5 | section R@10 | section MRR "
        "| doc R@5 | doc R@10 | doc MRR |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for stage, label in RETRIEVAL_STAGES:
        items = [(case.gold, stages.get(stage, [])) for case, stages in rankings]
        sec = retrieval_scores(items, "section")
        doc = retrieval_scores(items, "document")
        lines.append(
            f"| {label} | {sec.n} | {sec.recall[1]:.2f} | {sec.recall[5]:.2f} "
            f"| {sec.recall[10]:.2f} | {sec.mrr:.2f} | {doc.recall[5]:.2f} "
            f"| {doc.recall[10]:.2f} | {doc.mrr:.2f} |"
        )
    return "\n".join(lines)
