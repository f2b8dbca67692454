"""One question, end to end: retrieve → gate → render → generate → check → trace.

A failed or timed-out LLM call is not a fault of the ask: it becomes ``declined`` with reason
``model_unavailable``, a failed ``model_call`` check, a trace and the handoff offer. Every
result carries one ``reason`` (``generate.reasons``).

Permissions: the searcher filters inside its queries; the ``Asker`` checks every hit and
cut candidate again with ``docent.access.visible`` and drops any the principal may not read
(recorded as a failed ``permission_recheck``), so no prompt, answer, handoff or trace can
carry text from above the asker's level even if a searcher is wrong.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from docent.access import DEFAULT_LEVELS, visible
from docent.contracts import (
    TIER_ANSWER,
    TIER_NOT_COVERED,
    TIER_PROBABLY_HERE,
    Ambiguous,
    Answered,
    Declined,
    Hit,
    InsufficientEvidence,
    Outcome,
    Principal,
)
from docent.errors import InvalidInput
from docent.versions import version_missing, version_request
from docent.views import hit_json, passage_ref
from generate.checks import CheckResult, gate, verify
from generate.errors import LLMUnavailable
from generate.excerpts import excerpt
from generate.outcomes import citation_to_dict
from generate.protocols import Generation, Generator, SearcherLike, SearchResultLike
from generate.reasons import VERSION_MISSING, reason_for
from generate.result import AskResult, Handoff
from generate.trace import save_trace
from render.budget import TokenCounter
from render.prompt import RenderedPrompt, render
from render.tokens import count_tokens as default_count_tokens

MAX_QUESTION_CHARS = 2000
MODEL_UNAVAILABLE = "model_unavailable"


class Asker:
    def __init__(
        self,
        searcher: SearcherLike,
        generator: Generator,
        sessions: sessionmaker[Session] | None,
        *,
        budget_tokens: int,
        levels: Sequence[str] = DEFAULT_LEVELS,
        default_owner: str = "docs-team",
        count_tokens: TokenCounter = default_count_tokens,
        clock: Callable[[], float] = time.perf_counter,
        new_trace_id: Callable[[], str] = lambda: str(uuid.uuid4()),
    ) -> None:
        if budget_tokens < 1:
            raise ValueError(f"budget_tokens must be at least 1, got {budget_tokens}")
        if not levels:
            raise ValueError("levels must name at least one access level")
        self.searcher = searcher
        self.generator = generator
        self.sessions = sessions
        self.budget_tokens = budget_tokens
        self.levels = tuple(levels)
        self.default_owner = default_owner
        self.count_tokens = count_tokens
        self._clock = clock
        self._new_trace_id = new_trace_id

    def ask(
        self,
        question: str,
        principal: Principal,
        *,
        exclude_chunk_ids: Sequence[str] = (),
        threshold: float | None = None,
    ) -> AskResult:
        question = question.strip()
        if not question:
            raise InvalidInput("question must not be empty")
        if len(question) > MAX_QUESTION_CHARS:
            raise InvalidInput(f"question is longer than {MAX_QUESTION_CHARS} characters")
        timings: dict[str, float] = {}
        started = self._clock()
        found = self._search(question, principal, exclude_chunk_ids, threshold, timings)
        hits = self._readable(found.hits, principal)
        cut = self._readable(found.cut, principal)
        leaked = len(found.hits) + len(found.cut) - len(hits) - len(cut)
        checks: list[CheckResult] = [
            CheckResult(
                "permission_recheck",
                leaked == 0,
                f"dropped {leaked} hit(s) the principal may not read" if leaked else "",
            )
        ]
        # A question naming a collection is read as its passages were ranked by a backend
        # that quotes by wording (``Generator.quotes_by_wording``).
        read = found.asked if found.asked and self.generator.quotes_by_wording else None
        outcome, prompt, generation = self._answer(read or question, hits, checks, timings, cut)
        result = AskResult(
            trace_id=self._new_trace_id(),
            question=question,
            principal=principal,
            outcome=outcome,
            hits=hits,
            cut=cut,
            prompt=prompt,
            generation=generation,
            checks=tuple(checks),
            timings_ms=timings,
            index_version=found.index_version,
            handoff=None if isinstance(outcome, Answered) else self._handoff(hits, cut, generation),
            backend=self.generator.backend,
            stages={name: tuple(ids) for name, ids in found.stages.items()},
            levels=self.levels,
            reason=reason_for(generation.outcome if generation else None, checks),
            scope=found.scope,
        )
        self._finish(result, timings, started)
        return result

    def _search(
        self,
        question: str,
        principal: Principal,
        exclude_chunk_ids: Sequence[str],
        threshold: float | None,
        timings: dict[str, float],
    ) -> SearchResultLike:
        """Retrieval, timed as a whole and per stage into ``timings``."""
        mark = self._clock()
        found = self.searcher.search(
            question, principal, threshold=threshold, exclude_chunk_ids=tuple(exclude_chunk_ids)
        )
        timings["retrieval"] = _ms(self._clock() - mark)
        for stage, ms in found.timings_ms.items():
            timings[f"retrieval.{stage}"] = float(ms)
        return found

    def _answer(
        self,
        question: str,
        hits: tuple[Hit, ...],
        checks: list[CheckResult],
        timings: dict[str, float],
        cut: Sequence[Hit] = (),
    ) -> tuple[Outcome, RenderedPrompt | None, Generation | None]:
        """The gate, then render, generate and verify when it lets the hits through; each
        step's check appended to ``checks`` and its time to ``timings``."""
        gated = gate(hits)
        if gated is not None:
            checks.append(CheckResult("gate", False, "no hit cleared the relevance threshold"))
            if later_version_only(question, cut):
                checks.append(CheckResult("version_missing", False, VERSION_MISSING))
                return InsufficientEvidence(VERSION_MISSING), None, None
            return gated, None, None
        checks.append(CheckResult("gate", True))
        mark = self._clock()
        prompt = render(question, hits, self.budget_tokens, self.count_tokens)
        timings["render"] = _ms(self._clock() - mark)
        mark = self._clock()
        try:
            generation = self.generator.generate(prompt, prompt.kept)
        except LLMUnavailable as exc:
            checks.append(CheckResult("model_call", False, exc.message))
            timings["generate"] = _ms(self._clock() - mark)
            return Declined("requires_human", f"{MODEL_UNAVAILABLE}: {exc.message}"), prompt, None
        timings["generate"] = _ms(self._clock() - mark)
        mark = self._clock()
        outcome, verified = verify(generation.outcome, prompt)
        checks.extend(verified)
        timings["checks"] = _ms(self._clock() - mark)
        return outcome, prompt, generation

    def _finish(self, result: AskResult, timings: dict[str, float], started: float) -> None:
        """The total time, and the trace saved when there is a database (timed too)."""
        if self.sessions is not None:
            mark = self._clock()
            timings["total"] = _ms(mark - started)
            save_trace(self.sessions, result, tier=tier_of(result, closest_passages(result)))
            timings["trace"] = _ms(self._clock() - mark)
        else:
            timings["total"] = _ms(self._clock() - started)

    def _readable(self, hits: Sequence[Hit], principal: Principal) -> tuple[Hit, ...]:
        return tuple(
            hit
            for hit in hits
            if visible(principal, hit.chunk.access_level, hit.chunk.groups, self.levels)
        )

    def _handoff(
        self, hits: Sequence[Hit], cut: Sequence[Hit], generation: Generation | None
    ) -> Handoff:
        """The owner of the closest document, as the closest passages list it: the
        answerer's first block, else retrieval's first hit (a user pass saw "closest
        document: tock.md" under passages that did not include it)."""
        first = generation.pointers[0][0] if generation and generation.pointers else None
        by_id = {h.chunk.chunk_id: h for h in hits}
        if first in by_id:
            closest = by_id[first]
        elif hits:
            closest = min(hits, key=lambda h: h.rank)
        elif cut:
            closest = cut[0]
        else:
            return Handoff(self.default_owner, None)
        return Handoff(closest.chunk.owner or self.default_owner, closest.chunk.source)


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


