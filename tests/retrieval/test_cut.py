"""The relevance cut and the supersession order: pure functions over hits."""

import pytest

from docent.contracts import Hit
from retrieval.cut import cut, supersession_order
from tests.retrieval.corpus import make_chunk


def hit(source: str, score: float | None, n: int = 0, superseded_by: str | None = None) -> Hit:
    chunk = make_chunk(source, n, f"text of {source} {n}.", superseded_by=superseded_by)
    return Hit(chunk=chunk, rank=0, score=score or 0.0, rerank_score=score)


def ids(hits: list[Hit]) -> list[str]:
    return [h.chunk.chunk_id for h in hits]


def test_cut_keeps_at_most_k_hits_that_clear_the_threshold() -> None:
    hits = [hit(f"d{i}.md", s) for i, s in enumerate([0.9, 0.8, 0.2, 0.7, 0.6, 0.5])]
    kept, dropped = cut(hits, threshold=0.55, top_k=3)
    assert ids(kept) == ["d0.md#0", "d1.md#0", "d3.md#0"]
    assert ids(dropped) == ["d2.md#0", "d4.md#0", "d5.md#0"]  # below, beyond k, below


def test_cut_nothing_clears_means_nothing_kept() -> None:
    hits = [hit("a.md", 0.3), hit("b.md", 0.1)]
    kept, dropped = cut(hits, threshold=0.35, top_k=5)
    assert kept == [] and ids(dropped) == ["a.md#0", "b.md#0"]
    assert cut([], 0.35, 5) == ([], [])


def test_cut_threshold_is_inclusive_and_unscored_hits_never_pass() -> None:
    kept, dropped = cut([hit("a.md", 0.35), hit("b.md", None)], threshold=-1.0, top_k=5)
    assert ids(kept) == ["a.md#0"] and ids(dropped) == ["b.md#0"]
    kept, _ = cut([hit("a.md", 0.35)], threshold=0.35, top_k=5)
    assert ids(kept) == ["a.md#0"]


def test_cut_rejects_a_non_positive_k() -> None:
    with pytest.raises(ValueError, match="top_k"):
        cut([hit("a.md", 0.9)], 0.1, 0)


def test_a_superseded_chunk_moves_below_every_chunk_of_its_successor() -> None:
    old = hit("refunds-2022.md", 0.9, superseded_by="refunds.md")
    other = hit("pricing.md", 0.8)
    new0 = hit("refunds.md", 0.7, n=0)
    new1 = hit("refunds.md", 0.6, n=1)
    tail = hit("support.md", 0.5)
    ordered = supersession_order([old, other, new0, new1, tail])
    assert ids(ordered) == [
        "pricing.md#0",
        "refunds.md#0",
        "refunds.md#1",
        "refunds-2022.md#0",
        "support.md#0",
    ]
    assert [h.rank for h in ordered] == [1, 2, 3, 4, 5]
    # Scores are untouched: the order, not the evidence, changes.
    assert ordered[3].rerank_score == 0.9


def test_supersession_without_the_successor_present_changes_nothing() -> None:
    hits = [hit("refunds-2022.md", 0.9, superseded_by="refunds.md"), hit("pricing.md", 0.8)]
    assert ids(supersession_order(hits)) == ["refunds-2022.md#0", "pricing.md#0"]
    assert supersession_order([]) == []


def test_chains_and_cycles() -> None:
    v1 = hit("v1.md", 0.9, superseded_by="v2.md")
    v2 = hit("v2.md", 0.8, superseded_by="v3.md")
    v3 = hit("v3.md", 0.7)
    assert ids(supersession_order([v1, v2, v3])) == ["v3.md#0", "v2.md#0", "v1.md#0"]
    # Bad metadata (each supersedes the other) must not hang or lose hits.
    a = hit("a.md", 0.9, superseded_by="b.md")
    b = hit("b.md", 0.8, superseded_by="a.md")
    assert sorted(ids(supersession_order([a, b]))) == ["a.md#0", "b.md#0"]
    # A document naming itself is ignored.
    selfish = hit("s.md", 0.9, superseded_by="s.md")
    assert ids(supersession_order([selfish, v3])) == ["s.md#0", "v3.md#0"]


def test_input_hits_are_not_mutated() -> None:
    hits = [hit("old.md", 0.9, superseded_by="new.md"), hit("new.md", 0.5)]
    supersession_order(hits)
    assert [h.rank for h in hits] == [0, 0]


