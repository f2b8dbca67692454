"""The ask body's recheck (``api/recheck.py``): its field list is the response model's, the
model is the serialiser's, every field that can carry document text is attacked by the
leaky stage of tests/api/test_recheck_leaks.py (so a recheck that skips any one of them
fails there), and each field's rule holds on a body built by hand."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from pydantic import BaseModel

from api.ports import ask_json_of
from api.recheck import FIELD_CHECKS, AskBody, Check, Readable, checks_of, recheck_body
from tests.api.conftest import ApiEnv
from tests.api.leaky_asker import SCENARIOS, EveryLevelAsker, build_env, cases, leaks
from tests.api.leaky_asker import principal as principal_of
from tests.ingest.hashing_embedder import HashingEmbedder

# The checks that guard document text; CODE, NUMBER and TIER fields carry none.
GUARDS = (Check.CITED, Check.LISTED, Check.HANDOFF, Check.ANSWER, Check.FREE_TEXT)
GUARDED = [name for name, check in FIELD_CHECKS.items() if check in GUARDS]


@pytest.fixture(scope="module")
def raw_bodies(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[tuple[str, Any]]]:
    """(asker, unrechecked ask body) for every case and scenario of the leaky stage."""
    env: ApiEnv = build_env(tmp_path_factory.mktemp("recheck-unit"), HashingEmbedder(256))
    try:
        yield [
            (who, ask_json_of(EveryLevelAsker(env.services, s, first).ask("q", principal_of(who))))
            for who, first in cases()
            for s in SCENARIOS
        ]
    finally:
        env.client.close()
        env.services.close()


def test_the_model_is_the_serialisers_body(raw_bodies: list[tuple[str, Any]]) -> None:
    """A field ``generate.ask.ask_json`` adds that the model does not declare fails here (at
    run time it would be dropped, never passed unchecked)."""
    assert set(FIELD_CHECKS) == set(AskBody.model_fields)
    for _, body in raw_bodies:
        assert set(body) == set(FIELD_CHECKS), set(body) ^ set(FIELD_CHECKS)


@pytest.mark.parametrize("name", GUARDED)
def test_the_leaky_stage_attacks_every_guarded_field(
    raw_bodies: list[tuple[str, Any]], name: str
) -> None:
    """Some leaky body puts hidden text in this field, so the recheck skipping it makes
    tests/api/test_recheck_leaks.py fail."""
    attacked = [who for who, body in raw_bodies if leaks(json.dumps(body[name]), principal_of(who))]
    assert attacked, f"no case puts hidden text in {name!r}"


def test_a_field_without_a_check_is_refused_at_import() -> None:
    class Leaky(BaseModel):
        outcome: Annotated[str, Check.CODE]
        summary: str | None = None

    with pytest.raises(TypeError, match="summary"):
        checks_of(Leaky)


# --- each rule on a body built by hand ------------------------------------------------------

SEEN = Readable(frozenset({"open.md#0"}), frozenset({"open.md"}))
OPEN = {"id": "open.md#0", "source": "open.md", "excerpt": "Open words."}
SHUT = {"id": "shut.md#0", "source": "shut.md", "excerpt": "Shut words."}


def body(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = dict.fromkeys(FIELD_CHECKS)
    return {**base, "outcome": "insufficient_evidence", "retrieved": [], "closest": [], **fields}


def test_a_non_answer_loses_hidden_passages_and_the_stages_words_but_stands() -> None:
    done = recheck_body(
        body(
            closest=[SHUT, OPEN],
            retrieved=[OPEN, {"id": "open.md#0", "source": "shut.md"}],
            missing="Shut words.",
            readings=["Shut words.", "Open words."],
            clarifying_question="Shut?",
            handoff={"owner": "Shut Team", "source": "shut.md"},
            tier="probably_here",
        ),
        SEEN,
        "docs-team",
    )
    assert not done.withheld and done.hidden == ("closest", "handoff", "retrieved")
    shown = done.body
    assert shown["closest"] == [OPEN] and shown["retrieved"] == [OPEN]
    assert shown["handoff"] == {"owner": "docs-team", "source": None}
    assert shown["missing"] is shown["readings"] is shown["clarifying_question"] is None
    assert shown["tier"] == "probably_here"  # a readable passage is still offered
    gone = recheck_body(body(closest=[SHUT], tier="probably_here"), SEEN, "docs-team")
    assert gone.body["closest"] == [] and gone.body["tier"] == "not_covered"


def test_nothing_hidden_changes_nothing() -> None:
    sound = body(
        closest=[OPEN],
        missing="Open words.",
        handoff={"owner": "Open Team", "source": "open.md"},
        confidence=0.4,
        tier="probably_here",
        trace_id="3f2a9c1e-0b7d-4e55-9a0c-1d2e3f4a5b6c",
    )
    done = recheck_body(sound, SEEN, "docs-team")
    assert done.body == sound and done.hidden == () and not done.withheld


@pytest.mark.parametrize(
    "fields",
    [
        {"citations": [SHUT]},  # cites a hidden passage
        {"citations": [OPEN], "retrieved": [SHUT]},  # stands over one
        {"citations": [OPEN], "handoff": {"owner": "x", "source": "shut.md"}},
        {"citations": ["open.md#0"]},  # not a passage item at all
    ],
)
def test_an_answer_over_anything_hidden_is_withheld(fields: dict[str, Any]) -> None:
    done = recheck_body(body(outcome="answered", answer="Words.", **fields), SEEN, "docs-team")
    assert done.withheld


def test_fields_that_carry_no_text_must_not_carry_any() -> None:
    done = recheck_body(
        body(reason_code="Shut words here", confidence="Shut", surprise="Shut words."),
        SEEN,
        "docs-team",
    )
    assert done.body["reason_code"] is None and done.body["confidence"] is None
    assert "surprise" not in done.body and done.unknown == ("surprise",)
    assert done.hidden == ("confidence", "reason_code")
