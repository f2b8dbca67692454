from generate.claims import Claim, cited_ids, join_claims, marker_ids, split_claims

KNOWN = {"a.md#1", "b.md#2", "c, d.md#3"}


def test_each_sentence_gets_its_own_markers() -> None:
    claims = split_claims("The trial lasts 14 days [a.md#1]. It is free [b.md#2].", KNOWN)
    assert claims == (
        Claim("The trial lasts 14 days.", ("a.md#1",)),
        Claim("It is free.", ("b.md#2",)),
    )


def test_a_marker_after_two_sentences_covers_both() -> None:
    claims = split_claims("One. Two [a.md#1][b.md#2]. Trailing words.", KNOWN)
    assert [c.ids for c in claims] == [("a.md#1", "b.md#2"), ("a.md#1", "b.md#2"), ()]


def test_markers_may_list_several_ids_and_ids_may_hold_commas() -> None:
    assert marker_ids("a.md#1, b.md#2", KNOWN) == ("a.md#1", "b.md#2")
    assert marker_ids("c, d.md#3", KNOWN) == ("c, d.md#3",)
    assert marker_ids("a.md#1, nope", KNOWN) == ("a.md#1", "nope")  # "nope" is fabricated
    assert cited_ids("x [a.md#1] y [zzz.md#4] z [a.md#1]", KNOWN) == ("a.md#1", "zzz.md#4")


def test_a_documents_own_brackets_are_text_never_a_citation() -> None:
    answer = "Write to dpo[at]github[dot]com [a.md#1]."
    assert cited_ids(answer, KNOWN) == ("a.md#1",)
    assert split_claims(answer, KNOWN) == (Claim("Write to dpo[at]github[dot]com.", ("a.md#1",)),)
    # Only a known id or the shape of one (<source>#<n>) is a marker; [1] and [sic] are text.
    assert cited_ids("It says [sic] and [1] [note] [b.md#2].", KNOWN) == ("b.md#2",)
    assert marker_ids("other.md#7", KNOWN) == ("other.md#7",)  # id-shaped: fabricated


def test_bracketed_text_verbatim_in_a_shown_block_is_never_a_citation() -> None:
    block = "Appeals go to the panel [see annex.md#2] within a week."
    answer = 'It says "Appeals go to the panel [see annex.md#2] within a week" [a.md#1].'
    assert cited_ids(answer, KNOWN) == ("see annex.md#2", "a.md#1")  # not knowing the block
    assert cited_ids(answer, KNOWN, [block]) == ("a.md#1",)


def test_join_puts_markers_before_the_full_stop_and_keeps_line_breaks() -> None:
    claims = split_claims("Intro:\n- one [a.md#1]\n- two [b.md#2]", KNOWN)
    assert join_claims(claims) == "Intro [a.md#1]:\n- one [a.md#1]\n- two [b.md#2]"
    assert join_claims([Claim("Fine.", ("a.md#1",))]) == "Fine [a.md#1]."
