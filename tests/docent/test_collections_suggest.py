"""Collections read off a corpus: one per top-level folder, format copies with their
originals, named by the folder and the names its documents use and the others do not."""

from docent.scope import Collections, suggest_collections

ACME = "Acme Corp employees get 25 days of leave. Ask ACME-HR or the 4Ward team."
GLOBEX = "Globex staff get 20 days. The GLX People team answers leave questions, with 4Ward."
LONG = "Every employee gets twenty-five days of paid vacation in each calendar year at work."


def corpus() -> dict[str, str]:
    return {
        "acme-handbook/leave.md": f"# Leave\n{ACME}\n{LONG}",
        "acme-handbook/travel.md": "# Travel\nAcme Corp books trains. ACME-HR signs off.",
        "globex-policies/leave.md": f"# Leave\n{GLOBEX}",
        "globex-policies/pay.md": "# Pay\nGlobex pays monthly; GLX payroll runs on the 25th.",
        # A copy in another format: its name says whose it is.
        "formats/acme-handbook__leave.docx": f"{ACME}\n{LONG}",
        # A copy whose name does not: its text does.
        "formats/vacation-rules.pdf": f"{LONG}\nAcme Corp",
    }


def test_one_collection_per_folder_named_by_the_folder_and_its_own_names() -> None:
    suggested = suggest_collections(corpus())
    # "ACME" is the folder's own word; "4Ward" is in both organisations' pages, and "25th"
    # is a date: neither names one.
    assert suggested["acme-handbook/"] == ["acme"]
    assert suggested["globex-policies/"] == ["globex", "GLX"]
    # The copies join their originals; the folder of copies is no collection.
    assert suggested["formats/"] == ["acme"]
    assert len(suggested) == 3


def test_copies_of_two_collections_in_one_folder_are_named_one_by_one() -> None:
    docs = corpus() | {"formats/globex-policies__leave.pdf": f"# Leave\n{GLOBEX}"}
    suggested = suggest_collections(docs)
    assert "formats/" not in suggested  # it would take in the other's copy
    assert suggested["formats/acme-handbook__leave.docx"] == ["acme"]
    assert suggested["formats/vacation-rules.pdf"] == ["acme"]
    assert suggested["formats/globex-policies__leave.pdf"] == ["globex", "GLX"]
    collections = Collections.from_mapping(suggested)
    assert len(collections.collections) == 2  # prefixes sharing a name are one collection


def test_the_suggestion_scopes_questions_as_written() -> None:
    collections = Collections.from_mapping(suggest_collections(corpus()))
    acme = collections.scope("Does Acme pay for jury duty?")
    assert acme is not None
    assert acme.holds("formats/acme-handbook__leave.docx") and acme.holds("acme-handbook/x.md")
    globex = collections.scope("who do I ask in GLX about leave?")
    assert globex is not None and globex.holds("globex-policies/leave.md")


def test_a_corpus_in_one_folder_or_none_has_no_collections() -> None:
    assert suggest_collections({"handbook/leave.md": ACME, "handbook/pay.md": GLOBEX}) == {}
    assert suggest_collections({"leave.md": ACME, "pay.md": GLOBEX}) == {}


def test_a_name_two_folders_share_names_neither() -> None:
    docs = {
        "acme-handbook/leave.md": "Leave at Acme: ask ACMEHR.",
        "acme-policies/pay.md": "Pay at Acme: the PAYDESK team.",
    }
    suggested = suggest_collections(docs)
    assert suggested == {"acme-handbook/": ["ACMEHR"], "acme-policies/": ["PAYDESK"]}
    Collections.from_mapping(suggested)  # a value the setting accepts
