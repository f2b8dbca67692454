"""Clamp first, then order: the two steps whose order decides which hits the model sees.

``clamp`` walks the hits best first and keeps each while the blocks still fit the token
budget. The first hit that does not fit is dropped **and so is every hit below it**, even a
short one that would fit: the dropped set is always a lowest-rank suffix, so the prompt never
shows rank 5 while hiding rank 4. The top hit is always kept — an answer needs at least one
block — and when it alone exceeds the budget its text is cut at a token boundary to fit and
ends with ``TRUNCATION_MARKER`` (the trace shows the cut text, since that is what the model
read). ``order`` then reverses the survivors so the best block sits last, next to the
question. Reversing first and clamping second would spend the budget on the worst hits and
drop rank 1; ``clamp`` sorts by rank itself so that mistake cannot drop rank 1 either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from docent.contracts import Hit
from render.blocks import render_block
from render.tokens import truncate_to_tokens

TRUNCATION_MARKER = " … (truncated)"

TokenCounter = Callable[[str], int]


def block_tokens(hit: Hit, count_tokens: TokenCounter) -> int:
    return count_tokens(render_block(hit))


def truncate_hit(hit: Hit, budget_tokens: int, count_tokens: TokenCounter) -> Hit:
    """``hit`` with its text cut so its whole block fits ``budget_tokens`` (marker included).

    When even the tags and marker exceed the budget the text is cut to nothing but the
    marker: the block still names its source, so the model can say where to look."""
    overhead = block_tokens(_with_text(hit, TRUNCATION_MARKER.strip()), count_tokens)
    room = max(budget_tokens - overhead, 0)
    text = hit.chunk.text.strip()
    cut = _at_word_end(text, truncate_to_tokens(text, room))
    truncated = _with_text(hit, f"{cut}{TRUNCATION_MARKER}" if cut else TRUNCATION_MARKER.strip())
    # truncate_to_tokens counts with our own tokenizer; shrink further for a coarser counter.
    while cut and block_tokens(truncated, count_tokens) > budget_tokens:
        room -= 1
        cut = _at_word_end(text, truncate_to_tokens(cut, room))
        truncated = _with_text(
            hit, f"{cut}{TRUNCATION_MARKER}" if cut else TRUNCATION_MARKER.strip()
        )
    return truncated


def _at_word_end(text: str, prefix: str) -> str:
    """``prefix`` cut back to the last whitespace unless it already ends a word of ``text``,
    so a cut never splits "€1,000" into "€1,"."""
    if len(prefix) < len(text) and not text[len(prefix)].isspace():
        space = prefix.rfind(" ")
        prefix = prefix[:space] if space > 0 else ""
    return prefix.rstrip()


def _with_text(hit: Hit, text: str) -> Hit:
    return replace(hit, chunk=replace(hit.chunk, text=text))


def clamp(
    hits: Sequence[Hit], budget_tokens: int, count_tokens: TokenCounter
) -> tuple[tuple[Hit, ...], int]:
    """``(kept, chunks_dropped)``: ``kept`` in rank order (best first), a prefix of the ranking.

    Raises ``ValueError`` for a budget below 1 token."""
    if budget_tokens < 1:
        raise ValueError(f"budget_tokens must be at least 1, got {budget_tokens}")
    ranked = sorted(hits, key=lambda hit: hit.rank)
    if not ranked:
        return (), 0
    kept: list[Hit] = []
    spent = 0
    for position, hit in enumerate(ranked):
        cost = block_tokens(hit, count_tokens)
        if spent + cost > budget_tokens:
            if position == 0:
                return (truncate_hit(hit, budget_tokens, count_tokens),), len(ranked) - 1
            return tuple(kept), len(ranked) - position
        kept.append(hit)
        spent += cost
    return tuple(kept), 0


def order(kept: Sequence[Hit]) -> tuple[Hit, ...]:
    """The clamped hits in prompt order: worst first, best last (next to the question)."""
    return tuple(reversed(kept))
