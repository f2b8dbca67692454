"""Retrieval over the real sample corpus (examples/policies), ingested by the real pipeline:
the permission, time and code rules on documents nobody wrote for these tests, a new
ingest seen by a long-lived searcher, and per-stage latency written to test-output/."""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from docent.contracts import Embedder, Principal
from docent.wiring import Services
from generate.ask import ask_json
from retrieval.searcher import Searcher, SearchResult
from tests.retrieval.conftest import make_settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PUBLIC = Principal("p", "public")
EMPLOYEE = Principal("e", "employee")
CONFIDENTIAL = Principal("c", "confidential")
LEGAL_CONFIDENTIAL = Principal("l", "confidential", frozenset({"legal"}))
CONFIDENTIAL_SOURCES = {
    "salary-bands.docx",
    "severance.pdf",
    "performance-reviews.pdf",
    "restructuring-plan.md",
    "litigation-hold.md",
}
# Strings that exist only in confidential documents (examples/POLICIES.md).
CANARIES = ("92,000", "SV-ENH-3", "1.6x", "Project Juniper", "38 roles", "LH-2026-014", "Brannock")


def ingest(services: Services, folder: Path, manifest: Path | None = None) -> None:
    """The documents the manifest lists (not the corpus README, which names the canaries)."""
    ingestor = services.ingestor
    if manifest is not None:
        rows = manifest.read_text().splitlines()[1:]
        paths = [folder / row.split(",", 1)[0] for row in rows if row.strip()]
    else:
        paths = [folder]
    job = ingestor.submit(paths, root=folder, manifest=manifest)
    ingestor.run(job)
    status = ingestor.job_status(job)
    failed = [f for f in status["files"] if f["state"] != "indexed"]
    assert not failed, failed


@pytest.fixture(scope="module")
def services(
    tmp_path_factory: pytest.TempPathFactory, bundled_embedder: Embedder, sample_corpus: Path
) -> Iterator[Services]:
    # The day the sample's 2027 travel policy is still pending.
    services = Services(
        make_settings(tmp_path_factory.mktemp("sample") / "data"),
        bundled_embedder,
        today=lambda: date(2026, 12, 7),
    )
    ingest(services, sample_corpus, sample_corpus / "MANIFEST.csv")
    yield services
    services.close()


@pytest.fixture(scope="module")
def searcher(services: Services) -> Searcher:
    return services.searcher


@pytest.fixture(scope="module")
def sample_corpus() -> Path:
    return Path(__file__).resolve().parents[2] / "examples" / "policies"


def texts(result: SearchResult) -> str:
    return "\n".join(h.chunk.text for h in (*result.hits, *result.cut))


def sources(result: SearchResult, searcher: Searcher) -> set[str]:
    chunks = {c.chunk_id: c.source for c in searcher.keyword.chunks}
    return {chunks[cid] for stage in result.stages.values() for cid in stage} | {
        h.chunk.source for h in (*result.hits, *result.cut)
    }


@pytest.mark.parametrize(
    "query",
    [
        "What is the salary range for an L5 Staff Engineer in Ireland? €92,000–€118,000",
        "How much severance is paid under the enhanced package SV-ENH-3?",
        "What bonus multiplier comes with an Exceptional rating? 1.6x target bonus",
        "Project Juniper: how many roles does the restructuring plan cut? 38 roles",
        "Which law firm (Brannock & Vail) coordinates litigation hold LH-2026-014?",
    ],
)
def test_confidential_documents_never_reach_an_employee(searcher: Searcher, query: str) -> None:
    result = searcher.search(query, EMPLOYEE, threshold=-1.0)
    assert not CONFIDENTIAL_SOURCES & sources(result, searcher)
    assert not [c for c in CANARIES if c in texts(result)]
    assert len(result.hits) == searcher.top_k  # no starvation


def test_cleared_readers_find_them(searcher: Searcher) -> None:
    salary = "What is the salary range for an L5 Staff Engineer in Ireland?"
    assert searcher.search(salary, CONFIDENTIAL).hits[0].chunk.source == "salary-bands.docx"
    hold = "Which law firm is coordinating the litigation hold?"
    # Confidential clearance without the legal group still cannot read the hold...
    assert "litigation-hold.md" not in sources(searcher.search(hold, CONFIDENTIAL), searcher)
    # ...with it, it can.
    assert searcher.search(hold, LEGAL_CONFIDENTIAL).hits[0].chunk.source == "litigation-hold.md"


@pytest.mark.parametrize(
    ("query", "current", "superseded"),
    [
        ("What does the Team plan cost per month?", "pricing.md", "pricing-2023.md"),
        ("How much do customers save by paying annually?", "pricing.md", "pricing-2023.md"),
        (
            "Within how many days of purchase can a customer get a refund?",
            "refunds.md",
            "refunds-2022.md",
        ),
    ],
)
def test_superseded_versions_rank_below_current_ones(
    searcher: Searcher, query: str, current: str, superseded: str
) -> None:
    result = searcher.search(query, PUBLIC, threshold=-1.0, top_k=20)
    order = [h.chunk.source for h in (*result.hits, *result.cut)]
    # With no threshold and top 20 both versions are found; the current one ranks first …
    assert current in order and superseded in order, order
    assert order.index(current) < order.index(superseded)
    # … and, its successor being there, the old version is only a candidate, never passed on.
    assert superseded not in {h.chunk.source for h in result.hits}
    old = [hit.chunk for hit in result.cut if hit.chunk.source == superseded]
    assert {(c.status, c.superseded_by) for c in old} == {("superseded", current)}


