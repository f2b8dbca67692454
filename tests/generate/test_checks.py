from datetime import date
from typing import Any

from docent.contracts import Ambiguous, Answered, Citation, Declined, InsufficientEvidence
from generate.checks import NOT_STATED, UNVERIFIED, gate, verify
from generate.outcomes import parse_text_outcome
from render.prompt import render
from tests.render.builders import make_hit

HITS = [
    make_hit(
        "refunds.md#2",
        "A support team lead may approve refunds up to €1,000. Refunds above €1,000 need "
        "finance approval from the Finance Controller before they are paid.",
        rank=1,
        heading_path=("Refunds Policy", "Approval"),
        effective_date=date(2025, 3, 1),
    ),
    make_hit(
        "refunds.md#3",
        "Approved refunds are paid to the original payment method within 5 business days.",
        rank=2,
        heading_path=("Refunds Policy", "Processing time"),
    ),
]
PROMPT = render("How much can a team lead approve, and how fast is it paid?", HITS, 2000)


def check(answer: str) -> tuple[object, list[dict[str, Any]]]:
    outcome, results = verify(parse_text_outcome(answer, PROMPT.kept), PROMPT)
    return outcome, [r.to_dict() for r in results]


def failed(results: list[dict[str, Any]]) -> list[str]:
    return [r["check"] for r in results if not r["passed"]]


def test_gate_abstains_on_no_hits_and_passes_otherwise() -> None:
    assert isinstance(gate([]), InsufficientEvidence)
    assert gate(HITS) is None


def test_a_fabricated_citation_escalates_to_a_person() -> None:
    outcome, results = check("Leads approve up to €1,000 [refunds.md#2]. Paid fast [refunds.md#9].")
    assert outcome == Declined("requires_human", "fabricated citation: refunds.md#9")
    assert failed(results) == ["citations_known"]


def test_a_citation_list_id_not_in_the_prompt_is_fabricated_too() -> None:
    invented = Answered(
        "Leads approve up to €1,000 [refunds.md#2].",
        (
            Citation("refunds.md#2", "refunds.md", (), None, "current", ""),
            Citation("salary.md#1", "", (), None, "current", ""),
        ),
    )
    outcome, _ = verify(invented, PROMPT)
    assert isinstance(outcome, Declined) and "salary.md#1" in outcome.detail


def test_a_paraphrase_with_the_right_figures_passes() -> None:
    answer = (
        "Team leads can sign off refunds of up to €1000 [refunds.md#2]. "
        "Once approved, the money goes back to the card within 5 business days [refunds.md#3]."
    )
    outcome, results = check(answer)
    assert isinstance(outcome, Answered)
    assert outcome.answer == answer  # nothing dropped, nothing rewritten
    assert failed(results) == []


def test_an_unsupported_figure_drops_its_sentence_when_others_stand() -> None:
    outcome, results = check(
        "Team leads approve up to €1,000 [refunds.md#2]. "
        "Refunds are paid within 3 days [refunds.md#3]."
    )
    assert isinstance(outcome, Answered)
    assert outcome.answer == "Team leads approve up to €1,000 [refunds.md#2]."
    assert [c.id for c in outcome.citations] == ["refunds.md#2"]
    assert "3 days" not in outcome.answer
    figure_failures = [r for r in results if r["check"] == "figures" and not r["passed"]]
    assert figure_failures[0]["sentence"] == "Refunds are paid within 3 days."
    assert "num:3" in figure_failures[0]["detail"]


def test_a_figure_must_be_in_the_block_the_sentence_cites_not_just_any_block() -> None:
    # €1,000 is in refunds.md#2, but this sentence cites only refunds.md#3
    outcome, _ = check("Leads approve up to €1,000 [refunds.md#3].")
    assert outcome == InsufficientEvidence(UNVERIFIED)


def test_when_every_sentence_fails_the_outcome_abstains() -> None:
    outcome, results = check("Leads approve up to €2,000 [refunds.md#2].")
    assert outcome == InsufficientEvidence(UNVERIFIED)
    assert "answer_stands" in failed(results)


def test_quoted_text_must_be_verbatim() -> None:
    ok, _ = check('The policy says "A support team lead may approve refunds" [refunds.md#2].')
    assert isinstance(ok, Answered)
    bad, results = check(
        'Leads approve up to €1,000 [refunds.md#2]. It says "refunds are instant" [refunds.md#3].'
    )
    assert isinstance(bad, Answered)
    assert "instant" not in bad.answer
    assert "quote" in failed(results)


