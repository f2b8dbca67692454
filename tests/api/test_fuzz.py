"""Property-based fuzzing of every route of the OpenAPI schema (schemathesis), as each role:
no 5xx, every 4xx in the documented error shape with its request id, and no body holding
text of a document above the role's clearance (the red-team canaries).

Bounded: ``MAX_EXAMPLES`` generated requests per operation and role (fewer when an operation
has little to vary), no shrinking, no example database. The generated cases are mixed with
cases that aim at the hidden documents: their chunk ids, doc ids, a trace that cites them,
and questions made of their own words."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from api.app import create_app
from docent.wiring import Services
from ingest.metadata import doc_id_for
from tests.api.conftest import build_settings
from tests.api.corpus import SECRET, ingest_corpus, make_users, write_corpus
from tests.ingest.hashing_embedder import HashingEmbedder

MAX_EXAMPLES = 25
ROLES: dict[str, str | None] = {
    "anonymous": None,
    "asker": "ada",  # employee
    "editor": "eddie",  # employee, People Ops
    "operator": "otto",  # employee
    "admin": "admin",  # restricted, no groups
}
# A route each signed-in role is served by (so the fuzz is known to get past sign-in).
SERVED = {"asker": "/api/ask", "editor": "/api/documents", "operator": "/api/jobs"}
SERVED["admin"] = "/api/ask"
SEVERANCE_TEXT = "two weeks of salary per year of service, under programme"  # confidential
HOLD_TEXT = "suspends the deletion of every record named in the hold notice"  # legal group only
FORBIDDEN: dict[str, tuple[str, ...]] = {
    role: (SECRET, SEVERANCE_TEXT, HOLD_TEXT) for role in ROLES if role != "admin"
} | {"admin": (HOLD_TEXT,)}
HIDDEN = ("severance.md", "litigation-hold.md")
# Questions about the hidden documents in their own words, but holding no canary: a question
# is the asker's text, and content gaps rightly show it to the docs team.
QUESTIONS = (
    "How much severance pay per year of service?",
    "Which programme code does severance pay fall under?",
    "What does the litigation hold suspend?",
    "Is deletion of records named in the hold notice suspended?",
)


@dataclass
class Fuzz:
    schema: Any
    tokens: dict[str, str]
    targets: dict[str, list[str]]  # path parameter name -> values aimed at hidden text
    counts: dict[str, int]


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzz]:
    root = tmp_path_factory.mktemp("fuzz")
    services = Services(build_settings(root / "data"), embedder=HashingEmbedder(256))
    job_id = ingest_corpus(services, write_corpus(root / "corpus"))
    tokens = make_users(services)
    app = create_app(services)
    chunk_ids = [c.chunk_id for s in HIDDEN for c in services.index.chunks_of(s)]
    # A trace that cites the hidden documents (the admin may read the severance one). No
    # lifespan here: schemathesis starts the app's lifespan once and keeps it.
    asked = TestClient(app).post(
        "/api/ask",
        json={"question": QUESTIONS[0]},
        headers={"Authorization": f"Bearer {tokens['admin']}"},
    )
    targets = {
        "chunk_id": chunk_ids,
        "doc_id": [doc_id_for(s) for s in HIDDEN],
        "trace_id": [asked.json()["trace_id"]],
        "job_id": [job_id],
    }
    # The schema needs sign-in, like every page (DOCENT_API_DOCS_PUBLIC is off).
    admin = {"Authorization": f"Bearer {tokens['admin']}"}
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, headers=admin)
    yield Fuzz(schema, tokens, targets, {})
    app.state.job_runner.shutdown(wait=True)  # reindex jobs the fuzz started finish first
    services.close()


def aimed(fuzz: Fuzz, operation: Any) -> Any:
    """The operation's generated cases, plus cases aimed at hidden documents."""
    strategy = operation.as_strategy()
    names = {p.name for p in operation.path_parameters}
    extra = []
    for name in names & set(fuzz.targets):
        values = st.sampled_from(fuzz.targets[name])
        extra.append(
            st.tuples(strategy, values).map(lambda cv, n=name: _with_path(cv[0], n, cv[1]))
        )
    if operation.method.upper() == "POST" and operation.path == "/api/ask":
        questions = st.sampled_from(QUESTIONS)
        extra.append(st.tuples(strategy, questions).map(lambda cq: _with_body(cq[0], cq[1])))
    return st.one_of(strategy, *extra) if extra else strategy


def _with_path(case: Any, name: str, value: str) -> Any:
    case.path_parameters = {**(case.path_parameters or {}), name: value}
    return case


def _with_body(case: Any, question: str) -> Any:
    case.body = {"question": question}
    return case


def check(role: str, response: Any) -> None:
    where = f"{role}: {response.request.method} {response.request.url} -> {response.status_code}"
    assert response.status_code < 500, f"{where}\n{response.text[:500]}"
    if 400 <= response.status_code < 500:
        error = response.json()["error"]
        assert set(error) >= {"code", "message", "request_id"}, where
        assert isinstance(error["code"], str) and isinstance(error["message"], str), where
        assert [error["request_id"]] == response.headers["x-request-id"], where
    for canary in FORBIDDEN[role]:
        assert canary not in response.text, f"{where} leaked {canary!r}"


@pytest.mark.parametrize("role", list(ROLES))
def test_every_route_as_every_role(fuzz: Fuzz, role: str) -> None:
    user = ROLES[role]
    headers = {"Authorization": f"Bearer {fuzz.tokens[user]}"} if user else {}
    operations = [result.ok() for result in fuzz.schema.get_all_operations()]
    assert len(operations) >= 20
    calls = 0
    statuses: set[tuple[str, int]] = set()
    started = time.monotonic()
    for operation in operations:

        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,  # a loaded machine; the budget below bounds the whole run
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=aimed(fuzz, operation))
        def run(case: Any) -> None:
            nonlocal calls
            calls += 1
            response = case.call(headers={**(case.headers or {}), **headers})
            check(role, response)
            statuses.add((case.operation.path, response.status_code // 100))

        run()
    fuzz.counts[role] = calls
    elapsed = time.monotonic() - started
    print(f"fuzz {role}: {len(operations)} operations, {calls} requests, {elapsed:.1f}s")
    assert calls >= len(operations)
    # The fuzz got past authentication: a signed-in role got answers and passages back.
    if user is not None:
        assert (SERVED[role], 2) in statuses and ("/api/me", 2) in statuses
        assert ("/api/passages/{chunk_id}", 4) in statuses
    else:
        assert not any(code == 2 and path.startswith("/api/") for path, code in statuses)
