"""Upload metadata precedence: a field left empty means "not given", so a document's own
level (Markdown front matter, DOCX properties, HTML <meta>) decides, then the default; a
field may raise that level but never lower it; nobody may upload a document above their
own clearance. Each case checks the upload's answer, the registry and the index."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from docent.contracts import Principal
from tests.api.conftest import ApiEnv
from tests.api.corpus import TestUser, add_test_user, ingest_corpus, write_corpus
from tests.api.test_documents import upload
from tests.ingest.partition_support import build_docx

MD = b"""---
title: Merger Notes
access_level: confidential
---
# Merger Notes

## Timing

The merger with Juniper closes in the third quarter, pending the board vote.
"""
HTML = b"""<!doctype html><html><head><title>Board Pay</title>
<meta name="access-level" content="confidential"></head>
<body><h1>Board Pay</h1><h2>Fees</h2><p>Each board member receives a fixed annual fee.</p>
</body></html>
"""
NAMES = ("merger.md", "board.html", "equipment.docx")  # the DOCX says confidential too


@pytest.fixture
def files(tmp_path: Path) -> list[tuple[str, bytes]]:
    docx = build_docx(tmp_path / "equipment.docx", with_custom_properties=True).read_bytes()
    return [("merger.md", MD), ("board.html", HTML), ("equipment.docx", docx)]


def indexed_levels(env: ApiEnv, source: str) -> set[str]:
    return {c.access_level for c in env.services.index.chunks_of(source)}


def registry_level(env: ApiEnv, source: str) -> str | None:
    row = env.services.ingestor.registry.get(source)
    return None if row is None else row.access_level


@pytest.mark.parametrize(
    ("field", "expected", "origin"),
    [("", "confidential", "document"), ("confidential", "confidential", "form")]
    + [("restricted", "restricted", "form")],
    ids=["field-empty", "field-equal", "field-higher"],
)
def test_a_documents_own_level_holds_unless_the_form_raises_it(
    make_env: Callable[..., ApiEnv],
    files: list[tuple[str, bytes]],
    field: str,
    expected: str,
    origin: str,
) -> None:
    env = make_env()
    response = upload(env, "admin", files, access_level=field)
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["rejected"] == []
    shown = {a["filename"]: (a["access_level"], a["level_from"]) for a in body["accepted"]}
    assert shown == dict.fromkeys(NAMES, (expected, origin))
    job = env.wait_job(body["job_id"])
    assert job["state"] == "succeeded", job["files"]
    assert {f["source"]: f["access_level"] for f in job["files"]} == dict.fromkeys(NAMES, expected)
    for name in NAMES:
        assert registry_level(env, name) == expected
        assert indexed_levels(env, name) == {expected}
    # An employee sees none of it, through the document list or an answer.
    assert env.get("eddie", "/api/documents").json()["documents"] == []
    asked = env.post("ada", "/api/ask", json={"question": "When does the merger close?"})
    assert "Juniper" not in asked.text and "board member" not in asked.text


def test_a_form_level_below_the_documents_own_is_refused_and_nothing_is_indexed(
    make_env: Callable[..., ApiEnv], files: list[tuple[str, bytes]]
) -> None:
    env = make_env()
    response = upload(env, "admin", files, access_level="employee")
    assert response.status_code == 400, response.text
    reasons = {d["filename"]: d["error"] for d in response.json()["error"]["details"]}
    assert set(reasons) == set(NAMES)
    for reason in reasons.values():
        assert "says access level 'confidential'" in reason and "not lower it" in reason
    for name in NAMES:
        assert registry_level(env, name) is None and indexed_levels(env, name) == set()
    uploads = env.services.settings.data_dir / "uploads"
    assert not [p for p in uploads.rglob("*") if p.is_file()]  # refused files are not kept


def test_an_empty_field_on_a_document_above_the_uploader_is_refused(
    make_env: Callable[..., ApiEnv], files: list[tuple[str, bytes]]
) -> None:
    """The leak this guards: the empty field used to be sent as the default level, so an
    employee editor's upload published a confidential document to every employee."""
    env = make_env()
    plain = ("plain.md", b"# Lunch\n\n## Hours\n\nThe canteen opens at noon.\n")
    response = upload(env, "eddie", [*files, plain])
    assert response.status_code == 202, response.text
    body = response.json()
    assert [(a["filename"], a["access_level"], a["level_from"]) for a in body["accepted"]] == [
        ("plain.md", "employee", "default")
    ]
    reasons = {r["filename"]: r["error"] for r in body["rejected"]}
    assert set(reasons) == set(NAMES)
    assert all("above your clearance (employee)" in r for r in reasons.values())
    job = env.wait_job(body["job_id"])
    assert job["state"] == "succeeded" and job["files_total"] == 1
    for name in NAMES:
        assert registry_level(env, name) is None and indexed_levels(env, name) == set()
    assert indexed_levels(env, "plain.md") == {"employee"}


