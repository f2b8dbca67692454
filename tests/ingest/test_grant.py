"""Who may give a document which audience (ingest/grant.py), and the job enforcing it when it
runs — for an API upload (an uploader) and for the command line (none)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from docent.access import DEFAULT_LEVELS
from docent.contracts import DocumentMeta, Principal
from docent.wiring import Services
from ingest.grant import OwnAudience, level_origin, own_audience, refusal, uploader_of
from ingest.metadata import ManifestRow, resolve_metadata

CONFIDENTIAL_MD = """---
access_level: Confidential
groups: legal; hr
---
# Hold

## Scope

Every record named in the notice is kept until the hold is lifted.
"""


def meta(level: str, groups: tuple[str, ...] = ()) -> DocumentMeta:
    return resolve_metadata(
        "x.md",
        "id",
        {"access_level": level, "groups": ",".join(groups)},
        None,
        {},
        levels=DEFAULT_LEVELS,
        default_level="employee",
        today=dt.date(2026, 1, 1),
    )


def test_own_audience_is_the_manifest_over_the_properties_and_names_no_default() -> None:
    props = {"access_level": "Confidential", "groups": "legal; hr"}
    assert own_audience(props, None, DEFAULT_LEVELS) == OwnAudience("confidential", ("legal", "hr"))
    row = ManifestRow(path="x.md", access_level="restricted")
    assert own_audience(props, row, DEFAULT_LEVELS).access_level == "restricted"
    assert own_audience({}, None, DEFAULT_LEVELS) == OwnAudience(None, ())


@pytest.mark.parametrize(
    ("asked", "refused"),
    [(None, False), ("public", True), ("employee", True), ("confidential", False)]
    + [("restricted", False)],
)
def test_a_field_may_raise_a_documents_own_level_never_lower_it(
    asked: str | None, refused: bool
) -> None:
    own = OwnAudience("confidential", ())
    overrides = {"access_level": asked}
    final = meta(asked or "confidential")
    reason = refusal(own, overrides, final, None, DEFAULT_LEVELS)
    assert (reason is not None) == refused
    if refused:
        assert reason is not None and "may raise it but not lower it" in reason


@pytest.mark.parametrize("asked", [None, "employee", "restricted"])
def test_a_documents_own_level_that_is_no_configured_level_refuses_it_whatever_the_field(
    asked: str | None,
) -> None:
    """A file labelled "Strictly Confidential" went in at any level a form field gave it
    (the lowering check had no rank to compare; a red-team read): it is refused until the
    file's own label is one of the levels."""
    own = OwnAudience("Strictly Confidential", ())
    reason = refusal(own, {"access_level": asked}, meta(asked or "employee"), None, DEFAULT_LEVELS)
    assert reason is not None and "'Strictly Confidential', which is not one of" in reason


def test_an_uploader_may_give_only_what_they_could_read() -> None:
    eddie = Principal("eddie", "employee", frozenset({"hr"}))
    own = OwnAudience("confidential", ())
    above = refusal(own, {}, meta("confidential"), eddie, DEFAULT_LEVELS)
    assert above is not None and "above your clearance (employee)" in above
    other_group = refusal(
        OwnAudience(None, ("legal",)), {}, meta("employee", ("legal",)), eddie, DEFAULT_LEVELS
    )
    assert other_group is not None and "in none of them" in other_group
    assert (
        refusal(OwnAudience(None, ("hr",)), {}, meta("employee", ("hr",)), eddie, DEFAULT_LEVELS)
        is None
    )
    widened = refusal(
        OwnAudience(None, ("hr",)), {"groups": "hr,sales"}, meta("employee"), None, DEFAULT_LEVELS
    )
    assert widened is not None and "not add to it" in widened


def test_level_origin() -> None:
    assert level_origin(OwnAudience("confidential", ()), {"access_level": "restricted"}) == "form"
    assert level_origin(OwnAudience("confidential", ()), {"access_level": ""}) == "document"
    assert level_origin(OwnAudience(None, ()), {}) == "default"


@pytest.mark.integration
def test_the_job_refuses_a_lowering_from_the_command_line_and_keeps_the_level_without_one(
    services: Services, tmp_path: Path
) -> None:
    """``docent ingest`` sends ``--access-level`` only when given (no default as a choice),
    and the job refuses one that would lower the file's own level: nothing is written."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "hold.md").write_text(CONFIDENTIAL_MD)
    ingestor = services.ingestor
    lowered = ingestor.submit([folder], overrides={"access_level": "employee"})
    ingestor.run(lowered)
    status = ingestor.job_status(lowered)
    assert status["state"] == "failed"
    assert "may raise it but not lower it" in status["errors"][0]["reason"]
    assert services.index.chunks_of("hold.md") == [] and ingestor.registry.get("hold.md") is None

    kept = ingestor.submit([folder], overrides={"access_level": None})
    ingestor.run(kept)
    assert ingestor.job_status(kept)["state"] == "succeeded"
    chunks = services.index.chunks_of("hold.md")
    assert chunks and {(c.access_level, c.groups) for c in chunks} == {
        ("confidential", ("legal", "hr"))
    }


@pytest.mark.integration
def test_the_job_checks_the_uploader_again_when_it_runs(services: Services, tmp_path: Path) -> None:
    """The upload route refuses first; the job holds the same rule for any other caller."""
    folder = tmp_path / "up"
    folder.mkdir()
    (folder / "hold.md").write_text(CONFIDENTIAL_MD)
    uploader = Principal("eddie", "employee", frozenset({"legal"}))
    job_id = services.ingestor.submit([folder / "hold.md"], root=folder, uploader=uploader)
    services.ingestor.run(job_id)
    status = services.ingestor.job_status(job_id)
    assert status["state"] == "failed"
    assert "above your clearance (employee)" in status["errors"][0]["reason"]
    assert services.index.chunks_of("hold.md") == []


def test_the_uploader_is_read_back_from_the_job_params() -> None:
    params = {"uploader": {"clearance": "employee", "groups": ["hr"]}}
    assert uploader_of(params) == Principal("uploader", "employee", frozenset({"hr"}))
    assert uploader_of({"uploader": None}) is None and uploader_of({}) is None
