"""The visibility rule, attacked from each side: level, groups, unknowns, no principal."""

import pytest

from docent.access import readable_levels, visible
from docent.contracts import Principal

EMPLOYEE = Principal("e1", "employee")
CONFIDENTIAL = Principal("c1", "confidential", frozenset({"hr"}))


@pytest.mark.parametrize(
    ("principal", "level", "groups", "expected"),
    [
        (EMPLOYEE, "public", (), True),
        (EMPLOYEE, "employee", (), True),
        (EMPLOYEE, "confidential", (), False),
        (EMPLOYEE, "restricted", (), False),
        (CONFIDENTIAL, "confidential", (), True),
        (CONFIDENTIAL, "confidential", ("hr",), True),
        (CONFIDENTIAL, "confidential", ("legal",), False),
        (CONFIDENTIAL, "employee", ("legal", "hr"), True),
        (EMPLOYEE, "employee", ("hr",), False),  # level alone is not enough
        (CONFIDENTIAL, "restricted", ("hr",), False),  # groups alone are not enough
        (EMPLOYEE, "secret", (), False),  # unknown chunk level: deny
        (Principal("x", "god-mode"), "public", (), False),  # unknown clearance: deny
        (None, "public", (), False),  # nobody: deny
        (EMPLOYEE, None, (), False),  # chunk without a level: deny
    ],
)
def test_visible(principal, level, groups, expected) -> None:  # type: ignore[no-untyped-def]
    assert visible(principal, level, groups) is expected


def test_custom_levels() -> None:
    levels = ("open", "internal", "secret")
    assert visible(Principal("u", "internal"), "open", (), levels)
    assert not visible(Principal("u", "internal"), "secret", (), levels)
    assert not visible(Principal("u", "employee"), "open", (), levels)


def test_readable_levels() -> None:
    assert readable_levels(EMPLOYEE) == ["public", "employee"]
    assert readable_levels(Principal("x", "nope")) == []
