"""The last two pure steps after the rerank: time ordering, then the relevance cut.

Time: a superseded chunk never outranks a chunk of the document that supersedes it when
both are present (the reranker alone would often prefer the archived copy: an older
version usually says the same thing in nearly the same words). Pending chunks never get
this far unless asked for; the permission filters keep them out of both legs.

Cut: only hits whose rerank score clears the threshold are passed on, at most ``top_k``.
No hit clearing it is an empty result, which the answer stage turns into an abstention.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import replace

from docent.contracts import Chunk, Hit
from docent.versions import VersionRequest, asked_version, current_successor, in_force_all_year

# A question about a past version keeps that version's best passages among those passed on.
NAMED_KEPT = 2


def supersession_order(hits: Sequence[Hit], asked_for: VersionRequest | None = None) -> list[Hit]:
    """Move each superseded hit below every present hit of its successor document, keeping
    every other relative order (a stable topological sort). Ranks are renumbered. Hits of
    the past version a question asks for (``asked_for``) keep their rank."""
    in_asked = asked_version(asked_for, hits) if asked_for is not None else None
    by_source: dict[str, list[int]] = {}
    for i, hit in enumerate(hits):
        by_source.setdefault(hit.chunk.source, []).append(i)
    after: list[list[int]] = [[] for _ in hits]  # after[j]: hits that must follow j
    waiting = [0] * len(hits)
    for i, hit in enumerate(hits):
        successor = hit.chunk.superseded_by
        if not successor or successor == hit.chunk.source:
            continue
        if in_asked is not None and in_asked(hit.chunk):
            continue
        for j in by_source.get(successor, ()):
            after[j].append(i)
            waiting[i] += 1
    ready = [i for i in range(len(hits)) if waiting[i] == 0]
    heapq.heapify(ready)
    placed: list[int] = []
    done = [False] * len(hits)
    while len(placed) < len(hits):
        if not ready:
            # A supersession cycle (bad metadata): release the best-ranked one left.
            heapq.heappush(ready, next(i for i in range(len(hits)) if not done[i]))
        i = heapq.heappop(ready)
        if done[i]:
            continue
        done[i] = True
        placed.append(i)
        for k in after[i]:
            waiting[k] -= 1
            if waiting[k] == 0 and not done[k]:
                heapq.heappush(ready, k)
    return [replace(hits[i], rank=rank) for rank, i in enumerate(placed, start=1)]


def passes(hit: Hit, threshold: float) -> bool:
    """A hit without a rerank score has not been judged relevant: it does not pass."""
    return hit.rerank_score is not None and hit.rerank_score >= threshold


def cut(
    hits: Sequence[Hit],
    threshold: float,
    top_k: int,
    asked_for: VersionRequest | None = None,
) -> tuple[list[Hit], list[Hit]]:
    """``(kept, cut)``: kept = at most ``top_k`` hits, in order, that clear ``threshold``;
    cut = every other candidate, in order (below the threshold, or beyond ``top_k``).

    A superseded hit whose successor document (followed through a chain of versions to the
    one in force) is among the candidates is never kept, unless it is of the past version
    the question asks for (``asked_for``): its wording may clear the bar where the current
    rule's does not, but it is not what applies. When it clears the bar, the successor's
    passages of the same section are kept in its place, below the bar or not (the old version
    vouches that the documents cover the question: "How long can a prospect test the product
    …?" matched the 2023 price list's "Free trial" better than today's). The best
    ``NAMED_KEPT`` passages of a version the question names plainly, or of one in force for
    the whole year it gives, are kept among the ``top_k``."""
    if top_k <= 0:
        raise ValueError(f"top_k must be greater than 0, got {top_k}")
    sources = {hit.chunk.source for hit in hits}
    in_asked = asked_version(asked_for, hits) if asked_for is not None else None
    keep: list[int] = []
    for i, hit in enumerate(hits):
        if len(keep) == top_k or i in keep or not passes(hit, threshold):
            continue
        replaced_by = _replaced_by(hit, hits, sources, in_asked)
        if replaced_by is None:
            keep.append(i)
            continue
        section = hit.chunk.heading_path[1:]
        keep.extend(
            j
            for j, other in enumerate(hits)
            if section
            and other.chunk.source == replaced_by
            and other.chunk.status != "superseded"
            and other.chunk.heading_path[1:] == section
            and j not in keep
        )
        del keep[top_k:]
    if asked_for is not None and in_asked is not None and asked_for.explicit:
        keep = _with_named_version(keep, hits, threshold, top_k, in_asked)
    elif asked_for is not None and asked_for.year is not None:
        # A year alone, in any tense, names a version in force for all of it ("In early 2020,
        # could a developer in Iran use private repositories?" showed only today's pages).
        whole_year = in_force_all_year(asked_for, hits)
        keep = _with_named_version(keep, hits, threshold, top_k, whole_year)
    chosen = set(keep)
    return [hits[i] for i in sorted(chosen)], [h for i, h in enumerate(hits) if i not in chosen]


def _with_named_version(
    keep: list[int],
    hits: Sequence[Hit],
    threshold: float,
    top_k: int,
    in_asked: Callable[[Chunk], bool],
) -> list[int]:
    """``keep`` with the best ``NAMED_KEPT`` passages of the version the question asks for
    among them (when they clear the bar), in place of the lowest-ranked others: today's
    wording of a section usually outranks its old version's, and the answerer can quote
    only the passages passed on ("In the pre-2020 GitHub terms, what kind of promotion was
    allowed in a README?" had the 2019 terms' passages sixth and later)."""

    def named(i: int) -> bool:
        return in_asked(hits[i].chunk)

    wanted = [i for i, h in enumerate(hits) if passes(h, threshold) and named(i)][:NAMED_KEPT]
    kept = list(keep)
    for i in wanted:
        if i in kept:
            continue
        if len(kept) >= top_k:
            others = [j for j in kept if not named(j)]
            if not others:
                break
            # A passage below the bar (a successor's section kept in an old one's place)
            # goes first, then the lowest-ranked.
            kept.remove(max(others, key=lambda j: (not passes(hits[j], threshold), j)))
        kept.append(i)
    return kept


def _replaced_by(
    hit: Hit,
    hits: Sequence[Hit],
    sources: set[str],
    in_asked: Callable[[Chunk], bool] | None,
) -> str | None:
    """The document in force that replaced ``hit``'s, when it is among ``hits`` and the
    question does not ask for ``hit``'s version; else None."""
    direct = hit.chunk.superseded_by
    if hit.chunk.status != "superseded" or not direct or direct == hit.chunk.source:
        return None
    if in_asked is not None and in_asked(hit.chunk):
        return None
    successor = current_successor(hit.chunk, hits)
    return successor if successor in sources and successor != hit.chunk.source else None
