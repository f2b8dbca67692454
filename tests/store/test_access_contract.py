"""The access filter inside each adapter says exactly what ``docent.access.visible`` says,
on every combination of chunk level, chunk groups, status, clearance and asker groups;
with over-level, group-only and no-match probes (no hit above the asker, ever)."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from docent.access import DEFAULT_LEVELS, visible
from docent.contracts import Chunk, Principal
from store import AccessFilter
from store.protocol import ChunkIndex
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.retrieval.corpus import make_chunk
from tests.store.adapters import write

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
EMB = HashingEmbedder(64)


@pytest.fixture
def filled(index: ChunkIndex) -> ChunkIndex:
    write(index, EMB, CHUNKS)
    return index


def expected(principal: Principal, include_pending: bool, excluded: frozenset[str]) -> set[str]:
    return {
        c.chunk_id
        for c in CHUNKS
        if visible(principal, c.access_level, c.groups, DEFAULT_LEVELS)
        and (include_pending or c.status != "pending")
        and c.chunk_id not in excluded
    }


def seen(index: ChunkIndex, access: AccessFilter) -> tuple[set[str], set[str], int]:
    """What the filter lets through: by scroll, by vector search (every point), by count."""
    scrolled = {c.chunk_id for c in index.scroll(access=access)}
    vector = EMB.embed(["policy text for readers"])[0]
    searched = {c.chunk_id for c, _ in index.search(vector, access, len(CHUNKS) + 5)}
    return scrolled, searched, index.count(access=access)


@pytest.mark.parametrize("include_pending", [False, True])
def test_filter_agrees_with_visible_everywhere(filled: ChunkIndex, include_pending: bool) -> None:
    for clearance, groups in itertools.product(CLEARANCES, ASKER_GROUPS):
        principal = Principal("u", clearance, groups)
        want = expected(principal, include_pending, frozenset())
        access = AccessFilter.for_principal(
            principal, DEFAULT_LEVELS, include_pending=include_pending
        )
        scrolled, searched, count = seen(filled, access)
        assert scrolled == want, (clearance, groups)
        assert searched == want, (clearance, groups)
        assert count == len(want)
        assert {c.chunk_id for c in CHUNKS if access.allows(c)} == want


def test_probes_over_level_group_only_and_no_match(filled: ChunkIndex) -> None:
    vector = EMB.embed(["Policy text for restricted readers, groups ('hr',)"])[0]
    employee = AccessFilter.for_principal(
        Principal("e", "employee"), DEFAULT_LEVELS, include_pending=False
    )
    # Over-level probe: the nearest point is restricted; an employee never gets it.
    hits = filled.search(vector, employee, 200)
    assert hits and all(c.access_level in ("public", "employee") for c, _ in hits)
    # Group-only probe: a group the asker lacks hides the chunk even at their level.
    assert all(not c.groups for c, _ in hits)
    hr = AccessFilter.for_principal(
        Principal("h", "employee", frozenset({"hr"})), DEFAULT_LEVELS, include_pending=False
    )
    groups_seen = {c.groups for c, _ in filled.search(vector, hr, 200)}
    assert ("hr",) in groups_seen and ("legal",) not in groups_seen
    # No-match probe: a clearance nobody configured reads nothing, by any road.
    nobody = AccessFilter.for_principal(
        Principal("x", "RESTRICTED", frozenset({"hr", "legal"})),
        DEFAULT_LEVELS,
        include_pending=True,
    )
    assert nobody.denies_all
    assert seen(filled, nobody) == (set(), set(), 0)


def test_excluded_chunks_are_left_out(filled: ChunkIndex) -> None:
    principal = Principal("u", "restricted", frozenset({"hr", "legal"}))
    excluded = frozenset(
        {"employee-open-current.md#0", "public-hr-superseded.md#0", "not-indexed.md#9"}
    )
    want = expected(principal, True, excluded)
    access = AccessFilter.for_principal(
        principal, DEFAULT_LEVELS, include_pending=True, exclude_chunk_ids=excluded
    )
    scrolled, searched, _ = seen(filled, access)
    assert scrolled == searched == want
    assert not excluded & want


def test_configured_levels_replace_the_defaults(filled: ChunkIndex) -> None:
    levels = ("public", "employee", "secret")  # here "secret" is a real, top level
    top = AccessFilter.for_principal(Principal("s", "secret"), levels, include_pending=False)
    got, _, _ = seen(filled, top)
    assert "secret-open-current.md#0" in got
    assert not any(cid.startswith(("confidential-", "restricted-")) for cid in got)
    conf = AccessFilter.for_principal(Principal("c", "confidential"), levels, include_pending=True)
    assert seen(filled, conf) == (set(), set(), 0)


def test_a_chunk_naming_no_groups_is_open_however_it_is_written(index: ChunkIndex) -> None:
    # An empty list is what ingest writes; the filter treats it as "no groups".
    open_chunk = make_chunk("bare.md", 0, "A bare payload.", access_level="employee")
    write(index, EMB, [open_chunk])
    employee = AccessFilter.for_principal(
        Principal("e", "employee"), DEFAULT_LEVELS, include_pending=False
    )
    public = AccessFilter.for_principal(
        Principal("p", "public"), DEFAULT_LEVELS, include_pending=False
    )
    assert seen(index, employee)[0] == {"bare.md#0"}
    assert seen(index, public) == (set(), set(), 0)


@pytest.mark.parametrize("include_pending", [False, True])
def test_a_filter_narrowed_to_one_status_keeps_every_other_rule(
    filled: ChunkIndex, include_pending: bool
) -> None:
    # A past-version question also searches the superseded passages alone: the narrowing
    # must never widen what the asker may read (levels, groups, pending, exclusions).
    excluded = frozenset({"employee-open-superseded.md#0"})
    for clearance, groups in itertools.product(CLEARANCES, ASKER_GROUPS):
        principal = Principal("u", clearance, groups)
        for status in STATUSES:
            want = {
                cid
                for cid in expected(principal, include_pending, excluded)
                if cid.endswith(f"-{status}.md#0")
            }
            access = dataclasses.replace(
                AccessFilter.for_principal(
                    principal,
                    DEFAULT_LEVELS,
                    include_pending=include_pending,
                    exclude_chunk_ids=excluded,
                ),
                status=status,
            )
            scrolled, searched, count = seen(filled, access)
            assert scrolled == searched == want, (clearance, groups, status)
            assert count == len(want)
            assert {c.chunk_id for c in CHUNKS if access.allows(c)} == want
    # Not vacuous: the top clearance reads superseded chunks of several levels and groups.
    top = AccessFilter.for_principal(
        Principal("r", "restricted", frozenset({"hr", "legal"})),
        DEFAULT_LEVELS,
        include_pending=False,
    )
    got, _, _ = seen(filled, dataclasses.replace(top, status="superseded"))
    assert {"public-open-superseded.md#0", "restricted-hr+legal-superseded.md#0"} <= got
    assert not any(cid.endswith(("-current.md#0", "-pending.md#0")) for cid in got)