def test_groups_the_uploader_is_not_in_or_wider_than_the_documents_are_refused(
    make_env: Callable[..., ApiEnv],
) -> None:
    env = make_env()
    legal = b"---\ngroups: legal\n---\n# Hold\n\n## Scope\n\nEvery record is kept.\n"
    # carla (confidential, People Ops) may not upload a document limited to legal ...
    mine = upload(env, "carla", [("hold.md", legal)])
    assert mine.status_code == 400
    assert "you are in none of them" in mine.text
    # ... nor may the form widen a document's own groups, only narrow them.
    people = b"---\ngroups: People Ops, payroll\n---\n# Pay\n\n## Dates\n\nPaid monthly.\n"
    wider = upload(env, "carla", [("pay.md", people)], groups="People Ops,sales")
    assert wider.status_code == 400 and "may narrow that list but not add" in wider.text
    narrower = upload(env, "carla", [("pay.md", people)], groups="People Ops")
    assert narrower.status_code == 202, narrower.text
    env.wait_job(narrower.json()["job_id"])
    assert {c.groups for c in env.services.index.chunks_of("pay.md")} == {("People Ops",)}
    assert env.services.index.chunks_of("hold.md") == []


def test_a_document_that_names_no_level_gets_the_form_level_or_the_default(
    make_env: Callable[..., ApiEnv],
) -> None:
    env = make_env()
    body = b"# Parking\n\n## Spaces\n\nVisitors park in bay four.\n"
    default = upload(env, "eddie", [("parking.md", body)]).json()
    assert [(a["access_level"], a["level_from"]) for a in default["accepted"]] == [
        ("employee", "default")
    ]
    env.wait_job(default["job_id"])
    assert indexed_levels(env, "parking.md") == {"employee"}
    public = upload(env, "eddie", [("parking.md", body)], access_level="public").json()
    assert [(a["access_level"], a["level_from"]) for a in public["accepted"]] == [
        ("public", "form")
    ]
    env.wait_job(public["job_id"])
    assert indexed_levels(env, "parking.md") == {"public"}


def test_the_upload_page_does_not_preselect_a_level(make_env: Callable[..., ApiEnv]) -> None:
    """The form used to preselect the default level, which the browser always sent."""
    env = make_env()
    page = env.get("eddie", "/documents", headers={"Accept": "text/html"})
    assert page.status_code == 200
    select: Any = page.text.split('<select name="access_level">')[1].split("</select>")[0]
    assert select.count(" selected") == 1 and '<option value="" selected>' in select


def job_file(env: ApiEnv, folder: Path, name: str, data: bytes, uploader: Principal) -> Any:
    """The one file of a job an uploader's file makes, run now, as the job reports it: what
    a queued or retried upload meets when it runs (the upload's own checks long passed)."""
    folder.mkdir()
    (folder / name).write_bytes(data)
    ingestor = env.services.ingestor
    job_id = ingestor.submit([folder / name], root=folder, overrides={}, uploader=uploader)
    ingestor.run(job_id)
    [file] = ingestor.job_status(job_id)["files"]
    return file


def versioned(field: str, name: str) -> bytes:
    return f"---\n{field}: {name}\n---\n# New Pay\n\n## Pay\n\nPay is reviewed yearly.\n".encode()


