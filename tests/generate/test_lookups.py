"""One of several labelled rules picked by what a table row says of the thing a question
names (``generate.lookups``): Berlin's row says Tier 1, so the Tier 1 cap answers and is what
a non-answer marks (a user pass found the Tier 2 cap marked for "an extra night in Berlin",
and "a hotel in Porto" answered with the Porto row beside the Tier 1 cap)."""

from docent.contracts import Answered, Hit
from generate.answer_gate import AnswerGate
from generate.extractive import ExtractiveGenerator
from generate.lookups import label_of, looked_up
from generate.unit_scoring import Scored, Unit
from render.prompt import render
from tests.generate.answering import ask
from tests.render.builders import make_hit

HOTELS = (
    "Hotel costs are capped per night, by city tier:",
    "Tier 1 cities: up to €220 per night.",
    "Tier 2 cities: up to €160 per night.",
    "Any city not listed in the per diem table counts as Tier 2.",
)
ROWS = (
    ("Berlin", "Germany", "Tier 1", "€72"),
    ("Hamburg", "Germany", "Tier 2", "€66"),
    ("Porto", "Portugal", "Tier 2", "€56"),
)


def hotels(scores: tuple[float, ...] = (0.5, 0.5, 0.62, 0.4)) -> Hit:
    """The sample's hotel caps, the Tier 2 item scoring best."""
    return make_hit(
        "expenses.md#hotels",
        f"{HOTELS[0]}\n\n* {HOTELS[1]}\n* {HOTELS[2]}\n\n{HOTELS[3]}",
        sentences=HOTELS,
        unit_scores=scores,
        score=0.7,
        heading_path=("Expenses", "Hotels"),
        best_sentence=HOTELS[2],
    )


def per_diem(rank: int = 2) -> Hit:
    readings = tuple(
        f"City: {c}; Country: {n}; Tier: {t}; Daily per diem: {d}" for c, n, t, d in ROWS
    )
    table = "| City | Country | Tier | Daily per diem |\n|---|---|---|---|\n" + "\n".join(
        "| " + " | ".join(row) + " |" for row in ROWS
    )
    return make_hit(
        "expenses.md#per-diem",
        table,
        kind="table",
        rank=rank,
        score=0.5,
        heading_path=("Expenses", "Per diem rates"),
        sentences=readings,
        unit_scores=(0.3, 0.3, 0.3),
        best_sentence=readings[0],
    )


def unit(hit: Hit, text: str, header: str | None = None) -> Scored:
    return Scored(Unit(hit, text, "", 0, header), 0.5, 0.5, 0.0, 0.0)


def test_a_rule_s_label_is_the_text_before_its_colon() -> None:
    assert label_of("Tier 1 cities: up to €220 per night.") == "tier 1 cities"
    assert label_of("* Fewer than 3 years: 4 hours") == "fewer than 3 years"
    assert label_of("Any city not listed counts as Tier 2.") is None
    assert label_of("A long sentence that goes on and on before it: is no label") is None


def test_the_row_naming_the_asked_thing_picks_the_rule_its_cell_labels() -> None:
    rules = [unit(hotels(), text) for text in HOTELS[1:3]]
    header = "| City | Country | Tier | Daily per diem |\n|---|---|---|---|"
    rows = [unit(per_diem(), "| " + " | ".join(r) + " |", header) for r in ROWS]
    berlin = looked_up(rules, rows, "How much can I claim for an extra night in Berlin?")
    assert berlin is not None and berlin[0] is rules[0] and berlin[1] is rows[0]
    porto = looked_up(rules, rows, "booking a hotel in porto next week, how much per night?")
    assert porto is not None and porto[0] is rules[1] and porto[1] is rows[2]
    # Only a row's key names it: not a cell many rows share (Germany: Tier 1 and Tier 2),
    # and not a city no row names.
    assert looked_up(rules, rows, "What is the hotel cap in Germany?") is None
    germany = looked_up(rules, rows, "A hotel night in Berlin, Germany?")
    assert germany is not None and germany[0] is rules[0]
    assert looked_up(rules, rows, "What is the hotel cap in Zurich?") is None
    assert looked_up(rules[:1], rows, "a night in Berlin?") is None  # one rule: nothing to pick


def test_a_key_that_is_a_common_word_or_a_shared_cell_names_no_row() -> None:
    """A review: "it" named an "IT" row, "a" a grade "A" row, "included" an "Included"
    cell, each picking a tier the question is not about."""
    rules = [unit(hotels(), text) for text in HOTELS[1:3]]
    header = "| Key | Detail | Tier |\n|---|---|---|"
    rows = [
        unit(per_diem(), "| IT | Department | Tier 1 |", header),
        unit(per_diem(), "| A | Grade | Tier 1 |", header),
        unit(per_diem(), "| Berlin | Included | Tier 1 |", header),
    ]
    assert looked_up(rules, rows, "Can it cover a hotel night?") is None
    assert looked_up(rules, rows, "How much can I spend on a hotel per night?") is None
    assert looked_up(rules, rows, "A hotel in Zurich if breakfast is included?") is None