def test_the_past_version_a_question_names_keeps_its_rank() -> None:
    from dataclasses import replace
    from datetime import date

    from docent.versions import VersionRequest

    old = hit("refunds-2022.md", 0.9, superseded_by="refunds.md")
    old = replace(
        old, chunk=replace(old.chunk, status="superseded", effective_date=date(2022, 4, 1))
    )
    new = hit("refunds.md", 0.7)
    assert ids(supersession_order([old, new], VersionRequest(year=2022))) == [
        "refunds-2022.md#0",
        "refunds.md#0",
    ]
    # A question about another year, or none, gets the usual order.
    assert ids(supersession_order([old, new], VersionRequest(year=2019)))[0] == "refunds.md#0"
    assert ids(supersession_order([old, new]))[0] == "refunds.md#0"


def version(source: str, score: float, n: int, section: str, superseded_by: str = "") -> Hit:
    from dataclasses import replace
    from datetime import date

    title = source.removesuffix(".md")
    chunk = make_chunk(
        source,
        n,
        f"{section} text of {source}.",
        heading=(title, section),
        status="superseded" if superseded_by else "current",
        superseded_by=superseded_by or None,
        effective_date=date(2023, 1, 1) if superseded_by else date(2025, 1, 1),
    )
    return replace(hit(source, score, n), chunk=chunk)


def test_a_superseded_hit_is_never_kept_beside_its_successor_whose_section_takes_its_place() -> (
    None
):
    """Found in a user pass: the 2023 price list's "Free trial" cleared the bar where today's
    did not, and was offered alone as where the answer probably is."""
    old_trial = version("pricing-2023.md", 0.5, 4, "Free trial", superseded_by="pricing.md")
    old_plans = version("pricing-2023.md", 0.45, 0, "Plans", superseded_by="pricing.md")
    plans = version("pricing.md", 0.3, 0, "Plans")
    trial = version("pricing.md", 0.2, 4, "Free trial")
    kept, dropped = cut([old_trial, old_plans, plans, trial], threshold=0.4, top_k=5)
    assert ids(kept) == ["pricing.md#0", "pricing.md#4"]
    assert ids(dropped) == ["pricing-2023.md#4", "pricing-2023.md#0"]
    # Without the successor's section, nothing of the old version stands in for it.
    kept, _ = cut([old_trial, plans], threshold=0.4, top_k=5)
    assert kept == []


def test_the_past_version_asked_for_and_one_without_its_successor_are_kept() -> None:
    from docent.versions import VersionRequest

    old = version("pricing-2023.md", 0.5, 4, "Free trial", superseded_by="pricing.md")
    new = version("pricing.md", 0.2, 4, "Free trial")
    kept, _ = cut([old, new], threshold=0.4, top_k=5, asked_for=VersionRequest(year=2023))
    assert ids(kept) == ["pricing-2023.md#4"]
    kept, _ = cut([old], threshold=0.4, top_k=5)
    assert ids(kept) == ["pricing-2023.md#4"]
    kept, _ = cut([old, new], threshold=0.4, top_k=1)
    assert ids(kept) == ["pricing.md#4"]


def test_a_chain_of_versions_is_followed_to_the_one_in_force() -> None:
    """2022 → 2023 → 2025, all three candidates: neither old version is kept, the 2025
    passage of the section stands in (a review found the 2023 one kept)."""
    from dataclasses import replace

    oldest = version("p2022.md", 0.9, 0, "Trial", superseded_by="p2023.md")
    middle = version("p2023.md", 0.3, 0, "Trial", superseded_by="p2025.md")
    newest = version("p2025.md", 0.2, 0, "Trial")
    kept, _ = cut([oldest, middle, newest], threshold=0.4, top_k=5)
    assert ids(kept) == ["p2025.md#0"]
    # A passage without a section of its own (a document with no sub-headings) stands in for
    # nothing: every passage of the successor would match.
    flat = replace(oldest, chunk=replace(oldest.chunk, heading_path=("p2022",)))
    kept, _ = cut([flat, middle, newest], threshold=0.4, top_k=5)
    assert kept == []