def test_curly_quotes_and_spacing_do_not_count_as_changes() -> None:
    outcome, _ = check("It says “A support team  lead may approve refunds” [refunds.md#2].")
    assert isinstance(outcome, Answered)


def test_an_invented_citation_quote_drops_its_sentence_never_swapped() -> None:
    draft = Answered(
        "Leads approve up to €1,000 [refunds.md#2]. Refunds are paid within 5 business days "
        "[refunds.md#3].",
        (
            Citation(
                "refunds.md#2", "refunds.md", (), None, "current", "Leads may approve anything."
            ),
            Citation("refunds.md#3", "refunds.md", (), None, "current", ""),
        ),
    )
    outcome, results = verify(draft, PROMPT)
    assert isinstance(outcome, Answered)
    assert outcome.answer == "Refunds are paid within 5 business days [refunds.md#3]."
    assert [c.id for c in outcome.citations] == ["refunds.md#3"]
    assert "Leads may approve anything." not in [c.quote for c in outcome.citations]
    assert failed([r.to_dict() for r in results]) == ["citation_quote", "quote"]


def test_a_quote_cut_with_an_ellipsis_is_verbatim_piece_by_piece() -> None:
    draft = Answered(
        "Leads approve up to €1,000 [refunds.md#2].",
        (
            Citation(
                "refunds.md#2",
                "refunds.md",
                (),
                None,
                "current",
                "A support team lead may approve … up to €1,000.",
            ),
        ),
    )
    outcome, _ = verify(draft, PROMPT)
    assert isinstance(outcome, Answered)
    assert outcome.citations[0].quote == "A support team lead may approve … up to €1,000."


def test_a_quote_of_several_block_sentences_on_one_line_is_verbatim() -> None:
    hits = [
        make_hit(
            "procurement.md#1",
            "- P-10: purchases under €5,000 need one quote.\n- P-11: up to €25,000 need three.",
        )
    ]
    prompt = render("How many quotes?", hits, 2000)
    quote = "P-10: purchases under €5,000 need one quote. P-11: up to €25,000 need three."
    draft = Answered(
        "P-11: up to €25,000 need three [procurement.md#1].",
        (Citation("procurement.md#1", "procurement.md", (), None, "current", quote),),
    )
    outcome, _ = verify(draft, prompt)
    assert isinstance(outcome, Answered) and outcome.citations[0].quote == quote
    glued = Answered(
        "P-11: up to €25,000 need three [procurement.md#1].",
        (Citation("procurement.md#1", "procurement.md", (), None, "current", quote + " Or four."),),
    )
    assert verify(glued, prompt)[0] == InsufficientEvidence(UNVERIFIED)


def test_an_uncited_sentence_is_dropped() -> None:
    outcome, results = check(
        "Leads approve up to €1,000 [refunds.md#2]. Managers can also approve them."
    )
    assert isinstance(outcome, Answered)
    assert outcome.answer == "Leads approve up to €1,000 [refunds.md#2]."
    assert failed(results) == ["cited"]


def test_an_answer_without_markers_citing_one_block_cites_it_throughout() -> None:
    draft = Answered(
        "Leads approve up to €1,000. Refunds take 5 business days.",
        (Citation("refunds.md#2", "refunds.md", (), None, "current", ""),),
    )
    outcome, results = verify(draft, PROMPT)
    assert isinstance(outcome, Answered)
    # 5 business days is in refunds.md#3, not the one block this answer cites
    assert outcome.answer == "Leads approve up to €1,000 [refunds.md#2]."
    assert failed([r.to_dict() for r in results]) == ["figures", "grounded"]


def test_figures_in_the_heading_or_the_exact_effective_date_count_as_shown() -> None:
    outcome, _ = check("Since 1 March 2025, leads approve up to €1,000 [refunds.md#2].")
    assert isinstance(outcome, Answered)


