"""The extractive backend's working, as the trace shows it (``Generation.raw_output``): the
best-scoring candidate units, the answer gate's signals and confidence, and the choice."""

from __future__ import annotations

import json
from dataclasses import asdict

from docent.contracts import Outcome
from generate.answer_gate import Signals
from generate.unit_scoring import Scored


def gate_record(signals: Signals, confidence: float) -> dict[str, object]:
    return {
        "signals": {name: round(value, 4) for name, value in asdict(signals).items()},
        "confidence": round(confidence, 4),
    }


def working(outcome: Outcome, considered: list[Scored], gate: dict[str, object] | None) -> str:
    """The backend's working, for the trace: the best-scoring candidates, the answer gate's
    signals and confidence, and the choice."""
    top = sorted(considered, key=lambda s: -s.score)[:8]
    return json.dumps(
        {
            "kind": outcome.kind,
            "answer_gate": gate,
            "candidates": [
                {
                    "id": s.unit.hit.chunk.chunk_id,
                    "text": s.unit.text,
                    "semantic": round(s.semantic, 3),
                    "coverage": round(s.coverage, 3),
                    "fit": round(s.fit, 3),
                    "score": round(s.score, 3),
                }
                for s in top
            ],
        },
        ensure_ascii=False,
    )
