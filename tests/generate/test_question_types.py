"""The named question-phrase rules: the first that matches decides; a rule left out is not
read (what ``evals/rule_ablation.py`` measures and a fit may choose)."""

from __future__ import annotations

import pytest

from generate.extractive import ExtractiveGenerator
from generate.question_types import ALL_RULES, RULES, expect


def test_every_rule_is_named_once_and_read_by_default() -> None:
    assert len(RULES) == len(set(RULES)) == len(ALL_RULES)
    assert expect("When are performance reviews held?").kind == "date"


@pytest.mark.parametrize(
    ("question", "rule", "with_it", "without_it"),
    [
        ("What percentage of my salary is matched?", "percent", "quantity", "money"),
        ("When must I submit my expenses?", "date", "date", "other"),
        ("How long must a password be?", "length", "quantity", "duration"),
        ("Who approves a refund above €1,000?", "who", "who", "other"),
        ("How long is the notice period?", "duration", "duration", "other"),
        ("Can I carry over unused leave?", "yesno", "yesno", "other"),
        # Without the duration rule "how much notice" is read by the next that matches.
        ("How much notice must I give?", "duration", "duration", "quantity"),
        # A user pass: "how quickly" asks for a time too ("… delete my profile after I cancel
        # my account?" quoted where to cancel, not "within 90 days").
        ("How quickly must I report a lost laptop?", "duration", "duration", "other"),
        ("How fast do you answer an urgent ticket?", "duration", "duration", "other"),
    ],
)
def test_a_rule_left_out_is_not_read(
    question: str, rule: str, with_it: str, without_it: str
) -> None:
    assert expect(question).kind == with_it
    assert expect(question, ALL_RULES - {rule}).kind == without_it


def test_without_the_superlative_rule_no_row_is_picked_and_the_limit_rule_wins_over_it() -> None:
    question = "Which EV charger at the office is the fastest?"
    assert expect(question).superlative is not None
    assert expect(question, ALL_RULES - {"superlative"}).superlative is None
    # "the most I can spend" asks for a limit's figure, not a row: no superlative read.
    capped = expect("What's the most I can spend a night on a hotel?")
    assert capped.kind == "money" and capped.superlative is None
    assert expect("What's the most I can spend a night on a hotel?", frozenset()).kind == "other"


def test_the_answerer_refuses_a_rule_it_does_not_know() -> None:
    with pytest.raises(ValueError, match="unknown question rule"):
        ExtractiveGenerator(rules=ALL_RULES | {"telepathy"})
    assert ExtractiveGenerator().rules == ALL_RULES
