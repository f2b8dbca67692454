"""The keyword mask and the typed access filter say exactly what ``visible`` says, on every
combination of chunk level, chunk groups, status, clearance and asker groups. (Each index
adapter's translation of the filter is checked in ``tests/store/test_access_contract.py``.)"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from docent.access import DEFAULT_LEVELS, visible
from docent.contracts import Principal
from retrieval.permissions import AccessColumns, access_filter, chunk_allowed
from tests.store.test_access_contract import ASKER_GROUPS, CHUNKS, CLEARANCES


def expected_ids(principal: Principal, include_pending: bool, excluded: frozenset[str]) -> set[str]:
    return {
        c.chunk_id
        for c in CHUNKS
        if visible(principal, c.access_level, c.groups, DEFAULT_LEVELS)
        and (include_pending or c.status != "pending")
        and c.chunk_id not in excluded
    }


def mask_ids(
    principal: Principal,
    include_pending: bool,
    excluded: frozenset[str],
    levels: tuple[str, ...] = DEFAULT_LEVELS,
) -> set[str]:
    mask = AccessColumns.of(CHUNKS).mask(
        principal, levels, include_pending=include_pending, exclude_chunk_ids=excluded
    )
    assert mask.dtype == np.bool_ and mask.shape == (len(CHUNKS),)
    return {c.chunk_id for c, ok in zip(CHUNKS, mask, strict=True) if ok}


@pytest.mark.parametrize("include_pending", [False, True])
def test_mask_and_guard_agree_with_visible_everywhere(include_pending: bool) -> None:
    for clearance, groups in itertools.product(CLEARANCES, ASKER_GROUPS):
        principal = Principal("u", clearance, groups)
        want = expected_ids(principal, include_pending, frozenset())
        assert mask_ids(principal, include_pending, frozenset()) == want, (clearance, groups)
        guarded = {
            c.chunk_id
            for c in CHUNKS
            if chunk_allowed(c, principal, DEFAULT_LEVELS, include_pending=include_pending)
        }
        assert guarded == want


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


def test_excluded_chunks_are_left_out_of_the_mask() -> None:
    principal = Principal("u", "restricted", frozenset({"hr", "legal"}))
    excluded = frozenset(
        {"employee-open-current.md#0", "public-hr-superseded.md#0", "not-indexed.md#9"}
    )
    want = expected_ids(principal, True, excluded)
    assert mask_ids(principal, True, excluded) == want
    assert not excluded & want


def test_unknown_clearance_is_denied_everything() -> None:
    for principal in (
        Principal("x", "god-mode", frozenset({"hr", "legal"})),
        Principal("x", "", frozenset()),
        Principal("x", "RESTRICTED", frozenset()),  # level names are exact
    ):
        assert access_filter(principal, DEFAULT_LEVELS, include_pending=True).denies_all
        columns = AccessColumns.of(CHUNKS)
        assert not columns.mask(principal, DEFAULT_LEVELS, include_pending=True).any()


def test_configured_levels_replace_the_defaults() -> None:
    levels = ("public", "employee", "secret")  # here "secret" is a real, top level
    got = mask_ids(Principal("s", "secret"), False, frozenset(), levels)
    assert "secret-open-current.md#0" in got
    # confidential/restricted are unknown under these levels: denied even to the top level.
    assert not any(cid.startswith(("confidential-", "restricted-")) for cid in got)
    assert mask_ids(Principal("c", "confidential"), True, frozenset(), levels) == set()


@pytest.mark.parametrize("include_pending", [False, True])
def test_a_mask_narrowed_to_one_status_keeps_every_other_rule(include_pending: bool) -> None:
    excluded = frozenset({"employee-open-superseded.md#0"})
    columns = AccessColumns.of(CHUNKS)
    for clearance, groups in itertools.product(CLEARANCES, ASKER_GROUPS):
        principal = Principal("u", clearance, groups)
        base = access_filter(
            principal, DEFAULT_LEVELS, include_pending=include_pending, exclude_chunk_ids=excluded
        )
        for status in ("current", "pending", "superseded"):
            want = {
                c.chunk_id
                for c in CHUNKS
                if c.chunk_id in expected_ids(principal, include_pending, excluded)
                and c.status == status
            }
            mask = columns.mask_for(dataclasses.replace(base, status=status))
            got = {c.chunk_id for c, ok in zip(CHUNKS, mask, strict=True) if ok}
            assert got == want, (clearance, groups, status)
    wide = access_filter(Principal("r", "restricted"), DEFAULT_LEVELS, include_pending=False)
    mask = columns.mask_for(dataclasses.replace(wide, status="superseded"))
    assert mask.sum() > 1 and all(
        c.status == "superseded" for c, ok in zip(CHUNKS, mask, strict=True) if ok
    )
