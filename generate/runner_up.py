"""The runner-up beside an answer: the best unit of another block when the scores cannot
tell the two apart (``Weights.other_block_margin``)."""

from __future__ import annotations

from collections.abc import Sequence

from docent.contracts import Answered, Hit, Outcome
from generate.answer_types import wants_figure
from generate.companions import carries_type
from generate.lists import is_lead_in
from generate.lookups import rule_for
from generate.outcomes import answered
from generate.question_types import Expectation
from generate.quoting import cite
from generate.text import collapse_space, split_sentences
from generate.unit_scoring import Scored, Weights, in_example, is_meta


def with_runner_up(
    outcome: Outcome,
    best: Scored,
    scored: Sequence[Scored],
    hits: Sequence[Hit],
    question: str,
    expectation: Expectation,
    weights: Weights,
) -> Outcome:
    """An answer, plus the best unit of another block when the scores cannot tell the two
    apart (within ``other_block_margin``): both shown, each cited, the better first. Of
    labelled rules ("Tier 1 cities: …"), the one a table row picks for the thing the
    question names (``generate.lookups``)."""
    if not isinstance(outcome, Answered):
        return outcome
    margin = weights.other_block_margin
    # The same sentence in another block (a copy of the document in another format)
    # adds nothing: it is not a second answer.
    quoted = {
        collapse_space(piece)
        for c in outcome.citations
        for line in c.quote.splitlines()
        for piece in (line, *split_sentences(line))
    }
    others = [
        s
        for s in scored
        if s.unit.hit is not best.unit.hit
        and collapse_space(s.unit.text) not in quoted
        and s.unit.header is None
        and s.score >= max(best.score - margin, weights.min_score)
        and not is_lead_in(s)
        and not is_meta(s.unit.text, s.unit.hit.chunk.heading_path)
        and not in_example(s.unit)
        and (carries_type(s) or not wants_figure(expectation))
    ]
    if not others:
        return outcome
    second = rule_for(max(others, key=lambda s: s.score), scored, question)
    if collapse_space(second.unit.text) in quoted or in_example(second.unit):
        return outcome  # the rule a row picks instead is already shown (a copy's), or none
    cid = second.unit.hit.chunk.chunk_id
    quotes = [(c.id, c.quote) for c in outcome.citations] + [(cid, second.unit.text)]
    return answered(f"{outcome.answer}\n{cite(second.unit.text, cid)}", quotes, hits)
