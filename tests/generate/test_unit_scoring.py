"""The unit signals the answerer weighs."""

from generate.question_types import expect
from generate.text import content_words
from generate.unit_scoring import Weights, features, is_meta, score_unit, units_of
from tests.render.builders import make_hit

TABLE = "| City | Daily per diem |\n|---|---|\n| Lisbon | €64 |\n| Porto | €56 |"


def test_units_are_sentences_or_table_rows_with_their_header() -> None:
    prose = make_hit("a.md#0", "One rule. Another rule.", sentences=("One rule.", "Another rule."))
    assert [u.text for u in units_of(prose)] == ["One rule.", "Another rule."]
    table = make_hit("t.md#0", TABLE, kind="table")
    rows = units_of(table)
    assert [u.text for u in rows] == ["| Lisbon | €64 |", "| Porto | €56 |"]
    assert all(u.header == "| City | Daily per diem |\n|---|---|" for u in rows)


def test_semantic_comes_from_the_recorded_unit_scores_rows_matched_by_their_words() -> None:
    table = make_hit(
        "t.md#0",
        TABLE,
        kind="table",
        sentences=("City: Lisbon; Daily per diem: €64", "City: Porto; Daily per diem: €56"),
        unit_scores=(0.61, 0.33),
    )
    question = "What's the per diem in Lisbon?"
    lisbon, porto = (
        features(u, content_words(question), expect(question))[0] for u in units_of(table)
    )
    assert (lisbon.semantic, porto.semantic) == (0.61, 0.33)


def test_framing_sentences_and_sections_are_meta() -> None:
    assert is_meta("This policy sets out who may work remotely.")
    assert is_meta("These guidelines set the severance the company offers.")
    assert is_meta("Anything at all.", ("Severance Guidelines", "Scope"))
    assert not is_meta("The standard package pays two weeks of base pay.", ("Severance", "Pay"))
    assert not is_meta("Anything at all.", ("Scope",))  # a document's own title is not a section
    assert is_meta("In this handbook, you'll find everything you need to know.")
    assert is_meta("Severance Packages", ("37signals Employee Handbook", "Sections"))
    assert not is_meta("In the first year you get 4 weeks off.")
    assert not is_meta("In this policy, managers must approve leave within 2 working days.")


def test_the_score_is_the_documented_weighted_sum() -> None:
    hit = make_hit(
        "severance.pdf#1",
        "The standard package pays two weeks of base pay.",
        rank=2,
        score=0.5,
        heading_path=("Severance Guidelines", "Standard package"),
        title="Severance Guidelines",
        sentences=("The standard package pays two weeks of base pay.",),
        unit_scores=(0.3,),
    )
    question = "How much severance pay?"
    (unit,) = units_of(hit)
    f, own = features(unit, content_words(question), expect(question))
    assert (f.fit, f.title, f.meta, f.rank) == (1.0, 0.5, 0.0, 2)  # "pay" is its own; title half
    assert own == {"pay"}
    w = Weights()
    want = (
        w.semantic * 0.3
        + w.block * 0.5
        + w.lexical * f.lexical
        + w.fit * 1.0
        + w.title * 0.5
        - w.rank * 1
    )
    assert score_unit(unit, content_words(question), expect(question), w).score == want


def test_a_nested_item_is_read_under_its_parent_item() -> None:
    # "setting up my laptop" is billed to the code its parent item names.
    text = "- Hiring - #1241: onboarding includes:\n  - Getting set up with laptops\n- Other"
    hit = make_hit(
        "tock.md#3",
        text,
        kind="list",
        heading_path=("Tock", "Codes"),
        sentences=("Hiring - #1241: onboarding includes:", "Getting set up with laptops", "Other"),
    )
    parent, laptop, other = units_of(hit)
    assert laptop.context.endswith("Hiring - #1241: onboarding includes:")
    assert "1241" not in parent.context and "1241" not in other.context
    question = "Which code do I bill for getting set up with laptops during onboarding?"
    words = content_words(question)
    with_parent = features(laptop, words, expect(question))[0].lexical
    alone = features(laptop.__class__(hit, laptop.text, parent.context, 1), words, expect(question))
    assert with_parent > alone[0].lexical