def test_a_year_naming_a_version_is_read_from_dates_not_matched_as_a_word(
    services: Services,
) -> None:
    """Found in a user pass: "What was the hotel cap in 2023?" kept the Pricing 2023 table
    (the shared year outweighed the topic for the embedder) and offered it as where the
    answer probably is; the expenses policy holding the caps took effect in 2024, so that
    version is not in the documents. A question about the 2023 price list still gets it."""
    hotel = ask_json(services.asker.ask("What was the hotel cap in 2023?", EMPLOYEE))
    assert hotel["reason_code"] == "version_not_found" and hotel["answer"] is None
    assert all(not r["source"].startswith("pricing") for r in hotel["retrieved"])
    assert [c["source"] for c in hotel["closest"]][:1] == ["expenses.md"]
    seats = ask_json(
        services.asker.ask(
            "On the previous (2023) price list, how many users came bundled with Team?", EMPLOYEE
        )
    )
    assert seats["outcome"] == "answered"
    assert "5 seats" in str(seats["answer"]) and "10 seats" in str(seats["answer"])
    assert [c["status"] for c in seats["citations"]] == ["superseded", "current"]


def test_codes_are_found_exactly(searcher: Searcher) -> None:
    result = searcher.search(
        "Under Clause 7.3(b), who has to approve a three-year contract?", EMPLOYEE
    )
    top = result.hits[0]
    assert (top.chunk.source, top.bm25_rank) == ("procurement.md", 1)
    assert top.best_sentence is not None and "7.3(b)" in top.best_sentence
    result = searcher.search("What does P-12 require?", EMPLOYEE)
    assert result.hits[0].chunk.source == "procurement.md"
    assert "P-12" in result.hits[0].chunk.text


def test_pending_policy_only_when_asked(searcher: Searcher) -> None:
    query = "What will the mileage rate per km be under the travel policy?"
    default = searcher.search(query, EMPLOYEE, threshold=-1.0)
    assert "travel-2027.md" not in sources(default, searcher)
    asked = searcher.search(query, EMPLOYEE, include_pending=True)
    top = asked.hits[0]
    assert top.chunk.source == "travel-2027.md" and top.chunk.status == "pending"
    assert str(top.chunk.effective_date) == "2027-06-01"


@pytest.mark.parametrize(
    "question",
    ["What is the boiling point of mercury on Jupiter?", "Who won the 1998 football world cup?"],
)
def test_off_topic_questions_return_nothing(searcher: Searcher, question: str) -> None:
    assert searcher.search(question, EMPLOYEE).hits == ()


QUESTIONS = [
    "How many days of paid holiday does a full-time employee get each year?",
    "After how many days off sick do I need a medical certificate?",
    "For how many days per year am I allowed to work from a different country?",
    "What is the daily meal allowance when travelling to Lisbon?",
    "What is the maximum nightly hotel rate in a Tier 1 city?",
    "Under Clause 7.3(b), who has to approve a three-year supplier contract?",
    "How much does the company match on 401(k) contributions?",
    "How long is the probation period for new employees?",
    "What is the first-response target for a SEV1 incident?",
    "How long do we keep the CVs of applicants we didn't hire?",
    "How long does a password for a company account need to be?",
    "How often do laptops get replaced?",
    "Where do we assemble outside the Dublin office during a fire alarm?",
    "How many seats are included in the Team plan?",
    "Is jury duty paid leave?",
    "What is the salary range for an L5 Staff Engineer in Ireland?",
]


def test_latency_per_stage(searcher: Searcher, test_output: Path) -> None:
    for question in QUESTIONS:  # warm: model, keyword snapshot, caches
        searcher.search(question + " (warm-up)", EMPLOYEE)
    runs = [searcher.search(q, EMPLOYEE).timings_ms for q in QUESTIONS]
    stages = [s for s in runs[0] if s != "total"]
    for timings in runs:
        assert sum(timings[s] for s in stages) <= timings["total"] + 0.5
    report = {
        stage: {
            "median_ms": round(statistics.median(t[stage] for t in runs), 2),
            "max_ms": round(max(t[stage] for t in runs), 2),
        }
        for stage in [*stages, "total"]
    }
    report["chunks"] = {"count": len(searcher.keyword.chunks)}
    (test_output / "retrieval-latency.json").write_text(json.dumps(report, indent=2) + "\n")


def test_a_new_ingest_is_seen_without_restart(
    services: Services, searcher: Searcher, tmp_path: Path
) -> None:
    query = "Who issues the car park permits for the Dublin office, and when?"
    before = searcher.search(query, EMPLOYEE)
    assert "permits.md" not in sources(before, searcher)
    folder = tmp_path / "new"
    folder.mkdir()
    (folder / "permits.md").write_text(
        "---\ntitle: Parking\naccess_level: employee\n---\n\n# Parking\n\n## Permits\n\n"
        "Parking permits for the Dublin car park are issued by Facilities every January.\n"
    )
    ingest(services, folder)
    after = searcher.search(query, EMPLOYEE)
    assert after.index_version > before.index_version
    assert after.hits[0].chunk.source == "permits.md"
    assert after.hits[0].bm25_rank == 1
