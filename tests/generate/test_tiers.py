"""What the asker sees first: a checked answer, the passages the answer is probably in, or
that the documents they may read do not cover the question — with the calibrated
probability, over a real in-memory searcher and the real extractive backend."""

from __future__ import annotations

from datetime import date

from docent.contracts import TIER_ANSWER, TIER_NOT_COVERED, TIER_PROBABLY_HERE, Hit, Principal
from docent.versions import VersionRequest, version_missing, version_request
from generate.answer_gate import AnswerGate
from generate.ask import Asker, ask_json
from generate.extractive import ExtractiveGenerator
from generate.views import human
from tests.generate.fixed_searcher import FixedSearcher, FixedSearchResult
from tests.render.builders import make_hit

EMPLOYEE = Principal("ana", "employee", frozenset())
LEAVE = (
    "Full-time employees receive 25 days of paid annual leave per calendar year. "
    "Part-time employees receive leave pro rata to their contracted hours. "
    "Leave requests go through the HR portal."
)


def leave_hits() -> list[Hit]:
    return [
        make_hit(
            "handbook.md#2",
            LEAVE,
            score=0.8,
            heading_path=("Employee Handbook", "Annual leave"),
            effective_date=date(2025, 1, 1),
            best_sentence="Leave requests go through the HR portal.",
        ),
        make_hit(
            "handbook.md#5",
            "Expense claims are filed within 30 days of the purchase.",
            score=0.5,
            heading_path=("Employee Handbook", "Expenses"),
            effective_date=date(2025, 1, 1),
        ),
    ]


def ask(hits: list[Hit], question: str, gate: AnswerGate) -> dict[str, object]:
    asker = Asker(FixedSearcher(hits), ExtractiveGenerator(gate=gate), None, budget_tokens=2000)
    return ask_json(asker.ask(question, EMPLOYEE))


QUESTION = "How many days of paid annual leave do full-time employees get?"


def test_a_checked_answer_above_the_bar_is_tier_answer_with_its_probability() -> None:
    body = ask(leave_hits(), QUESTION, AnswerGate(threshold=0.0))
    assert body["outcome"] == "answered" and body["tier"] == TIER_ANSWER
    assert isinstance(body["confidence"], float) and 0.0 <= body["confidence"] <= 1.0
    assert "25 days" in str(body["answer"]) and body["closest"] == []


def test_a_draft_below_the_bar_points_at_its_passage_with_the_unit_it_chose() -> None:
    body = ask(leave_hits(), QUESTION, AnswerGate(threshold=1.0))  # nothing clears it
    assert body["outcome"] == "insufficient_evidence"
    assert body["tier"] == TIER_PROBABLY_HERE
    assert body["reason_code"] == "unclear_evidence"
    assert isinstance(body["confidence"], float) and body["confidence"] < 1.0
    closest = body["closest"]
    assert isinstance(closest, list) and closest[0]["id"] == "handbook.md#2"
    # The answerer's own pick in that passage, not the reranker's nearest sentence.
    assert closest[0]["excerpt"].startswith("Full-time employees receive 25 days")


def test_nothing_readable_matched_is_not_covered() -> None:
    body = ask([], QUESTION, AnswerGate(threshold=0.0))
    assert body["tier"] == TIER_NOT_COVERED and body["closest"] == []
    assert body["confidence"] is None
    assert body["reason_code"] == "below_threshold"


def test_hidden_passages_never_make_a_question_probably_here() -> None:
    hidden = [
        make_hit("salary.md#1", "Band L5 pays €92,000.", score=0.9, access_level="confidential")
    ]
    body = ask(hidden, "What does band L5 pay?", AnswerGate(threshold=0.0))
    assert body["tier"] == TIER_NOT_COVERED and body["closest"] == []
    assert "92,000" not in str(body)


def test_a_version_named_by_date_that_is_not_indexed_is_never_answered_by_the_current_rule() -> (
    None
):
    body = ask(
        leave_hits(),
        "How many days of annual leave did full-time employees get before the 2025 handbook?",
        AnswerGate(threshold=0.0),
    )
    assert body["outcome"] == "insufficient_evidence"
    assert body["reason_code"] == "version_not_found"
    assert body["tier"] == TIER_NOT_COVERED
    assert body["answer"] is None
    # The current passage is still offered, for comparison, never as the answer.
    assert [c["id"] for c in body["closest"]][0] == "handbook.md#2"


