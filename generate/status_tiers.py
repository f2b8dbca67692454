"""The order the extractive answerer tries blocks in by status (``generate/extractive.py``):
current, then pending, then superseded; a pending version in force during a period the
question names first."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from docent.contracts import Hit
from docent.periods import asked_periods, in_force_during

TIERS = ("current", "pending", "superseded")
ASKED_PENDING = "pending, asked"


def tier_groups(hits: Sequence[Hit], question: str, today: date) -> list[tuple[str, list[Hit]]]:
    """The hits in the tiers they are tried in. A question naming a period a pending version
    is in force during ("What will the hotel cap be in 2027?") reads first the latest such
    version taking effect by then (a 2030 policy does not answer for 2028), then the tiers."""
    periods = asked_periods(question, today)  # read once for every hit
    asked = [h for h in hits if in_force_during(periods, h.chunk)]
    latest = max((h.chunk.effective_date for h in asked if h.chunk.effective_date), default=None)
    first = [h for h in asked if h.chunk.effective_date == latest]
    rest = [h for h in hits if h not in first]
    groups = [(tier, [h for h in rest if status_tier(h) == tier]) for tier in TIERS]
    return [(ASKED_PENDING, first), *groups] if first else groups


def status_tier(hit: Hit) -> str:
    return hit.chunk.status if hit.chunk.status in TIERS else "current"
