"""A deployment's own answerer fit, saved to a file and read back at start-up.

The extractive answerer's weights, its ``min_score`` and its answer gate are fitted on the
dev split of the sample corpus (``evals/reports/answerer_fit.md``). Scores do not transfer
between corpora: on three organisations' handbooks (../shared/corpora) the same question
meets many more near-matching sentences, and the sample's ``min_score`` answers there far too
readily. A team that writes dev cases over its own documents fits on them
(``docent eval fit-answerer cases.jsonl --save answerer.json``) and points
``DOCENT_ANSWERER_FIT`` at the file. ``DOCENT_EXTRACTIVE_MIN_SCORE`` and
``DOCENT_ANSWER_CONFIDENCE``, when set (in the environment or ``.env``), still win over the
file's values; ``answerer_choice`` says which values hold and where each came from, for the
log and the eval report.

The file is JSON holding exactly what the fit chose (the answerer's margins stay the code's)::

    {"format": 1, "fitted_on": "cases.jsonl, dev split, 108 cases, index_version 333",
     "weights": {"semantic": 1.0, "block": 0.376, …, "min_score": 2.057},
     "gate": {"intercept": 1.555, "block": -0.904, …, "threshold": 0.3}}

A file that cannot be read, or whose numbers would not make an answerer, is a configuration
error naming the file and what is wrong (``AnswererFileError``): ``docent serve`` builds the
answerer at start, so a deployment never starts on half a fit.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate.answer_gate import AnswerGate
from generate.errors import AnswererFileError
from generate.unit_scoring import Weights

if TYPE_CHECKING:
    from docent.settings import Settings

FORMAT = 2  # 2: the gate reads the ten signals of generate/answer_gate.py
# What a fit chooses; the answerer's quoting margins are not fitted and stay the code's.
FITTED_WEIGHTS = ("semantic", "block", "lexical", "fit", "title", "meta", "rank", "min_score")
FITTED_GATE = tuple(f.name for f in fields(AnswerGate))


@dataclass(frozen=True)
class FittedAnswerer:
    weights: Weights
    gate: AnswerGate
    fitted_on: str  # which cases, split and index the fit came from


@dataclass(frozen=True)
class AnswererChoice:
    """The weights and gate the extractive answerer runs with, and where they came from."""

    weights: Weights
    gate: AnswerGate
    source: str


def save_fit(path: Path, fitted: FittedAnswerer) -> None:
    weights, gate = asdict(fitted.weights), asdict(fitted.gate)
    body = {
        "format": FORMAT,
        "fitted_on": fitted.fitted_on,
        "weights": {name: weights[name] for name in FITTED_WEIGHTS},
        "gate": {name: gate[name] for name in FITTED_GATE},
    }
    path.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")


def load_fit(path: Path) -> FittedAnswerer:
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AnswererFileError(f"answerer fit {path}: cannot read it ({exc.strerror})") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AnswererFileError(f"answerer fit {path}: not JSON ({exc})") from exc
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise AnswererFileError(
            f"answerer fit {path}: not a fit file of format {FORMAT} "
            "(write one with `docent eval fit-answerer CASES --save FILE`)"
        )
    try:
        weights = Weights(**_numbers(body.get("weights"), FITTED_WEIGHTS, "weights"))
        gate = AnswerGate(**_numbers(body.get("gate"), FITTED_GATE, "gate"))
    except ValueError as exc:
        raise AnswererFileError(f"answerer fit {path}: {exc}") from exc
    return FittedAnswerer(weights, gate, str(body.get("fitted_on", "")))


def answerer_choice(settings: Settings) -> AnswererChoice:
    """The answerer's weights and gate under these settings: the built-in fit, or the
    file's, with ``extractive_min_score`` and ``answer_confidence`` winning when set."""
    if settings.answerer_fit is None:
        return AnswererChoice(
            Weights(min_score=settings.extractive_min_score),
            AnswerGate(threshold=settings.answer_confidence),
            "built-in fit (sample corpus, evals/reports/answerer_fit.md)",
        )
    fitted = load_fit(settings.answerer_fit)
    weights, gate = fitted.weights, fitted.gate
    notes = [f"fit {settings.answerer_fit} ({fitted.fitted_on or 'no description'})"]
    if "extractive_min_score" in settings.model_fields_set:
        weights = replace(weights, min_score=settings.extractive_min_score)
        notes.append(f"min_score {weights.min_score} from DOCENT_EXTRACTIVE_MIN_SCORE")
    if "answer_confidence" in settings.model_fields_set:
        gate = replace(gate, threshold=settings.answer_confidence)
        notes.append(f"confidence {gate.threshold} from DOCENT_ANSWER_CONFIDENCE")
    return AnswererChoice(weights, gate, "; ".join(notes))


def _numbers(section: Any, names: tuple[str, ...], part: str) -> dict[str, float]:
    """Every fitted field, each a finite number: a file from another version (a field
    missing or unknown) is refused, not half-applied."""
    if not isinstance(section, dict):
        raise ValueError(f"'{part}' must be an object")
    if set(section) != set(names):
        missing, unknown = sorted(set(names) - set(section)), sorted(set(section) - set(names))
        raise ValueError(f"'{part}' fields differ: missing {missing}, unknown {unknown}")
    values = {}
    for key, value in section.items():
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not math.isfinite(value):
            raise ValueError(f"'{part}.{key}' must be a finite number, got {value!r}")
        values[key] = float(value)
    return values
