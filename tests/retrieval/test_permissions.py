"""The permission filter (Qdrant) and the keyword mask say exactly what ``visible`` says,
on every combination of chunk level, chunk groups, status, clearance and asker groups."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import pytest
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from docent.access import DEFAULT_LEVELS, visible
from docent.contracts import Chunk, Principal
from ingest.embedding import HashingEmbedder
from ingest.vector_store import QdrantIndex
from retrieval.permissions import deny_all, keyword_mask, qdrant_filter
from tests.retrieval.corpus import make_chunk, write_chunks

CHUNK_LEVELS = (*DEFAULT_LEVELS, "secret")  # "secret" is not a configured level
CHUNK_GROUPS = ((), ("hr",), ("legal",), ("hr", "legal"))
STATUSES = ("current", "pending", "superseded")
CLEARANCES = (*DEFAULT_LEVELS, "god-mode")
ASKER_GROUPS: tuple[frozenset[str], ...] = (
    frozenset(),
    frozenset({"hr"}),
    frozenset({"legal"}),
    frozenset({"hr", "legal"}),
    frozenset({"sales"}),
)

CHUNKS: tuple[Chunk, ...] = tuple(
    make_chunk(
        f"{level}-{'+'.join(groups) or 'open'}-{status}.md",
        0,
        f"Policy text for {level} readers, groups {groups}, status {status}.",
        access_level=level,
        groups=groups,
        status=status,
    )
    for level, groups, status in itertools.product(CHUNK_LEVELS, CHUNK_GROUPS, STATUSES)
)
EMBEDDER = HashingEmbedder(64)


@pytest.fixture(scope="module")
def index() -> Iterator[QdrantIndex]:
    client = QdrantClient(":memory:")
    index = QdrantIndex(client, "acl", EMBEDDER.model_name, EMBEDDER.dimension)
    index.ensure_collection()
    write_chunks(index, EMBEDDER, CHUNKS)
    yield index
    client.close()


def expected_ids(principal: Principal, include_pending: bool, excluded: frozenset[str]) -> set[str]:
    return {
        c.chunk_id
        for c in CHUNKS
        if visible(principal, c.access_level, c.groups, DEFAULT_LEVELS)
        and (include_pending or c.status != "pending")
        and c.chunk_id not in excluded
    }


def filtered_ids(index: QdrantIndex, query_filter: qm.Filter) -> set[str]:
    return {c.chunk_id for c in index.scroll_chunks(query_filter)}


def vector_ids(index: QdrantIndex, query_filter: qm.Filter) -> set[str]:
    vector = EMBEDDER.embed(["policy text for readers"])[0]
    return {c.chunk_id for c, _ in index.search(vector, query_filter, limit=len(CHUNKS))}


def mask_ids(principal: Principal, include_pending: bool, excluded: frozenset[str]) -> set[str]:
    mask = keyword_mask(
        CHUNKS,
        principal,
        DEFAULT_LEVELS,
        include_pending=include_pending,
        exclude_chunk_ids=excluded,
    )
    assert mask.dtype == np.bool_ and mask.shape == (len(CHUNKS),)
    return {c.chunk_id for c, ok in zip(CHUNKS, mask, strict=True) if ok}


@pytest.mark.parametrize("include_pending", [False, True])
@pytest.mark.parametrize("clearance", CLEARANCES)
def test_filter_and_mask_agree_with_visible_everywhere(
    index: QdrantIndex, clearance: str, include_pending: bool
) -> None:
    for groups in ASKER_GROUPS:
        principal = Principal("u", clearance, groups)
        want = expected_ids(principal, include_pending, frozenset())
        acl = qdrant_filter(principal, DEFAULT_LEVELS, include_pending=include_pending)
        assert isinstance(acl, qm.Filter)
        assert filtered_ids(index, acl) == want, groups
        assert vector_ids(index, acl) == want, groups
        assert mask_ids(principal, include_pending, frozenset()) == want, groups


def test_the_exhaustive_grid_is_not_trivial() -> None:
    # Each side of the rule is exercised: some chunks visible, some hidden, per reason.
    hr_conf = Principal("u", "confidential", frozenset({"hr"}))
    seen = expected_ids(hr_conf, False, frozenset())
    assert "employee-open-current.md#0" in seen
    assert "confidential-hr-current.md#0" in seen
    assert "employee-hr+legal-current.md#0" in seen
    assert "confidential-legal-current.md#0" not in seen  # groups do not intersect
    assert "restricted-open-current.md#0" not in seen  # level above clearance
    assert "employee-open-pending.md#0" not in seen  # not yet effective
    assert "secret-open-current.md#0" not in expected_ids(
        Principal("r", "restricted", frozenset({"hr", "legal"})), True, frozenset()
    )  # unknown chunk level


def test_excluded_chunks_are_left_out_of_both_shapes(index: QdrantIndex) -> None:
    principal = Principal("u", "restricted", frozenset({"hr", "legal"}))
    excluded = frozenset(
        {"employee-open-current.md#0", "public-hr-superseded.md#0", "not-indexed.md#9"}
    )
    want = expected_ids(principal, True, excluded)
    acl = qdrant_filter(principal, DEFAULT_LEVELS, include_pending=True, exclude_chunk_ids=excluded)
    assert filtered_ids(index, acl) == want
    assert vector_ids(index, acl) == want
    assert mask_ids(principal, True, excluded) == want
    assert not excluded & want


def test_unknown_clearance_is_denied_everything(index: QdrantIndex) -> None:
    for principal in (
        Principal("x", "god-mode", frozenset({"hr", "legal"})),
        Principal("x", "", frozenset()),
        Principal("x", "RESTRICTED", frozenset()),  # level names are exact
    ):
        acl = qdrant_filter(principal, DEFAULT_LEVELS, include_pending=True)
        assert acl == deny_all()
        assert filtered_ids(index, acl) == set()
        assert vector_ids(index, acl) == set()
        assert index.count(acl) == 0
        assert not keyword_mask(CHUNKS, principal, DEFAULT_LEVELS, include_pending=True).any()


def test_configured_levels_replace_the_defaults(index: QdrantIndex) -> None:
    levels = ("public", "employee", "secret")  # here "secret" is a real, top level
    top = Principal("s", "secret")
    acl = qdrant_filter(top, levels, include_pending=False)
    got = filtered_ids(index, acl)
    assert "secret-open-current.md#0" in got
    # confidential/restricted are unknown under these levels: denied even to the top level.
    assert not any(cid.startswith(("confidential-", "restricted-")) for cid in got)
    mask = keyword_mask(CHUNKS, top, levels, include_pending=False)
    assert {c.chunk_id for c, ok in zip(CHUNKS, mask, strict=True) if ok} == got
    # A clearance valid under the default levels but not these is denied.
    assert (
        filtered_ids(
            index, qdrant_filter(Principal("c", "confidential"), levels, include_pending=True)
        )
        == set()
    )


def test_a_point_without_groups_in_its_payload_is_open(index: QdrantIndex) -> None:
    # Payloads written by another tool may omit the field or set it to null.
    chunk = make_chunk("bare.md", 0, "A bare payload.", access_level="employee")
    for n, groups_value in enumerate((None, "missing")):
        payload = chunk.to_payload() | {"chunk_id": f"bare.md#{n}"}
        if groups_value == "missing":
            payload.pop("groups")
        else:
            payload["groups"] = groups_value
        index.client.upsert(
            index.collection,
            points=[
                qm.PointStruct(
                    id=900 + n,
                    vector={
                        "chunk": EMBEDDER.embed(["bare"])[0].tolist(),
                        "sentences": EMBEDDER.embed(["bare"]).tolist(),
                    },
                    payload=payload,
                )
            ],
        )
    try:
        employee = Principal("e", "employee")
        got = filtered_ids(index, qdrant_filter(employee, DEFAULT_LEVELS, include_pending=False))
        assert {"bare.md#0", "bare.md#1"} <= got
        public = Principal("p", "public")
        got = filtered_ids(index, qdrant_filter(public, DEFAULT_LEVELS, include_pending=False))
        assert not {"bare.md#0", "bare.md#1"} & got
    finally:
        index.client.delete(index.collection, points_selector=[900, 901])
