"""The number words, written once for the figures, the counted amounts and the ages."""

import re

from docent.numbers import CARDINALS, counting_words
from docent.versions import version_request
from generate.figures import NUMBER_WORDS


def test_cardinals_are_worth_their_numbers() -> None:
    assert (CARDINALS["zero"], CARDINALS["seventeen"], CARDINALS["ninety"]) == (0, 17, 90)
    assert CARDINALS["thousand"] == 1000
    assert NUMBER_WORDS["twice"] == 2 and NUMBER_WORDS["twelve"] == 12  # the figures' own extras


def test_counting_words_read_a_longer_word_whole() -> None:
    pattern = re.compile(rf"\b({counting_words()}) days\b")
    match = pattern.search("you get seventeen days")
    assert match is not None and match.group(1) == "seventeen"
    assert "zero" not in counting_words().split("|")  # nothing is counted in zeros


def test_an_age_spelled_in_words_asks_for_no_past_version() -> None:
    assert version_request("my fourteen year old wants an account: is the old rule still on?")
    assert version_request("my fourteen year old wants an account; may she?") is None
