"""The seams of the answer stage: what it needs from retrieval, and what a backend provides.

``SearcherLike`` is the retrieval stage's ``Searcher.search`` contract written down here, so
``generate`` does not import ``retrieval`` and tests can pass any real implementation of it
(``tests/generate/fixed_searcher.py``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from docent.contracts import Hit, Outcome, Principal
from render.prompt import RenderedPrompt


class SearchResultLike(Protocol):
    @property
    def hits(self) -> tuple[Hit, ...]: ...

    @property
    def cut(self) -> tuple[Hit, ...]: ...

    @property
    def index_version(self) -> int: ...

    @property
    def timings_ms(self) -> Mapping[str, float]: ...

    @property
    def stages(self) -> Mapping[str, tuple[str, ...]]: ...

    @property
    def scope(self) -> str | None: ...

    @property
    def asked(self) -> str | None: ...


class SearcherLike(Protocol):
    def search(
        self,
        query: str,
        principal: Principal,
        *,
        top_k: int | None = None,
        threshold: float | None = None,
        include_pending: bool | None = None,
        exclude_chunk_ids: Collection[str] = (),
    ) -> SearchResultLike: ...


@dataclass(frozen=True)
class Usage:
    """Tokens the backend reported (zero for backends that do not call a model)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    calls: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
            self.calls + other.calls,
        )


@dataclass(frozen=True)
class Generation:
    """A backend's parsed outcome (before the checks) and what produced it."""

    outcome: Outcome
    raw_output: str
    model: str
    usage: Usage = Usage()
    notes: tuple[str, ...] = ()
    # How likely the outcome is right, when the backend can say (the extractive answer
    # gate's calibrated probability); None when it cannot.
    confidence: float | None = None
    # Per block, the unit nearest the answer as the backend read it (chunk id, text), best
    # first: what a non-answer shows under each closest passage.
    pointers: tuple[tuple[str, str], ...] = ()


class Generator(Protocol):
    """Turns a rendered prompt into an outcome. ``hits`` are the hits the prompt shows
    (``prompt.kept``: rank order, text as shown); a backend may cite only their ids."""

    @property
    def backend(self) -> str: ...

    @property
    def quotes_by_wording(self) -> bool:
        """Does it pick what to quote by the question's words (the extractive answerer)? It
        then reads a question as its passages were ranked: without the name of the
        collection it named (``docent.scope``), which every passage there shares. A model
        reads the question as asked."""
        ...

    def generate(self, prompt: RenderedPrompt, hits: Sequence[Hit]) -> Generation: ...
