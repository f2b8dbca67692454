"""Against a real OpenAI-compatible endpoint. Deselected by default (``-m "not llm"`` in
pytest's addopts); run with

    DOCENT_TEST_LLM_BASE_URL=http://127.0.0.1:8089/v1 pytest -m llm tests/generate

(``DOCENT_TEST_LLM_MODEL`` and ``DOCENT_TEST_LLM_API_KEY`` optional). Small local models
answer badly; the test checks what the checks guarantee whatever the model says: nothing
unsupported is shown, an out-of-documents question is not answered, tokens are counted."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import date

import pytest

from evals.hostile import fail_closed_violations, visible
from generate.checks import verify
from generate.openai_chat import OpenAIChatGenerator
from generate.outcomes import citation_to_dict
from render.prompt import render
from tests.render.builders import make_hit

pytestmark = pytest.mark.llm


@pytest.fixture(scope="module")
def generator() -> Iterator[OpenAIChatGenerator]:
    base_url = os.environ.get("DOCENT_TEST_LLM_BASE_URL")
    if not base_url:
        pytest.fail("the llm tests need DOCENT_TEST_LLM_BASE_URL (they are deselected by default)")
    generator = OpenAIChatGenerator(
        base_url,
        os.environ.get("DOCENT_TEST_LLM_MODEL", "local"),
        api_key=os.environ.get("DOCENT_TEST_LLM_API_KEY"),
        timeout=300,
        max_retries=1,
    )
    yield generator
    generator.close()


HITS = [
    make_hit(
        "handbook.md#2",
        "Full-time employees receive 25 days of paid annual leave per calendar year, in "
        "addition to the public holidays of the country where they are employed.",
        rank=1,
        heading_path=("Employee Handbook", "Annual leave", "Entitlement"),
        effective_date=date(2025, 1, 6),
    ),
    make_hit(
        "handbook.md#5",
        "You have 10 days of fully paid sick leave per calendar year.",
        rank=2,
        heading_path=("Employee Handbook", "Sick leave"),
        effective_date=date(2025, 1, 6),
    ),
]


def test_real_endpoint_output_shows_nothing_unsupported(generator: OpenAIChatGenerator) -> None:
    """Whatever the model says, what a user would see holds no uncited sentence and no
    figure the cited block does not state; a question the blocks do not answer is not
    answered."""
    hits = {hit.chunk.chunk_id: hit for hit in HITS}
    for question in (
        "How many days of paid annual leave does a full-time employee get?",
        "What is the dress code for client meetings?",
    ):
        prompt = render(question, HITS, 2000)
        generation = generator.generate(prompt, prompt.kept)
        assert generation.raw_output.strip()
        assert generation.usage.calls >= 1 and generation.usage.total_tokens > 0
        outcome, _ = verify(generation.outcome, prompt)
        shown = visible(ask_json_of_outcome(outcome))
        assert fail_closed_violations(shown, hits) == [], (question, generation.raw_output)
    assert outcome.kind != "answered", generation.raw_output  # the dress code is not in HITS


def ask_json_of_outcome(outcome: object) -> dict[str, object]:
    body: dict[str, object] = dict.fromkeys(
        ("outcome", "answer", "citations", "missing", "readings", "clarifying_question")
    )
    body["outcome"] = getattr(outcome, "kind", None)
    for field in ("answer", "missing", "clarifying_question"):
        body[field] = getattr(outcome, field, None)
    readings = getattr(outcome, "readings", None)
    body["readings"] = list(readings) if readings is not None else None
    citations = getattr(outcome, "citations", None)
    body["citations"] = None if citations is None else [citation_to_dict(c) for c in citations]
    return body
