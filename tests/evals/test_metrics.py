"""The metric functions on small hand-computed examples."""

from __future__ import annotations

import pytest

from docent.contracts import Principal
from evals.cases import STRATA, Case, ChunkRef, GoldRef
from evals.metrics import (
    abstention_rates,
    check_citations,
    context_precision,
    figures,
    find_leaks,
    grade,
    hidden_sentences,
    latency_table,
    percentile,
    recall_at_k,
    reciprocal_rank,
    retrieval_scores,
    tally,
    wilson,
)


def case(stratum: str, expect=("25 days",), stale=(), qid="q1") -> Case:
    return Case(qid=qid, q="?", stratum=stratum, user_access="employee", expect=expect, stale=stale)


# --- Wilson intervals: published values (e.g. statsmodels proportion_confint wilson) --------
@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (0, 10, 0.0, 0.2775),
        (5, 10, 0.2366, 0.7634),
        (8, 10, 0.4902, 0.9433),
        (10, 10, 0.7225, 1.0),
        (1, 1, 0.2065, 1.0),
    ],
)
def test_wilson_matches_known_values(k: int, n: int, low: float, high: float) -> None:
    got = wilson(k, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_of_nothing_is_uninformative_and_bad_counts_are_refused() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(3, 2)


# --- grading and the three columns ---------------------------------------------------------
def test_answerable_needs_every_expected_substring_case_and_space_insensitive() -> None:
    c = case("answerable", expect=("25 days", "carry over"))
    assert grade(c, "answered", "You get 25\n DAYS and may Carry  over 5.").column == "correct"
    wrong = grade(c, "answered", "You get 25 days.")
    assert wrong.column == "wrong"
    assert "carry over" in wrong.reason
    assert grade(c, "insufficient_evidence", None).column == "abstained"
    assert grade(c, "ambiguous", None).column == "abstained"


def test_superseded_answer_with_a_stale_figure_is_wrong() -> None:
    c = case("superseded", expect=("30 days",), stale=("25 days",))
    assert grade(c, "answered", "Now 30 days.").column == "correct"
    assert grade(c, "answered", "30 days (was 25 days).").column == "wrong"


@pytest.mark.parametrize("stratum", ["out_of_corpus", "permission", "unretrieved"])
def test_must_abstain_strata_count_any_non_answer_as_correct(stratum: str) -> None:
    c = case(stratum, expect=())
    for outcome in ("insufficient_evidence", "ambiguous", "declined"):
        assert grade(c, outcome, None).column == "correct"
    assert grade(c, "answered", "Sure: 25 days.").column == "wrong"


def test_ambiguous_is_correct_unasked_or_when_every_reading_is_covered() -> None:
    c = Case(
        qid="a",
        q="?",
        stratum="ambiguous",
        user_access="employee",
        readings=("10 seats", "25 seats"),
    )
    assert grade(c, "ambiguous", None).column == "correct"
    assert grade(c, "insufficient_evidence", None).column == "correct"
    assert grade(c, "answered", "Team: 10 seats; Business: 25 seats.").column == "correct"
    assert grade(c, "answered", "You get 10 seats.").column == "wrong"


def test_a_leak_is_wrong_whatever_the_outcome() -> None:
    assert grade(case("permission", expect=()), "insufficient_evidence", None, True).column == (
        "wrong"
    )
    assert grade(case("answerable"), "answered", "25 days", leaked=True).column == "wrong"


def test_columns_close_every_case_in_exactly_one_column() -> None:
    outcomes = ["answered", "insufficient_evidence", "ambiguous", "declined"]
    answers = ["25 days", "no idea", None]
    pairs = []
    for i, stratum in enumerate(STRATA):
        expect = (
            ("25 days",) if stratum in {"answerable", "superseded", "permission_allowed"} else ()
        )
        for outcome in outcomes:
            for answer in answers:
                for leaked in (False, True):
                    g = grade(case(stratum, expect=expect, qid=str(i)), outcome, answer, leaked)
                    pairs.append((stratum, g.column))
    counts = tally(pairs)
    for stratum, t in counts.items():
        assert t.correct + t.wrong + t.abstained == t.n, stratum
    assert counts["all"].n == len(pairs) == sum(counts[s].n for s in STRATA)
    # Abstaining is never a column of a must-abstain stratum.
    assert counts["out_of_corpus"].abstained == 0


def test_tally_counts_by_hand() -> None:
    t = tally(
        [
            ("answerable", "correct"),
            ("answerable", "wrong"),
            ("answerable", "abstained"),
            ("answerable", "correct"),
            ("permission", "correct"),
        ]
    )
    assert (t["answerable"].n, t["answerable"].correct, t["answerable"].wrong) == (4, 2, 1)
    assert t["all"].n == 5 and t["all"].correct == 3
    assert t["answerable"].rate("correct").value == 0.5
    assert str(t["answerable"].rate("correct")).startswith("2/4 50%")


def test_abstention_rates_both_ways() -> None:
    rates = abstention_rates(
        [
            ("answerable", "answered"),
            ("answerable", "insufficient_evidence"),
            ("superseded", "answered"),
            ("permission_allowed", "answered"),
            ("out_of_corpus", "answered"),
            ("permission", "declined"),
            ("unretrieved", "insufficient_evidence"),
            ("ambiguous", "answered"),
        ]
    )
    assert (rates.false_abstention.k, rates.false_abstention.n) == (1, 4)
    assert (rates.answered_must_abstain.k, rates.answered_must_abstain.n) == (1, 3)


# --- retrieval -------------------------------------------------------------------------------
GOLD = [GoldRef.parse("leave.md#Leave > Vacation")]
RANKED = [
    ("travel.md", ("Travel",)),
    ("leave.md", ("Leave", "Sick days")),
    ("leave.md", ("Leave", "Vacation", "Carry-over")),
    ("pay.md", ()),
]


def test_section_match_is_a_heading_path_prefix_of_the_same_source() -> None:
    g = GOLD[0]
    assert g.matches_section("leave.md", ("Leave", "Vacation"))
    assert g.matches_section("leave.md", ("leave", " Vacation ", "Carry-over"))
    assert not g.matches_section("leave.md", ("Leave",))
    assert not g.matches_section("old/leave.md", ("Leave", "Vacation"))
    assert GoldRef.parse("leave.md").matches_section("leave.md", ())


def test_recall_and_mrr_by_hand() -> None:
    # Section level: the gold section is at rank 3; document level: leave.md at rank 2.
    assert recall_at_k(GOLD, RANKED, 1, "section") == 0.0
    assert recall_at_k(GOLD, RANKED, 2, "section") == 0.0
    assert recall_at_k(GOLD, RANKED, 3, "section") == 1.0
    assert reciprocal_rank(GOLD, RANKED, "section") == pytest.approx(1 / 3)
    assert recall_at_k(GOLD, RANKED, 2, "document") == 1.0
    assert reciprocal_rank(GOLD, RANKED, "document") == 0.5
    assert reciprocal_rank(GOLD, RANKED[:2], "section") == 0.0


def test_recall_with_two_gold_sections_counts_the_share_found() -> None:
    gold = [GoldRef.parse("leave.md#Leave > Vacation"), GoldRef.parse("pay.md#Pay")]
    assert recall_at_k(gold, RANKED, 3, "section") == 0.5
    # Document level counts distinct documents: leave.md found at 2, pay.md only at 4.
    assert recall_at_k(gold, RANKED, 3, "document") == 0.5
    assert recall_at_k(gold, RANKED, 4, "document") == 1.0


def test_retrieval_scores_average_over_cases_with_gold() -> None:
    scores = retrieval_scores([(GOLD, RANKED), (GOLD, RANKED[2:]), ((), RANKED)], "section")
    assert scores.n == 2
    assert scores.recall[1] == 0.5  # second list has the gold first
    assert scores.recall[5] == 1.0
    assert scores.mrr == pytest.approx((1 / 3 + 1) / 2)


def test_context_precision_is_the_gold_share_of_passages() -> None:
    assert context_precision(GOLD, RANKED) == 0.25
    assert context_precision(GOLD, []) is None
    assert context_precision((), RANKED) is None


# --- leaks -------------------------------------------------------------------------------------
EMPLOYEE = Principal("u", "employee")
CHUNKS = {
    "pub#0": ChunkRef(
        "pub#0", "pub.md", (), "public", (), ("Everyone may read this sentence here.",)
    ),
    "conf#0": ChunkRef(
        "conf#0",
        "conf.md",
        (),
        "confidential",
        (),
        (
            "The merger code name is Bluebird and closes in May.",
            "Everyone may read this sentence here.",
        ),
    ),
    "hr#0": ChunkRef(
        "hr#0", "hr.md", (), "employee", ("hr",), ("Salary bands are reviewed yearly by HR.",)
    ),
}


def test_hidden_sentences_exclude_text_also_in_readable_chunks() -> None:
    hidden = hidden_sentences(EMPLOYEE, CHUNKS.values())
    assert hidden == (
        "salary bands are reviewed yearly by hr.",
        "the merger code name is bluebird and closes in may.",
    )
    assert "salary bands are reviewed yearly by hr." not in hidden_sentences(
        Principal("u", "employee", frozenset({"hr"})), CHUNKS.values()
    )


def test_leaks_found_by_id_by_forbidden_substring_and_by_hidden_text() -> None:
    hidden = hidden_sentences(EMPLOYEE, CHUNKS.values())
    clean = {
        "outcome": "answered",
        "answer": "Everyone may read this sentence here.",
        "retrieved": [{"id": "pub#0", "text": "x"}],
        "citations": [{"id": "pub#0"}],
    }
    assert find_leaks(clean, EMPLOYEE, CHUNKS, hidden=hidden, forbidden=["Bluebird"]) == []

    by_id = {**clean, "retrieved": [{"id": "conf#0", "text": "..."}]}
    assert find_leaks(by_id, EMPLOYEE, CHUNKS) == ["retrieved chunk 'conf#0' is confidential"]
    by_group = {**clean, "citations": [{"id": "hr#0"}]}
    assert find_leaks(by_group, EMPLOYEE, CHUNKS) == ["cited chunk 'hr#0' is employee"]
    unknown = {**clean, "citations": [{"id": "ghost#9"}]}
    assert find_leaks(unknown, EMPLOYEE, CHUNKS) == ["cited chunk 'ghost#9' is not in the index"]

    # Text can leak through any field, e.g. a handoff naming the closest document.
    by_text = {
        "outcome": "insufficient_evidence",
        "missing": "n/a",
        "handoff": {"note": "See: the merger code NAME is Bluebird and closes in May."},
    }
    leaks = find_leaks(by_text, EMPLOYEE, CHUNKS, hidden=hidden, forbidden=["bluebird"])
    assert len(leaks) == 2
    assert leaks[0] == "forbidden text 'bluebird' in output"
    assert leaks[1].startswith("hidden sentence 'the merger code name")
    # The same output is no leak for someone who may read it.
    boss = Principal("b", "confidential")
    assert find_leaks(by_text, boss, CHUNKS, hidden=hidden_sentences(boss, CHUNKS.values())) == []


# --- citations ---------------------------------------------------------------------------------
def test_figures_drop_thousands_separators_and_citation_markers() -> None:
    assert figures("Up to €5,000 or 2.5% [policy.md#3] within 30 days.") == ["5000", "2.5", "30"]


def test_citation_checks_by_hand() -> None:
    output = {
        "answer": "You get 25 days [a#1], or 30 days after 5 years [b#2].",
        "citations": [{"id": "a#1", "quote": "25 days of leave"}, {"id": "b#2", "quote": ""}],
        "retrieved": [{"id": "a#1", "text": "Staff get 25 days. After 5 years, more."}],
    }
    check = check_citations(output)
    assert check.citations == 2
    assert check.not_retrieved == ("b#2",)
    assert check.figures == 3
    assert check.unsupported_figures == ("30",)


# --- latency -----------------------------------------------------------------------------------
def test_percentile_interpolates_like_numpy() -> None:
    values = [10.0, 20.0, 30.0, 40.0]
    assert percentile(values, 50) == 25.0
    assert percentile(values, 95) == pytest.approx(38.5)
    assert percentile([7.0], 95) == 7.0
    with pytest.raises(ValueError):
        percentile([], 50)


def test_latency_table_per_stage() -> None:
    table = latency_table([{"search": 10, "total": 15}, {"search": 30, "total": 35}, {"total": 5}])
    assert table["search"] == (20.0, pytest.approx(29.0), 2)
    assert table["total"] == (15.0, pytest.approx(33.0), 3)
