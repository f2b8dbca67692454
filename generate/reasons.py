"""Why an ask came out as it did, as one short code. Pure.

The code is counted (``docent_ask_outcomes_total{outcome,reason}``), stored on the trace and
returned as ``reason_code`` by ``ask --json`` / ``POST /api/ask``, so the relevance gate, the
model and the checks can be told apart:

- ``below_threshold`` (insufficient_evidence): no hit cleared the relevance threshold; no
  model call.
- ``model_unavailable`` (declined): the LLM call failed or timed out.
- ``model_abstained`` (insufficient_evidence): the backend said the blocks do not answer.
- ``unclear_evidence`` (insufficient_evidence): the extractive backend's best unit did not
  stand out from the rest (``generate/answer_gate.py``), or no unit matched the question
  closely enough to quote: the documents may hold the answer.
- ``version_not_found`` (insufficient_evidence): the question names a past version (by
  date) and no hit is from it; the current rule is not offered as its answer.
- ``model_ambiguous`` (ambiguous): the backend gave two or three readings.
- ``model_output_unusable`` (declined): empty reply, cut-off or broken JSON, empty answer.
- ``uncited_answer`` (declined): an answer citing no block at all.
- ``out_of_scope`` / ``requires_human`` / ``policy`` (declined): the model declined so.
- ``fabricated_citation`` (declined): a cited id was not in the prompt.
- ``unsupported_figure`` (insufficient_evidence): every sentence, or the missing text or a
  reading, had a figure no block states.
- ``quote_not_verbatim`` (insufficient_evidence): every sentence quoted, or cited a quote,
  not in its block.
- ``uncited_sentence`` (insufficient_evidence): no sentence carried a citation.
- ``superseded_cited`` (insufficient_evidence): every sentence cited a superseded block
  whose successor was shown and not cited.
- ``ungrounded_sentence`` (insufficient_evidence): no sentence shared enough words with the
  blocks it cites.
- ``checks_dropped_all`` (insufficient_evidence): every sentence failed, for several causes.
- ``checks_dropped_some`` (answered): some sentences were dropped; the rest stands.
- ``None`` (answered): nothing was dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from docent.contracts import Ambiguous, Answered, Declined, InsufficientEvidence, Outcome

UNCITED = "answer cites no document"
BROKEN_JSON = "model reply is JSON that does not parse or has no known kind"
EMPTY_OUTPUT = "empty model output"
EMPTY_ANSWER = "model answered with empty text"
MODEL_REFUSED = "model refused"
UNCLEAR = (
    "The passages found touch on this, but none of them stands out clearly enough to quote "
    "as the answer."
)
# The extractive backend's words when no sentence came near enough to quote: the passages
# cleared the relevance bar, so the answer may still be in them (it said "None of the
# passages found states an answer" under "probably in these passages": a user pass).
NOT_FOUND = (
    "No sentence of the passages found matches the question closely enough to quote as the "
    "answer; read them to be sure."
)

VERSION_MISSING = (
    "No passage of the version the question asks about matched it; the passages that did are "
    "of a later version."
)

SENTENCE_CHECKS = {
    "figures": "unsupported_figure",
    "quote": "quote_not_verbatim",
    "cited": "uncited_sentence",
    "superseded": "superseded_cited",
    "grounded": "ungrounded_sentence",
}
REASONS = (
    "below_threshold",
    "model_unavailable",
    "model_abstained",
    "unclear_evidence",
    "version_not_found",
    "model_ambiguous",
    "model_output_unusable",
    "uncited_answer",
    "out_of_scope",
    "requires_human",
    "policy",
    "fabricated_citation",
    "unsupported_figure",
    "quote_not_verbatim",
    "uncited_sentence",
    "superseded_cited",
    "ungrounded_sentence",
    "checks_dropped_all",
    "checks_dropped_some",
)


class CheckLike(Protocol):
    @property
    def check(self) -> str: ...

    @property
    def passed(self) -> bool: ...


def check_reason(checks: Sequence[CheckLike]) -> str | None:
    """The reason the checks changed an outcome, or None when they changed nothing."""
    failed = [c for c in checks if not c.passed]
    names = {c.check for c in failed}
    if "version_missing" in names:
        return "version_not_found"
    if "gate" in names:
        return "below_threshold"
    if "model_call" in names:
        return "model_unavailable"
    if "citations_known" in names:
        return "fabricated_citation"
    if "nonanswer_figures" in names:
        return "unsupported_figure"
    causes = {SENTENCE_CHECKS[c.check] for c in failed if c.check in SENTENCE_CHECKS}
    if "answer_stands" in names:
        return causes.pop() if len(causes) == 1 else "checks_dropped_all"
    return "checks_dropped_some" if causes else None


def outcome_reason(outcome: Outcome) -> str | None:
    """The reason a backend's own outcome carries (before any check changed it)."""
    match outcome:
        case Answered():
            return None
        case InsufficientEvidence(missing=missing):
            if missing == VERSION_MISSING:
                return "version_not_found"
            return "unclear_evidence" if missing in (UNCLEAR, NOT_FOUND) else "model_abstained"
        case Ambiguous():
            return "model_ambiguous"
        case Declined(reason_code=code, detail=detail):
            if detail == UNCITED:
                return "uncited_answer"
            if detail in (BROKEN_JSON, EMPTY_OUTPUT, EMPTY_ANSWER):
                return "model_output_unusable"
            if detail == MODEL_REFUSED:
                return "policy"
            return code
    raise TypeError(f"not an Outcome: {outcome!r}")  # pragma: no cover - exhaustive above


def reason_for(model_outcome: Outcome | None, checks: Sequence[CheckLike]) -> str | None:
    """The one reason of an ask: what the checks did, else what the backend said."""
    from_checks = check_reason(checks)
    if from_checks is not None or model_outcome is None:
        return from_checks
    return outcome_reason(model_outcome)
