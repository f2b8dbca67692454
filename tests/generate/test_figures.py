import pytest

from generate.figures import answer_figures, block_figures, unsupported_figures


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("up to €1,000 per claim", {"amt:€:1000"}),
        ("save 15% or 15 percent", {"pct:15"}),
        ("claim €0.35 per km", {"amt:€:0.35"}),
        ("a 99.95% uptime commitment", {"pct:99.95"}),
        ("by 31 March 2025", {"date:2025-03-31"}),  # a full date is wanted as that date
        ("effective 2025-03-01", {"date:2025-03-01"}),
        ("in March 2025", {"month:2025-03", "num:2025"}),
        ("on March 1st", {"day:03-01"}),
        ("from 10:00 to 16:00", {"time:10:00", "time:16:00"}),
        ("20 weeks of leave", {"num:20"}),
        ("USD 500 or 500 euros", {"amt:$:500", "amt:€:500"}),
        ("CO2e and Tier 1", {"num:1"}),
        ("You may carry days", set()),
        ("no figures here", set()),
    ],
)
def test_answer_figures(text: str, expected: set[str]) -> None:
    assert answer_figures(text) == expected


def test_block_side_reads_generously() -> None:
    keys = block_figures("You receive two extra days, €1,000 and 15% off, from 2025-03-31.")
    assert {"num:2", "amt:€:1000", "num:1000", "pct:15", "num:15", "num:2025"} <= keys
    assert {"date:2025-03-31", "day:03-31"} <= keys


def test_paraphrased_figures_are_supported() -> None:
    block = ["A support team lead may approve refunds up to €1000, effective 1 March 2025."]
    assert unsupported_figures("Team leads approve up to €1,000 since 2025-03-01.", block) == []
    assert unsupported_figures("Leads approve 1000 euros.", block) == []


def test_a_different_figure_or_unit_is_not_supported() -> None:
    block = ["The primary caregiver receives 20 weeks of parental leave."]
    assert unsupported_figures("Primary caregivers get 26 weeks.", block) == ["num:26"]
    assert unsupported_figures("Primary caregivers get 20% more.", block) == ["pct:20"]
    assert unsupported_figures("It costs €20.", block) == ["amt:€:20"]
    assert unsupported_figures("From 2 April 2024.", block) == ["date:2024-04-02"]
