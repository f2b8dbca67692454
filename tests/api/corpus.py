# ruff: noqa: E501
"""A small policy corpus with every access case (public, employee, confidential, a group-only
document, a superseded and a not-yet-in-force one) and the users the API tests sign in as.
Shared by the API tests and the browser tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from api.users import add_user, issue_token
from docent.db.session import session_scope
from docent.wiring import Services

SECRET = "ZEPHYR-17"  # appears only in the confidential document; must never reach ada

FILES = {
    "remote-work.md": """# Remote Work Policy

## Working from home

Employees may work from home up to three days per week with their manager's agreement.

## Equipment

The company provides a laptop and one monitor for home working.
""",
    "pricing.md": """# Pricing

## Plans

The Team plan costs 20 euros per user per month, billed annually.
""",
    "severance.md": f"""# Severance Guidelines

## Severance pay

Severance pay is two weeks of salary per year of service, under programme {SECRET}.
""",
    "litigation-hold.md": """# Litigation Hold

## Scope

A litigation hold suspends the deletion of every record named in the hold notice.
""",
    "travel-2022.md": """# Travel Policy 2022

## Per diem

The daily meal allowance for business travel is 30 euros.
""",
    "travel.md": """# Travel Policy

## Per diem

The daily meal allowance for business travel is 45 euros.
""",
    "parking-2099.md": """# Parking Policy 2099

## Parking permits

Parking permits for the new garage are issued by the facilities desk.
""",
}

MANIFEST = """path,effective_date,superseded_by,access_level,owner,groups,doc_type,title
remote-work.md,2024-09-01,,employee,People Ops,,policy,Remote Work Policy
pricing.md,2025-01-01,,public,Revenue,,pricing,Pricing
severance.md,2025-11-01,,confidential,People Ops,,guideline,Severance Guidelines
litigation-hold.md,2026-02-01,,confidential,Legal,legal,procedure,Litigation Hold
travel-2022.md,2022-01-01,travel.md,employee,Finance,,policy,Travel Policy 2022
travel.md,2025-01-01,,employee,Finance,,policy,Travel Policy
parking-2099.md,2099-01-01,,employee,Facilities,,policy,Parking Policy 2099
"""


def write_corpus(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (folder / name).write_text(text)
    (folder / "MANIFEST.csv").write_text(MANIFEST)
    return folder


def ingest_corpus(services: Services, folder: Path) -> str:
    ingestor = services.ingestor
    job_id = ingestor.submit(
        [folder / name for name in FILES],
        root=folder,
        manifest=folder / "MANIFEST.csv",
        overrides={},
        created_by="setup",
    )
    ingestor.run(job_id)
    status = ingestor.job_status(job_id)
    assert status["state"] == "succeeded", status
    return job_id


@dataclass(frozen=True)
class TestUser:
    __test__ = False  # a user to sign in as, not a test class for pytest to collect

    name: str
    clearance: str
    roles: tuple[str, ...]
    groups: tuple[str, ...] = ()
    password: str = "correct horse battery"


USERS = {
    "ada": TestUser("ada", "employee", ("asker",)),
    "cy": TestUser("cy", "confidential", ("asker",), ("legal",)),
    "eddie": TestUser("eddie", "employee", ("asker", "editor"), ("People Ops",)),
    "carla": TestUser("carla", "confidential", ("editor",), ("People Ops",)),
    "otto": TestUser("otto", "employee", ("operator",)),
    "admin": TestUser("admin", "restricted", ("admin",)),
    "norole": TestUser("norole", "employee", ()),
    "pubby": TestUser("pubby", "public", ("asker",)),
}


def make_users(services: Services) -> dict[str, str]:
    """Create the test users; return an API token for each."""
    return {user.name: add_test_user(services, user) for user in USERS.values()}


def add_test_user(services: Services, user: TestUser) -> str:
    """Create one user; return an API token for them."""
    with session_scope(services.sessions) as db:
        add_user(
            db,
            user.name,
            clearance=user.clearance,
            levels=services.settings.access_levels,
            groups=user.groups,
            roles=user.roles,
            password=user.password,
        )
        return issue_token(db, user.name, "tests")