def later_version_only(question: str, cut: Sequence[Hit]) -> bool:
    """Nothing cleared the bar for a question dating a past version, and the nearest
    passage is of a version in force only after that date ("What were the hotel caps in
    2019?" beside a policy effective 2024): that version is not in the documents, which
    says more than "nothing matched"."""
    request = version_request(question)
    nearest = min(cut, key=lambda h: h.rank, default=None)
    return (
        request is not None
        and nearest is not None
        and nearest.chunk.status == "current"
        and version_missing(request, nearest.chunk)
    )


CLOSEST_PASSAGES = 3  # offered to read when passages matched but none was quoted


def tier_of(result: AskResult, closest: Sequence[Closest]) -> str:
    """What the asker sees first: a checked answer, the passages the answer is probably in
    (``closest``, from ``closest_passages(result)``), or that the documents they may read do
    not cover the question."""
    if isinstance(result.outcome, Answered):
        return TIER_ANSWER
    if result.reason == "version_not_found":
        return TIER_NOT_COVERED  # the passages hold a later version, not the one asked
    # Passages offered when no hit cleared the relevance bar are the nearest weak matches,
    # shown under "not covered", never as where the answer probably is.
    return TIER_PROBABLY_HERE if closest and result.hits else TIER_NOT_COVERED


