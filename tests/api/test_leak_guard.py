"""The API re-checks what the answer stage hands it: a broken answer stage (a real, if
wrong, implementation of the asker interface) that cites a confidential passage to an
employee must not get it through."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from docent.contracts import Answered, Citation, Hit, InsufficientEvidence, Outcome, Principal
from generate.result import AskResult
from store.protocol import ChunkIndex
from tests.api.conftest import ApiEnv
from tests.api.corpus import SECRET


class LeakyAsker:
    """Ignores the principal: always 'finds' the severance passage."""

    def __init__(self, index: ChunkIndex, answer: bool) -> None:
        self.index = index
        self.answer = answer

    def ask(self, question: str, principal: Principal) -> AskResult:
        chunk = self.index.chunks_of("severance.md")[0]
        outcome: Outcome = (
            Answered(
                answer=f"{chunk.text} [{chunk.chunk_id}]",
                citations=(
                    Citation(
                        chunk.chunk_id,
                        chunk.source,
                        chunk.heading_path,
                        chunk.effective_date,
                        chunk.status,
                        chunk.text,
                    ),
                ),
            )
            if self.answer
            else InsufficientEvidence(missing="nothing")
        )
        return AskResult(
            trace_id="leaky",
            question=question,
            principal=principal,
            outcome=outcome,
            hits=(Hit(chunk=chunk, rank=1, score=1.0),),
            cut=(),
            prompt=None,
            generation=None,
            checks=(),
            timings_ms={},
            index_version=0,
            handoff=None,
            backend="leaky",
            stages={},
        )


@pytest.fixture
def leaky(env: ApiEnv) -> Iterator[ApiEnv]:
    real = env.services.__dict__.get("asker")
    try:
        yield env
    finally:
        if real is None:
            env.services.__dict__.pop("asker", None)
        else:
            env.services.__dict__["asker"] = real


def test_an_answer_citing_a_hidden_passage_is_withheld(leaky: ApiEnv) -> None:
    leaky.services.__dict__["asker"] = LeakyAsker(leaky.services.index, answer=True)
    response = leaky.post("ada", "/api/ask", json={"question": "severance?"})
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "answer_withheld"
    assert SECRET not in response.text
    as_cy = leaky.post("cy", "/api/ask", json={"question": "severance?"})
    assert as_cy.status_code == 200 and SECRET in as_cy.text


def test_hidden_retrieved_passages_are_dropped(leaky: ApiEnv) -> None:
    leaky.services.__dict__["asker"] = LeakyAsker(leaky.services.index, answer=False)
    response = leaky.post("ada", "/api/ask", json={"question": "severance?"})
    assert response.status_code == 200
    assert response.json()["retrieved"] == [] and SECRET not in response.text
