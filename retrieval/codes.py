"""The codes a query names ("RC-77", "7.3(b)", "clause 7.4") and how much of them a text
holds: what the offline reranker adds to a passage's and a sentence's score, and what the
evidence order reads again (``retrieval/order.py``)."""

from __future__ import annotations

import re

from docent.contracts import Chunk
from retrieval.tokenize import compound_text, compounds, tokenize

# A code: letters then digits (RC-77, E:1, P-12, SEV1, LH-2026-014) or a number with a
# bracketed suffix (401(k), 7.3(b)); not a plain number or a number with a unit (30-day).
_CODE = re.compile(r"^(?:[^\W\d_][\w.:/()&-]*\d[\w.:/()&-]*|\d[\d.]*\([^\W_]{1,4}\))$")


# A numbered part a query refers to by name ("clause 7.4", "sections 3.1 and 3.4", "§ 3.1"):
# the number alone would be a plain number, but named so it is the part's code ("What does
# clause 7.4 say?" matched nothing over the bar, though "Clause 7.4: …" is a passage's
# sentence: a user pass). Its code is the number, so a passage giving "7.4 kW" holds it too;
# the rerank's meaning tells the two apart.
_PART_NUMBER = r"\d+(?:\.\d+)+(?![\w(]|\.\d)"
_NAMED_PART = re.compile(
    rf"(?:\b(?:clause|section|article|paragraph)s?\b|\b(?:para|art|sec)\.|§)\s*"
    rf"({_PART_NUMBER}(?:\s*(?:,|and|or|to|-|–)\s*{_PART_NUMBER})*)",
    re.IGNORECASE,
)


def query_codes(query: str) -> frozenset[str]:
    """The codes a query names, as the tokeniser writes them, and the numbers of the parts it
    names ("clause 7.4" → ``7.4``)."""
    named = {
        number
        for m in _NAMED_PART.finditer(query)
        for number in re.findall(_PART_NUMBER, m.group(1))
    }
    return frozenset(t for t in tokenize(query) if _CODE.match(t) or t in named)


def code_coverage(codes: frozenset[str], text: str) -> float:
    """The share of the query's codes that ``text`` contains exactly (as tokens). A code is
    a compound token: a text holding none of them as a substring is ruled out at once, and
    one that may is read for its compounds alone (``tokenize.compounds``)."""
    if not codes:
        return 0.0
    folded = compound_text(text)
    if not any(code in folded for code in codes):
        return 0.0
    return len(codes & compounds(text)) / len(codes)


def passage_coverage(codes: frozenset[str], chunk: Chunk) -> float:
    """``code_coverage`` of a passage: its heading path, then its text (what the reranker
    and the evidence order both read)."""
    return code_coverage(codes, f"{chunk.heading}\n{chunk.text}")
