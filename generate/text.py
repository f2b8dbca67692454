"""Small, deterministic text helpers shared by the extractive backend and the checks:
content words (stop words out, a light suffix stemmer), a chunk's sentences, and the
whitespace/quote normalisation used for "appears verbatim"."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from docent.contracts import Chunk
from docent.sentences import split_sentences as segment

STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each either few
    for from further get gets got had has have having he her here hers herself him himself
    his how i if in into is it its itself just let lets me more most must my myself no nor
    not now of off on once only or other ought our ours ourselves out over own per same
    shall she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up upon us very was we were what when
    where which while who whom whose why will with within would you your yours yourself
    yourselves also any anyone anything kind much many often does dont doesnt im ive
    tell know need want please thing things way ways something someone use used using
    """.split()
)

# A word, a number, or a code with a bracketed suffix after a digit ("7.3(b)", "401(k)": one
# word, or "section 7.3(b)" would read as "7.3" and mark "Clause 7.3(a)": a user pass).
_WORD = re.compile(r"[a-z0-9€$£%]+(?:[.,'][a-z0-9]+)*(?:(?<=\d)\([a-z0-9]{1,4}\))?", re.IGNORECASE)
# Paragraph breaks and the starts of list items or table rows: sentence runs never cross them.
_BLOCK_BREAK = re.compile(r"\n\s*\n|\n(?=\s*[-*•|]|\s*\d+[.)]\s)")
_SPACE = re.compile(r"\s+")
# A sentence that addresses the model rather than stating policy ("ignore previous
# instructions…"): it supports nothing and is never quoted as an answer.
INSTRUCTION = re.compile(
    r"\b(ignore|disregard|forget|override)\b[^.!?\n]{0,60}\b(instructions?|rules|prompts?)\b"
    r"|\bsystem prompt\b|\byou are now\b|\bas an ai\b",
    re.IGNORECASE,
)
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "\u00a0": " "})


def stem(word: str) -> str:
    """A light, deterministic suffix stripper: enough to match "days"/"day", "caps"/"capped"."""
    w = word.lower().replace("'", "")
    if len(w) > 4 and w.endswith(("ies", "ied")):
        return w[:-3] + "y"
    for suffix in ("ing", "ed"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2]:
                w = w[:-1]
            return w
    if len(w) > 5 and w.endswith("ly"):
        return w[:-2]
    if len(w) > 3 and w.endswith("es") and w[-3] in "sxz":
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def content_words(text: str) -> set[str]:
    """Stemmed words of ``text`` that carry meaning (stop words and 1-letter words out)."""
    return set(_content_words(text))


# One ask reads the same units' words many times (scoring, companions, checks): measured
# ~3,000 stem calls and 18 of 23 ms of the extractive answer on the real corpus.
@functools.lru_cache(maxsize=16384)
def _content_words(text: str) -> frozenset[str]:
    out: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group(0).lower().replace(",", "")
        if word in STOP_WORDS or (len(word) < 2 and not word.isdigit()):
            continue
        out.add(stem(word))
    return frozenset(out)


def split_sentences(text: str) -> tuple[str, ...]:
    """Sentences of ``text``: paragraphs and list items apart, each cut by the shared
    segmenter (the one ingest used for the units it stored)."""
    return tuple(sentence for block in _BLOCK_BREAK.split(text) for sentence in segment(block))


def addresses_model(sentence: str) -> bool:
    return bool(INSTRUCTION.search(sentence))


def chunk_sentences(chunk: Chunk) -> tuple[str, ...]:
    """The chunk's finer units as ingest recorded them, else sentences split from its text."""
    return chunk.sentences or split_sentences(chunk.text)


def collapse_space(text: str) -> str:
    """Runs of whitespace made one space, the ends trimmed: a unit as it reads on one line."""
    return " ".join(text.split())


def normalise(text: str) -> str:
    """Curly quotes straightened, runs of whitespace made one space: what "verbatim" ignores."""
    return _SPACE.sub(" ", text.translate(_QUOTES)).strip()


def appears_in(needle: str, haystacks: Iterable[str]) -> bool:
    wanted = normalise(needle)
    return bool(wanted) and any(wanted in normalise(h) for h in haystacks)


def best_overlap_sentence(sentences: Sequence[str], text: str) -> str | None:
    """The sentence sharing most content words with ``text`` (first on ties), or None."""
    target = content_words(text)
    best: tuple[int, str] | None = None
    for sentence in sentences:
        score = len(target & content_words(sentence))
        if best is None or score > best[0]:
            best = (score, sentence)
    return best[1] if best else None
