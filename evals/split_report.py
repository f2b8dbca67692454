"""The report's dev/test section: outcomes per split × stratum and per split × phrasing, and
dev beside test, each rate with its Wilson 95 % interval.

A case file that names no split (any user's own file) gets no section. Derived
``unretrieved`` cases count on the side of the case they were derived from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evals.cases import PHRASINGS, SPLITS, STRATA, UNRETRIEVED_SUFFIX, Case
from evals.metrics import Column, Rate, Tally, tally

GAP_WARNING = 10.0
"""Points between dev and test correct above which tuning on dev probably overfits."""


def case_of(cases: Mapping[str, Case], qid: str) -> Case | None:
    """The case of a result row; a derived ``unretrieved`` row falls back to its source case
    (``eval report`` reads the case file only, without the derived cases)."""
    found = cases.get(qid)
    if found is None and qid.endswith(UNRETRIEVED_SUFFIX):
        found = cases.get(qid.removesuffix(UNRETRIEVED_SUFFIX))
    return found


def graded_by_split(
    rows: Sequence[Mapping[str, Any]], cases: Mapping[str, Case]
) -> dict[str, list[tuple[str, str | None, Column]]]:
    """split -> (stratum, phrasing, column) per row, for rows whose case names a split."""
    out: dict[str, list[tuple[str, str | None, Column]]] = {}
    for row in rows:
        case = case_of(cases, str(row["qid"]))
        if case is None or case.split is None:
            continue
        column: Column = row["grade"]["column"]
        out.setdefault(case.split, []).append((str(row["stratum"]), case.phrasing, column))
    return out


def gap_points(dev: Rate, test: Rate) -> float | None:
    """Dev correct minus test correct, in percentage points; None when a side is empty."""
    if not dev.n or not test.n:
        return None
    return 100.0 * (dev.value - test.value)


def _table(counts: Mapping[str, Tally], order: Sequence[str], label: str) -> list[str]:
    lines = [
        f"| {label} | n | correct | wrong-and-confident | abstained |",
        "|---|---|---|---|---|",
    ]
    for key in [k for k in order if k in counts] + [k for k in counts if k not in order]:
        t = counts[key]
        name = f"**{key}**" if key == "all" else key
        lines.append(
            f"| {name} | {t.n} | {t.rate('correct')} | {t.rate('wrong')} | {t.rate('abstained')} |"
        )
    return lines


def side_by_side(by_split: Mapping[str, Sequence[tuple[str, str | None, Column]]]) -> list[str]:
    """Correct rate per stratum (and per answerable phrasing) on dev and test, with the gap."""
    strata = {s: tally((st, c) for st, _, c in by_split.get(s, ())) for s in SPLITS}
    phrasings = {
        s: tally((p, c) for st, p, c in by_split.get(s, ()) if st == "answerable" and p)
        for s in SPLITS
    }
    lines = [
        "| cases | dev correct | test correct | gap (dev − test, points) |",
        "|---|---|---|---|",
    ]
    keys = [(k, strata) for k in (*STRATA, "all")] + [(p, phrasings) for p in PHRASINGS]
    for key, counts in keys:
        dev, test = counts["dev"].get(key), counts["test"].get(key)
        if dev is None and test is None:
            continue
        d = dev.rate("correct") if dev else Rate(0, 0)
        t = test.rate("correct") if test else Rate(0, 0)
        gap = gap_points(d, t)
        shown = "–" if gap is None else f"{gap:+.0f}" + (" ⚠" if abs(gap) > GAP_WARNING else "")
        name = f"answerable, {key}" if counts is phrasings else key
        lines.append(f"| {name} | {d} | {t} | {shown} |")
    return lines


def split_section(rows: Sequence[Mapping[str, Any]], cases: Mapping[str, Case]) -> list[str]:
    """Markdown lines of the dev/test section; empty when no case names a split."""
    by_split = graded_by_split(rows, cases)
    if not by_split:
        return []
    lines = [
        "## Dev and test (split by fact; Wilson 95 % intervals)",
        "",
        "Every phrasing of a fact sits on one side. Tune on dev, report test; a gap above "
        f"{GAP_WARNING:.0f} points (⚠) means the tuning overfits dev.",
        "",
        *side_by_side(by_split),
    ]
    for split in sorted(by_split, key=lambda s: (s != "test", s)):
        graded = by_split[split]
        by_stratum = tally((stratum, column) for stratum, _, column in graded)
        answerable = [(p, c) for st, p, c in graded if st == "answerable" and p is not None]
        lines += [
            "",
            f"### {split}: by stratum",
            "",
            *_table(by_stratum, STRATA, "stratum"),
        ]
        if answerable:
            lines += [
                "",
                f"### {split}: answerable cases by phrasing",
                "",
                *_table(tally(answerable), PHRASINGS, "phrasing"),
            ]
    return lines
