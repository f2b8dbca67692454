"""Backend-independent checks of an outcome against the blocks the prompt showed. Pure.

They fail closed: what a user may see is either supported by a block that was in the prompt
or not shown at all.

Before the model (``gate``): no hits → ``insufficient_evidence``; the model is not called.

After it (``verify``), on ``answered``:
1. **Known citations.** Every cited id (inline ``[id]`` markers and the citation list) must be
   a block id of the prompt. Any other id → the whole answer becomes
   ``declined/requires_human`` with detail ``fabricated citation: <ids>`` — a model that
   invents sources is not trusted for the rest either. (A document's own brackets are not
   markers: see ``generate.claims``.)
2. **Cited.** Every sentence carries a citation (its own marker or the run of markers that
   closes its segment); a sentence after the last marker is dropped. An answer with no
   marker at all whose citation list names exactly one block cites that block throughout
   (as one marker at its end would); it is shown with the marker.
3. **Figures.** Each sentence's numbers, amounts, percentages, dates and times must appear
   in the body text or heading path of a block the sentence cites; the block's ``effective``
   date supports that exact date only; its source path supports nothing.
4. **Quotes.** Text in quotation marks must appear verbatim (whitespace and curly quotes
   aside) in a block the sentence cites. A citation ``quote`` that is not verbatim in its
   block drops every sentence citing that block — never swapped for a true one, since a
   fabricated quote is the one mechanical sign of fabrication. (An empty quote is filled
   with the block sentence closest to the answer, verbatim by construction.)
5. **Grounded.** At least a third of a sentence's content words (stemmed, stop words out)
   must appear in the blocks it cites: a cheap guard against a cited sentence that is about
   something else ("Ignore previous instructions [a.md#1]."), not an entailment check.
   Figures are left out of the count (rule 3 checks them).
   A block's sentences that address the model ("ignore previous instructions…") support
   nothing — no words, figures or quotes: a document that tries to instruct the model is
   text that states no policy.
6. **Superseded.** A sentence citing a superseded block whose successor is also in the
   prompt stands only if the answer also cites the successor (the current rule shown beside
   the old one); otherwise it is dropped.
When at least one sentence stands the answer is the standing sentences (each followed by its
markers) and the citations they use; when none stands the outcome is
``insufficient_evidence`` (``UNVERIFIED``). An answer that labels versions ("Under the
superseded version (effective …): …", ``generate.outcomes.VERSION_LINE``) stands whole or
not at all: a sentence of it without its label would read as today's rule.

On ``insufficient_evidence`` and ``ambiguous``: a figure in ``missing``, a reading or the
clarifying question must appear in some block of the prompt (body, heading path, exact
effective date); otherwise the outcome becomes a plain ``insufficient_evidence`` with the
fixed sentence ``NOT_STATED``. Every check's result is returned for the trace.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from docent.contracts import (
    Ambiguous,
    Answered,
    Citation,
    Declined,
    Hit,
    InsufficientEvidence,
    Outcome,
)
from docent.numbers import MONTHS
from generate.claims import Claim, join_claims, split_claims
from generate.figures import block_figures, missing_figures
from generate.outcomes import DEFAULT_MISSING, VERSION_LINE, citation_for
from generate.text import addresses_model, appears_in, content_words, split_sentences
from render.prompt import RenderedPrompt

QUOTED = re.compile(r"\"([^\"\n]{2,})\"|“([^”\n]{2,})”")
ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…|\[\.\.\.\]|\[…\])\s*")
NO_HITS = "No document you can read matched the question closely enough."
UNVERIFIED = "The answer drafted from the documents could not be verified against them."
NOT_STATED = DEFAULT_MISSING
MIN_GROUNDING = 1 / 3
DISCOURSE = frozenset({"yes", "not", "however", "note", "therefore", "also"})


@dataclass(frozen=True)
class CheckResult:
    # gate | permission_recheck | model_call | citations_known | cited | figures | quote |
    # grounded | citation_quote | superseded | answer_stands | nonanswer_figures
    check: str
    passed: bool
    detail: str = ""
    sentence: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "passed": self.passed,
            "detail": self.detail,
            "sentence": self.sentence,
        }


def gate(hits: Sequence[Hit]) -> InsufficientEvidence | None:
    """The relevance gate: retrieval returns only hits that cleared its threshold, so an
    empty list means nothing cleared it and no model should be asked."""
    return None if hits else InsufficientEvidence(NO_HITS)


def statements(text: str) -> str:
    """A block's text without the sentences that address the model (``addresses_model``)."""
    if not addresses_model(text):
        return text
    return " ".join(s for s in split_sentences(text) if not addresses_model(s))


