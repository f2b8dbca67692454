"""Collections: named parts of one corpus (an organisation, a country, a subsidiary), each
the documents under one source prefix, and the names a question uses for it.

A corpus gathered from several organisations answers "does 37signals pay me for jury
duty?" from whichever handbook says most about jury duty: a federal agency's rule, cited,
for a company employee. When the question names exactly one collection, retrieval keeps
only that collection's documents, in both legs, before fusion; what it does not say is
then not said (the question is abstained on, or handed to a person). A question naming
none, or several ("how does 18F use GitHub?"), searches everything.

The deployment declares its collections (``DOCENT_COLLECTIONS``, JSON: source prefix →
names), since only it knows that "37signals" is the company whose handbook sits under
``basecamp-handbook/``. Prefixes that share a name are one collection: a handbook and its
converted copies under ``formats/basecamp-handbook__`` are both "37signals". Names match
whole words, in any case unless given in capitals ("US" names the US collection; "tell us"
does not); a name may be a phrase ("site policy").
The deployment's setting and the searcher read the same ``Collections``: the setting is
checked by building it (``Settings``), the searcher scopes with it (``retrieval.searcher``).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class NamedCollection:
    prefixes: tuple[str, ...]  # the sources under them: "basecamp-handbook/"
    names: tuple[str, ...]  # as given: "37signals", "Basecamp", "US"

    @property
    def label(self) -> str:
        """How the trace names the scope: its prefixes."""
        return " ".join(self.prefixes)

    def holds(self, source: str) -> bool:
        return source.startswith(self.prefixes)

    def unnamed(self, question: str) -> str:
        """The question without this collection's names ("… roll over at 37signals?" → "…
        roll over?"). Once the search is held to the collection, its name says nothing about
        which of its passages answers, and a sentence that repeats the name ("37signals
        offers 20 days of vacation") won the rerank on the name alone."""
        text = question
        for name in sorted(self.names, key=len, reverse=True):  # "ACME Corp" before "Acme"
            flags = 0 if name.isupper() else re.IGNORECASE
            text = re.sub(
                rf"(?:\b(?:at|in|for|from|of|by|with)\s+)?(?:the\s+)?(?<![\w-]){re.escape(name)}"
                r"(?:'s|’s|')?(?![\w-])",
                " ",
                text,
                flags=flags,
            )
        text = re.sub(r"\s+([?.!,;:])", r"\1", " ".join(text.split()))
        # A question about the name itself ("What does TTS stand for?") keeps it.
        return text if len(_CONTENT.findall(text)) >= 2 else question


@dataclass(frozen=True)
class Collections:
    collections: tuple[NamedCollection, ...] = ()

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Sequence[str]]) -> Collections:
        """From ``{prefix: [name, …]}``; an empty prefix or a collection without a name is a
        configuration error (it would scope questions to everything or to nothing)."""
        out: list[NamedCollection] = []
        for prefix, names in mapping.items():
            cleaned = tuple(" ".join(n.split()) for n in names if n.strip())
            if not prefix.strip() or not cleaned:
                raise ValueError(
                    f"collection {prefix!r} needs a source prefix and at least one name"
                )
            # A prefix whose names are an earlier collection's (or a part of them, or those
            # and more) widens that collection; a partial overlap is a mistake to report.
            keys = _keys(cleaned)
            sharing = [c for c in out if keys & _keys(c.names)]
            if not sharing:
                out.append(NamedCollection((prefix.strip(),), cleaned))
                continue
            same = sharing[0]
            if len(sharing) > 1 or not (keys <= _keys(same.names) or _keys(same.names) <= keys):
                raise ValueError(
                    f"collection {prefix!r} shares names with "
                    f"{' and '.join(repr(c.label) for c in sharing)} but not all of them: "
                    "prefixes of one collection take the same names (or some of them), "
                    "different collections none in common"
                )
            merged = tuple(dict.fromkeys([*same.names, *cleaned]))
            out[out.index(same)] = NamedCollection((*same.prefixes, prefix.strip()), merged)
        return cls(tuple(out))

    def named(self, question: str) -> tuple[NamedCollection, ...]:
        """The collections whose names the question uses."""
        text = " ".join(question.split())
        return tuple(c for c in self.collections if any(_uses(text, name) for name in c.names))

    def scope(self, question: str) -> NamedCollection | None:
        """The one collection a question is about, or None (it names none, or several)."""
        named = self.named(question)
        return named[0] if len(named) == 1 else None


# A word that carries meaning (three letters or more, not a question or helper word): the
# unnamed question must keep two of them.
_CONTENT = re.compile(
    r"\b(?!(?:what|which|who|whom|whose|when|where|why|how|does|did|the|and|for|are|was|"
    r"were|can|could|should|would|will|has|have|had|our|your|you|its|this|that)\b)"
    r"[A-Za-z]{3,}\b",
    re.IGNORECASE,
)


def _key(name: str) -> str:
    """A name as questions match it: in any case, unless given in capitals."""
    return name if name.isupper() else name.casefold()


def _keys(names: Sequence[str]) -> set[str]:
    return {_key(n) for n in names}


def _uses(text: str, name: str) -> bool:
    """The name as a whole word or phrase; in any case, unless it is given in capitals
    ("US", "IT": "tell us" or "is it" does not name them)."""
    flags = 0 if name.isupper() else re.IGNORECASE
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, flags) is not None