def test_the_rule_the_row_picks_answers_with_the_row_as_its_reason() -> None:
    outcome = ask("How much can I claim for an extra night in Berlin?", [hotels(), per_diem()])
    assert isinstance(outcome, Answered)
    assert HOTELS[1] in outcome.answer and HOTELS[2] not in outcome.answer
    assert "| Berlin | Germany | Tier 1 | €72 |" in outcome.answer
    assert [c.id for c in outcome.citations] == ["expenses.md#hotels", "expenses.md#per-diem"]
    # No row names the city: the best-scored cap is no answer for every city (two readings).
    unnamed = ask("How much can I claim for an extra night in Zurich?", [hotels(), per_diem()])
    assert not isinstance(unnamed, Answered) or HOTELS[2] not in unnamed.answer


def test_a_non_answer_marks_the_rule_the_row_picks() -> None:
    shut = ExtractiveGenerator(gate=AnswerGate(threshold=1.0))
    for question, rule in (
        ("How much can I claim for an extra night in Berlin?", HOTELS[1]),
        ("How much can I spend on a hotel in Porto?", HOTELS[2]),
    ):
        for scores in ((0.5, 0.62, 0.6, 0.4), (0.05, 0.1, 0.12, 0.05)):
            # A held-back draft, and no draft at all (nothing close enough to quote).
            prompt = render(question, [hotels(scores), per_diem()], 2000)
            generation = shut.generate(prompt, prompt.kept)
            assert not isinstance(generation.outcome, Answered)
            first = next(t for cid, t in generation.pointers if cid == "expenses.md#hotels")
            assert first == rule


def test_a_runner_up_rule_beside_a_row_is_the_one_the_row_picks() -> None:
    """ "How much can I spend on a hotel in Porto?" answered with Porto's row and, as the
    other block's unit the scores could not tell apart, the Tier 1 cap."""
    table = per_diem(rank=1)
    table = make_hit(
        table.chunk.chunk_id,
        table.chunk.text,
        kind="table",
        rank=1,
        score=0.75,
        heading_path=table.chunk.heading_path,
        sentences=table.chunk.sentences,
        unit_scores=(0.3, 0.3, 0.8),
        best_sentence=table.chunk.sentences[2],
    )
    outcome = ask(
        "How much can I spend on a hotel in Porto?", [table, hotels((0.5, 0.9, 0.75, 0.4))]
    )
    assert isinstance(outcome, Answered)
    assert "| Porto | Portugal | Tier 2 | €56 |" in outcome.answer
    assert HOTELS[2].rstrip(".") in outcome.answer and HOTELS[1].rstrip(".") not in outcome.answer


def test_the_rule_a_row_picks_is_not_added_again_from_a_copy_of_its_passage() -> None:
    """A review: with an HTML copy of the hotel caps among the passages, "a hotel in Porto"
    showed "Tier 2 cities: up to €160 per night" twice (the runner-up, swapped for the rule
    the row picks, skipped the check that it was not already quoted)."""
    copy = hotels((0.5, 0.9, 0.75, 0.4))
    copy = make_hit(
        "expenses.html#hotels",
        copy.chunk.text,
        sentences=HOTELS,
        unit_scores=(0.5, 0.9, 0.75, 0.4),
        score=0.7,
        rank=3,
        heading_path=("Expenses", "Hotels"),
        best_sentence=HOTELS[1],
    )
    question = "How much can I spend on a hotel in Porto per night?"
    outcome = ask(question, [hotels((0.5, 0.7, 0.9, 0.4)), per_diem(), copy])
    assert isinstance(outcome, Answered)
    assert outcome.answer.count("Tier 2 cities: up to €160 per night") == 1, outcome.answer
    assert "€220" not in outcome.answer


def test_a_non_answer_marks_the_rule_for_a_thing_no_row_lists() -> None:
    """Found in a user pass: "a hotel in Zurich" (a city the per diem table does not list)
    marked the Tier 1 cap; the document's rule for it is "Any city not listed … counts as
    Tier 2". Only for a name no passage holds: Berlin's row still picks its rule, and a
    question naming nothing is marked by meaning."""
    listed = make_hit(
        "expenses.md#hotels",
        f"{HOTELS[0]}\n\n* {HOTELS[1]}\n* {HOTELS[2]}\n* {HOTELS[3]}",
        sentences=HOTELS,
        unit_scores=(0.5, 0.62, 0.6, 0.4),
        score=0.7,
        heading_path=("Expenses", "Hotels"),
        best_sentence=HOTELS[1],
    )
    shut = ExtractiveGenerator(gate=AnswerGate(threshold=1.0))
    for question, rule in (
        ("What is the hotel cap for a night in Zurich?", HOTELS[3]),
        ("How much can I claim for an extra night in Berlin?", HOTELS[1]),
        ("What is the hotel cap for a night?", HOTELS[1]),
        # A review: a name that is no place asked about, or a tier the asker names.
        ("What is the Tier 1 hotel cap per night for HR staff?", HOTELS[1]),
        ("What is the hotel cap per night during the Summit?", HOTELS[1]),
        ("What is the Tier 1 hotel cap for a night in Zurich?", HOTELS[1]),
    ):
        prompt = render(question, [listed, per_diem()], 2000)
        generation = shut.generate(prompt, prompt.kept)
        assert not isinstance(generation.outcome, Answered)
        first = next(t for cid, t in generation.pointers if cid == "expenses.md#hotels")
        assert first == rule, question