def test_a_question_naming_a_year_as_an_event_is_answered_as_usual() -> None:
    body = ask(
        leave_hits(),
        "I joined in 2019, how many days of paid annual leave do full-time employees get?",
        AnswerGate(threshold=0.0),
    )
    assert body["outcome"] == "answered" and "25 days" in str(body["answer"])


def test_a_dated_version_below_the_bar_beside_a_later_one_is_said_to_be_missing() -> None:
    """Nothing clears the relevance bar, and the nearest passage is of a policy in force only
    after the year asked about: that version is not in the documents (a short question,
    "What were the hotel caps in 2019?", read without its year fell below the bar)."""
    asker = Asker(
        FixedSearcher(leave_hits(), threshold=0.95), ExtractiveGenerator(), None, budget_tokens=2000
    )
    body = ask_json(asker.ask("How many days of leave did employees get in 2019?", EMPLOYEE))
    assert body["reason_code"] == "version_not_found" and body["tier"] == TIER_NOT_COVERED
    assert body["answer"] is None and body["closest"][0]["id"] == "handbook.md#2"
    today = ask_json(asker.ask("How many days of leave do employees get?", EMPLOYEE))
    assert today["reason_code"] == "below_threshold"


def test_which_requests_name_a_missing_version() -> None:
    current = leave_hits()[0].chunk
    before = version_request("What was the refund window before the 2025 refunds policy?")
    assert before == VersionRequest(before=2025, older=True)
    assert version_missing(before, current)
    assert not version_missing(VersionRequest(before=2026, older=True), current)
    dated = version_request("What did the 2019 terms say about ads?")
    assert dated is not None and dated.dated and version_missing(dated, current)
    # The asker's own scene before the question names no version at all.
    assert (
        version_request("been here since 2019, how many holidays do I get in the handbook?") is None
    )
    event = version_request("how many holidays did staff get in 2019 under the handbook?")
    assert event is not None and event.year == 2019
    assert not version_missing(VersionRequest(older=True), current)  # "my old job"
    old_cap = version_request("What was the old Tier 1 hotel cap?")
    assert old_cap is not None and version_missing(old_cap, current)
    assert version_request("how many days until the 2026 holidays") is None


# --- what a non-answer shows: the excerpt and the weak matches ---------------------------

PORTAL = "Leave requests go through the HR portal."
CARRY = "Up to five unused days carry over to the next year."
BANK = "Public holidays are not counted as leave."


def test_nothing_cleared_the_bar_offers_the_nearest_passages_as_not_covered() -> None:
    """Below the relevance bar the nearest readable passages are still shown — as a weak
    match under "not covered", never as where the answer probably is — a short one whole,
    its unit nearest by the reranker's scores marked (the answerer read none of them)."""
    weak = make_hit(
        "handbook.md#7",
        f"{PORTAL} {CARRY} {BANK}",
        score=0.2,
        sentences=(PORTAL, CARRY, BANK),
        unit_scores=(0.1, 0.6, 0.3),
    )
    asker = Asker(
        FixedSearcher([weak], threshold=0.5), ExtractiveGenerator(), None, budget_tokens=2000
    )
    body = ask_json(asker.ask("Do unused leave days carry over?", EMPLOYEE))
    assert body["outcome"] == "insufficient_evidence" and body["reason_code"] == "below_threshold"
    assert body["tier"] == TIER_NOT_COVERED and body["retrieved"] == []
    [offered] = body["closest"]
    assert offered["id"] == "handbook.md#7" and offered["nearest"] == CARRY
    assert offered["excerpt"] == f"{PORTAL} {CARRY} {BANK}"


def test_a_hidden_passage_below_the_bar_is_never_offered() -> None:
    hidden = make_hit(
        "salary.md#1",
        "Band L5 pays €92,000.",
        score=0.1,
        access_level="confidential",
        sentences=("Band L5 pays €92,000.",),
        unit_scores=(0.9,),
    )
    # A searcher that ignores permissions: the asker's own recheck keeps it out.
    asker = Asker(LeakyCut([hidden]), ExtractiveGenerator(), None, budget_tokens=2000)
    body = ask_json(asker.ask("What does band L5 pay?", EMPLOYEE))
    assert body["tier"] == TIER_NOT_COVERED and body["closest"] == []
    assert "92,000" not in str(body) and "salary" not in str(body)


