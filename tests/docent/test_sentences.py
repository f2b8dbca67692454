"""Sentence boundaries shared by ingest and generate."""

from docent.sentences import split_sentences


def test_names_with_inner_full_stops_are_not_cut() -> None:
    assert split_sentences(
        'GitHub, Inc. ("GitHub") and GitHub B.V. process data. The EU-U.S. Data Privacy '
        "Framework applies."
    ) == [
        'GitHub, Inc. ("GitHub") and GitHub B.V. process data.',
        "The EU-U.S. Data Privacy Framework applies.",
    ]


def test_abbreviations_initials_and_decimals() -> None:
    assert split_sentences(
        "Use e.g. the U.S. office. Call J. Smith at 9 a.m. today! Is it 3.5 days? Yes."
    ) == ["Use e.g. the U.S. office.", "Call J. Smith at 9 a.m. today!", "Is it 3.5 days?", "Yes."]


def test_brackets_and_addresses_stay_inside_their_sentence() -> None:
    assert split_sentences("Write to dpo[at]github[dot]com for help. We answer in 30 days.") == [
        "Write to dpo[at]github[dot]com for help.",
        "We answer in 30 days.",
    ]


def test_whitespace_only_is_no_sentence() -> None:
    assert split_sentences("  \n ") == []
