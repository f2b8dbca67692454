"""Drive the real chain over cases: one ask per case as a principal with the case's
``user_access``, graded and checked for leaks; plus the one-retrieval-per-case threshold
sweep and the retrieval-stage eval.

Evals ask through their own ``Asker`` built from the services' searcher and generator but
with no trace store: eval questions are not user traffic and must not fill the traces and
content-gap tables of the index they measure.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docent.access import visible
from docent.contracts import Hit, Principal
from evals.cases import MUST_ANSWER, Case, ChunkRef, derive_unretrieved
from evals.metrics import Column, find_leaks, grade, hidden_sentences

if TYPE_CHECKING:
    from docent.settings import Settings
    from docent.wiring import Services
    from generate.ask import Asker
    from generate.protocols import Generator
    from generate.result import AskResult
    from retrieval.searcher import SearchResult

RANKED_KEEP = 10  # the reranked list kept per row, for recall@10
Progress = Callable[[str], None]


def principal_for(case: Case) -> Principal:
    return Principal(f"eval:{case.qid}", case.user_access, frozenset(case.groups))


def chunk_refs(services: Services) -> list[ChunkRef]:
    return [
        ChunkRef(c.chunk_id, c.source, c.heading_path, c.access_level, c.groups, c.sentences)
        for c in services.index.scroll()
    ]


def eval_asker(services: Services) -> Asker:
    from generate.ask import Asker

    s = services.settings
    return Asker(
        services.searcher,
        services.generator,
        None,
        budget_tokens=s.prompt_token_budget,
        levels=s.access_levels,
        default_owner=s.default_handoff_queue,
    )


def run_config(settings: Settings, threshold: float | None) -> dict[str, Any]:
    return {
        "backend": settings.generator,
        "llm_model": settings.llm_model if settings.generator == "openai" else None,
        "threshold": settings.relevance_threshold if threshold is None else threshold,
        "top_k": settings.top_k,
        "leg_top_n": settings.leg_top_n,
        "fused_top_m": settings.fused_top_m,
        "rrf_k": settings.rrf_k,
        "reranker": settings.reranker_model or "offline-sentence",
        "embedding_model": settings.embedding_model,
        "prompt_token_budget": settings.prompt_token_budget,
        "include_pending": settings.include_pending,
        "collection": settings.collection,
        **(_answerer(settings) if settings.generator == "extractive" else {}),
    }


def _answerer(settings: Settings) -> dict[str, Any]:
    """The extractive answerer's bar and gate as run, and the fit file (name and content
    hash) they came from: two runs with the same values used the same answerer."""
    from generate.answerer_file import answerer_choice

    choice = answerer_choice(settings)
    fit = settings.answerer_fit
    return {
        "min_score": choice.weights.min_score,
        "answer_confidence": choice.gate.threshold,
        "answerer_fit": (
            f"{fit.name} sha256:{hashlib.sha256(fit.read_bytes()).hexdigest()[:12]}"
            if fit
            else None
        ),
    }


class Grader:
    """Grades one ask output against its case: the column and every leak. Holds the index's
    chunk access data and, per distinct principal, the sentences only hidden chunks hold."""

    def __init__(self, chunks: Sequence[ChunkRef], levels: Sequence[str]) -> None:
        self.chunks = chunks
        self.by_id = {c.chunk_id: c for c in chunks}
        self.levels = tuple(levels)
        self._hidden: dict[tuple[str, frozenset[str]], tuple[str, ...]] = {}

    def hidden(self, principal: Principal) -> tuple[str, ...]:
        key = (principal.clearance, principal.groups)
        if key not in self._hidden:
            self._hidden[key] = hidden_sentences(principal, self.chunks, self.levels)
        return self._hidden[key]

    def leaks(
        self, case: Case, output: Mapping[str, Any], extra_ids: Sequence[str] = ()
    ) -> list[str]:
        principal = principal_for(case)
        found = find_leaks(
            output, principal, self.by_id, self.levels, case.forbidden, self.hidden(principal)
        )
        for chunk_id in extra_ids:
            chunk = self.by_id.get(chunk_id)
            if chunk is None or not visible(
                principal, chunk.access_level, chunk.groups, self.levels
            ):
                found.append(f"ranked chunk {chunk_id!r} is not readable by the asker")
        return found

    def grade_output(
        self, case: Case, output: Mapping[str, Any], extra_ids: Sequence[str] = ()
    ) -> tuple[Column, str, list[str]]:
        leaks = self.leaks(case, output, extra_ids)
        g = grade(case, str(output.get("outcome")), output.get("answer"), bool(leaks))
        return g.column, g.reason, leaks

    def ranked(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        return [
            {
                "id": i,
                "source": self.by_id[i].source,
                "heading_path": list(self.by_id[i].heading_path),
            }
            for i in ids
            if i in self.by_id
        ]


def with_unretrieved(cases: Sequence[Case], chunks: Sequence[ChunkRef]) -> list[Case]:
    return [*cases, *derive_unretrieved(cases, chunks)]


def run_cases(
    services: Services,
    cases: Sequence[Case],
    *,
    threshold: float | None = None,
    progress: Progress | None = None,
) -> list[dict[str, Any]]:
    """Ask every case (the caller adds derived cases); one result row per case, in order."""
    from generate.ask import ask_json

    grader = Grader(chunk_refs(services), services.settings.access_levels)
    asker = eval_asker(services)
    rows = []
    for case in cases:
        started = time.perf_counter()
        result: AskResult = asker.ask(
            case.q,
            principal_for(case),
            exclude_chunk_ids=case.exclude_chunk_ids,
            threshold=threshold,
        )
        latency = (time.perf_counter() - started) * 1000.0
        output = ask_json(result)
        ranked_ids = list(result.stages.get("reranked", ()))[:RANKED_KEEP]
        column, reason, leaks = grader.grade_output(case, output, ranked_ids)
        rows.append(
            {
                **output,
                "qid": case.qid,
                "stratum": case.stratum,
                "user_access": case.user_access,
                "groups": list(case.groups),
                "latency_ms": round(latency, 3),
                "timings_ms": {k: round(float(v), 3) for k, v in result.timings_ms.items()},
                "index_version": result.index_version,
                "withheld": list(case.exclude_chunk_ids),
                "ranked": grader.ranked(ranked_ids),
                "grade": {"column": column, "reason": reason},
                "leaks": leaks,
            }
        )
        if progress:
            progress(f"{case.qid}: {column}")
    return rows


def run_meta(
    services: Services,
    cases_file: Path,
    config: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    from evals.fingerprint import index_fingerprint, prompt_hash

    versions = sorted({int(r["index_version"]) for r in rows})
    chunks = ((c.chunk_id, c.text) for c in services.index.scroll())
    return {
        "index_fingerprint": index_fingerprint(chunks),
        "prompt_hash": prompt_hash(),
        "index_version": versions[-1] if versions else services.searcher.current_version(),
        "index_versions_seen": versions,
        "chunks": services.index.count(),
        "cases_file": str(cases_file),
        "cases_sha256": hashlib.sha256(cases_file.read_bytes()).hexdigest(),
        "cases": len(rows),
        "config": dict(config),
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


# --- the sweep: one retrieval per case, every threshold applied in-process --------------
@dataclass(frozen=True)
class ReplaySearcher:
    """A searcher over one search already made with no threshold: applies the relevance cut
    to the stored reranked candidates, exactly as the real searcher's last step does.
    Lets the sweep re-run gate, render, generate and checks per threshold without
    searching again. ``top_k`` per call overrides the one given; who may read what, pending
    documents and excluded ids were settled by the search replayed."""

    ordered: tuple[Hit, ...]
    base: SearchResult
    top_k: int

    def search(
        self,
        query: str,
        principal: Principal,
        *,
        top_k: int | None = None,
        threshold: float | None = None,
        include_pending: bool | None = None,
        exclude_chunk_ids: Collection[str] = (),
    ) -> SearchResult:
        from docent.versions import version_request
        from retrieval.cut import cut
        from retrieval.searcher import SearchResult

        bar = -math.inf if threshold is None else threshold
        k = self.top_k if top_k is None else top_k
        kept, dropped = cut(self.ordered, bar, k, version_request(query))
        return SearchResult(
            hits=tuple(kept),
            cut=tuple(dropped),
            index_version=self.base.index_version,
            timings_ms=self.base.timings_ms,
            stages=self.base.stages,
            scope=self.base.scope,
            asked=self.base.asked,
        )


def replay_search(services: Services, case: Case) -> ReplaySearcher:
    """One search for ``case`` with no threshold, kept for re-running the rest of the chain."""
    s = services.settings
    found = services.searcher.search(
        case.q,
        principal_for(case),
        top_k=max(s.fused_top_m, s.top_k),
        threshold=-math.inf,
        exclude_chunk_ids=case.exclude_chunk_ids,
    )
    return ReplaySearcher((*found.hits, *found.cut), found, s.top_k)


def replay_asker(services: Services, replay: ReplaySearcher, generator: Generator) -> Asker:
    """An asker over a replayed search (no trace store): gate, render, generate, checks."""
    from generate.ask import Asker

    s = services.settings
    return Asker(
        replay,
        generator,
        None,
        budget_tokens=s.prompt_token_budget,
        levels=s.access_levels,
        default_owner=s.default_handoff_queue,
    )


def sweep_cases(
    services: Services,
    cases: Sequence[Case],
    thresholds: Sequence[float],
    progress: Progress | None = None,
) -> dict[float, list[tuple[str, str, Column]]]:
    """threshold -> (stratum, outcome, column) per case."""
    from generate.ask import ask_json

    grader = Grader(chunk_refs(services), services.settings.access_levels)
    graded: dict[float, list[tuple[str, str, Column]]] = {t: [] for t in thresholds}
    for case in cases:
        principal = principal_for(case)
        asker = replay_asker(services, replay_search(services, case), services.generator)
        for t in thresholds:
            output = ask_json(asker.ask(case.q, principal, threshold=t))
            column, _, _ = grader.grade_output(case, output)
            graded[t].append((case.stratum, str(output["outcome"]), column))
        if progress:
            progress(case.qid)
    return graded


# --- retrieval only ---------------------------------------------------------------------
def retrieval_rankings(
    services: Services, cases: Sequence[Case], progress: Progress | None = None
) -> list[tuple[Case, dict[str, list[tuple[str, list[str]]]]]]:
    """Per must-answer case with gold: each stage's ranked (source, heading_path) list, from
    one search with nothing withheld and no threshold."""
    grader = Grader(chunk_refs(services), services.settings.access_levels)
    out = []
    for case in cases:
        if case.stratum not in MUST_ANSWER or not case.gold:
            continue
        found = services.searcher.search(case.q, principal_for(case), threshold=-math.inf)
        stages = {
            stage: [(r["source"], r["heading_path"]) for r in grader.ranked(ids)]
            for stage, ids in found.stages.items()
        }
        out.append((case, stages))
        if progress:
            progress(case.qid)
    return out
