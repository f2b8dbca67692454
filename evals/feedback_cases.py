"""Askers' verdicts as eval cases: ``docent eval cases-from-feedback --out CASES.jsonl``.

Each verdict (``docent.db.feedback``) becomes at most one case in the case format
(``evals.cases``), so a deployment can fit its answerer on its own questions (``docent eval
fit-answerer CASES.jsonl``: the cases carry no ``split``, so the file is fitted whole):

- "this answered it" on an answer: ``answerable``; ``expect`` the first cited quote's
  shortest distinctive figure ("25 days", "€1,000"), else the quote itself; ``gold`` the
  cited sections.
- "this answered it" on a closest passage of a non-answer: ``answerable``; ``expect`` by the
  same rule from the passage's sentence the trace recorded as nearest the question (the
  excerpt shown may have been another unit of it: the trace does not keep the answerer's
  pointers); ``gold`` its section.
- "it did not" on an answer: ``out_of_corpus`` (a case whose right outcome is not that
  answer), with the quotes it gave in ``note``.
- "none of these" (or "it did not" on one passage) says no case's right answer: not written.

``user_access`` and ``groups`` are the asker's at the time of the ask (from the trace),
``fact`` is ``feedback.<trace id>``, ``phrasing`` is ``scenario`` (an asker's own words).
The file holds askers' questions and quotes from the documents at any level: it is written
readable by its owner only, and should be kept as confidential as the documents.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from docent.db.feedback import (
    ANSWERED,
    JudgedAsk,
    citations_of,
    judged_asks,
    offered_passages,
    was_answered,
)
from evals.cases import normalise

_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand"
).split()
# A word after a number that is not its unit ("3 or more", "two of the").
_NOT_UNITS = frozenset(
    "a an and are as at be by for from if in is of on or per than that the to was with".split()
)
_FIGURE = re.compile(
    r"(?<![\w€$£])(?P<sign>[€$£]\s?)?"
    rf"(?P<number>\d+(?:[.,:]\d+)*|(?:{'|'.join(_WORDS)})\b)"
    r"(?:(?P<percent>\s?%)|[ \u00a0](?P<unit>[^\W\d_]+))?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Export:
    """The cases written, and how many verdicts wrote none, by why."""

    cases: list[dict[str, Any]]
    verdicts: int
    skipped: Counter[str]


def _figures(text: str) -> Iterable[tuple[str, str, bool]]:
    """(phrase, its number, whether it carries a unit, sign or percent) per figure."""
    for match in _FIGURE.finditer(text):
        unit = match["unit"]
        if match["sign"] or (unit and unit.casefold() in _NOT_UNITS):
            unit = None  # a sign marks a figure alone ("€1,000 need approval")
        marked = bool(match["sign"] or match["percent"] or unit)
        if not marked and not match["number"][0].isdigit():
            continue  # a lone "one" or "two" is prose, not a figure
        phrase = (match["sign"] or "") + match["number"] + (match["percent"] or "")
        yield (phrase + (f" {unit}" if unit else "")).strip(), match["number"], marked


def _count(phrase: str, text: str) -> int:
    return len(re.findall(rf"(?<![\w€$£]){re.escape(normalise(phrase))}(?!\w)", normalise(text)))


def distinctive_figure(text: str, question: str) -> str | None:
    """The shortest figure of ``text`` that appears in it once and not in the question: one
    with a unit, sign or percent ("25 days", "€1,000", "15%") before a bare number."""
    found = [
        (not marked, len(phrase), at, phrase)
        for at, (phrase, number, marked) in enumerate(_figures(text))
        if _count(phrase, text) == 1 and _count(number, question) == 0
    ]
    return min(found)[3] if found else None


def expect_of(text: str, question: str) -> str:
    """What an answer must contain: the text's distinctive figure, else the text itself
    (whitespace collapsed; a cut excerpt's ellipsis dropped)."""
    text = " ".join(text.split()).removesuffix(" …")
    return distinctive_figure(text, question) or text


def gold_of(item: Mapping[str, Any]) -> str:
    """``<source>#<heading path joined by ' > '>`` of a citation or a hit record."""
    path = [str(h) for h in item.get("heading_path") or () if str(h).strip()]
    return f"{item['source']}#{' > '.join(path)}" if path else str(item["source"])


def _asker(payload: Mapping[str, Any]) -> tuple[str | None, list[str]]:
    principal = payload.get("principal")
    if not isinstance(principal, Mapping) or not principal.get("clearance"):
        return None, []
    return str(principal["clearance"]), sorted(str(g) for g in principal.get("groups") or ())


def case_of(judged: JudgedAsk) -> dict[str, Any] | str:
    """The case one verdict says, or why it says none."""
    verdict, payload = judged.verdict, judged.payload
    clearance, groups = _asker(payload)
    if clearance is None:
        return "the trace records no asker's clearance"
    trace = verdict.trace_id
    case: dict[str, Any] = {"qid": f"feedback.{trace}", "q": judged.question}
    if verdict.chunk_id is None and was_answered(payload):
        cited = citations_of(payload)
        quotes = [str(c.get("quote") or "").strip() for c in cited]
        if not cited or not quotes[0]:
            return "the answer's trace records no quote"
        if verdict.verdict == ANSWERED:
            gold = list(dict.fromkeys(gold_of(c) for c in cited))
            case |= {"expect": [expect_of(quotes[0], judged.question)], "gold": gold}
            case["stratum"] = "answerable"
        else:
            shown = "; ".join(f"“{q}” ({gold_of(c)})" for q, c in zip(quotes, cited, strict=True))
            case |= {"expect": [], "gold": [], "stratum": "out_of_corpus"}
            case["note"] = f"the asker said this answer did not answer it: {shown}"
    elif verdict.chunk_id is not None and verdict.verdict == ANSWERED:
        hit = offered_passages(payload).get(verdict.chunk_id)
        excerpt = str((hit or {}).get("best_sentence") or "").strip()
        if hit is None or not excerpt:
            return "the trace records no excerpt of the passage"
        case["qid"] += f".{verdict.chunk_id}"
        case |= {"expect": [expect_of(excerpt, judged.question)], "gold": [gold_of(hit)]}
        case["stratum"] = "answerable"
    else:
        return "'none of these' (or 'it did not' on a passage): what would answer it is unknown"
    case |= {"user_access": clearance, "fact": f"feedback.{trace}", "phrasing": "scenario"}
    if groups:
        case["groups"] = groups
    if verdict.comment:
        case["comment"] = verdict.comment
    return case


def cases_from_feedback(judged: Sequence[JudgedAsk]) -> Export:
    made = [case_of(item) for item in judged]
    return Export(
        cases=[case for case in made if not isinstance(case, str)],
        verdicts=len(judged),
        skipped=Counter(why for why in made if isinstance(why, str)),
    )


def write_cases(path: Path, cases: Sequence[Mapping[str, Any]]) -> None:
    """JSONL, readable by its owner only (it quotes documents of every level)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.writelines(json.dumps(case, ensure_ascii=False) + "\n" for case in cases)


def summary(export: Export, out: Path) -> str:
    lines = [f"wrote {len(export.cases)} cases from {export.verdicts} verdicts to {out}"]
    lines += [f"  not written ({n}): {why}" for why, n in sorted(export.skipped.items())]
    lines.append(
        "The file holds askers' questions and quotes from documents of every level: keep it "
        "as confidential as the documents."
    )
    return "\n".join(lines)


def register(eval_app: typer.Typer) -> None:
    """Add ``cases-from-feedback`` to ``docent eval``."""

    @eval_app.command("cases-from-feedback")
    def cases_from_feedback_cmd(
        out: Annotated[Path, typer.Option("--out", help="Case file (JSONL) to write.")],
        since: Annotated[
            datetime | None,
            typer.Option(
                "--since", formats=["%Y-%m-%d"], help="Only feedback given on or after DATE."
            ),
        ] = None,
    ) -> None:
        """Write askers' feedback ("this answered it" / "it did not") as eval cases, for
        `docent eval fit-answerer`. Runs with full access: every asker's feedback is written."""
        from docent.cli_support import one_line_errors
        from docent.db.session import session_scope
        from docent.settings import get_settings
        from docent.wiring import open_services

        with one_line_errors():
            services = open_services(get_settings())  # the database only: no index is opened
            try:
                with session_scope(services.sessions) as session:
                    judged = judged_asks(session, since.replace(tzinfo=UTC) if since else None)
            finally:
                services.close()
            export = cases_from_feedback(judged)
            write_cases(out, export.cases)
        typer.echo(summary(export, out))
