"""A deployment's own answerer fit, saved to a file and read back at start-up.

The extractive answerer's weights, its ``min_score`` and its answer gate are fitted on the
dev split of the sample corpus (``evals/reports/answerer_fit.md``). Scores do not transfer
between corpora: on three organisations' handbooks (../shared/corpora) the same question
meets many more near-matching sentences, and the sample's ``min_score`` answers there far too
readily. A team that writes dev cases over its own documents fits on them
(``docent eval fit-answerer cases.jsonl --save answerer.json``) and points
``DOCENT_ANSWERER_FIT`` at the file; explicitly set ``DOCENT_EXTRACTIVE_MIN_SCORE`` and
``DOCENT_ANSWER_CONFIDENCE`` still win over the file's values.

The file is JSON::

    {"format": 1, "fitted_on": "cases.jsonl, dev split, 108 cases, index_version 333",
     "weights": {"semantic": 1.0, "block": 0.376, …, "min_score": 2.057, …},
     "gate": {"intercept": 1.555, "block": -0.904, …, "threshold": 0.3}}

A file that cannot be read, or whose numbers would not make an answerer, is a configuration
error naming the file and what is wrong (``AnswererFileError``), raised when the answerer
is built: a deployment never answers on half a fit.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from generate.answer_gate import AnswerGate
from generate.errors import AnswererFileError
from generate.unit_scoring import Weights

FORMAT = 1


@dataclass(frozen=True)
class FittedAnswerer:
    weights: Weights
    gate: AnswerGate
    fitted_on: str  # which cases, split and index the fit came from


def save_fit(path: Path, fitted: FittedAnswerer) -> None:
    body = {
        "format": FORMAT,
        "fitted_on": fitted.fitted_on,
        "weights": asdict(fitted.weights),
        "gate": asdict(fitted.gate),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
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
        weights = Weights(**_numbers(body.get("weights"), Weights, "weights"))
        gate = AnswerGate(**_numbers(body.get("gate"), AnswerGate, "gate"))
    except ValueError as exc:
        raise AnswererFileError(f"answerer fit {path}: {exc}") from exc
    return FittedAnswerer(weights, gate, str(body.get("fitted_on", "")))


def _numbers(section: Any, kind: type, name: str) -> dict[str, float]:
    """Every field of ``kind``, each a finite number: a fit names all of them, so a file
    from another version (a field missing or unknown) is refused, not half-applied."""
    if not isinstance(section, dict):
        raise ValueError(f"'{name}' must be an object")
    wanted = {f.name for f in fields(kind)}
    if set(section) != wanted:
        missing, unknown = sorted(wanted - set(section)), sorted(set(section) - wanted)
        raise ValueError(f"'{name}' fields differ: missing {missing}, unknown {unknown}")
    values = {}
    for key, value in section.items():
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not math.isfinite(value):
            raise ValueError(f"'{name}.{key}' must be a finite number, got {value!r}")
        values[key] = float(value)
    return values
