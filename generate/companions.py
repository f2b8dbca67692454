"""What is quoted beside the best unit of a block (``generate/extractive.py``): the units
that read with it, and the items of its list that are other readings of a figure question."""

from __future__ import annotations

from generate.answer_types import wants_figure
from generate.figures import answer_figures
from generate.lists import is_lead_in, items_after, lead_in_of
from generate.question_types import Expectation
from generate.quoting import refers_back
from generate.unit_scoring import Scored, Weights, in_example, is_meta

MAX_LIST_ITEMS = 4
SHORT_BLOCK_UNITS = 4  # in a block this short, neighbours sharing the question's words join
TYPE_MATCH = 0.7  # type_fit at or above which a unit carries what the question asks for


def carries_type(scored: Scored) -> bool:
    """Does the unit carry what the question asks for (or introduce items that may)?"""
    return scored.fit >= TYPE_MATCH or is_lead_in(scored)


def close_siblings(
    best: Scored, block: list[Scored], expectation: Expectation, weights: Weights
) -> list[Scored]:
    """``best`` and the items of its list (under a lead-in) that give another figure of
    the asked kind and score within ``same_block_margin`` of it, in the list's order;
    empty when there are none."""
    lead = lead_in_of(best, block) if wants_figure(expectation) else None
    if lead is None:
        return []
    figures = answer_figures(best.unit.text)
    near = best.score - weights.same_block_margin
    rivals = [
        s
        for s in items_after(lead, block)
        if s is not best and s.score >= near and answer_figures(s.unit.text) != figures
    ]
    return sorted([best, *rivals], key=lambda s: s.unit.index) if rivals else []


def companions(
    best: Scored, block: list[Scored], expectation: Expectation, weights: Weights
) -> list[Scored]:
    """Units of the best unit's block that read with it: up to two within
    ``same_block_margin`` of its score, and in a short block the neighbours that share
    the question's words (a rule and its exception, a limit and its condition) — never
    a unit giving another figure of the asked kind, which would be another answer, but the
    items of a lead-in chosen with it."""
    figures = answer_figures(best.unit.text)
    sentences = [
        s
        for s in block
        if s.unit.header is None
        and s is not best
        and (in_example(best.unit) or not in_example(s.unit))
        and not (
            wants_figure(expectation)
            and s.fit >= TYPE_MATCH
            and answer_figures(s.unit.text) != figures
        )
    ]
    close = [s for s in sentences if s.score >= best.score - weights.same_block_margin]
    chosen = {id(s): s for s in sorted(close, key=lambda s: -s.score)[:2]}
    # A lead-in ("… capped per night, by city tier:") says nothing without the items it
    # introduces: they come with it, whatever figures they give (the list is the answer).
    for lead in [s for s in chosen.values() if is_lead_in(s)]:
        items = items_after(lead, block)[:MAX_LIST_ITEMS]
        chosen.update((id(s), s) for s in items if s is not best)
    # "It adds audit logs, …" after "The Business plan costs €199/month …" is the rest of
    # what the plan includes, whatever words the question used (a user pass).
    for follows in continuation(best, sentences, expectation):
        chosen.setdefault(id(follows), follows)
    if len(block) <= SHORT_BLOCK_UNITS:
        for s in sentences:
            if (
                abs(s.unit.index - best.unit.index) == 1
                and s.own
                and not is_meta(s.unit.text, s.unit.hit.chunk.heading_path)
                and not is_lead_in(s)
                and not _other_code(best, s)
            ):
                chosen.setdefault(id(s), s)
    return list(chosen.values())


def _other_code(best: Scored, neighbour: Scored) -> bool:
    """Does ``best`` hold a number the question gives ("clause 7.4") that ``neighbour`` does
    not? Then the neighbour is another numbered part ("Clause 7.3(b): …"), not the rest of
    this one's rule (a user pass got both for "What does clause 7.4 say?")."""
    return any(any(ch.isdigit() for ch in w) for w in best.own - neighbour.own)


def continuation(best: Scored, block: list[Scored], expectation: Expectation) -> list[Scored]:
    """The sentences after ``best`` up to one that refers back and goes on with its rule
    ("It adds audit logs, …" after "The Business plan costs …"), at most one sentence on
    ("The Team plan costs €49/month and includes 5 seats. Each additional seat costs €9 per
    seat per month. It includes unlimited dashboards and email support.": a user pass got
    only the first for "What does the Team plan include?"); empty when there is none. Never
    past a sentence about the document ("This policy is reviewed annually"), a lead-in whose
    items would be left out, or another figure of the asked kind ("Their managers get 30.")."""
    figures = answer_figures(best.unit.text)
    run: list[Scored] = []
    for step in (1, 2):
        follows = next((s for s in block if s.unit.index == best.unit.index + step), None)
        if follows is None or follows.unit.header is not None:
            return []
        if in_example(follows.unit) and not in_example(best.unit):
            return []
        text = follows.unit.text
        if (
            is_meta(text, follows.unit.hit.chunk.heading_path)
            or is_lead_in(follows)
            or (wants_figure(expectation) and answer_figures(text) - figures)
        ):
            return []
        run.append(follows)
        if refers_back(follows.unit):
            return run
    return []
