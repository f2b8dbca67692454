"""Asking the extractive answerer over hand-built hits, as the user would see the outcome
(after ``verify``), with the answer gate open: the tests are about which unit answers."""

from typing import Any

from docent.contracts import Hit
from generate.answer_gate import AnswerGate
from generate.checks import verify
from generate.extractive import ExtractiveGenerator
from generate.unit_scoring import Weights
from render.prompt import render
from tests.render.builders import make_hit

OPEN = AnswerGate(threshold=0.0)


def ask(question: str, hits: list[Hit], weights: Weights | None = None) -> object:
    prompt = render(question, hits, 2000)
    generation = ExtractiveGenerator(weights=weights, gate=OPEN).generate(prompt, prompt.kept)
    outcome, _ = verify(generation.outcome, prompt)  # what the user would see
    return outcome


def hit(cid: str, scored: dict[str, float], *, score: float, rank: int = 1, **fields: Any) -> Hit:
    """A block of the given sentences, each with its question cosine."""
    sentences = tuple(scored)
    return make_hit(
        cid,
        " ".join(sentences),
        rank=rank,
        score=score,
        sentences=sentences,
        unit_scores=tuple(scored.values()),
        best_sentence=max(scored, key=lambda s: scored[s]),
        **fields,
    )
