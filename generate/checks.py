"""Backend-independent checks of an outcome against the blocks the prompt showed. Pure.

Before the model (``gate``): no hits → ``insufficient_evidence``; the model is not called.

After it (``verify``), on ``answered`` only:
1. **Known citations.** Every cited id (inline ``[id]`` markers and the citation list) must be
   a block id of the prompt. Any other id → the whole answer becomes
   ``declined/requires_human`` with detail ``fabricated citation: <ids>`` — a model that
   invents sources is not trusted for the rest either.
2. **Figures.** Each sentence's numbers, amounts, percentages, dates and times must appear in
   a block the sentence cites (a sentence without its own marker is read against all the
   answer's citations). Paraphrase is fine; a different figure is not.
3. **Quotes.** Text in quotation marks must appear verbatim (whitespace and curly quotes
   aside) in a cited block.
4. **Citation quotes.** A citation's ``quote`` that is not verbatim in its block is replaced
   by the block sentence closest to the answer (recorded, not fatal: the quote is ours to
   show, so we show a true one).

Policy on failure: sentences failing 2 or 3 are dropped; when at least one sentence stands,
the answer is the standing sentences (each followed by its markers) and the citations they
use; when none stands, the outcome is ``insufficient_evidence``. An unsupported figure is
therefore never shown as fact. Every check's result is returned for the trace.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from docent.contracts import Answered, Citation, Declined, Hit, InsufficientEvidence, Outcome
from generate.claims import Claim, join_claims, split_claims
from generate.figures import unsupported_figures
from generate.text import appears_in, best_overlap_sentence, chunk_sentences
from render.prompt import RenderedPrompt

QUOTED = re.compile(r"\"([^\"\n]{2,})\"|“([^”\n]{2,})”")
NO_HITS = "No document the asker may read matched the question closely enough."
UNVERIFIED = "The answer drafted from the documents could not be verified against them."


@dataclass(frozen=True)
class CheckResult:
    check: str  # gate | citations_known | figures | quote | citation_quote | answer_stands
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


def block_texts(hit: Hit) -> list[str]:
    """What the model saw of a block: its text, heading, source and effective date."""
    chunk = hit.chunk
    seen = [chunk.text, chunk.heading, chunk.source]
    if chunk.effective_date:
        seen.append(chunk.effective_date.isoformat())
    return seen


def verify(outcome: Outcome, prompt: RenderedPrompt) -> tuple[Outcome, tuple[CheckResult, ...]]:
    if not isinstance(outcome, Answered):
        return outcome, ()
    shown: Mapping[str, Hit] = {hit.chunk.chunk_id: hit for hit in prompt.kept}
    known = set(prompt.block_ids)
    claims = split_claims(outcome.answer, known)
    cited = list(dict.fromkeys([*(c.id for c in outcome.citations), *_claim_ids(claims)]))
    fabricated = [cid for cid in cited if cid not in known or cid not in shown]
    if fabricated:
        detail = "fabricated citation: " + ", ".join(fabricated)
        return Declined("requires_human", detail), (CheckResult("citations_known", False, detail),)
    results: list[CheckResult] = [CheckResult("citations_known", True)]

    standing: list[Claim] = []
    for claim in claims:
        texts = [t for cid in (claim.ids or tuple(cited)) for t in block_texts(shown[cid])]
        ok = True
        missing = unsupported_figures(claim.text, texts)
        if missing:
            ok = False
            results.append(
                CheckResult(
                    "figures", False, "not in cited blocks: " + ", ".join(missing), claim.text
                )
            )
        for match in QUOTED.finditer(claim.text):
            quoted = match.group(1) or match.group(2)
            if not appears_in(quoted, texts):
                ok = False
                results.append(CheckResult("quote", False, f"not verbatim: {quoted!r}", claim.text))
        if ok:
            standing.append(claim)
    if len(standing) == len(claims):
        results.append(CheckResult("figures", True))
        results.append(CheckResult("quote", True))

    if not standing:
        results.append(CheckResult("answer_stands", False, "every sentence failed a check"))
        return InsufficientEvidence(UNVERIFIED), tuple(results)

    answer = outcome.answer
    used = cited
    if len(standing) < len(claims):
        answer = join_claims(standing)
        own = _claim_ids(standing)
        used = cited if any(not c.ids for c in standing) else [c for c in cited if c in own]
        results.append(
            CheckResult("answer_stands", True, f"dropped {len(claims) - len(standing)} sentence(s)")
        )
    citations, quote_results = _true_quotes(
        [c for c in outcome.citations if c.id in used], shown, standing
    )
    results.extend(quote_results)
    return Answered(answer=answer, citations=citations), tuple(results)


def _claim_ids(claims: Sequence[Claim]) -> list[str]:
    return list(dict.fromkeys(cid for claim in claims for cid in claim.ids))


def _true_quotes(
    citations: Sequence[Citation], shown: Mapping[str, Hit], claims: Sequence[Claim]
) -> tuple[tuple[Citation, ...], list[CheckResult]]:
    out: list[Citation] = []
    results: list[CheckResult] = []
    for citation in citations:
        hit = shown[citation.id]
        lines = [line for line in citation.quote.splitlines() if line.strip()]
        if lines and all(appears_in(line, [hit.chunk.text]) for line in lines):
            out.append(citation)
            continue
        about = " ".join(c.text for c in claims if citation.id in c.ids or not c.ids)
        quote = best_overlap_sentence(chunk_sentences(hit.chunk), about) or ""
        out.append(replace(citation, quote=quote))
        if citation.quote:
            results.append(
                CheckResult(
                    "citation_quote",
                    False,
                    "quote not verbatim in its block; replaced",
                    citation.quote,
                )
            )
    if not results:
        results.append(CheckResult("citation_quote", True))
    return tuple(out), results