def confidence_of(result: AskResult) -> float | None:
    """The backend's calibrated probability that its draft answer is right, if it has one."""
    value = result.generation.confidence if result.generation else None
    return None if value is None else round(value, 3)


@dataclass(frozen=True)
class Closest:
    """A passage offered on a non-answer: its unit nearest the question (to highlight) and
    the excerpt shown under it (``generate.excerpts``)."""

    hit: Hit
    nearest: str | None
    excerpt: str | None


_NUMBERING = re.compile(r"^\s*(?:[-*•]|\(?\d+[.)]|\(?[a-z][.)])\s+", re.IGNORECASE)


def _same_unit(a: str, b: str) -> bool:
    """The same sentence in two formats of one document: a Word copy numbers a list item
    ("1. Generally speaking, …") that the Markdown one writes plainly."""
    return " ".join(_NUMBERING.sub("", a).split()).casefold() == (
        " ".join(_NUMBERING.sub("", b).split()).casefold()
    )


def closest_passages(result: AskResult) -> list[Closest]:
    """For a non-answer: the passages the asker may read (retrieval kept only those) where
    the answer most probably is, each with its excerpt — the answerer's own order first (the
    block of its best unit), then retrieval's. When no passage cleared the relevance bar,
    the nearest candidates below it (the weak matches ``tier_of`` shows as "not covered").
    A superseded passage whose successor is among them is left out — the current rule is the
    one to read — unless the question asks for a past version."""
    if isinstance(result.outcome, Answered):
        return []
    pool = result.hits or result.cut
    past = version_request(result.question) is not None
    shown = set() if past else {hit.chunk.source for hit in pool}
    current = {
        hit.chunk.chunk_id: hit
        for hit in sorted(pool, key=lambda h: h.rank)
        if not (hit.chunk.status == "superseded" and hit.chunk.superseded_by in shown)
    }
    nearest: dict[str, list[str]] = {}
    for cid, text in result.generation.pointers if result.generation else ():
        nearest.setdefault(cid, []).append(text)  # a block's best unit comes first
    order = [cid for cid in nearest if cid in current]
    order += [cid for cid in current if cid not in nearest]
    out: list[Closest] = []
    for cid in order:
        hit = current[cid]
        offered = excerpt(hit, nearest.get(cid, []))
        first = offered.nearest if offered else None
        # The same nearest sentence in another passage (a copy of the document in another
        # format) shows nothing new: the slot goes to the next passage.
        if first and any(c.nearest and _same_unit(c.nearest, first) for c in out):
            continue
        out.append(Closest(hit, first, offered.text if offered else None))
        if len(out) == CLOSEST_PASSAGES:
            break
    return out


def ask_json(result: AskResult) -> dict[str, Any]:
    """The ``ask --json`` / ``POST /api/ask`` shape (DESIGN "Interfaces"); absent fields null."""
    outcome = result.outcome
    closest = closest_passages(result)
    body: dict[str, Any] = {
        "outcome": outcome.kind,
        "tier": tier_of(result, closest),
        "confidence": confidence_of(result),
        "answer": None,
        "citations": None,
        "missing": None,
        "readings": None,
        "clarifying_question": None,
        "reason_code": result.reason,
        "handoff": result.handoff.to_dict() if result.handoff else None,
        "retrieved": [hit_json(hit) for hit in sorted(result.hits, key=lambda h: h.rank)],
        "closest": [
            {**passage_ref(c.hit.chunk), "nearest": c.nearest, "excerpt": c.excerpt}
            for c in closest
        ],
        "trace_id": result.trace_id,
    }
    match outcome:
        case Answered(answer=answer, citations=citations):
            body["answer"] = answer
            body["citations"] = [citation_to_dict(c) for c in citations]
        case InsufficientEvidence(missing=missing):
            body["missing"] = missing
        case Ambiguous(readings=readings, clarifying_question=question):
            body["readings"] = list(readings)
            body["clarifying_question"] = question
        case Declined(reason_code=code):
            body["reason_code"] = result.reason or code
    return body