def supported_figures(hit: Hit) -> set[str]:
    """The figure keys a block supports: its body text and heading path, and its effective
    date as that exact date only. Never its source path."""
    chunk = hit.chunk
    keys = block_figures(statements(chunk.text)) | block_figures(" > ".join(chunk.heading_path))
    if chunk.effective_date:
        keys.add(f"date:{chunk.effective_date.isoformat()}")
    return keys


def quotable(hit: Hit) -> list[str]:
    """What a quotation of a block may copy: its body text and heading path."""
    return [statements(hit.chunk.text), " > ".join(hit.chunk.heading_path)]


def quote_is_verbatim(quote: str, block_text: str) -> bool:
    """Every line of ``quote`` is in the block, piece by piece: a line cut with "…", or made
    of several of the block's sentences (list items quoted on one line), is verbatim when
    each of its pieces is."""
    lines = [line for line in quote.splitlines() if line.strip()]
    parts = [p for line in lines for p in ELLIPSIS.split(line.strip()) if p.strip()]
    pieces = [s for part in parts for s in split_sentences(part)]
    return bool(pieces) and all(appears_in(piece, [block_text]) for piece in pieces)


def verify(outcome: Outcome, prompt: RenderedPrompt) -> tuple[Outcome, tuple[CheckResult, ...]]:
    shown: Mapping[str, Hit] = {hit.chunk.chunk_id: hit for hit in prompt.kept}
    match outcome:
        case Answered():
            return _verify_answer(outcome, prompt, shown)
        case InsufficientEvidence(missing=missing):
            return _verify_texts(outcome, [missing], shown)
        case Ambiguous(readings=readings, clarifying_question=question):
            return _verify_texts(outcome, [*readings, question], shown)
    return outcome, ()


def _verify_texts(
    outcome: Outcome, texts: Sequence[str], shown: Mapping[str, Hit]
) -> tuple[Outcome, tuple[CheckResult, ...]]:
    have: set[str] = set()
    for hit in shown.values():
        have |= supported_figures(hit)
    failed = [
        CheckResult("nonanswer_figures", False, "in no block: " + ", ".join(missing), text)
        for text in texts
        if (missing := missing_figures(text, have))
    ]
    if failed:
        return InsufficientEvidence(NOT_STATED), tuple(failed)
    return outcome, (CheckResult("nonanswer_figures", True),)


def _verify_answer(
    outcome: Answered, prompt: RenderedPrompt, shown: Mapping[str, Hit]
) -> tuple[Outcome, tuple[CheckResult, ...]]:
    known = set(prompt.block_ids)
    claims = split_claims(outcome.answer, known, [hit.chunk.text for hit in prompt.kept])
    listed = list(dict.fromkeys(c.id for c in outcome.citations))
    cited = list(dict.fromkeys([*listed, *_claim_ids(claims)]))
    fabricated = [cid for cid in cited if cid not in known or cid not in shown]
    if fabricated:
        detail = "fabricated citation: " + ", ".join(fabricated)
        return Declined("requires_human", detail), (CheckResult("citations_known", False, detail),)
    results: list[CheckResult] = [CheckResult("citations_known", True)]

    attributed = bool(claims) and not _claim_ids(claims) and len(listed) == 1
    if attributed:
        claims = tuple(replace(claim, ids=(listed[0],)) for claim in claims)

    given = {c.id: c for c in reversed(outcome.citations)}  # the first of each id wins
    fake_quote = _fake_quotes(given, shown, results)

    standing: list[Claim] = []
    for claim in claims:
        failures = _claim_failures(claim, shown, fake_quote)
        results.extend(failures)
        if not failures:
            standing.append(claim)
    failed_names = {r.check for r in results if not r.passed}
    results.extend(
        CheckResult(name, True)
        for name in ("cited", "figures", "quote")
        if name not in failed_names
    )
    kept = _current_beside_superseded(standing, prompt.kept, shown)
    results.extend(
        CheckResult("superseded", False, "its successor is shown and not cited", claim.text)
        for claim in standing
        if claim not in kept
    )
    standing = kept

    if not standing:
        results.append(CheckResult("answer_stands", False, "every sentence failed a check"))
        return InsufficientEvidence(UNVERIFIED), tuple(results)
    dropped = len(claims) - len(standing)
    if dropped and _labels_versions(outcome.answer):
        # Part of a version's answer without its label reads as today's rule (a user pass:
        # a 2020 DMCA paragraph shown unlabelled, its label line dropped): whole, or not.
        detail = f"dropped {dropped} sentence(s) of an answer labelling versions"
        results.append(CheckResult("answer_stands", False, detail))
        return InsufficientEvidence(UNVERIFIED), tuple(results)
    results.append(
        CheckResult("answer_stands", True, f"dropped {dropped} sentence(s)" if dropped else "")
    )
    answer = outcome.answer if not dropped and not attributed else join_claims(standing)
    used = _claim_ids(standing)
    citations = tuple(
        _with_quote(given.get(cid), cid, shown, answer) for cid in cited if cid in used
    )
    return Answered(answer=answer, citations=citations), tuple(results)