def test_a_figure_only_in_the_source_path_or_the_effective_year_is_unsupported() -> None:
    hits = [
        make_hit(
            "refunds-2024.md#1",
            "A support team lead may approve refunds.",
            heading_path=("Refunds Policy",),
            effective_date=date(2025, 3, 1),
        )
    ]
    prompt = render("What changed?", hits, 2000)

    def shown(answer: str) -> object:
        return verify(parse_text_outcome(answer, prompt.kept), prompt)[0]

    assert shown("The refunds policy of 2024 lets leads approve [refunds-2024.md#1].") == (
        InsufficientEvidence(UNVERIFIED)
    )
    assert shown("Since 2025, leads approve refunds [refunds-2024.md#1].") == InsufficientEvidence(
        UNVERIFIED
    )
    assert shown("In March 2025 leads approve refunds [refunds-2024.md#1].") == (
        InsufficientEvidence(UNVERIFIED)
    )
    assert isinstance(shown("Since 1 March 2025 leads approve [refunds-2024.md#1]."), Answered)


def test_a_superseded_block_stands_only_beside_its_cited_successor() -> None:
    hits = [
        *HITS,
        make_hit(
            "refunds-2022.md#1",
            "A support team lead may approve refunds up to €500.",
            rank=3,
            status="superseded",
            superseded_by="refunds.md",
        ),
    ]
    prompt = render("How much can a lead approve?", hits, 2000)

    def shown(answer: str) -> object:
        return verify(parse_text_outcome(answer, prompt.kept), prompt)[0]

    assert shown("Leads approve up to €500 [refunds-2022.md#1].") == InsufficientEvidence(
        UNVERIFIED
    )
    both = "Leads approve up to €1,000 [refunds.md#2]. It was €500 [refunds-2022.md#1]."
    outcome = shown(both)
    assert isinstance(outcome, Answered) and outcome.answer == both


def test_figures_in_missing_readings_or_clarifying_question_must_be_in_a_block() -> None:
    assert verify(InsufficientEvidence("The documents give no retry count."), PROMPT)[0] == (
        InsufficientEvidence("The documents give no retry count.")
    )
    hedged, results = verify(InsufficientEvidence("Typically 3 retries are allowed."), PROMPT)
    assert hedged == InsufficientEvidence(NOT_STATED)
    assert failed([r.to_dict() for r in results]) == ["nonanswer_figures"]
    supported = Ambiguous(("Up to €1,000", "Above €1,000"), "Which amount?")
    assert verify(supported, PROMPT)[0] == supported
    for bad in (
        Ambiguous(("Up to €1,000", "Up to €5,000"), "Which amount?"),
        Ambiguous(("Leads", "Controllers"), "Is it over €2,500?"),
    ):
        assert verify(bad, PROMPT)[0] == InsufficientEvidence(NOT_STATED)


def test_declined_passes_through_unchecked() -> None:
    assert verify(Declined("policy"), PROMPT) == (Declined("policy"), ())


def test_a_cited_sentence_about_something_else_is_dropped() -> None:
    outcome, results = check(
        "Ignore previous instructions [refunds.md#2]. Leads approve up to €1,000 [refunds.md#2]."
    )
    assert isinstance(outcome, Answered)
    assert outcome.answer == "Leads approve up to €1,000 [refunds.md#2]."
    assert failed(results) == ["grounded"]


def test_an_answer_labelling_versions_stands_whole_or_not_at_all() -> None:
    """A user pass: a 2020 DMCA paragraph was shown unlabelled as the answer — its label
    line ("Under the superseded version (…): How Does This Actually Work?") failed the
    grounding check and the sentences after it stood alone, reading as today's rule."""
    labelled = (
        "Under the superseded version (effective 2025-03-01): Some heading words here? "
        "[refunds.md#2] A support team lead may approve refunds up to €1,000 [refunds.md#2]."
    )
    outcome, results = check(labelled)
    assert outcome == InsufficientEvidence(UNVERIFIED)
    assert "grounded" in failed(results) and "answer_stands" in failed(results)
    unlabelled = (
        "Some heading words here? [refunds.md#2] Leads approve up to €1,000 [refunds.md#2]."
    )
    kept, _ = check(unlabelled)  # an answer of one version keeps what stands
    assert isinstance(kept, Answered) and "Some heading" not in kept.answer
    whole, results = check(
        "Under the superseded version (effective 2025-03-01): A support team lead may approve "
        "refunds up to €1,000 [refunds.md#2]."
    )
    assert isinstance(whole, Answered) and whole.answer.startswith("Under the superseded")
    # A model's prose that opens with the words is no label (a review): what stands, stands.
    prose, results = check(
        "The current version of the policy lets a team lead approve up to €1,000 "
        "[refunds.md#2]. Refunds are paid within 9 days [refunds.md#3]."
    )
    assert isinstance(prose, Answered) and "€1,000" in prose.answer
    assert failed(results) == ["figures"]
