"""Content gaps that are real, over the real app, the bundled model and the API tests' corpus:
only a question nothing matches for anyone is a gap (a permission refusal never, a question
the documents answer never, a weak match the asker marked as the answer no longer), asked
again in other words it merges, operators read gaps, and an ingest that covers a gap closes
it with a note only readers of the covering document see; inline and through the worker."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from api.app import create_app
from api.gaps import record_gap
from docent.db.models import ContentGap
from docent.db.session import session_scope
from docent.wiring import Services
from evals.gap_merge import load_pairs, score_pairs
from ingest.jobs import pending_file_ids
from ingest.tasks import TASK_NAME, make_celery
from tests.api.conftest import ApiEnv, build_settings
from tests.api.corpus import SECRET, ingest_corpus, make_users, write_corpus

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def gap_env(tmp_path_factory: pytest.TempPathFactory, bundled_embedder: Any) -> Iterator[ApiEnv]:
    """An app of its own: these tests ingest documents that answer other tests' questions."""
    root = tmp_path_factory.mktemp("gaps")
    services = Services(build_settings(root / "data"), embedder=bundled_embedder)
    corpus = write_corpus(root / "corpus")
    ingest_corpus(services, corpus)
    tokens = make_users(services)
    with TestClient(create_app(services), raise_server_exceptions=False) as client:
        yield ApiEnv(services, create_app(services), client, tokens, corpus)
    services.close()


def asked(env: ApiEnv, who: str, question: str) -> dict[str, Any]:
    response = env.post(who, "/api/ask", json={"question": question})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def open_gaps(env: ApiEnv, who: str) -> dict[str, dict[str, Any]]:
    response = env.get(who, "/api/gaps")
    assert response.status_code == 200, response.text
    return {g["question"]: g for g in response.json()["gaps"]}


def closed_gaps(env: ApiEnv, who: str) -> dict[str, dict[str, Any]]:
    response = env.get(who, "/api/gaps", params={"state": "closed"})
    return {g["question"]: g for g in response.json()["gaps"]}


def stored_gap_questions(env: ApiEnv) -> set[str]:
    with session_scope(env.services.sessions) as db:
        return set(db.execute(select(ContentGap.question)).scalars())


def ingest(env: ApiEnv, name: str, text: str, level: str = "employee") -> str:
    path = env.corpus / name
    path.write_text(text)
    ingestor = env.services.ingestor
    job_id = ingestor.submit([path], root=env.corpus, overrides={"access_level": level})
    ingestor.run(job_id)
    assert ingestor.job_status(job_id)["state"] == "succeeded"
    return job_id


