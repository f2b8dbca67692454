"""What one ask produced (``generate.ask.Asker``), apart from the asker, so that what stores
or shows it (``generate.trace``, the API, the CLI) does not import the chain that made it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docent.access import DEFAULT_LEVELS
from docent.contracts import Hit, Outcome, Principal
from generate.checks import CheckResult
from generate.protocols import Generation
from render.prompt import RenderedPrompt


@dataclass(frozen=True)
class Handoff:
    """Who to ask when the documents do not answer: the owner of the closest document the
    asker may read (the top hit, else the best candidate below the relevance cut)."""

    owner: str
    source: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"owner": self.owner, "source": self.source}


@dataclass(frozen=True)
class AskResult:
    trace_id: str
    question: str
    principal: Principal
    outcome: Outcome
    hits: tuple[Hit, ...]
    cut: tuple[Hit, ...]
    prompt: RenderedPrompt | None
    generation: Generation | None
    checks: tuple[CheckResult, ...]
    timings_ms: Mapping[str, float]
    index_version: int
    handoff: Handoff | None
    backend: str
    stages: Mapping[str, tuple[str, ...]]
    levels: tuple[str, ...] = DEFAULT_LEVELS
    reason: str | None = None
    scope: str | None = None  # the collection the question named, if any