def test_a_question_naming_a_past_version_keeps_its_best_passages_in_view() -> None:
    """Today's wording of a section outranks its old version's: the old passages sixth and
    later could never be quoted ("In the pre-2020 GitHub terms, ... in a README?")."""
    from docent.versions import VersionRequest

    current = [version(f"terms-{i}.md", 0.9 - i / 100, 0, f"Part {i}") for i in range(5)]
    old_a = version("terms-2023.md", 0.6, 7, "Advertising", superseded_by="terms.md")
    old_b = version("terms-2023.md", 0.55, 8, "Pages", superseded_by="terms.md")
    old_c = version("terms-2023.md", 0.5, 9, "Other", superseded_by="terms.md")
    low = version("terms-2023.md", 0.1, 10, "Below the bar", superseded_by="terms.md")
    hits = [*current, old_a, old_b, old_c, low]
    dated = VersionRequest(before=2024, older=True)  # the 2023 version
    kept, dropped = cut(hits, threshold=0.4, top_k=5, asked_for=dated)
    # The two best of that version take the places of the two lowest-ranked others.
    assert ids(kept) == [
        "terms-0.md#0",
        "terms-1.md#0",
        "terms-2.md#0",
        "terms-2023.md#7",
        "terms-2023.md#8",
    ]
    assert "terms-2023.md#9" in ids(dropped) and "terms-2023.md#10" in ids(dropped)
    # A bare "prior" or "used to" names no version plainly ("prior written notice"), and a
    # question naming none keeps the usual top five.
    for loose in (VersionRequest(older=True), None):
        kept, _ = cut(hits, threshold=0.4, top_k=5, asked_for=loose)
        assert ids(kept) == [f"terms-{i}.md#0" for i in range(5)]
    # Below the bar, an old passage is not kept for being of that version.
    kept, _ = cut([*current, low], threshold=0.4, top_k=5, asked_for=dated)
    assert "terms-2023.md#10" not in ids(kept)


def test_a_year_keeps_the_version_in_force_all_of_it_in_view_whatever_the_tense() -> None:
    """A user pass: "In early 2020, could a developer in Iran use private repositories?" (a
    year, no version named) showed only today's pages; the 2020 page was eleventh. A year
    alone keeps the best passages of a version in force for all of it; not of one replaced
    within it (a review: "In 2026, can a developer in Iran ...?" led with the 2020 page,
    replaced in March 2026), nor today's year's usual top five."""
    from dataclasses import replace
    from datetime import date

    from docent.versions import VersionRequest

    current = [version(f"terms-{i}.md", 0.9 - i / 100, 0, f"Part {i}") for i in range(5)]
    old = [
        version("terms-2023.md", 0.6 - i / 100, 7 + i, f"Old {i}", superseded_by="terms-0.md")
        for i in range(3)
    ]
    hits = [*current, *old]
    kept, _ = cut(hits, threshold=0.4, top_k=5, asked_for=VersionRequest(year=2024))
    assert ids(kept)[-2:] == ["terms-2023.md#7", "terms-2023.md#8"]
    for year in (2025, 2026):
        kept, _ = cut(hits, threshold=0.4, top_k=5, asked_for=VersionRequest(year=year))
        assert ids(kept) == [f"terms-{i}.md#0" for i in range(5)]
    # Replaced in March of the year asked about: in force for part of it only.
    march = replace(current[0], chunk=replace(current[0].chunk, effective_date=date(2024, 3, 2)))
    kept, _ = cut([march, *hits[1:]], threshold=0.4, top_k=5, asked_for=VersionRequest(year=2024))
    assert ids(kept) == [f"terms-{i}.md#0" for i in range(5)]
    # Named plainly, that version is kept whatever part of the year it was in force.
    dated = VersionRequest(year=2024, dated=True)
    kept, _ = cut([march, *hits[1:]], threshold=0.4, top_k=5, asked_for=dated)
    assert ids(kept)[-2:] == ["terms-2023.md#7", "terms-2023.md#8"]


def test_a_named_version_takes_the_place_of_a_passage_below_the_bar_first() -> None:
    """Found in a review: the successor's section kept in an old version's place (below the
    bar) stayed while a passage clearing the bar was dropped for the named version."""
    from dataclasses import replace
    from datetime import date

    from docent.versions import VersionRequest

    def dated(h: Hit, year: int) -> Hit:
        return replace(h, chunk=replace(h.chunk, effective_date=date(year, 1, 1)))

    newer_old = dated(
        version("terms-2021.md", 0.9, 0, "Advertising", superseded_by="terms.md"), 2021
    )
    other = version("other.md", 0.8, 0, "Part 0")
    other_next = version("other.md", 0.75, 1, "Part 1")
    named = dated(version("terms-2019.md", 0.6, 0, "Pages", superseded_by="terms.md"), 2019)
    successor = version("terms.md", 0.1, 0, "Advertising")
    hits = [newer_old, other, other_next, named, successor]
    kept, dropped = cut(hits, 0.4, 3, asked_for=VersionRequest(before=2020, older=True))
    # 2021 is not the version asked for; its successor's section stands in, below the bar.
    assert "terms-2021.md#0" in ids(dropped)
    assert ids(kept) == ["other.md#0", "other.md#1", "terms-2019.md#0"]
    assert "terms.md#0" in ids(dropped)
