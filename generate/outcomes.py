"""Model output → an ``Outcome`` value: the JSON schema of the union, its parser, and the
plain-text fallback (``NOT_IN_CONTEXT`` or an answer with ``[id]`` citations).

Parsing never raises on what a model wrote; output it cannot use becomes a value:
- no JSON object with a known ``kind`` → read as plain text;
- an answer that cites no block → ``declined/requires_human`` ("answer cites no document");
- ``ambiguous`` with fewer than two readings → ``insufficient_evidence`` (the contract needs
  2-3; extra readings beyond three are dropped);
- an unknown ``reason_code`` → ``requires_human``.
Citations are built from the hits the prompt showed; an id that is not among them is kept
(with an empty source) so the checks can see it and escalate it as fabricated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from docent.contracts import (
    Ambiguous,
    Answered,
    Citation,
    Declined,
    Hit,
    InsufficientEvidence,
    Outcome,
    ReasonCode,
)
from docent.views import iso
from generate.claims import cited_ids, split_claims, strip_markers
from generate.reasons import BROKEN_JSON as BROKEN_JSON
from generate.reasons import EMPTY_ANSWER as EMPTY_ANSWER
from generate.reasons import EMPTY_OUTPUT as EMPTY_OUTPUT
from generate.reasons import MODEL_REFUSED as MODEL_REFUSED
from generate.reasons import UNCITED as UNCITED
from generate.tables import table_view
from generate.text import best_overlap_sentence, chunk_sentences

# What a version's answer says of each version it quotes, at the start of its line
# (``generate.version_answers``); the checks let such an answer stand only whole.
SUPERSEDED_LABEL = "Under the superseded version"
CURRENT_LABEL = "The current version"
PENDING_LABEL = "Not yet in force"
UNTIL_THEN_LABEL = "In force until then"
VERSION_LABELS = (SUPERSEDED_LABEL, CURRENT_LABEL, PENDING_LABEL, UNTIL_THEN_LABEL)
# A line as ``labelled_versions`` writes it: a label, its date, a colon (an LLM's "The current
# version of the policy …" is prose, not a label).
VERSION_LINE = re.compile(
    rf"^\s*(?:{'|'.join(map(re.escape, VERSION_LABELS))}) \(effective \d{{4}}-\d{{2}}-\d{{2}}\): ",
    re.MULTILINE,
)

NOT_IN_CONTEXT = "NOT_IN_CONTEXT"
KINDS = ("answered", "insufficient_evidence", "ambiguous", "declined")
REASON_CODES: tuple[ReasonCode, ...] = ("out_of_scope", "requires_human", "policy")
DEFAULT_MISSING = "The documents do not state the answer to this question."


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


OUTCOME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": list(KINDS)},
        "answer": _nullable({"type": "string"}),
        "citations": _nullable(
            {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}, "quote": {"type": "string"}},
                    "required": ["id", "quote"],
                    "additionalProperties": False,
                },
            }
        ),
        "missing": _nullable({"type": "string"}),
        "readings": _nullable({"type": "array", "items": {"type": "string"}}),
        "clarifying_question": _nullable({"type": "string"}),
        "reason_code": _nullable({"type": "string", "enum": list(REASON_CODES)}),
    },
    "required": [
        "kind",
        "answer",
        "citations",
        "missing",
        "readings",
        "clarifying_question",
        "reason_code",
    ],
    "additionalProperties": False,
}
"""Flat (one object, nullable fields) because OpenAI's strict mode wants an object root and
every property required; llama.cpp and vLLM turn it into a grammar as is."""

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


def citation_for(cid: str, hits_by_id: Mapping[str, Hit], quote: str, answer: str) -> Citation:
    """A Citation of block ``cid``: the model's quote when it gave one, else the block
    sentence closest to what the answer says (verbatim by construction)."""
    hit = hits_by_id.get(cid)
    if hit is None:
        return Citation(cid, "", (), None, "current", quote.strip())
    chunk = hit.chunk
    if not quote.strip():
        quote = best_overlap_sentence(chunk_sentences(chunk), strip_markers(answer)) or (
            hit.best_sentence or ""
        )
    return Citation(
        id=cid,
        source=chunk.source,
        heading_path=chunk.heading_path,
        effective=chunk.effective_date,
        status=chunk.status,
        quote=quote.strip(),
    )


def answered(
    answer: str, quotes: Sequence[tuple[str, str]], hits: Sequence[Hit]
) -> Answered | Declined:
    """An Answered from answer text and ``(id, quote)`` pairs; ids come from both the inline
    markers and the pairs. No id at all → Declined(requires_human)."""
    hits_by_id = {hit.chunk.chunk_id: hit for hit in hits}
    known = set(hits_by_id)
    texts = [hit.chunk.text for hit in hits]
    given: dict[str, str] = {}
    for cid, quote in quotes:
        if cid.strip() and not given.get(cid.strip()):
            given[cid.strip()] = quote
    if not answer.strip():
        return Declined("requires_human", EMPTY_ANSWER)
    ids = list(dict.fromkeys([*cited_ids(answer, known, texts), *given]))
    if not ids or not split_claims(answer, known, texts):
        return Declined("requires_human", UNCITED)
    citations = tuple(citation_for(cid, hits_by_id, given.get(cid, ""), answer) for cid in ids)
    return Answered(answer=answer.strip(), citations=citations)


def _str(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _load_object(raw: str) -> dict[str, Any] | None:
    text = _FENCE.sub("", raw.strip())
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        value = json.loads(text[start : end + 1])
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def parse_json_outcome(raw: str, hits: Sequence[Hit]) -> Outcome | None:
    """The outcome in a JSON reply, or None when ``raw`` holds no object with a known kind."""
    data = _load_object(raw)
    if data is None:
        return None
    kind = _str(data.get("kind")).lower()
    if kind not in KINDS:
        return None
    if kind == "answered":
        pairs: list[tuple[str, str]] = []
        for item in data.get("citations") or []:
            if isinstance(item, Mapping):
                pairs.append((_str(item.get("id")), _str(item.get("quote"))))
            elif isinstance(item, str):
                pairs.append((item.strip(), ""))
        return answered(_str(data.get("answer")), pairs, hits)
    if kind == "insufficient_evidence":
        return InsufficientEvidence(_str(data.get("missing")) or DEFAULT_MISSING)
    if kind == "ambiguous":
        readings = tuple(r.strip() for r in data.get("readings") or [] if _str(r))[:3]
        question = _str(data.get("clarifying_question"))
        if len(readings) < 2:
            return InsufficientEvidence(
                f"The question needs clarifying: {question}" if question else DEFAULT_MISSING
            )
        return Ambiguous(readings, question or "Which of these do you mean?")
    code = _str(data.get("reason_code"))
    reason: ReasonCode = next((c for c in REASON_CODES if c == code), "requires_human")
    return Declined(reason, "" if reason == code else f"model gave reason_code {code!r}")


def parse_text_outcome(raw: str, hits: Sequence[Hit]) -> Outcome:
    """Plain text: exactly ``NOT_IN_CONTEXT`` (anywhere) abstains; anything else is an answer
    whose ``[id]`` markers are its citations."""
    text = raw.strip()
    if not text:
        return Declined("requires_human", EMPTY_OUTPUT)
    if NOT_IN_CONTEXT in text:
        rest = text.replace(NOT_IN_CONTEXT, "").strip(" \n.:-")
        return InsufficientEvidence(rest or DEFAULT_MISSING)
    return answered(text, (), hits)


def parse_output(raw: str, hits: Sequence[Hit]) -> tuple[Outcome, str]:
    """``(outcome, how)``: JSON when the reply holds a known outcome object; a reply that
    starts as JSON but does not parse (cut off at max_tokens, say) is ``declined/
    requires_human`` rather than read as prose; anything else is plain text."""
    outcome = parse_json_outcome(raw, hits)
    if outcome is not None:
        return outcome, "json"
    if _FENCE.sub("", raw.strip()).startswith("{"):
        return Declined("requires_human", BROKEN_JSON), "broken_json"
    return parse_text_outcome(raw, hits), "text"


def outcome_to_dict(outcome: Outcome) -> dict[str, Any]:
    """A JSON-ready dict of an outcome (for traces)."""
    match outcome:
        case Answered(answer=answer, citations=citations):
            return {
                "kind": outcome.kind,
                "answer": answer,
                "citations": [citation_to_dict(c) for c in citations],
            }
        case InsufficientEvidence(missing=missing):
            return {"kind": outcome.kind, "missing": missing}
        case Ambiguous(readings=readings, clarifying_question=question):
            return {
                "kind": outcome.kind,
                "readings": list(readings),
                "clarifying_question": question,
            }
        case Declined(reason_code=code, detail=detail):
            return {"kind": outcome.kind, "reason_code": code, "detail": detail}
    raise TypeError(f"not an Outcome: {outcome!r}")  # pragma: no cover - exhaustive above


def citation_to_dict(citation: Citation) -> dict[str, Any]:
    return {
        "id": citation.id,
        "source": citation.source,
        "heading_path": list(citation.heading_path),
        "effective": iso(citation.effective),
        "status": citation.status,
        "quote": citation.quote,
        # A quoted table row (with its header) as cells, so a client shows a table.
        "table": table_view(citation.quote),
    }