# Folder words that say what kind of pages a folder holds, not whose they are.
_GENERIC_FOLDER_WORDS = frozenset(
    "handbook handbooks site policy policies docs documents pages wiki manual guide guides "
    "intranet content files".split()
)
_NAME_TOKEN = re.compile(r"(?<![\w@/.])([A-Za-z0-9][A-Za-z0-9&]*[A-Za-z0-9])(?![\w@/])")
# A number, or a number with a unit or an ordinal ("25th", "10am", "16GB"): not a name.
_QUANTITY = re.compile(r"\d+(?:st|nd|rd|th|am|pm|[smhkx]|hrs?|mins?|gb|mb|kb|px)?", re.IGNORECASE)
SUGGEST_MIN_SHARE = 0.25  # a name is in at least this share of its collection's documents
SUGGEST_MAX_ELSEWHERE = 0.02  # and in at most this share of the other documents
SUGGEST_MAX_NAMES = 4


def suggest_collections(documents: Mapping[str, str]) -> dict[str, list[str]]:
    """A ``DOCENT_COLLECTIONS`` mapping read off a corpus (source → its text): one collection
    per top-level folder, when there are at least two. A folder most of whose documents are
    copies of other folders' (other formats, under ``formats/``) is no collection: each copy
    joins its original's, found by its file name ("basecamp-handbook__severance.docx") or
    else by its text. Names: the folder's own words, and the name-like words (with a digit,
    or in capitals: "37signals", "TTS") in many of the collection's documents and in almost
    none of the others. A suggestion for the deployment to check, never applied by itself:
    only it knows what its people call each part."""
    folders = {s: s.split("/", 1)[0] for s in documents if "/" in s}
    groups = sorted(set(folders.values()))
    if len(groups) < 2:
        return {}
    matches = _text_matches(documents, folders)
    copy_folders = {
        g
        for g in groups
        if 2 * sum(folders[s] == g and s in matches for s in folders)
        > sum(folders[s] == g for s in folders)
    }
    groups = [g for g in groups if g not in copy_folders]
    home = {s: g for s, g in folders.items() if g in groups}
    copies: dict[str, list[str]] = {g: [] for g in groups}
    for source, folder in folders.items():
        if folder in copy_folders:
            name = source.split("/", 1)[1]
            original = next((g for g in groups if name.startswith(g)), matches.get(source))
            if original in copies:
                home[source] = original
                copies[original].append(source)
    tokens = {s: set(_NAME_TOKEN.findall(text)) for s, text in documents.items()}
    named = {
        group: _names(
            group,
            [s for s in home if home[s] == group],
            [s for s in documents if home.get(s) != group],
            tokens,
        )
        for group in groups
    }
    # A name two folders share ("acme-handbook", "acme-policies") names neither.
    seen = Counter(k for names in named.values() for k in _keys(names))
    out: dict[str, list[str]] = {}
    for group in groups:
        names = [n for n in named[group] if seen[_key(n)] == 1]
        if not names:
            continue  # nothing tells this folder from the others
        out[f"{group}/"] = names
        if not copies[group]:
            continue
        prefix = os.path.commonprefix(copies[group])
        theirs = [c for g, cs in copies.items() if g != group for c in cs]
        # One prefix for the copies, unless it would take in another collection's copies.
        for key in copies[group] if any(c.startswith(prefix) for c in theirs) else [prefix]:
            out[key] = names
    return out


def _text_matches(documents: Mapping[str, str], folders: Mapping[str, str]) -> dict[str, str]:
    """Documents most of whose long lines another folder's document holds too: source → the
    folder (the relation is symmetric; the caller decides which side is the copy)."""
    lines = {
        s: {ln.strip() for ln in t.splitlines() if len(ln.strip()) > 40}
        for s, t in documents.items()
    }
    matches: dict[str, str] = {}
    for source, folder in folders.items():
        mine = lines[source]
        if not mine:
            continue
        share, other = max(
            (
                (len(mine & lines[o]) / len(mine), folders[o])
                for o in folders
                if folders[o] != folder
            ),
            default=(0.0, ""),
        )
        if share >= 0.5:
            matches[source] = other
    return matches


def _names(
    group: str, own: Sequence[str], others: Sequence[str], tokens: Mapping[str, set[str]]
) -> list[str]:
    words = [w for w in re.split(r"[-_ .]+", group) if w and w.lower() not in _GENERIC_FOLDER_WORDS]
    found: list[tuple[float, str]] = []
    for token in {t for s in own for t in tokens[s]}:
        has_digit = any(c.isdigit() for c in token) and not _QUANTITY.fullmatch(token)
        if len(token) < 3 or not (has_digit or token.isupper()):
            continue
        share = sum(token in tokens[s] for s in own) / len(own)
        elsewhere = sum(token in tokens[s] for s in others) / len(others) if others else 0.0
        if share >= SUGGEST_MIN_SHARE and elsewhere <= SUGGEST_MAX_ELSEWHERE:
            found.append((share, token))
    taken = {w.lower() for w in words}
    extra = [t for _, t in sorted(found, reverse=True) if t.lower() not in taken]
    return [*words, *extra][:SUGGEST_MAX_NAMES]
