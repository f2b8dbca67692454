"""Numbered parts of a policy ("Clause 7.3(a)", "Clause 7.3(b)", "Clause 7.4"): the one a
question names answers and is what a non-answer marks, without its neighbours (a user pass:
"section 7.3(b)" marked 7.3(a); "What does clause 7.4 say?" quoted 7.3(b) with it)."""

from docent.contracts import Answered, Hit
from generate.answer_gate import AnswerGate
from generate.extractive import ExtractiveGenerator
from generate.text import content_words
from render.prompt import render
from tests.generate.answering import ask, hit

CLAUSES = {
    "Clause 7.3(a): the budget holder approves every purchase order in their budget.": 0.6,
    "Clause 7.3(b): any contract longer than 24 months also needs the CFO's approval.": 0.6,
    "Clause 7.4: contracts above €100,000 in total value are signed by the CEO.": 0.6,
}


def approvals(scores: tuple[float, ...] = (0.6, 0.6, 0.6)) -> Hit:
    return hit(
        "procurement.md#4",
        dict(zip(CLAUSES, scores, strict=True)),
        score=0.7,
        heading_path=("Procurement Policy", "Approvals"),
    )


def test_a_code_with_a_bracketed_suffix_is_one_word() -> None:
    assert {"7.3(b)", "401(k)", "plan"} <= content_words("section 7.3(b) of the 401(k) plan(s)")
    assert "7.3" not in content_words("Clause 7.3(a) applies")


def test_the_part_the_question_names_answers_alone() -> None:
    for question, part in (
        ("What does clause 7.4 say?", 2),
        ("What does clause 7.3(a) require?", 0),
        ("What does section 7.3(b) require?", 1),
    ):
        outcome = ask(question, [approvals()])
        assert isinstance(outcome, Answered), question
        quoted = [n for n, text in enumerate(CLAUSES) if text[:14] in outcome.answer]
        assert quoted == [part], (question, outcome.answer)


def test_a_non_answer_marks_the_part_the_question_names() -> None:
    shut = ExtractiveGenerator(gate=AnswerGate(threshold=1.0))
    prompt = render("section 7.3(b)", [approvals((0.62, 0.6, 0.5))], 2000)
    generation = shut.generate(prompt, prompt.kept)
    assert generation.pointers[0][1] == list(CLAUSES)[1]
