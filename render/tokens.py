"""A deterministic token counter for the prompt budget.

Not a model's tokenizer: the budget only has to be stable and roughly proportional to what
an LLM counts. A word (``\\w+``) is one token and every other non-space character is one
token, which over-counts English prose by ~10-25% against BPE tokenizers — the safe side of
a budget. Written here rather than imported from ``ingest`` so ``render`` depends on nothing
but ``docent.contracts``.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Number of tokens in ``text`` (words and single punctuation marks)."""
    return sum(1 for _ in _TOKEN.finditer(text))


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of ``text`` holding at most ``max_tokens`` tokens, cut at a token end."""
    if max_tokens <= 0:
        return ""
    end = 0
    for n, match in enumerate(_TOKEN.finditer(text), start=1):
        if n > max_tokens:
            break
        end = match.end()
    else:
        return text
    return text[:end]