class LeakyCut(FixedSearcher):
    """A broken searcher that passes every candidate on as cut, hidden ones included."""

    def search(self, query: str, principal: Principal, **_: object) -> FixedSearchResult:
        return FixedSearchResult(hits=(), cut=tuple(self.hits), index_version=1)


PER_DIEM = """| City | Daily per diem |
| --- | --- |
| Athens | €58 |
| New York | €104 |
| Sofia | €44 |
| San Francisco | €108 |
| Budapest | €52 |"""


def test_a_held_back_draft_leads_the_excerpt_with_the_row_it_would_have_quoted() -> None:
    """A superlative over a table: no unit score ranks the highest row first, the draft
    does. Held back by the bar, the passage still shows that row first, marked."""
    table = make_hit(
        "expenses.md#4",
        PER_DIEM,
        score=0.8,
        kind="table",
        heading_path=("Expenses", "Per diem rates"),
    )
    question = "Which city has the highest daily per diem?"
    drafted = ask([table], question, AnswerGate(threshold=0.0))
    assert drafted["outcome"] == "answered" and "San Francisco" in str(drafted["answer"])
    held = ask([table], question, AnswerGate(threshold=1.0))
    assert held["tier"] == TIER_PROBABLY_HERE
    [offered] = held["closest"]
    assert offered["nearest"] == "City: San Francisco; Daily per diem: €108"
    assert offered["excerpt"].startswith(offered["nearest"])


def test_the_handoff_names_the_closest_passage_listed_first() -> None:
    """A user pass read "Who to ask: … (closest document: tock.md)" under passages that did
    not include tock.md: the owner asked is the first listed passage's (the answerer's
    order), not retrieval's first hit's."""
    near_topic = make_hit(
        "benefits.md#1",
        "Benefits are reviewed every January by the benefits committee.",
        rank=1,
        score=0.8,
        heading_path=("Benefits", "Review"),
        owner="Benefits Team",
    )
    leave = make_hit(
        "handbook.md#2",
        LEAVE,
        rank=2,
        score=0.6,
        heading_path=("Employee Handbook", "Annual leave"),
        owner="People Ops",
    )
    body = ask([near_topic, leave], QUESTION, AnswerGate(threshold=1.0))
    assert body["tier"] == TIER_PROBABLY_HERE
    closest = body["closest"]
    assert isinstance(closest, list) and closest[0]["id"] == "handbook.md#2"
    assert body["handoff"] == {"owner": "People Ops", "source": "handbook.md"}


def test_a_draft_quoting_only_a_superseded_version_says_so_beside_the_current_one() -> None:
    """A user pass read "the current version's matching passage was not found" above the
    current version's passage: the check that withholds such a draft fires when the current
    version was among the passages, and the words now say to read it."""
    old = make_hit(
        "pricing-2023.md#2",
        "The Business plan costs €179/month and includes 20 seats. It adds audit logs.",
        score=0.7,
        heading_path=("Pricing 2023", "Business plan"),
        status="superseded",
        superseded_by="pricing.md",
        effective_date=date(2023, 1, 1),
        title="Pricing 2023",
    )
    new = make_hit(
        "pricing.md#3",
        "The Enterprise plan is priced on request and includes unlimited seats.",
        rank=2,
        score=0.6,
        heading_path=("Pricing", "Enterprise plan"),
        effective_date=date(2025, 1, 1),
        title="Pricing",
    )
    asker = Asker(FixedSearcher([old, new]), ExtractiveGenerator(), None, budget_tokens=2000)
    result = asker.ask("What did the Business plan include in 2023?", EMPLOYEE)
    body = ask_json(result)
    assert body["reason_code"] == "superseded_cited"
    assert "pricing.md#3" in [c["id"] for c in body["closest"]]  # type: ignore[attr-defined]
    text = human(result)
    assert "What was drafted quotes only a superseded version" in text
    assert "was not found" not in text