def _fake_quotes(
    given: Mapping[str, Citation], shown: Mapping[str, Hit], results: list[CheckResult]
) -> set[str]:
    """The ids whose citation quote is not verbatim in its block, each failure recorded."""
    fake: set[str] = set()
    for cid, citation in given.items():
        block = statements(shown[cid].chunk.text)
        if citation.quote.strip() and not quote_is_verbatim(citation.quote, block):
            fake.add(cid)
            results.append(
                CheckResult("citation_quote", False, f"not verbatim in {cid}", citation.quote)
            )
    return fake


def _labels_versions(answer: str) -> bool:
    return VERSION_LINE.search(answer) is not None


def _claim_failures(
    claim: Claim, shown: Mapping[str, Hit], fake_quote: set[str]
) -> list[CheckResult]:
    if not claim.ids:
        return [CheckResult("cited", False, "no citation", claim.text)]
    failures: list[CheckResult] = []
    have: set[str] = set()
    for cid in claim.ids:
        have |= supported_figures(shown[cid])
    missing = missing_figures(claim.text, have)
    if missing:
        detail = "not in cited blocks: " + ", ".join(missing)
        failures.append(CheckResult("figures", False, detail, claim.text))
    texts = [t for cid in claim.ids for t in quotable(shown[cid])]
    words = {w for w in content_words(claim.text) - DISCOURSE if not _figure_word(w)}
    if words:
        grounded = words & content_words(" ".join(texts))
        if len(grounded) / len(words) < MIN_GROUNDING:
            detail = f"{len(grounded)} of {len(words)} content words in the cited blocks"
            failures.append(CheckResult("grounded", False, detail, claim.text))
    for match in QUOTED.finditer(claim.text):
        quoted = match.group(1) or match.group(2)
        if not appears_in(quoted, texts):
            failures.append(CheckResult("quote", False, f"not verbatim: {quoted!r}", claim.text))
    for cid in claim.ids:
        if cid in fake_quote:
            detail = f"cites {cid}, whose quote is not verbatim"
            failures.append(CheckResult("quote", False, detail, claim.text))
    return failures


def _figure_word(word: str) -> bool:
    return any(ch.isdigit() for ch in word) or word in MONTHS


def _current_beside_superseded(
    claims: Sequence[Claim], kept: Sequence[Hit], shown: Mapping[str, Hit]
) -> list[Claim]:
    current_sources = {hit.chunk.source for hit in kept if hit.chunk.status != "superseded"}
    cited_sources = {shown[cid].chunk.source for claim in claims for cid in claim.ids}

    def stale(cid: str) -> bool:
        chunk = shown[cid].chunk
        return (
            chunk.status == "superseded"
            and chunk.superseded_by in current_sources
            and chunk.superseded_by not in cited_sources
        )

    return [claim for claim in claims if not any(stale(cid) for cid in claim.ids)]


def _with_quote(
    citation: Citation | None, cid: str, shown: Mapping[str, Hit], answer: str
) -> Citation:
    if citation is not None and citation.quote.strip():
        return citation
    filled = citation_for(cid, shown, "", answer)
    return filled if citation is None else replace(citation, quote=filled.quote)


def _claim_ids(claims: Sequence[Claim]) -> list[str]:
    return list(dict.fromkeys(cid for claim in claims for cid in claim.ids))
