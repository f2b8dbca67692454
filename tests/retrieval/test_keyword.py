"""The keyword leg: mask before top-k, no zero-score hits, persistence keyed by index
version, reload and rebuild."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from docent.access import DEFAULT_LEVELS
from docent.contracts import Principal
from retrieval.errors import KeywordIndexError
from retrieval.keyword import KeywordIndex, build_snapshot
from retrieval.permissions import AccessColumns
from store.edge import EdgeIndex
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.retrieval.corpus import make_chunk, write_chunks

EMBEDDER = HashingEmbedder(64)
EMPLOYEE = Principal("e", "employee")
SECRET = "The executive bonus pool is twelve percent of base salary and pays out in March."
CHUNKS = (
    *(
        make_chunk("bonus.md", n, f"{SECRET} Note {n}.", access_level="confidential")
        for n in range(6)
    ),
    make_chunk("pay.md", 0, "Salaries are reviewed every March; the pool for rises is set then."),
    make_chunk("referral.md", 0, "A referral bonus of €2,000 is paid after probation."),
    make_chunk("procurement.md", 0, "Under Clause 7.3(b) suppliers sign the data addendum."),
    make_chunk(
        "benefits.md",
        0,
        "We match 401(k) contributions up to 4%.",
        heading=("Benefits", "Retirement savings"),
    ),
    make_chunk("leave.md", 0, "Employees get 25 days of annual leave."),
)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[EdgeIndex]:
    index = EdgeIndex(tmp_path / "index" / "kw", EMBEDDER.model_name, EMBEDDER.dimension)
    write_chunks(index, EMBEDDER, CHUNKS)
    yield index
    index.close()


def search(kw: KeywordIndex, query: str, principal: Principal, limit: int) -> list[str]:
    mask = AccessColumns.of(kw.chunks).mask(principal, DEFAULT_LEVELS, include_pending=False)
    return [c.chunk_id for c, _ in kw.search(query, mask, limit)]


def test_mask_is_applied_before_top_k(index: EdgeIndex, data_dir: Path) -> None:
    kw = KeywordIndex(index, data_dir)
    kw.refresh(1)
    # Unmasked, the six confidential chunks own the top of the ranking...
    everything = np.ones(len(kw.chunks), dtype=np.bool_)
    top = [c.chunk_id for c, _ in kw.search(SECRET, everything, 6)]
    assert all(cid.startswith("bonus.md#") for cid in top)
    # ...so a post-filter would leave an employee nothing; the mask leaves them the two
    # visible chunks that share words with the query, and no trace of the others.
    got = search(kw, SECRET, EMPLOYEE, 2)
    assert sorted(got) == ["pay.md#0", "referral.md#0"]
    assert search(kw, SECRET, Principal("c", "confidential"), 2)[0].startswith("bonus.md#")


def test_chunks_sharing_no_term_are_never_hits(index: EdgeIndex, data_dir: Path) -> None:
    kw = KeywordIndex(index, data_dir)
    kw.refresh(1)
    assert search(kw, "annual leave", EMPLOYEE, 50) == ["leave.md#0"]
    assert search(kw, "what is the", EMPLOYEE, 50) == []  # stop words only
    assert search(kw, "zeppelin", EMPLOYEE, 50) == []
    results = kw.search("march", np.ones(len(kw.chunks), dtype=np.bool_), 50)
    assert results and all(score > 0 for _, score in results)


def test_codes_and_heading_paths_are_searchable(index: EdgeIndex, data_dir: Path) -> None:
    kw = KeywordIndex(index, data_dir)
    kw.refresh(1)
    assert search(kw, "7.3(b)", EMPLOYEE, 3)[0] == "procurement.md#0"
    assert search(kw, "401(k)", EMPLOYEE, 3)[0] == "benefits.md#0"
    assert search(kw, "retirement savings", EMPLOYEE, 3) == ["benefits.md#0"]  # heading only


def test_snapshot_is_persisted_per_version_and_reloaded(index: EdgeIndex, data_dir: Path) -> None:
    kw = KeywordIndex(index, data_dir)
    kw.refresh(1)
    path = data_dir / "keyword" / "kw-v1.pkl"
    assert kw.path(1) == path and path.exists()
    # Change a chunk's text in Qdrant without a version bump: a second process at the same
    # version must serve the file, proving it loaded rather than rebuilt.
    index.set_payload("leave.md", {"text": "Employees get 30 days of holiday."})
    second = KeywordIndex(index, data_dir)
    second.refresh(1)
    assert second.version == 1
    assert search(second, "annual leave", EMPLOYEE, 5) == ["leave.md#0"]
    assert search(second, "holiday", EMPLOYEE, 5) == []
    # The file holds the built statistics: the loaded index scores exactly as the built one.
    built, loaded = kw.snapshot, second.snapshot
    assert loaded.bm25 is not built.bm25
    mask = np.ones(len(built.chunks), dtype=np.bool_)
    for query in ("annual leave", "expenses receipt taxi", "laptop"):
        assert loaded.search(query, mask, 10) == built.search(query, mask, 10)
    # The version moves: the change is picked up.
    second.refresh(2)
    assert search(second, "holiday", EMPLOYEE, 5) == ["leave.md#0"]
    assert (data_dir / "keyword" / "kw-v2.pkl").exists()


def test_a_new_ingest_is_seen_after_the_version_moves(index: EdgeIndex, data_dir: Path) -> None:
    kw = KeywordIndex(index, data_dir)
    first = kw.refresh(1)
    assert kw.refresh(1) is first  # same version: no I/O, same snapshot
    new = make_chunk("parking.md", 0, "Staff parking permits are issued by Facilities.")
    write_chunks(index, EMBEDDER, [new])
    assert search(kw, "parking permits", EMPLOYEE, 5) == []  # not yet: version unchanged
    kw.refresh(2)
    assert search(kw, "parking permits", EMPLOYEE, 5) == ["parking.md#0"]
    index.delete_source("parking.md")
    kw.refresh(3)
    assert search(kw, "parking permits", EMPLOYEE, 5) == []
    # Old files are pruned: the current one and one before it stay.
    files = sorted(p.name for p in (data_dir / "keyword").glob("*.pkl"))
    assert files == ["kw-v2.pkl", "kw-v3.pkl"]


def test_past_the_inline_size_the_previous_version_serves_while_the_new_one_builds(
    index: EdgeIndex, data_dir: Path
) -> None:
    kw = KeywordIndex(index, data_dir, inline_max_chunks=0)
    assert kw.refresh(1).version == 1  # nothing to serve yet: built inline
    write_chunks(index, EMBEDDER, [make_chunk("parking.md", 0, "Parking permits from Facilities.")])
    served = kw.refresh(2)  # returns at once with the previous version...
    assert served.version == 1
    kw.wait_built(timeout=60)  # ...while version 2 builds on a background thread
    assert kw.refresh(2).version == 2
    assert search(kw, "parking permits", EMPLOYEE, 5) == ["parking.md#0"]
    # Asked to wait (app start), it builds inline whatever the size.
    index.delete_source("parking.md")
    assert kw.refresh(3, wait=True).version == 3
    assert search(kw, "parking permits", EMPLOYEE, 5) == []
    kw.close()


def test_stale_or_corrupt_files_are_rebuilt(index: EdgeIndex, data_dir: Path) -> None:
    kw = KeywordIndex(index, data_dir)
    kw.refresh(5)
    # A database reset reuses version 5 over a different corpus: the count guard notices.
    index.delete_source("leave.md")
    again = KeywordIndex(index, data_dir)
    again.refresh(5)
    assert "leave.md#0" not in {c.chunk_id for c in again.chunks}
    # A truncated file is rebuilt, not trusted.
    kw.path(6).parent.mkdir(parents=True, exist_ok=True)
    kw.path(6).write_bytes(b"\x80\x05not a pickle")
    third = KeywordIndex(index, data_dir)
    third.refresh(6)
    assert len(third.chunks) == len(CHUNKS) - 1
    assert kw.path(6).read_bytes()[:2] == b"\x80\x05" and kw.path(6).stat().st_size > 100


def test_bad_use_is_refused(index: EdgeIndex, data_dir: Path) -> None:
    kw = KeywordIndex(index, data_dir)
    with pytest.raises(KeywordIndexError, match="refresh"):
        kw.search("leave", np.ones(1, dtype=np.bool_), 5)
    kw.refresh(1)
    with pytest.raises(ValueError, match="mask has shape"):
        kw.search("leave", np.ones(3, dtype=np.bool_), 5)
    with pytest.raises(ValueError, match="limit"):
        kw.search("leave", np.ones(len(kw.chunks), dtype=np.bool_), 0)
    with pytest.raises(ValueError, match="k1"):
        KeywordIndex(index, data_dir, b=2.0)
    with pytest.raises(ValueError, match="min_free_disk_mb"):
        KeywordIndex(index, data_dir, min_free_disk_mb=-1)


def test_an_empty_collection_searches_to_nothing(data_dir: Path) -> None:
    empty = EdgeIndex(data_dir / "index" / "empty", EMBEDDER.model_name, EMBEDDER.dimension)
    kw = KeywordIndex(empty, data_dir)
    kw.refresh(0)
    assert kw.chunks == ()
    assert kw.search("leave", np.zeros(0, dtype=np.bool_), 5) == []
    empty.close()


def test_top_k_ordering_is_by_score_then_chunk_id() -> None:
    chunks = [make_chunk(f"d{i}.md", 0, "leave policy") for i in range(5)]
    chunks.append(make_chunk("z.md", 0, "leave policy leave leave"))
    snapshot = build_snapshot(chunks, 1)
    assert len(snapshot.chunks) == 6
    got = snapshot.search("leave", np.ones(6, dtype=np.bool_), 3)
    assert [c.chunk_id for c, _ in got] == ["z.md#0", "d0.md#0", "d1.md#0"]
    assert got[0][1] > got[1][1] == got[2][1]


def test_the_best_few_equal_the_head_of_the_full_order_at_every_cut_off() -> None:
    """Only the chunks at or above the cut-off's score are sorted: the same hits, in the
    same order, ties at the cut-off included, as sorting every match."""
    rng = np.random.default_rng(7)
    words = ["leave", "days", "carry", "over", "taxi", "receipt"]
    chunks = [
        make_chunk(f"d{i:03d}.md", 0, " ".join(rng.choice(words, size=int(rng.integers(1, 6)))))
        for i in range(120)
    ]
    snapshot = build_snapshot(chunks, 1)
    mask = rng.random(120) > 0.2
    everything = snapshot.search("leave taxi days", mask, 1000)  # every match: a full sort
    assert 50 < len(everything) < 120
    for limit in (1, 2, 5, 17, 50, len(everything) - 1):
        assert snapshot.search("leave taxi days", mask, limit) == everything[:limit]
