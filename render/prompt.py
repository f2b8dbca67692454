"""The whole prompt: clamp, order, blocks, and the two messages.

The system message is ``prompts/system.md`` verbatim (stable across asks, so a server can
cache it); the user message is ``prompts/user.md`` with ``$blocks`` and ``$question``
substituted. Both files are under version control and snapshot-tested.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template

from docent.contracts import Hit
from render.blocks import render_block
from render.budget import TokenCounter, clamp, order
from render.tokens import count_tokens as default_count_tokens

PROMPTS = Path(__file__).parent / "prompts"
NO_BLOCKS = "(no documents were found for this question)"


@dataclass(frozen=True)
class RenderedPrompt:
    """What the model is sent, and what it was shown.

    ``block_ids`` are in prompt order (best last). ``kept`` are the hits behind the blocks in
    rank order (best first), with the text exactly as shown — the top hit's text is cut when
    it alone exceeded the budget. ``chunks_dropped`` counts the lowest-rank hits left out."""

    system: str
    user: str
    block_ids: tuple[str, ...]
    chunks_dropped: int
    kept: tuple[Hit, ...] = ()
    question: str = ""


@cache
def load_prompt(name: str) -> str:
    """A prompt file from ``render/prompts`` (``system`` or ``user``), read once."""
    return (PROMPTS / f"{name}.md").read_text(encoding="utf-8")


def system_message() -> str:
    return load_prompt("system").strip()


def user_message(question: str, blocks: Sequence[str]) -> str:
    body = "\n\n".join(blocks) if blocks else NO_BLOCKS
    # Template.substitute does not re-read the substituted values, so "$" or "{" in a
    # question or a document is inserted as written.
    return Template(load_prompt("user")).substitute(blocks=body, question=question.strip()).strip()


def render(
    question: str,
    hits: Sequence[Hit],
    budget_tokens: int,
    count_tokens: TokenCounter = default_count_tokens,
) -> RenderedPrompt:
    """Clamp ``hits`` to ``budget_tokens`` (block tokens), reverse, and build both messages."""
    kept, dropped = clamp(hits, budget_tokens, count_tokens)
    shown = order(kept)
    return RenderedPrompt(
        system=system_message(),
        user=user_message(question, [render_block(hit) for hit in shown]),
        block_ids=tuple(hit.chunk.chunk_id for hit in shown),
        chunks_dropped=dropped,
        kept=kept,
        question=question.strip(),
    )
