"""An answer as claims: its sentences, each with the block ids it cites.

Citations are ``[id]`` markers (``[a] [b]`` or ``[a, b]`` for several). A run of markers
closes a segment; every sentence of the segment is taken to cite those ids (a model that
cites once at the end of two sentences cites both). Text after the last marker cites
nothing (the checks drop it).

A document's own square brackets are text, never a citation ("dpo[at]example[dot]com"). A
bracket is a citation marker only when its content is a block id of the prompt, or has the
shape of one (``<source>#<n>``) — an id of that shape that was not shown is then a
fabricated citation — and never when the bracketed text appears verbatim in a block shown
(a quote of the document keeps the document's brackets).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

MARKER = re.compile(r"\[([^\[\]\n{}\"]{1,300})\]")  # not JSON arrays like [{"id": …}]
ID_SHAPE = re.compile(r"[^\s\[\]#][^\[\]\n]*#\d+")  # "<source>#<n>", as ingest names chunks
_RUN_GAP = re.compile(r"[\s,;]*")
_TRAILING_PUNCT = re.compile(r"[.!?;:,]+")
_END_PUNCT = re.compile(r"(.*?)([.!?;:,]*)$", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"“'(A-Z0-9€$£])|\s*\n+\s*")


@dataclass(frozen=True)
class Claim:
    text: str
    ids: tuple[str, ...]
    newline_before: bool = False


def marker_ids(
    content: str, known: Collection[str], shown_texts: Iterable[str] = ()
) -> tuple[str, ...]:
    """The ids one ``[…]`` cites, or ``()`` when the brackets are text. The whole content when
    it is a known id; else its comma/semicolon-separated parts when any of them is known or
    shaped like an id (the unknown ones are then fabricated); else ``()``. Brackets whose
    text appears verbatim in a shown block are the document's own: ``()``."""
    content = content.strip()
    if content in known:
        return (content,)
    if any(f"[{content}]" in text for text in shown_texts):
        return ()
    parts = [part.strip() for part in re.split(r"[;,]\s*", content) if part.strip()]
    if any(part in known or ID_SHAPE.fullmatch(part) for part in parts):
        return tuple(parts)
    return ()


def citation_markers(
    answer: str, known: Collection[str], shown_texts: Iterable[str] = ()
) -> list[tuple[re.Match[str], tuple[str, ...]]]:
    """The ``[…]`` of ``answer`` that are citation markers, each with the ids it names."""
    texts = tuple(shown_texts)
    out: list[tuple[re.Match[str], tuple[str, ...]]] = []
    for match in MARKER.finditer(answer):
        ids = marker_ids(match.group(1), known, texts)
        if ids:
            out.append((match, ids))
    return out


def cited_ids(
    answer: str, known: Collection[str], shown_texts: Iterable[str] = ()
) -> tuple[str, ...]:
    """Every id the answer's markers name, in order of first appearance."""
    seen: dict[str, None] = {}
    for _, ids in citation_markers(answer, known, shown_texts):
        for cid in ids:
            seen.setdefault(cid, None)
    return tuple(seen)


def split_claims(
    answer: str, known: Collection[str], shown_texts: Iterable[str] = ()
) -> tuple[Claim, ...]:
    claims: list[Claim] = []
    pos = 0
    pending_text = ""
    markers = citation_markers(answer, known, shown_texts)
    matches = [match for match, _ in markers]
    idsof = {match.start(): ids for match, ids in markers}
    i = 0
    while i < len(matches):
        first = matches[i]
        ids: list[str] = []
        end = first.end()
        ids.extend(idsof[first.start()])
        i += 1
        # Markers separated only by spaces, commas or semicolons belong to the same run.
        while i < len(matches) and _RUN_GAP.fullmatch(answer[end : matches[i].start()]):
            ids.extend(idsof[matches[i].start()])
            end = matches[i].end()
            i += 1
        segment = pending_text + answer[pos : first.start()]
        trailing = _TRAILING_PUNCT.match(answer, end)
        if trailing:
            segment = segment.rstrip() + trailing.group(0)
            end = trailing.end()
        claims.extend(_sentences(segment, tuple(dict.fromkeys(ids))))
        pending_text = ""
        pos = end
    claims.extend(_sentences(answer[pos:], ()))
    return tuple(claims)


def _sentences(segment: str, ids: tuple[str, ...]) -> list[Claim]:
    out: list[Claim] = []
    cursor = 0
    newline = bool(re.match(r"\s*\n", segment))
    for match in [*_SENTENCE_END.finditer(segment), None]:
        stop = match.start() if match else len(segment)
        text = segment[cursor:stop].strip()
        if text and not _TRAILING_PUNCT.fullmatch(text):
            out.append(Claim(text=text, ids=ids, newline_before=newline))
        if match:
            cursor = match.end()
            newline = "\n" in match.group(0)
    return out


def join_claims(claims: Iterable[Claim]) -> str:
    """Claims back into answer text, each sentence followed by its own markers."""
    parts: list[str] = []
    for claim in claims:
        body, punct = _END_PUNCT.match(claim.text).groups()  # type: ignore[union-attr]
        markers = " ".join(f"[{cid}]" for cid in claim.ids)
        text = f"{body} {markers}{punct}" if markers else claim.text
        if parts:
            parts.append("\n" if claim.newline_before else " ")
        parts.append(text)
    return "".join(parts)


def strip_markers(text: str) -> str:
    return re.sub(r"\s+", " ", MARKER.sub("", text)).strip()
