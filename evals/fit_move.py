"""How a fit moves the answers on the cases it was fitted on: each case asked once (one
search, replayed) by the deployment's answerer and by the new fit, graded the same way —
correct, wrong-and-confident, abstained — with the cases whose grade moved named. For
feedback cases (``docent eval cases-from-feedback``) this is what the askers' verdicts buy.
In-sample: measure on other cases before trusting it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from evals.cases import Case

if TYPE_CHECKING:
    from docent.wiring import Services
    from generate.protocols import Generator

COLUMNS = ("correct", "wrong", "abstained")
NAMED = 20  # moved cases listed by id; the rest counted


def graded_pair(
    services: Services, cases: Sequence[Case], before: Generator, after: Generator
) -> list[tuple[Case, str, str]]:
    """``(case, column before, column after)`` for every case, one search each."""
    from evals.runner import Grader, chunk_refs, principal_for, replay_asker, replay_search
    from generate.ask import ask_json

    grader = Grader(chunk_refs(services), services.settings.access_levels)
    threshold = services.settings.relevance_threshold
    out: list[tuple[Case, str, str]] = []
    for case in cases:
        replay = replay_search(services, case)
        columns = []
        for generator in (before, after):
            asked = replay_asker(services, replay, generator).ask(
                case.q, principal_for(case), threshold=threshold
            )
            column, _, _ = grader.grade_output(case, ask_json(asked))
            columns.append(column)
        out.append((case, columns[0], columns[1]))
    return out


def move_section(pairs: Sequence[tuple[Case, str, str]]) -> str:
    """The Markdown section: counts before → after, then the cases that moved."""
    before = Counter(b for _, b, _ in pairs)
    after = Counter(a for _, _, a in pairs)
    lines = [
        "",
        f"## The fit's move on these {len(pairs)} cases (in-sample)",
        "",
        "| | " + " | ".join(COLUMNS) + " |",
        "|---|" + "---|" * len(COLUMNS),
        "| deployment's answerer | " + " | ".join(str(before[c]) for c in COLUMNS) + " |",
        "| this fit | " + " | ".join(str(after[c]) for c in COLUMNS) + " |",
    ]
    moved = [(case, b, a) for case, b, a in pairs if b != a]
    lines.append("")
    if not moved:
        lines.append("No case changed its grade.")
        return "\n".join(lines)
    lines.append(f"{len(moved)} cases changed their grade:")
    lines += [f"- `{case.qid}`: {b} → {a}" for case, b, a in moved[:NAMED]]
    if len(moved) > NAMED:
        lines.append(f"- … and {len(moved) - NAMED} more")
    return "\n".join(lines)
