from render.tokens import count_tokens, truncate_to_tokens


def test_words_and_punctuation_each_count_one() -> None:
    assert count_tokens("") == 0
    assert count_tokens("Full-time staff get 25 days.") == 8  # Full - time staff get 25 days .
    assert count_tokens("€220 per night") == 4


def test_truncate_keeps_a_prefix_within_the_limit() -> None:
    text = "one two, three four. five"
    assert truncate_to_tokens(text, 0) == ""
    assert truncate_to_tokens(text, 3) == "one two,"
    assert truncate_to_tokens(text, 100) == text
    for n in range(8):
        cut = truncate_to_tokens(text, n)
        assert text.startswith(cut)
        assert count_tokens(cut) <= n
