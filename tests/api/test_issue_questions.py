"""The questions employees asked in their own words (issue 13), through ``POST /api/ask``
over the real sample corpus, the bundled model and the default answerer, each as the user
who asked it: the right answer, or — for a confidential document asked by an employee — a
refusal that shows none of its text."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from docent.wiring import Services
from tests.api.conftest import build_settings
from tests.api.corpus import make_users

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SAMPLE = ROOT / "examples" / "policies"
SEVERANCE_TEXT = ("two weeks of base pay", "SV-ENH-3", "severance.pdf", "Standard package")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, bundled_embedder: Any) -> Iterator[Any]:
    # The day the sample's 2027 travel policy is still pending (statuses and later years
    # are read against it).
    services = Services(
        build_settings(tmp_path_factory.mktemp("issue13") / "data"),
        bundled_embedder,
        today=lambda: date(2026, 12, 7),
    )
    manifest = SAMPLE / "MANIFEST.csv"
    rows = manifest.read_text(encoding="utf-8").splitlines()[1:]
    job = services.ingestor.submit(
        [SAMPLE / row.split(",", 1)[0] for row in rows if row.strip()],
        root=SAMPLE,
        manifest=manifest,
    )
    services.ingestor.run(job)
    assert services.ingestor.job_status(job)["state"] == "succeeded"
    tokens = make_users(services)  # ada: employee; cy: confidential
    with TestClient(create_app(services), raise_server_exceptions=False) as test_client:
        yield lambda user, q: test_client.post(
            "/api/ask", json={"question": q}, headers={"Authorization": f"Bearer {tokens[user]}"}
        )
    services.close()


@pytest.mark.parametrize(
    ("user", "question", "expected"),
    [
        ("ada", "How many holiday days do I get a year?", "25 days"),
        ("ada", "How many days a week can I work remotely?", "fully remotely"),
        ("ada", "Can I work from Spain for a few weeks in the summer?", "30 working days"),
        (
            "ada",
            "A customer wants a refund 3 weeks after buying. Are we still allowed to give it?",
            "within 30 days",
        ),
        ("ada", "What's the daily allowance for food when I travel to Lisbon?", "€64"),
        ("ada", "Which EV charger at the office is the fastest?", "50 kW"),
        ("cy", "How much severance would I get if my role is made redundant?", "two weeks"),
        # The standard package's row, read as cells under their headers, states it too.
        ("cy", "What is the severance policy?", ("two weeks", "Weeks per year of service: 2")),
        ("ada", "What was the refund window under the 2022 policy?", "14 days"),
        # Tried in the browser (issue 26): its first excerpt held the answer while the
        # question was handed back.
        ("ada", "do I need a receipt for a 20 euro taxi?", "over €25"),
        # A user pass: "the documents you can read don't cover this" over the clause itself.
        ("ada", "What does clause 7.4 say?", "signed by the CEO"),
        ("ada", "What will the mileage rate be on 2027-03-01?", "€0.35 per km"),
        ("ada", "What will the mileage rate be in March 2027?", "€0.35 per km"),
    ],
)
def test_each_question_points_at_the_answer_first(
    client: Any, user: str, question: str, expected: str | tuple[str, ...]
) -> None:
    """The first screen points at the answer: a checked answer that holds it, or — when the
    answerer is not confident enough to say it — an excerpt of a closest passage that does.
    Never a wrong answer."""
    assert_points_at(client(user, question), expected)


def assert_points_at(response: Any, expected: str | tuple[str, ...]) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    wording = (expected,) if isinstance(expected, str) else expected
    if body["tier"] == "answer":
        assert body["outcome"] == "answered", body
        assert any(w in body["answer"] for w in wording), body
        assert body["citations"] and all(c["quote"] for c in body["citations"])
    else:
        assert body["tier"] == "probably_here", body
        assert body["answer"] is None
        excerpts = [c["excerpt"] or "" for c in body["closest"]]
        assert any(w in e for w in wording for e in excerpts), body
    return body


def test_a_version_before_the_current_one_is_answered_from_it_never_from_the_current(
    client: Any,
) -> None:
    # Tried in the browser (issue 26): this got the current 30-day rule, unmarked.
    body = client("ada", "what was the refund window before the 2025 refunds policy?").json()
    assert body["tier"] == "answer" and "14 days" in body["answer"], body
    statuses = {c["source"]: c["status"] for c in body["citations"]}
    assert statuses["refunds-2022.md"] == "superseded"
    assert body["answer"].startswith("Under the superseded version (effective 2022-04-01)")


def test_a_past_version_question_naming_another_part_is_handed_back_with_that_version(
    client: Any,
) -> None:
    """A user pass: "What did the Business plan add on top of Team under the old 2023
    pricing?" was answered, checked, with the 2023 Team plan's section. Now the question is
    handed back with the 2023 passages first, marked superseded, the Business plan's
    "adds audit logs and priority support" in view (change set 54)."""
    body = client(
        "ada", "What did the Business plan add on top of Team under the old 2023 pricing?"
    )
    body = body.json()
    assert body["tier"] == "probably_here" and body["answer"] is None, body
    first = body["closest"][0]
    assert first["source"] == "pricing-2023.md" and first["status"] == "superseded", first
    excerpts = " ".join(c["excerpt"] or "" for c in body["closest"])
    assert "adds audit logs and priority support" in excerpts


def test_a_year_a_pending_version_is_in_force_in_is_answered_from_it_beside_todays_rule(
    client: Any,
) -> None:
    """A user pass: "What will the hotel cap be in 2027?" was shown price lists (the year
    pulled them), never the 2027 travel policy, which the search left out as pending."""
    body = client("ada", "What will the mileage rate be in 2028?").json()
    assert body["tier"] == "answer", body
    first, second = body["answer"].split("\n")
    assert first.startswith("Not yet in force (effective 2027-06-01):") and "€0.42" in first
    assert second.startswith("In force until then (effective 2024-04-01):") and "€0.35" in second
    statuses = {c["source"]: c["status"] for c in body["citations"]}
    assert statuses == {"travel-2027.md": "pending", "expenses.md": "current"}
    hotels = assert_points_at(client("ada", "What will the hotel cap be in 2027?"), "€250")
    assert "travel-2027.md" in {c["source"] for c in hotels.get("closest") or hotels["citations"]}
    # Today's question is answered by today's rule.
    assert "€0.42" not in json.dumps(client("ada", "What is the mileage rate per km?").json())


def test_the_question_the_ask_page_suggests_points_at_its_answer(client: Any) -> None:
    page = (ROOT / "web" / "templates" / "ask.html").read_text(encoding="utf-8")
    suggested = re.search(r'placeholder="e\.g\. ([^"]+)"', page)
    assert suggested, "the ask page suggests no question"
    assert_points_at(client("ada", suggested.group(1)), "two days a week")


def test_the_old_version_is_marked_and_the_current_rule_shown_beside_it(client: Any) -> None:
    body = client("ada", "What was the refund window under the 2022 policy?").json()
    statuses = {c["source"]: c["status"] for c in body["citations"]}
    assert statuses["refunds-2022.md"] == "superseded"
    assert statuses.get("refunds.md") == "current"
    assert "Under the superseded version (effective 2022-04-01)" in body["answer"]


def test_a_table_row_is_shown_as_its_cells(client: Any) -> None:
    body = client("ada", "Which EV charger at the office is the fastest?").json()
    if body["tier"] == "answer":
        (table,) = [c["table"] for c in body["citations"] if c["table"]]
        assert table == {
            "header": ["Space", "Charger", "Power", "Connector"],
            "rows": [["B4", "ABB Terra DC", "50 kW", "CCS"]],
        }
    else:  # the row under its headers, first in its passage's excerpt
        assert body["closest"][0]["nearest"] == (
            "Space: B4; Charger: ABB Terra DC; Power: 50 kW; Connector: CCS"
        )


@pytest.mark.parametrize(
    "question",
    [
        "How much severance would I get if my role is made redundant?",
        "What is the severance policy?",
    ],
)
def test_an_employee_asking_about_severance_is_refused_without_its_text(
    client: Any, question: str
) -> None:
    response = client("ada", question)
    assert response.status_code == 200
    body = response.json()
    assert body["outcome"] != "answered"
    assert not any(text in response.text for text in SEVERANCE_TEXT)
    assert body["handoff"] is not None


def test_the_cap_of_the_tier_the_per_diem_table_gives_a_city_is_the_one_pointed_at(
    client: Any,
) -> None:
    """A user pass: "an extra night in Berlin" marked the Tier 2 cap; the per diem table
    says Berlin is Tier 1."""
    for city, cap, other in (("Berlin", "€220", "€160"), ("Porto", "€160", "€220")):
        body = client("ada", f"How much can I spend on a hotel night in {city}?").json()
        if body["tier"] == "answer":
            assert cap in body["answer"] and other not in body["answer"], body
        else:
            hotels = [c for c in body["closest"] if c["heading_path"][-1] == "Hotels"]
            assert hotels and cap in hotels[0]["nearest"], body


def test_a_past_version_quotes_the_rule_whose_bound_holds_the_amount_asked(client: Any) -> None:
    """A user pass: "… a refund of 800 euros?" got the 2022 team lead's "up to €500"."""
    body = client("ada", "Before the 2025 policy, who could approve a refund of 800 euros?").json()
    assert body["tier"] == "answer", body
    first = body["answer"].split("\n")[0]
    assert first.startswith("Under the superseded version (effective 2022-04-01)")
    assert "Refunds above €500 need finance approval" in first


def test_a_past_version_silent_on_the_condition_asked_is_not_quoted_as_its_answer(
    client: Any,
) -> None:
    """A user pass: the 2022 refunds policy has no rule on service failures; its 14-day
    window was quoted as a checked answer. Its passages and today's rule are shown instead;
    asked for the window itself, the 2022 rule is still the answer."""
    body = client(
        "ada",
        "Under the 2022 refunds policy, could a customer get money back after the refund "
        "window if we had an outage?",
    ).json()
    assert body["tier"] == "probably_here" and body["answer"] is None, body
    assert {c["source"] for c in body["closest"]} >= {"refunds-2022.md", "refunds.md"}
    assert any("service failure" in (c["excerpt"] or "") for c in body["closest"]), body
    # Session 25's user pass: only today's policy names the add-ons.
    addons = client("ada", "Under the 2022 refund policy, could marketplace add-ons be refunded?")
    assert addons.json()["tier"] == "probably_here", addons.json()
    window = client(
        "ada", "Under the 2022 refund policy, how many days did customers have to ask for a refund?"
    ).json()
    assert window["tier"] == "answer" and "within 14 days" in window["answer"], window
