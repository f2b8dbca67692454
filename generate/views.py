"""How the ask result and its trace read in a terminal (``docent ask``, ``docent trace show``):
pure functions of what the ask produced; the commands live in the composition root
(``docent/commands/ask.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from docent.contracts import Ambiguous, Answered, Chunk, Declined, InsufficientEvidence
from generate.tables import is_rule_line

if TYPE_CHECKING:
    from generate.result import AskResult

REASONS = {
    "out_of_scope": "the question is outside what the policy documents are for",
    "requires_human": "this needs a person to answer",
    "policy": "answering it is not allowed",
    "model_unavailable": "the answering model is not available right now",
    "fabricated_citation": "the drafted answer cited a document it was not given",
    "model_output_unusable": "the model's reply could not be read",
    "uncited_answer": "the drafted answer cited no document",
}


def numbered_answer(answer: str, ids: Sequence[str]) -> str:
    """``[chunk id]`` markers as ``[1]``, ``[2]`` … in citation order."""
    from generate.claims import MARKER, marker_ids

    number = {cid: n for n, cid in enumerate(ids, start=1)}

    def swap(match: Any) -> str:
        found = marker_ids(match.group(1), number)
        if not found:  # the document's own brackets
            return str(match.group(0))
        return "".join(f"[{number[c]}]" if c in number else f"[{c}]" for c in found)

    return str(MARKER.sub(swap, answer))


def tables_apart(answer: str) -> str:
    """An answer's table quoted after a label ("Under the superseded version (…): | Plan |
    …") shown as the web UI shows it: the label with the table's citation on its line, the
    table below it (the marker after the last row read as the next label's)."""
    lines = answer.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        at = line.find("|")
        if (
            at <= 0
            or line.lstrip().startswith("|")
            or i + 1 >= len(lines)
            or not is_rule_line(lines[i + 1])
        ):
            out.append(line)
            i += 1
            continue
        end = i + 1
        while end + 1 < len(lines) and lines[end + 1].lstrip().startswith("|"):
            end += 1
        table = [line[at:], *lines[i + 1 : end + 1]]
        cut = table[-1].rfind("|")
        marker = table[-1][cut + 1 :].strip()
        table[-1] = table[-1][: cut + 1]
        out.append(f"{line[:at].rstrip()} {marker}".rstrip())
        out.extend(f"  {row}" for row in table)
        i = end + 1
    return "\n".join(out)


# What a non-answer says first, by its reason (``generate/reasons.py``); the web UI's
# wording is the same, in its own voice (``web/static/app.js``).
NONANSWER_TITLES = {
    "below_threshold": "The documents do not cover this.",
    "model_abstained": "No direct answer in the documents.",
    "unclear_evidence": "Not clear enough to quote as the answer.",
    "version_not_found": "No passage of that version matches the question.",
    # The check fires when the current version was among the passages but not quoted: it
    # said "the current version's matching passage was not found" above that very passage;
    # a question asking for the old version (a user pass) reads the old passages first.
    "superseded_cited": (
        "What was drafted quotes only a superseded version, without today's rule beside it, "
        "so it is not shown: read the passages below."
    ),
}
FAILED_CHECKS = "What was drafted did not hold up against the documents, so it is not shown."


# The first line of every reply names its tier (``generate.ask.tier_of``) in words; the web
# UI says the same (``web/static/app.js``).
TIER_LINES = {
    "answer": "Answer (checked against the documents{confidence}):",
    "probably_here": "Not a checked answer. The answer is probably in these passages:",
    # "Seem": nothing matched closely, which a paraphrase can do too (a user pass read "don't
    # cover this" right above the passage that answered).
    "not_covered": "The documents you can read don't seem to cover this.",
}


def human(result: AskResult) -> str:
    from generate.ask import closest_passages, confidence_of, tier_of

    outcome = result.outcome
    closest = closest_passages(result)
    tier = tier_of(result, closest)
    confidence = confidence_of(result)
    said = f"; confidence {confidence:.0%}" if confidence is not None else ""
    lines: list[str] = [TIER_LINES[tier].format(confidence=said)]
    match outcome:
        case Answered(answer=answer, citations=citations):
            lines.append(tables_apart(numbered_answer(answer, [c.id for c in citations])))
            lines.append("")
            lines.append("Sources")
            for n, c in enumerate(citations, start=1):
                where = c.source + (f" › {' > '.join(c.heading_path)}" if c.heading_path else "")
                when = c.effective.isoformat() if c.effective else "undated"
                lines.append(f"  [{n}] {where} (effective {when}, {c.status})")
                for quoted in c.quote.splitlines():
                    lines.append(f"      {quoted}")
        case InsufficientEvidence(missing=missing):
            if (tier, result.reason) != ("not_covered", "below_threshold"):  # said above
                lines.append(f"  {NONANSWER_TITLES.get(result.reason or '', FAILED_CHECKS)}")
            lines.append(f"  {missing}")
        case Ambiguous(readings=readings, clarifying_question=question):
            lines.append("  The question can be read more than one way:")
            lines.extend(f"  - {reading}" for reading in readings)
            lines.append(f"  {question}")
        case Declined(reason_code=code):
            why = result.reason or code
            lines.append(f"  Docent will not answer this: {REASONS.get(why, REASONS[code])}.")
    if closest:
        # Nothing cleared the relevance bar: the nearest passages, never "probably here".
        weak = tier == "not_covered" and not result.hits
        lines.append(
            "Nearest passages, a weak match (they may not hold the answer):"
            if weak
            else "Closest passages (an excerpt of each, not a checked answer):"
        )
        mixed = any(p.hit.chunk.status != "current" for p in closest)
        for passage in closest:
            chunk = passage.hit.chunk
            where = " › ".join([chunk.source, *chunk.heading_path])
            lines.append(f"  - {where}{version_note(chunk, mixed)}")
            if passage.excerpt:
                lines.append(f"      “{marked(passage.excerpt, passage.nearest)}”")
    if result.handoff is not None:
        near = f" (closest document: {result.handoff.source})" if result.handoff.source else ""
        lines.append(f"Who to ask: {result.handoff.owner}{near}")
    lines.append(f"trace {result.trace_id}")
    return "\n".join(lines)


def marked(excerpt: str, nearest: str | None) -> str:
    """The excerpt with its unit nearest the question between » and « (the web UI highlights
    it), when the excerpt holds more than that unit."""
    if not nearest or nearest == excerpt or nearest not in excerpt:
        return excerpt
    return excerpt.replace(nearest, f"»{nearest}«", 1)


def trace_text(trace: dict[str, Any]) -> str:
    p = trace["payload"]
    principal = p.get("principal", {})
    reason = f" ({p['reason']})" if p.get("reason") else ""
    lines = [
        f"trace {trace['trace_id']}  {trace.get('created_at') or ''}",
        f"question: {trace['question']}",
        f"asker: {principal.get('user_id')} ({principal.get('clearance')}; "
        f"groups: {', '.join(principal.get('groups') or []) or '-'})",
        f"outcome: {trace['outcome']}{reason}   "
        f"index version {trace['index_version']}   "
        f"backend {p.get('backend')}" + (f" / {p['model']}" if p.get("model") else ""),
        "",
        f"retrieved ({len(p.get('hits', []))}; "
        f"{p.get('chunks_dropped', 0)} dropped by the budget):",
    ]
    for h in p.get("hits", []):
        stages = ", ".join(f"{k} #{v}" for k, v in (h.get("stage_ranks") or {}).items())
        rerank = "-" if h.get("rerank_score") is None else f"{h['rerank_score']:.3f}"
        lines.append(f"  {h['rank']}. {h['id']} [{h['status']}] rerank {rerank}  {stages}")
    lines.append("")
    lines.append("checks:")
    for c in p.get("checks", []):
        mark = "ok  " if c["passed"] else "FAIL"
        lines.append(f"  {mark} {c['check']} {c.get('detail') or ''}".rstrip())
    lines.append("")
    timings = ", ".join(f"{k} {v:.1f} ms" for k, v in (p.get("timings_ms") or {}).items())
    lines.append(f"timings: {timings}")
    lines.append("")
    lines.append("raw output:")
    lines.append(str(p.get("raw_output")))
    lines.append("")
    lines.append("user prompt:")
    lines.append(str(p.get("user_prompt")))
    return "\n".join(lines)


def version_note(chunk: Chunk, mixed: bool) -> str:
    """A listed passage's version: a superseded or pending one's status and date, and among
    such (``mixed``) a current one's too — a user pass read today's rule, listed unlabelled
    under a question about the 2022 policy, as the 2022 rule."""
    if chunk.status == "current" and not mixed:
        return ""
    when = f"effective {chunk.effective_date.isoformat()}, " if chunk.effective_date else ""
    return f" ({when}{chunk.status})"