def test_an_uploads_own_versions_fields_may_name_only_documents_its_uploader_may_read(
    make_env: Callable[..., ApiEnv], tmp_path: Path
) -> None:
    """Front matter saying ``supersedes: severance.md`` would re-mark a confidential document
    superseded for everyone (found by a red-team read): an employee editor's file naming one
    they may not read is refused, at upload and again in the job, in the same words as one
    naming no document at all, and the named document stays as it was."""
    env = make_env()
    ingest_corpus(env.services, write_corpus(tmp_path / "corpus"))
    errors: dict[str, str] = {}
    for n, (field, name) in enumerate(
        [
            ("supersedes", "severance.md"),
            ("supersedes", "no-such-policy.md"),
            ("superseded_by", "litigation-hold.md"),
            ("superseded_by", "no-such-policy.md"),
        ]
    ):
        response = upload(env, "eddie", [(f"pay-{n}.md", versioned(field, name))])
        assert response.status_code == 400, response.text
        [refused] = response.json()["error"]["details"]
        errors[f"{field} {name}"] = refused["error"]
    assert errors["supersedes severance.md"] == errors["supersedes no-such-policy.md"].replace(
        "no-such-policy.md", "severance.md"
    )
    assert errors["superseded_by litigation-hold.md"] == errors[
        "superseded_by no-such-policy.md"
    ].replace("no-such-policy.md", "litigation-hold.md")
    assert errors["supersedes severance.md"] == (
        "supersedes names no document you may read: 'severance.md'"
    )
    # The job holds the same rule (the document may be hidden after the upload was checked).
    eddie = Principal("eddie", "employee", frozenset({"People Ops"}))
    file = job_file(
        env, tmp_path / "job", "pay-job.md", versioned("supersedes", "severance.md"), eddie
    )
    assert file["state"] == "failed" and errors["supersedes severance.md"] in file["error"]
    for source in ("severance.md", "litigation-hold.md"):
        row = env.services.ingestor.registry.get(source)
        assert row is not None and row.status == "current" and row.superseded_by is None
    registry = env.services.ingestor.registry
    assert all(registry.get(f"pay-{n}.md") is None for n in ("0", "1", "2", "3", "job"))
    # A document the uploader may read is theirs to re-mark.
    fine = upload(env, "eddie", [("pay-new.md", versioned("supersedes", "remote-work.md"))])
    assert env.wait_job(fine.json()["job_id"])["state"] == "succeeded"
    assert registry.get("remote-work.md").status == "superseded"


def test_the_upload_forms_versions_fields_refuse_a_hidden_name_as_a_missing_one(
    make_env: Callable[..., ApiEnv], tmp_path: Path
) -> None:
    """The form's ``supersedes`` / ``superseded_by`` fields: a name the uploader may not read
    is refused in the words a missing name gets, naming the field (not "to supersede" for
    both), and nothing is written."""
    env = make_env()
    ingest_corpus(env.services, write_corpus(tmp_path / "corpus"))
    page = [("pay.md", b"# Pay\n\n## Pay\n\nPay is reviewed yearly.\n")]
    for field, hidden in (("supersedes", "severance.md"), ("superseded_by", "litigation-hold.md")):
        said = {}
        for name in (hidden, "no-such-policy.md"):
            response = upload(env, "eddie", page, **{field: name})
            assert response.status_code == 400, response.text
            said[name] = response.json()["error"]["message"]
        assert said[hidden] == f"{field} names no document you may read: {hidden!r}"
        assert said["no-such-policy.md"] == said[hidden].replace(hidden, "no-such-policy.md")
    assert env.services.ingestor.registry.get("pay.md") is None
    assert env.services.ingestor.registry.get("severance.md").status == "current"
    # Several names, as a file's own field takes them: each is looked up (the list was one
    # name), a hidden one among them refused by its own name.
    both = upload(env, "eddie", page, supersedes="remote-work.md, severance.md")
    assert both.status_code == 400, both.text
    assert both.json()["error"]["message"] == (
        "supersedes names no document you may read: 'severance.md'"
    )
    fine = upload(env, "eddie", page, supersedes="remote-work.md; pricing.md")
    assert fine.status_code == 202, fine.text
    assert env.wait_job(fine.json()["job_id"])["state"] == "succeeded"
    registry = env.services.ingestor.registry
    assert registry.get("remote-work.md").superseded_by == "pay.md"
    assert registry.get("pricing.md").superseded_by == "pay.md"


