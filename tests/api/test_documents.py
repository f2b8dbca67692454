"""Uploads (good and bad files, metadata checks), the document list, chunks and retiring."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import ApiEnv
from tests.api.corpus import SECRET

GOOD = b"# Bicycle Policy\n\n## Storage\n\nBicycles are stored in the basement racks on level -1.\n"


def upload(env: ApiEnv, who: str, files: list[tuple[str, bytes]], **form: str) -> Any:
    return env.post(
        who,
        "/api/documents",
        files=[("files", (name, data, "application/octet-stream")) for name, data in files],
        data=form,
    )


def docs_of(env: ApiEnv, who: str) -> dict[str, dict]:
    return {d["source"]: d for d in env.get(who, "/api/documents").json()["documents"]}


def test_upload_good_and_bad_files_each_get_an_answer(env: ApiEnv) -> None:
    response = upload(
        env,
        "eddie",
        [
            ("bicycles.md", GOOD),
            ("tool.exe", b"MZ\x90\x00"),
            ("empty.md", b""),
            ("huge.md", b"x" * (1024 * 1024 + 1)),
            ("../../sneaky.md", b"# Sneaky\n\nA file that tried to climb out of its folder.\n"),
        ],
        access_level="employee",
        effective_date="2025-05-01",
        owner="Facilities",
    )
    assert response.status_code == 202, response.text
    body = response.json()
    assert [a["source"] for a in body["accepted"]] == ["bicycles.md", "sneaky.md"]
    errors = {r["filename"]: r["error"] for r in body["rejected"]}
    assert "unsupported file type .exe" in errors["tool.exe"]
    assert errors["empty.md"] == "the file is empty"
    assert "over the limit of 1 MiB" in errors["huge.md"]
    job = env.wait_job(body["job_id"])
    assert job["state"] == "succeeded" and job["files_total"] == 2
    assert all(f["progress"] == 1.0 for f in job["files"])
    uploads = env.services.settings.data_dir / "uploads"
    assert not list(uploads.rglob("tool.exe")) and list(uploads.rglob("sneaky.md"))
    assert not (env.services.settings.data_dir.parent / "sneaky.md").exists()

    doc = docs_of(env, "eddie")["bicycles.md"]
    assert doc["version"] == 1 and doc["status"] == "current"
    assert doc["access_level"] == "employee" and doc["owner"] == "Facilities"
    assert doc["effective_date"] == "2025-05-01"
    shown = env.get("eddie", f"/api/documents/{doc['doc_id']}").json()
    assert "basement racks" in shown["chunks"][0]["text"]
    answer = env.post("ada", "/api/ask", json={"question": "Where are bicycles stored?"}).json()
    assert answer["outcome"] == "answered" and "basement" in answer["answer"]


def test_a_new_upload_of_the_same_name_is_a_new_version(env: ApiEnv) -> None:
    first = upload(
        env,
        "eddie",
        [("kitchen.md", b"# Kitchen\n\n## Fridge\n\nThe fridge is emptied on Fridays.\n")],
    )
    env.wait_job(first.json()["job_id"])
    second = upload(
        env,
        "eddie",
        [("kitchen.md", b"# Kitchen\n\n## Fridge\n\nThe fridge is emptied on Thursdays.\n")],
    )
    env.wait_job(second.json()["job_id"])
    assert docs_of(env, "eddie")["kitchen.md"]["version"] >= 2


def test_superseded_by_is_recorded_and_shown(env: ApiEnv) -> None:
    response = upload(
        env,
        "eddie",
        [
            (
                "travel-2021.md",
                b"# Travel Policy 2021\n\n## Per diem\n\nThe daily meal allowance is 25 euros.\n",
            )
        ],
        superseded_by="travel.md",
        effective_date="2021-01-01",
    )
    assert env.wait_job(response.json()["job_id"])["state"] == "succeeded"
    doc = docs_of(env, "eddie")["travel-2021.md"]
    assert doc["status"] == "superseded" and doc["superseded_by"] == "travel.md"
    page = env.get("eddie", "/documents", headers={"Accept": "text/html"})
    assert "travel-2021.md" in page.text and "Superseded" in page.text


def test_when_no_file_is_accepted_the_answer_names_each_file(env: ApiEnv) -> None:
    response = upload(env, "eddie", [("a.exe", b"x"), ("b.zip", b"y")])
    assert response.status_code == 400
    error = response.json()["error"]
    assert "a.exe" in error["message"] and "b.zip" in error["message"]
    assert {d["filename"] for d in error["details"]} == {"a.exe", "b.zip"}


def test_metadata_is_checked_and_errors_name_the_field(env: ApiEnv) -> None:
    bad_level = upload(env, "eddie", [("x.md", GOOD)], access_level="top-secret")
    assert bad_level.status_code == 400
    assert bad_level.json()["error"]["message"].startswith("access_level:")
    above = upload(env, "eddie", [("x.md", GOOD)], access_level="confidential")
    assert above.status_code == 400 and "above your own clearance" in above.text
    bad_date = upload(env, "eddie", [("x.md", GOOD)], effective_date="next tuesday")
    assert bad_date.status_code == 400
    assert bad_date.json()["error"]["message"].startswith("effective_date:")


def test_editors_see_only_documents_within_their_clearance(env: ApiEnv) -> None:
    assert "severance.md" not in docs_of(env, "eddie")
    assert "severance.md" in docs_of(env, "carla")
    doc_id = docs_of(env, "carla")["severance.md"]["doc_id"]
    hidden = env.get("eddie", f"/api/documents/{doc_id}")
    missing = env.get("eddie", "/api/documents/does-not-exist")
    assert hidden.status_code == missing.status_code == 404
    assert SECRET not in hidden.text
    assert env.post("eddie", f"/api/documents/{doc_id}/retire").status_code == 404
    page = env.get("eddie", f"/documents/{doc_id}", headers={"Accept": "text/html"})
    assert page.status_code == 404 and SECRET not in page.text
    shown = env.get("carla", f"/api/documents/{doc_id}").json()
    assert SECRET in shown["chunks"][0]["text"]


def test_retiring_takes_the_chunks_out_of_the_index(env: ApiEnv) -> None:
    response = upload(
        env, "eddie", [("lockers.md", b"# Lockers\n\n## Keys\n\nLocker keys are at reception.\n")]
    )
    env.wait_job(response.json()["job_id"])
    doc = docs_of(env, "eddie")["lockers.md"]
    assert env.services.index.chunks_of("lockers.md")
    retired = env.post("eddie", f"/api/documents/{doc['doc_id']}/retire")
    assert retired.status_code == 200 and retired.json()["retired"] is True
    assert env.services.index.chunks_of("lockers.md") == []
    assert "lockers.md" not in docs_of(env, "eddie")
    listed = env.get("eddie", "/api/documents", params={"retired": "true"}).json()["documents"]
    assert any(d["source"] == "lockers.md" and d["status"] == "retired" for d in listed)
    assert env.post("eddie", f"/api/documents/{doc['doc_id']}/retire").status_code == 404


def test_document_text_is_escaped_in_pages(env: ApiEnv) -> None:
    evil = b"# <script>alert(1)</script> Heading\n\n## Body\n\nSome <b>bold</b> & text.\n"
    response = upload(env, "eddie", [("evil.md", evil)], title="<img src=x onerror=alert(1)>")
    assert env.wait_job(response.json()["job_id"])["state"] == "succeeded"
    page = env.get("eddie", "/documents", headers={"Accept": "text/html"}).text
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    doc_id = docs_of(env, "eddie")["evil.md"]["doc_id"]
    shown = env.get("eddie", f"/documents/{doc_id}", headers={"Accept": "text/html"}).text
    assert "<script>alert(1)</script>" not in shown and "<b>bold</b>" not in shown


def test_an_upload_that_supersedes_an_older_document(env: ApiEnv) -> None:
    old = upload(env, "eddie", [("coffee-2020.md", b"# Coffee\n\n## Beans\n\nBeans are free.\n")])
    env.wait_job(old.json()["job_id"])
    new = upload(
        env,
        "eddie",
        [("coffee.md", b"# Coffee\n\n## Beans\n\nBeans cost 1 euro a bag.\n")],
        supersedes="coffee-2020.md",
    )
    assert env.wait_job(new.json()["job_id"])["state"] == "succeeded"
    docs = docs_of(env, "eddie")
    assert docs["coffee-2020.md"]["status"] == "superseded"
    assert docs["coffee.md"]["supersedes"] == ["coffee-2020.md"]


def test_an_upload_may_supersede_only_a_document_the_uploader_can_see(env: ApiEnv) -> None:
    """Superseding re-marks another document in place: a hidden one answers like a missing one."""
    body = [("x-2030.md", b"# X\n\n## Y\n\nZ is 3.\n")]
    hidden = upload(env, "eddie", body, supersedes="severance.md")
    missing = upload(env, "eddie", body, supersedes="no-such-file.md")
    assert hidden.status_code == missing.status_code == 400
    assert hidden.json()["error"]["message"].replace("severance.md", "?") == missing.json()[
        "error"
    ]["message"].replace("no-such-file.md", "?")
    assert docs_of(env, "carla")["severance.md"]["status"] == "current"
