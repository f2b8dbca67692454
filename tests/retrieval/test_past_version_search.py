"""A question about a past version also searches the superseded passages alone: in a
whole-index search today's wording of a section outnumbers the old one (the 2019 privacy
statement's "Cookies" section ranked below every current page on cookies, and "What did
the 2019 privacy statement say about cookies?" read "no passage of that version matches").
Real model, Qdrant local mode, real SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from docent.contracts import Embedder, Principal
from docent.wiring import Services
from retrieval.searcher import Searcher, SearchResult
from tests.retrieval.conftest import services_over, variant
from tests.retrieval.corpus import make_chunk

EMPLOYEE = Principal("e", "employee")
CONFIDENTIAL = Principal("c", "confidential")
OLD_ID = "privacy-2019.md#0"
SECRET_ID = "board-privacy-2018.md#0"

# Today's pages on cookies, enough to fill both legs of a shallow search.
CURRENT = [
    make_chunk(
        f"cookies-{i}.md",
        0,
        f"Privacy statement on cookies, part {i}: we set {kind} cookies to {why}.",
        heading=("Cookies", f"Part {i}"),
        effective_date=date(2025, 1, 1),
    )
    for i, (kind, why) in enumerate(
        [
            ("essential", "keep you signed in"),
            ("analytics", "count visits to each page"),
            ("preference", "remember your language"),
            ("security", "detect unusual sign-ins"),
            ("session", "hold your basket between pages"),
            ("marketing", "measure our campaigns, with your consent"),
        ]
    )
]
SUCCESSOR = make_chunk(
    "privacy.md",
    0,
    "Contact our data protection officer about any privacy request.",
    heading=("Privacy Statement", "Contact"),
    effective_date=date(2024, 6, 1),
)
OLD = make_chunk(
    "privacy-2019.md",
    0,
    "We use a small number of first-party trackers and never sell what they record.",
    heading=("Privacy Statement", "Our use of cookies and tracking"),
    status="superseded",
    superseded_by="privacy.md",
    effective_date=date(2019, 4, 19),
)
# An old version above an employee's access, worded to match the question best.
SECRET = make_chunk(
    "board-privacy-2018.md",
    0,
    "The 2019 privacy statement on cookies: board-only notes on the cookie vendor contract.",
    heading=("Board Privacy Notes", "Cookies"),
    access_level="confidential",
    status="superseded",
    superseded_by="privacy.md",
    effective_date=date(2018, 1, 1),
)


@pytest.fixture(scope="module")
def past_services(
    tmp_path_factory: pytest.TempPathFactory, bundled_embedder: Embedder
) -> Iterator[Services]:
    chunks = [*CURRENT, SUCCESSOR, OLD, SECRET]
    data_dir: Path = tmp_path_factory.mktemp("past-versions")
    with services_over(data_dir, bundled_embedder, chunks) as made:
        yield made


@pytest.fixture(scope="module")
def shallow(past_services: Services) -> Searcher:
    """Legs of three: today's pages on cookies fill them."""
    return variant(past_services, leg_top_n=3, fused_top_m=6, threshold=-1.0)


def seen(result: SearchResult) -> set[str]:
    ids = {cid for stage in result.stages.values() for cid in stage}
    return ids | {h.chunk.chunk_id for h in (*result.hits, *result.cut)}


def test_a_past_version_question_finds_the_old_passage_a_whole_index_search_misses(
    shallow: Searcher,
) -> None:
    # Not a version question: the legs are full of today's pages and the old one is absent.
    today = shallow.search("What does the privacy statement say about cookies?", EMPLOYEE)
    assert OLD_ID not in seen(today)
    asked = shallow.search("What did the 2019 privacy statement say about cookies?", EMPLOYEE)
    assert OLD_ID in [h.chunk.chunk_id for h in asked.hits]
    found = next(h for h in asked.hits if h.chunk.chunk_id == OLD_ID)
    assert found.chunk.status == "superseded"
    # Its leg ranks are those of the search over the superseded passages alone.
    assert found.bm25_rank == 1 or found.vector_rank == 1


def test_the_search_over_old_versions_keeps_the_askers_access(
    shallow: Searcher, caplog: pytest.LogCaptureFixture
) -> None:
    question = "What did the 2019 privacy statement say about cookies?"
    # Not vacuous: the confidential old version is found for a reader cleared for it ...
    assert SECRET_ID in seen(shallow.search(question, CONFIDENTIAL))
    # ... and never, in any stage, for an employee.
    result = shallow.search(question, EMPLOYEE)
    assert SECRET_ID not in seen(result)
    assert all("board-only" not in h.chunk.text for h in (*result.hits, *result.cut))
    # The narrowed filter did the work: the searcher's last check caught nothing.
    assert "permission filter let chunk" not in caplog.text
