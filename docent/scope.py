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

import re
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
            # A prefix sharing a name with an earlier one widens that collection.
            keys = {n.casefold() for n in cleaned}
            same = next((c for c in out if keys & {n.casefold() for n in c.names}), None)
            if same is None:
                out.append(NamedCollection((prefix.strip(),), cleaned))
                continue
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


def _uses(text: str, name: str) -> bool:
    """The name as a whole word or phrase; in any case, unless it is given in capitals
    ("US", "IT": "tell us" or "is it" does not name them)."""
    flags = 0 if name.isupper() else re.IGNORECASE
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, flags) is not None
