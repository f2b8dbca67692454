"""Against a real OpenAI-compatible endpoint. Deselected by default (``-m "not llm"`` in
pytest's addopts); run with

    DOCENT_TEST_LLM_BASE_URL=http://127.0.0.1:8089/v1 pytest -m llm tests/generate

(``DOCENT_TEST_LLM_MODEL`` and ``DOCENT_TEST_LLM_API_KEY`` optional). Small local models
answer badly; the test checks the contract, not the quality: a valid outcome, checked
citations, token accounting."""

from __future__ import annotations

import os
from datetime import date

import pytest

from docent.contracts import Ambiguous, Answered, Declined, InsufficientEvidence
from generate.checks import verify
from generate.openai_chat import OpenAIChatGenerator
from render.prompt import render
from tests.render.builders import make_hit

pytestmark = pytest.mark.llm


@pytest.fixture(scope="module")
def generator() -> OpenAIChatGenerator:
    base_url = os.environ.get("DOCENT_TEST_LLM_BASE_URL")
    if not base_url:
        pytest.fail("the llm tests need DOCENT_TEST_LLM_BASE_URL (they are deselected by default)")
    return OpenAIChatGenerator(
        base_url,
        os.environ.get("DOCENT_TEST_LLM_MODEL", "local"),
        api_key=os.environ.get("DOCENT_TEST_LLM_API_KEY"),
        timeout=300,
        max_retries=1,
    )


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


@pytest.mark.parametrize(
    "question",
    [
        "How many days of paid annual leave does a full-time employee get?",
        "What is the dress code for client meetings?",
    ],
)
def test_real_endpoint_returns_a_valid_checked_outcome(
    generator: OpenAIChatGenerator, question: str
) -> None:
    prompt = render(question, HITS, 2000)
    generation = generator.generate(prompt, prompt.kept)
    assert generation.raw_output.strip()
    assert generation.usage.calls >= 1 and generation.usage.total_tokens > 0
    outcome, checks = verify(generation.outcome, prompt)
    assert isinstance(outcome, Answered | InsufficientEvidence | Ambiguous | Declined)
    if isinstance(outcome, Answered):
        assert outcome.citations and all(c.id in prompt.block_ids for c in outcome.citations)
        assert all(c.passed for c in checks if c.check == "citations_known")
