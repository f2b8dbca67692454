"""How a block's lists read to the extractive answerer (``generate/extractive.py``): the
lead-in whose list a unit is an item of, the items right after a lead-in, and the first line
of the item whose later paragraph a unit is. The items are the chunk's list lines
(``docent.list_items.item_lines``), as its units read them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from docent.list_items import item_leads, item_lines
from generate.text import collapse_space
from generate.unit_scoring import Scored


def is_lead_in(unit: Scored) -> bool:
    """Does the unit introduce what follows it ("… capped per night, by city tier:")?"""
    return unit.unit.text.rstrip().endswith(":")


def lead_in_of(best: Scored, block: Sequence[Scored]) -> Scored | None:
    """The lead-in ("Hotel costs are capped per night, by city tier:") of the list whose
    item ``best`` is, with only items between them."""
    items = item_lines(best.unit.hit.chunk.text)
    if collapse_space(best.unit.text) not in items:
        return None
    for s in sorted(block, key=lambda s: -s.unit.index):
        if s.unit.index >= best.unit.index:
            continue
        if is_lead_in(s):
            return s
        if collapse_space(s.unit.text) not in items:
            return None
    return None


def items_after(lead: Scored, block: Sequence[Scored]) -> list[Scored]:
    """The list items right after ``lead``, up to the first unit that is not one."""
    items = item_lines(lead.unit.hit.chunk.text)
    out: list[Scored] = []
    for s in sorted(block, key=lambda s: s.unit.index):
        if s.unit.index <= lead.unit.index:
            continue
        if collapse_space(s.unit.text) not in items:
            break
        out.append(s)
    return out


def list_run(best: Scored, block: Sequence[Scored]) -> list[Scored]:
    """The items of the list ``best`` is an item of, in order: the run of list-item units
    around it (empty when it is no item)."""
    items = item_lines(best.unit.hit.chunk.text)
    if collapse_space(best.unit.text) not in items:
        return []
    ordered = sorted(block, key=lambda s: s.unit.index)
    at = ordered.index(best)
    start = end = at
    while start > 0 and collapse_space(ordered[start - 1].unit.text) in items:
        start -= 1
    while end + 1 < len(ordered) and collapse_space(ordered[end + 1].unit.text) in items:
        end += 1
    return ordered[start : end + 1]


def list_of(best: Scored, block: Sequence[Scored]) -> tuple[Scored | None, list[Scored]]:
    """``(lead-in, items)`` of the list ``best`` introduces or is an item of (no lead-in:
    the run of items around it)."""
    lead = best if is_lead_in(best) else lead_in_of(best, block)
    return lead, items_after(lead, block) if lead is not None else list_run(best, block)


def siblings(unit: Scored, block: Sequence[Scored]) -> list[Scored]:
    """The units ``unit`` is read among: its list's items (``list_of``), else its block's
    sentences (a table's rows aside)."""
    return list_of(unit, block)[1] or [s for s in block if s.unit.header is None]


def chosen_first(
    ranked: Sequence[Scored], choose: Callable[[Scored, list[Scored]], Scored | None]
) -> list[Scored]:
    """``ranked`` (units, best first) with, in each block, the unit ``choose(top, block)``
    picks moved to just before the block's best unit ``top``: what a non-answer highlights
    in the passage (``bands.band_first``, ``lookups.lookup_first``)."""
    out = list(ranked)
    tops: dict[str, Scored] = {}
    for s in ranked:
        tops.setdefault(s.unit.hit.chunk.chunk_id, s)
    for cid, top in tops.items():
        # Once each (a held-back draft's units lead ``ranked`` and come again in it).
        block = list({id(s): s for s in ranked if s.unit.hit.chunk.chunk_id == cid}.values())
        picked = choose(top, block)
        if picked is not None and picked is not top:
            out.remove(picked)
            out.insert(out.index(top), picked)
    return out


def item_lead(best: Scored, block: Sequence[Scored]) -> Scored | None:
    """When ``best`` is a later paragraph of a list item, the item's first unit: "… should
    also be billed here." says where only under "18F Hiring / Onboarding - #1241: …"."""
    text = collapse_space(best.unit.text)
    leads = item_leads(best.unit.hit.chunk.text)
    line = next((lead for paragraph, lead in leads.items() if text in paragraph), None)
    if line is None:
        return None
    starts = [
        s
        for s in block
        if s.unit.index < best.unit.index and line.startswith(collapse_space(s.unit.text))
    ]
    return max(starts, key=lambda s: s.unit.index, default=None)


def joined_quote(units: Sequence[Scored]) -> str:
    """One citation quote for several units: sentences run on, as the block reads; list
    items (no closing stop) each on their line, or the quote would not be the block's text."""
    texts = [s.unit.text for s in units]
    ended = all(t.rstrip().endswith((".", "!", "?", ".)", '."')) for t in texts)
    return (" " if ended else "\n").join(texts)