def test_a_question_nothing_matches_is_a_gap_and_its_rephrasings_merge(gap_env: ApiEnv) -> None:
    first = asked(gap_env, "ada", "Is there a gym discount for employees?")
    assert (first["outcome"], first["tier"]) == ("insufficient_evidence", "not_covered")
    asked(gap_env, "ada", "Is there a gym discount for employees?")
    asked(gap_env, "cy", "Do we get reduced gym membership?")  # the same, in other words
    asked(gap_env, "ada", "Is there a pension scheme?")  # shares words, another question
    gaps = open_gaps(gap_env, "eddie")
    gym = gaps["Is there a gym discount for employees?"]
    assert gym["count"] == 3 and "Do we get reduced gym membership?" not in gaps
    assert gym["last_seen"] and gym["last_outcome"] == "insufficient_evidence"
    for moment in (gym["first_seen"], gym["last_seen"]):  # with their UTC offset
        assert datetime.fromisoformat(moment).utcoffset() == timedelta(0)
    assert gaps["Is there a pension scheme?"]["count"] == 1
    # Operators read gaps too (API and page); askers do not.
    assert "Is there a gym discount for employees?" in open_gaps(gap_env, "otto")
    page = gap_env.get("otto", "/gaps", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "gym discount" in page.text
    assert "docs team writes" in page.text  # words for an operator, not for a writer
    assert gap_env.get("ada", "/api/gaps").status_code == 403
    assert gap_env.get("ada", "/gaps", headers={"Accept": "text/html"}).status_code == 403
    assert gap_env.get("eddie", "/api/gaps", params={"state": "bogus"}).status_code == 400


def test_a_permission_refusal_is_no_gap_for_anyone(gap_env: ApiEnv) -> None:
    # The passages exist, above ada (a level) or outside her groups (legal): she is told the
    # documents she may read do not cover it, and nobody gets a gap naming it.
    refused = {
        "How is severance pay calculated?": "severance.md",
        "What does a litigation hold suspend?": "litigation-hold.md",
    }
    for question, source in refused.items():
        body = asked(gap_env, "ada", question)
        assert (body["outcome"], body["tier"]) == ("insufficient_evidence", "not_covered")
        assert source not in str(body) and SECRET not in str(body)
    assert not set(refused) & stored_gap_questions(gap_env)
    for viewer in ("eddie", "carla", "admin", "otto"):
        assert not set(refused) & set(open_gaps(gap_env, viewer))


def test_a_greeting_is_no_gap(gap_env: ApiEnv) -> None:
    """A user pass found "hello" on the gaps page: small talk asks about nothing."""
    for said in (
        "hello",
        "Hi there!",
        "thanks",
        "test",
        "thank you very much",
        "testing 123",
        "thx",
        "I'm testing",
        "what's up",
    ):
        body = asked(gap_env, "ada", said)
        assert body["outcome"] != "answered"
    asked(gap_env, "ada", "Is there a gym discount for employees?")  # a question still counts
    stored = stored_gap_questions(gap_env)
    assert "Is there a gym discount for employees?" in stored
    assert not {"hello", "Hi there!", "thanks", "test", "thank you very much", "thx"} & stored
    assert not {"testing 123", "I'm testing", "what's up"} & stored


def test_a_question_the_documents_answer_is_no_gap(gap_env: ApiEnv) -> None:
    answered = asked(gap_env, "ada", "How many days per week may employees work from home?")
    probably = asked(gap_env, "ada", "Who approves remote work from another country?")
    assert answered["tier"] == "answer" and probably["tier"] == "probably_here"
    stored = stored_gap_questions(gap_env)
    assert "Who approves remote work from another country?" not in stored
    assert "How many days per week may employees work from home?" not in stored


def test_a_weak_match_the_asker_marks_as_the_answer_takes_the_ask_out_of_its_gap(
    gap_env: ApiEnv,
) -> None:
    question = "Can I get a standing desk for home?"
    mine = asked(gap_env, "ada", question)
    assert mine["tier"] == "not_covered" and mine["closest"], mine
    theirs = asked(gap_env, "eddie", question)
    assert open_gaps(gap_env, "eddie")[question]["count"] == 2
    said = gap_env.post(
        "ada",
        "/api/feedback",
        json={
            "trace_id": mine["trace_id"],
            "verdict": "answered",
            "chunk_id": mine["closest"][0]["id"],
        },
    )
    assert said.status_code == 200, said.text
    assert open_gaps(gap_env, "eddie")[question]["count"] == 1  # eddie's asking stays
    gap_env.post(
        "eddie",
        "/api/feedback",
        json={
            "trace_id": theirs["trace_id"],
            "verdict": "answered",
            "chunk_id": theirs["closest"][0]["id"],
        },
    )
    assert question not in stored_gap_questions(gap_env)


def test_an_ingest_that_covers_a_gap_closes_it_with_a_note_for_its_readers(
    gap_env: ApiEnv,
) -> None:
    dogs, bikes = "Can I bring my dog to the office?", "Is there a bike-to-work scheme?"
    for question in (dogs, bikes):
        asked(gap_env, "ada", question)
    assert {dogs, bikes} <= set(open_gaps(gap_env, "eddie"))
    job = ingest(
        gap_env,
        "pets.md",
        "# Pets at Work\n\n## Dogs in the office\n\nEmployees may bring a well-behaved dog "
        "to the office on Fridays, with their team's agreement.\n",
    )
    assert dogs not in open_gaps(gap_env, "eddie") and bikes in open_gaps(gap_env, "eddie")
    closed = closed_gaps(gap_env, "eddie")[dogs]
    assert closed["answered_by"] == "pets.md" and closed["state"] == "closed"
    page = gap_env.get("eddie", "/gaps", headers={"Accept": "text/html"}).text
    assert "Closed recently" in page and "pets.md" in page and "now covers it" in page
    with session_scope(gap_env.services.sessions) as db:
        row = db.execute(select(ContentGap).where(ContentGap.question == dogs)).scalar_one()
        assert row.closed_job == job
    # Covered by a confidential document: closed, and shown only to who may read it.
    ingest(
        gap_env,
        "cycling.md",
        "# Cycle to Work\n\n## Bike-to-work scheme\n\nThe bike-to-work scheme lends employees "
        "a bicycle, repaid from salary over twelve months.\n",
        level="confidential",
    )
    assert bikes not in open_gaps(gap_env, "eddie") and bikes not in closed_gaps(gap_env, "eddie")
    assert "cycling.md" not in gap_env.get("eddie", "/gaps", headers={"Accept": "text/html"}).text
    assert closed_gaps(gap_env, "carla")[bikes]["answered_by"] == "cycling.md"


def test_a_job_a_worker_ends_closes_gaps_too(gap_env: ApiEnv) -> None:
    question = "Which colour are the canteen chairs?"
    asked(gap_env, "ada", question)
    assert question in open_gaps(gap_env, "eddie")
    services = gap_env.services
    path = gap_env.corpus / "canteen.md"
    path.write_text(
        "# Canteen\n\n## Furniture\n\nThe canteen chairs are green, and the canteen tables "
        "are oak.\n"
    )
    job_id = services.ingestor.submit([path], root=gap_env.corpus, overrides={})
    app = make_celery(services.settings, services=lambda: services, eager=True)
    with session_scope(services.sessions) as db:
        todo = pending_file_ids(db, job_id)
    for job_file_id in todo:  # delivered to a worker, which ends the job
        app.tasks[TASK_NAME].delay(job_file_id).get()
    assert services.ingestor.job_status(job_id)["state"] == "succeeded"
    assert closed_gaps(gap_env, "eddie")[question]["answered_by"] == "canteen.md"


def test_a_closed_gap_asked_again_without_an_answer_opens_again(gap_env: ApiEnv) -> None:
    levels = gap_env.services.settings.access_levels
    with session_scope(gap_env.services.sessions) as db:
        gap = record_gap(db, "Who waters the office plants?", "insufficient_evidence", [], levels)
        gap.state, gap.closed_source = "closed", "pricing.md"
    with session_scope(gap_env.services.sessions) as db:
        again = record_gap(db, "Who waters the office plants?", "insufficient_evidence", [], levels)
        assert (again.state, again.count, again.closed_source) == ("open", 2, None)


def test_the_merge_threshold_merges_no_different_pair_of_the_examples(
    gap_env: ApiEnv,
) -> None:
    threshold = gap_env.services.settings.gap_merge_similarity
    scored = score_pairs(gap_env.services.query_encoder, load_pairs())
    assert all(p.similarity < threshold for p in scored if not p.same)
    assert sum(p.similarity >= threshold for p in scored if p.same) >= 9
    report = (Path(__file__).resolve().parents[2] / "evals/reports/gap_merge.md").read_text()
    assert f"DOCENT_GAP_MERGE_SIMILARITY={threshold:.2f}" in report


def test_a_gap_recorded_without_a_vector_does_not_stop_the_next_from_merging(
    gap_env: ApiEnv,
) -> None:
    # A handoff turned into a gap has no question vector (its JSON column holds null); an
    # asked question that looks for an open gap to merge with must pass over it.
    levels = gap_env.services.settings.access_levels
    with session_scope(gap_env.services.sessions) as session:
        record_gap(session, "Who waters the office plants?", "insufficient_evidence", [], levels)
    first = asked(gap_env, "ada", "Is there a pension scheme for contractors on Mars?")
    assert (first["outcome"], first["tier"]) == ("insufficient_evidence", "not_covered")
    gaps = open_gaps(gap_env, "eddie")
    assert "Who waters the office plants?" in gaps
    assert "Is there a pension scheme for contractors on Mars?" in gaps
