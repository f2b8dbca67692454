"""Collections: a question naming one part of a multi-organisation corpus is answered from
that part alone (real bundled model, real embedded index)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from docent.contracts import Answered, Embedder, Principal
from docent.scope import Collections
from docent.settings import Settings
from docent.wiring import Services
from generate.ask import Asker
from generate.extractive import ExtractiveGenerator
from generate.trace import trace_payload
from tests.generate.answering import OPEN
from tests.retrieval.conftest import bump, make_settings, variant
from tests.retrieval.corpus import make_chunk, write_chunks

EMPLOYEE = Principal("emp", "employee", frozenset())
COLLECTIONS = Collections.from_mapping(
    {"acme-handbook/": ["Acme", "ACME Corp"], "globex/": ["Globex", "GX"]}
)


def test_a_question_names_collections_by_whole_words_in_any_case() -> None:
    assert [c.prefixes for c in COLLECTIONS.named("Does acme pay for jury duty?")] == [
        ("acme-handbook/",)
    ]
    assert COLLECTIONS.scope("At ACME corp, who approves leave?") is COLLECTIONS.collections[0]
    assert COLLECTIONS.scope("GX: how long is parental leave?") is COLLECTIONS.collections[1]
    # Part of a word is not a name; naming two collections, or none, scopes nothing.
    assert COLLECTIONS.scope("Is the acmeist style allowed?") is None
    assert COLLECTIONS.scope("Do Acme and Globex share a leave policy?") is None
    assert COLLECTIONS.scope("How long is parental leave?") is None
    assert Collections().scope("Does Acme pay for jury duty?") is None
    # A name given in capitals names only in capitals: "tell us" is not the US.
    countries = Collections.from_mapping({"us/": ["US"], "uk/": ["UK", "Britain"]})
    assert countries.scope("Can you tell us the US leave rules?") is countries.collections[0]
    assert countries.scope("can you tell us how leave works?") is None
    assert countries.scope("leave in britain?") is countries.collections[1]


def test_a_question_without_its_collections_names() -> None:
    acme = COLLECTIONS.collections[0]
    assert acme.unnamed("How many vacation days can I roll over at Acme?") == (
        "How many vacation days can I roll over?"
    )
    assert acme.unnamed("Does ACME Corp pay for jury duty?") == "Does pay for jury duty?"
    assert acme.unnamed("What is Acme's 401k match rate?") == "What is 401k match rate?"
    assert acme.unnamed("Is the acmeist style allowed at acme?") == "Is the acmeist style allowed?"
    # A question about the name itself keeps it; so does a word built on it.
    assert acme.unnamed("Acme?") == "Acme?"
    assert acme.unnamed("What does ACME Corp stand for?") == "What does ACME Corp stand for?"
    assert acme.unnamed("Is the rule Acme-wide?") == "Is the rule Acme-wide?"


def test_prefixes_sharing_a_name_are_one_collection() -> None:
    # A handbook and its converted copies elsewhere: "Acme" names both, so it scopes.
    merged = Collections.from_mapping(
        {"acme/": ["Acme"], "formats/acme__": ["ACME Corp", "acme"], "globex/": ["Globex"]}
    )
    acme = merged.scope("Does Acme pay for jury duty?")
    assert acme is not None and acme.prefixes == ("acme/", "formats/acme__")
    assert merged.scope("At ACME Corp, who approves leave?") is acme
    assert acme.holds("formats/acme__leave.docx") and acme.holds("acme/leave.md")
    assert not acme.holds("globex/leave.md") and not acme.holds("formats/globex__leave.md")
    assert acme.label == "acme/ formats/acme__"


def test_names_shared_only_in_part_are_refused() -> None:
    # "UK" on two organisations' pages would fuse them: say so instead.
    with pytest.raises(ValueError, match="shares names with 'gov-uk/' but not all of them"):
        Collections.from_mapping({"gov-uk/": ["UK", "GOV.UK"], "nhs/": ["NHS", "UK"]})
    # A folder of copies named after two collections belongs to neither.
    with pytest.raises(ValueError, match="shares names with 'a/' and 'b/'"):
        Collections.from_mapping({"a/": ["Acme"], "b/": ["Beta"], "formats/": ["Acme", "Beta"]})
    # Capitals keep their rule: "us" (any case) and "US" (capitals only) are different names.
    apart = Collections.from_mapping({"us/": ["US"], "team-us/": ["us"]})
    assert len(apart.collections) == 2


@pytest.mark.parametrize("bad", [{"": ["Acme"]}, {"acme/": []}, {"acme/": ["  "]}])
def test_a_collection_needs_a_prefix_and_a_name(bad: dict[str, list[str]]) -> None:
    with pytest.raises(ValueError, match="needs a source prefix and at least one name"):
        Collections.from_mapping(bad)
    with pytest.raises(ValueError, match="needs a source prefix and at least one name"):
        Settings(_env_file=None, collections=bad)  # type: ignore[call-arg]


@pytest.fixture(scope="module")
def two_orgs(
    tmp_path_factory: pytest.TempPathFactory, bundled_embedder: Embedder
) -> Iterator[Services]:
    services = Services(make_settings(tmp_path_factory.mktemp("scope")), bundled_embedder)
    write_chunks(
        services.index,
        bundled_embedder,
        [
            make_chunk(
                "acme-handbook/leave.md",
                0,
                "Acme employees get 25 days of paid vacation a year.",
                heading=("Acme Leave", "Vacation"),
            ),
            make_chunk(
                "acme-handbook/leave.md",
                1,
                "Acme offers 20 days of vacation at Acme every year. Your vacation time rolls "
                "over year to year with a maximum bank of 27 days.",
                heading=("Acme Leave", "Paid time off"),
            ),
            make_chunk(
                "globex/leave.md",
                0,
                "Jury duty is paid leave for as long as you serve. Globex staff get 20 days of "
                "vacation.",
                heading=("Globex Leave", "Jury duty and vacation"),
            ),
        ],
    )
    bump(services)
    yield services
    services.close()


def test_a_question_naming_one_organisation_searches_its_documents_only(
    two_orgs: Services,
) -> None:
    scoped = variant(two_orgs, collections=COLLECTIONS, threshold=0.0)
    found = scoped.search("Does Acme pay me while I'm on jury duty?", EMPLOYEE)
    assert found.scope == "acme-handbook/"
    assert {h.chunk.source for h in (*found.hits, *found.cut)} == {"acme-handbook/leave.md"}
    # Unscoped, the other organisation's jury-duty rule is the best match.
    everywhere = variant(two_orgs, threshold=0.0).search(
        "Does Acme pay me while I'm on jury duty?", EMPLOYEE
    )
    assert everywhere.scope is None and everywhere.hits[0].chunk.source == "globex/leave.md"
    # Naming no organisation searches everything, scope or not.
    neutral = scoped.search("How many vacation days do I get?", EMPLOYEE)
    assert neutral.scope is None
    assert {h.chunk.source for h in neutral.hits} == {
        "acme-handbook/leave.md",
        "globex/leave.md",
    }


def test_the_scope_is_in_the_trace(two_orgs: Services) -> None:
    asker = Asker(
        variant(two_orgs, collections=COLLECTIONS), ExtractiveGenerator(), None, budget_tokens=2000
    )
    result = asker.ask("Does Acme pay me while I'm on jury duty?", EMPLOYEE)
    assert trace_payload(result)["scope"] == "acme-handbook/"
    assert all(h.chunk.source.startswith("acme-handbook/") for h in result.hits)
    unscoped = asker.ask("Is jury duty paid?", EMPLOYEE)
    assert trace_payload(unscoped)["scope"] is None


def test_the_collections_name_does_not_pick_the_answer(two_orgs: Services) -> None:
    """Every passage of the collection shares its name: a sentence repeating it ("Acme
    offers 20 days of vacation at Acme") won on the name alone (a user pass: "How many
    vacation days can I roll over at 37signals?" was answered with the 20 days)."""
    asker = Asker(
        variant(two_orgs, collections=COLLECTIONS, threshold=0.0),
        ExtractiveGenerator(gate=OPEN),
        None,
        budget_tokens=2000,
    )
    result = asker.ask("How many vacation days can I roll over at Acme?", EMPLOYEE)
    assert result.scope == "acme-handbook/"
    assert result.prompt is not None
    assert result.prompt.question == "How many vacation days can I roll over?"
    assert isinstance(result.outcome, Answered) and "27 days" in result.outcome.answer
    assert "20 days" not in result.outcome.answer


def test_a_small_collection_is_not_crowded_out_of_the_legs(two_orgs: Services) -> None:
    # One candidate per leg: unscoped, the other organisation's rule fills it.
    narrow = variant(two_orgs, collections=COLLECTIONS, threshold=0.0, leg_top_n=1)
    found = narrow.search("Does Acme pay me while I'm on jury duty?", EMPLOYEE)
    assert [h.chunk.source for h in found.hits] == ["acme-handbook/leave.md"]
    unscoped = variant(two_orgs, threshold=0.0, leg_top_n=1)
    assert "acme-handbook/leave.md" not in {
        h.chunk.source
        for h in unscoped.search("Does Acme pay me while I'm on jury duty?", EMPLOYEE).hits
    }
