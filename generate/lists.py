"""How a block's lists read to the extractive answerer (``generate/extractive.py``): the
lead-in whose list a unit is an item of, the items right after a lead-in, and the first line
of the item whose later paragraph a unit is. The items are the chunk's list lines
(``docent.list_items.ITEM_LINE``), as its units read them."""

from __future__ import annotations

from collections.abc import Sequence

from docent.contracts import Hit
from docent.list_items import ITEM_LINE, item_leads
from generate.unit_scoring import Scored


def _item_texts(hit: Hit) -> set[str]:
    """The chunk's list items, as its units read them."""
    return {
        " ".join(m.group(2).split())
        for line in hit.chunk.text.splitlines()
        if (m := ITEM_LINE.match(line))
    }


def lead_in_of(best: Scored, block: Sequence[Scored]) -> Scored | None:
    """The lead-in ("Hotel costs are capped per night, by city tier:") of the list whose
    item ``best`` is, with only items between them."""
    items = _item_texts(best.unit.hit)
    if " ".join(best.unit.text.split()) not in items:
        return None
    for s in sorted(block, key=lambda s: -s.unit.index):
        if s.unit.index >= best.unit.index:
            continue
        if s.unit.text.rstrip().endswith(":"):
            return s
        if " ".join(s.unit.text.split()) not in items:
            return None
    return None


def items_after(lead: Scored, block: Sequence[Scored]) -> list[Scored]:
    """The list items right after ``lead``, up to the first unit that is not one."""
    items = _item_texts(lead.unit.hit)
    out: list[Scored] = []
    for s in sorted(block, key=lambda s: s.unit.index):
        if s.unit.index <= lead.unit.index:
            continue
        if " ".join(s.unit.text.split()) not in items:
            break
        out.append(s)
    return out


def item_lead(best: Scored, block: Sequence[Scored]) -> Scored | None:
    """When ``best`` is a later paragraph of a list item, the item's first unit: "… should
    also be billed here." says where only under "18F Hiring / Onboarding - #1241: …"."""
    text = " ".join(best.unit.text.split())
    leads = item_leads(best.unit.hit.chunk.text)
    line = next((lead for paragraph, lead in leads.items() if text in paragraph), None)
    if line is None:
        return None
    starts = [
        s
        for s in block
        if s.unit.index < best.unit.index and line.startswith(" ".join(s.unit.text.split()))
    ]
    return max(starts, key=lambda s: s.unit.index, default=None)
