import json

from docent.contracts import Ambiguous, Answered, Declined, InsufficientEvidence
from generate.outcomes import (
    BROKEN_JSON,
    OUTCOME_SCHEMA,
    UNCITED,
    parse_json_outcome,
    parse_output,
    parse_text_outcome,
)
from tests.render.builders import make_hit

HITS = [
    make_hit(
        "handbook.md#3",
        "Full-time employees receive 25 days of paid annual leave per calendar year. "
        "Part-time employees receive a pro-rata share.",
        heading_path=("Employee Handbook", "Annual leave", "Entitlement"),
    )
]


def reply(**fields: object) -> str:
    body = dict.fromkeys(OUTCOME_SCHEMA["required"])
    body.update(fields)
    return json.dumps(body)


def test_schema_is_strict_mode_shaped() -> None:
    assert OUTCOME_SCHEMA["type"] == "object"
    assert OUTCOME_SCHEMA["additionalProperties"] is False
    assert set(OUTCOME_SCHEMA["required"]) == set(OUTCOME_SCHEMA["properties"])
    assert list(OUTCOME_SCHEMA["properties"])[0] == "kind"  # decoded first by grammars
    kinds = OUTCOME_SCHEMA["properties"]["kind"]["enum"]
    assert kinds == ["answered", "insufficient_evidence", "ambiguous", "declined"]


def test_json_answered_builds_citations_from_the_shown_hits() -> None:
    raw = reply(
        kind="answered",
        answer="Full-time staff get 25 days a year [handbook.md#3].",
        citations=[{"id": "handbook.md#3", "quote": "receive 25 days of paid annual leave"}],
    )
    outcome = parse_json_outcome(raw, HITS)
    assert isinstance(outcome, Answered)
    (citation,) = outcome.citations
    assert citation.id == "handbook.md#3"
    assert citation.source == "handbook.md"
    assert citation.heading_path == ("Employee Handbook", "Annual leave", "Entitlement")
    assert citation.status == "current"
    assert citation.quote == "receive 25 days of paid annual leave"


def test_json_answered_without_a_quote_gets_the_closest_block_sentence() -> None:
    raw = reply(kind="answered", answer="Part-timers get a pro-rata share [handbook.md#3].")
    outcome = parse_json_outcome(raw, HITS)
    assert isinstance(outcome, Answered)
    assert outcome.citations[0].quote == "Part-time employees receive a pro-rata share."


def test_json_insufficient_ambiguous_and_declined() -> None:
    assert parse_json_outcome(
        reply(kind="insufficient_evidence", missing="the overtime rate"), HITS
    ) == InsufficientEvidence("the overtime rate")
    assert parse_json_outcome(
        reply(
            kind="ambiguous",
            readings=["Tier 1", "Tier 2", "Tier 3", "x"],
            clarifying_question="Which tier?",
        ),
        HITS,
    ) == Ambiguous(("Tier 1", "Tier 2", "Tier 3"), "Which tier?")
    assert parse_json_outcome(reply(kind="declined", reason_code="out_of_scope"), HITS) == Declined(
        "out_of_scope"
    )


def test_json_contract_violations_become_safe_values() -> None:
    one_reading = parse_json_outcome(
        reply(kind="ambiguous", readings=["only"], clarifying_question="Which?"), HITS
    )
    assert isinstance(one_reading, InsufficientEvidence)
    odd_reason = parse_json_outcome(reply(kind="declined", reason_code="because"), HITS)
    assert isinstance(odd_reason, Declined) and odd_reason.reason_code == "requires_human"
    uncited = parse_json_outcome(reply(kind="answered", answer="25 days.", citations=[]), HITS)
    assert uncited == Declined("requires_human", UNCITED)


def test_fenced_json_is_read_and_unknown_kinds_are_not() -> None:
    fenced = "```json\n" + reply(kind="insufficient_evidence", missing="x") + "\n```"
    assert parse_json_outcome(fenced, HITS) == InsufficientEvidence("x")
    assert parse_json_outcome('{"kind": "maybe"}', HITS) is None
    assert parse_json_outcome("not json at all", HITS) is None


def test_fabricated_ids_are_kept_for_the_checks_to_see() -> None:
    outcome = parse_json_outcome(
        reply(kind="answered", answer="25 days [handbook.md#99].", citations=None), HITS
    )
    assert isinstance(outcome, Answered)
    assert outcome.citations[0].id == "handbook.md#99"
    assert outcome.citations[0].source == ""


def test_plain_text_not_in_context_abstains() -> None:
    assert isinstance(parse_text_outcome("NOT_IN_CONTEXT", HITS), InsufficientEvidence)
    outcome = parse_text_outcome("NOT_IN_CONTEXT: the overtime rate is not given.", HITS)
    assert outcome == InsufficientEvidence("the overtime rate is not given")


def test_plain_text_answer_cites_with_markers() -> None:
    outcome = parse_text_outcome("You get 25 days of annual leave [handbook.md#3].", HITS)
    assert isinstance(outcome, Answered)
    assert [c.id for c in outcome.citations] == ["handbook.md#3"]
    assert outcome.citations[0].quote.startswith("Full-time employees receive 25 days")


def test_plain_text_without_citations_or_empty_is_declined() -> None:
    assert parse_text_outcome("You get 25 days.", HITS) == Declined("requires_human", UNCITED)
    assert parse_text_outcome("  ", HITS) == Declined("requires_human", "empty model output")


def test_json_cut_off_mid_reply_is_not_read_as_prose() -> None:
    truncated = '{ "kind": "answered","answer": "25 days","citations":[{"id":"handbook.md#3","quo'
    outcome, how = parse_output(truncated, HITS)
    assert how == "broken_json"
    assert outcome == Declined("requires_human", BROKEN_JSON)


def test_parse_output_falls_back_to_text() -> None:
    outcome, how = parse_output("You get 25 days [handbook.md#3].", HITS)
    assert how == "text" and isinstance(outcome, Answered)
    outcome, how = parse_output(reply(kind="insufficient_evidence", missing="m"), HITS)
    assert how == "json" and outcome == InsufficientEvidence("m")
