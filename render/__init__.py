"""render: the ordered, tagged prompt. Pure functions, no I/O beyond reading the two prompt
files that ship with the package.

    render(question, hits, budget_tokens) -> RenderedPrompt
    clamp(hits, budget_tokens, count_tokens) -> (kept, chunks_dropped)   # first
    order(kept) -> prompt order, best last                              # then
    render_block(hit) -> '<doc id=… source=… heading=… effective=… status=…>…</doc>'
"""

from render.blocks import escape_attr, escape_text, render_block
from render.budget import TRUNCATION_MARKER, clamp, order
from render.prompt import RenderedPrompt, render, system_message, user_message
from render.tokens import count_tokens, truncate_to_tokens

__all__ = [
    "TRUNCATION_MARKER",
    "RenderedPrompt",
    "clamp",
    "count_tokens",
    "escape_attr",
    "escape_text",
    "order",
    "render",
    "render_block",
    "system_message",
    "truncate_to_tokens",
    "user_message",
]