SEVERANCE_V2 = (
    b"# Severance Guidelines\n\n## Severance pay\n\nSeverance pay is three weeks of salary.\n"
)


def test_a_new_version_keeps_at_least_the_audience_of_the_one_it_replaces(
    make_env: Callable[..., ApiEnv], tmp_path: Path
) -> None:
    """Re-uploaded without a level, a new version of a confidential policy went in at the
    default level and its text reached every employee (a red-team read). A replacement may
    raise the registered level or narrow its groups, never the other way; it is refused at
    upload and again in the job, and the live document stays as it was."""
    env = make_env()
    ingest_corpus(env.services, write_corpus(tmp_path / "corpus"))
    lowered = upload(env, "carla", [("severance.md", SEVERANCE_V2)])
    assert lowered.status_code == 400
    [reason] = [d["error"] for d in lowered.json()["error"]["details"]]
    assert "which is confidential" in reason and "give access level 'confidential'" in reason
    public = b"---\naccess_level: public\n---\n# Remote Work Policy\n\n## Home\n\nAny day.\n"
    assert upload(env, "eddie", [("remote-work.md", public)]).status_code == 400
    hold = b"# Litigation Hold\n\n## Scope\n\nA hold suspends deletion.\n"
    env.tokens["lena"] = add_test_user(
        env.services, TestUser("lena", "confidential", ("editor",), ("legal",))
    )
    widened = upload(env, "lena", [("litigation-hold.md", hold)], access_level="confidential")
    assert widened.status_code == 400 and "for the groups legal" in widened.text
    registry = env.services.ingestor.registry
    assert registry.get("severance.md").access_level == "confidential"
    assert registry.get("litigation-hold.md").groups == ["legal"]
    # The job holds the same rule (its upload was checked before another version went in).
    carla = Principal("carla", "confidential", frozenset({"People Ops"}))
    file = job_file(env, tmp_path / "job", "severance.md", SEVERANCE_V2, carla)
    assert file["state"] == "failed" and "which is confidential" in file["error"]
    assert "three weeks" not in str(env.services.index.chunks_of("severance.md"))
    # At the registered level it is a new version like any other; a level given in the
    # field is the uploader's own choice, lower or not.
    kept = upload(env, "carla", [("severance.md", SEVERANCE_V2)], access_level="confidential")
    assert env.wait_job(kept.json()["job_id"])["state"] == "succeeded"
    assert registry.get("severance.md").access_level == "confidential"
    chosen = upload(env, "carla", [("severance.md", SEVERANCE_V2)], access_level="employee")
    assert env.wait_job(chosen.json()["job_id"])["state"] == "succeeded"
    assert registry.get("severance.md").access_level == "employee"


def test_a_job_may_not_replace_a_document_its_uploader_may_not_read(
    make_env: Callable[..., ApiEnv], tmp_path: Path
) -> None:
    """The upload checks the name when it arrives; a job that runs later (queued behind
    another upload of the name, retried, resumed) checks again: an employee editor's file
    does not replace the confidential document that went in meanwhile."""
    env = make_env()
    secret = b"# Budget 2026\n\n## Cuts\n\nHeadcount falls by 12 percent.\n"
    first = upload(env, "carla", [("budget-2026.md", secret)], access_level="confidential")
    assert env.wait_job(first.json()["job_id"])["state"] == "succeeded"
    eddie = Principal("eddie", "employee", frozenset({"People Ops"}))
    plan = b"# Budget 2026\n\n## Plan\n\nNo cuts.\n"
    file = job_file(env, tmp_path / "queued", "budget-2026.md", plan, eddie)
    assert file["state"] == "failed" and "this name is taken" in file["error"]
    assert file["retryable"] is False
    row = env.services.ingestor.registry.get("budget-2026.md")
    assert row.access_level == "confidential"
    assert "12 percent" in str(env.services.index.chunks_of("budget-2026.md"))
