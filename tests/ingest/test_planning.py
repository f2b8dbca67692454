"""Planning a job: sources, folder expansion, up-front errors, and job-wide overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from docent.errors import InvalidInput
from ingest import planning

ALLOWED = (".md", ".pdf", ".docx", ".html", ".txt")
MB = 2**20


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    for rel in ("a.md", "sub/b.pdf", "sub/deep/c.html", "skip.png", ".hidden/x.md", "sub/.y.md"):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# T\n\ntext\n")
    return root


def test_folder_expands_recursively_to_allowed_types_relative_to_it(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    planned = planning.plan_files(
        [root], root=None, manifest=None, allowed_extensions=ALLOWED, max_bytes=MB
    )
    assert [p.source for p in planned] == ["a.md", "sub/b.pdf", "sub/deep/c.html"]
    assert all(p.error is None and p.path.is_absolute() for p in planned)


def test_sources_are_relative_to_the_manifest_folder_when_under_it(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    manifest = root / "MANIFEST.csv"
    manifest.write_text("path\n")
    planned = planning.plan_files(
        [root / "sub"], root=None, manifest=manifest, allowed_extensions=ALLOWED, max_bytes=MB
    )
    assert [p.source for p in planned] == ["sub/b.pdf", "sub/deep/c.html"]


def test_explicit_root_names_sources_and_outsiders_fail(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# x\n")
    planned = planning.plan_files(
        [root / "sub" / "b.pdf", outside],
        root=root,
        manifest=None,
        allowed_extensions=ALLOWED,
        max_bytes=MB,
    )
    by_source = {p.source: p for p in planned}
    assert by_source["sub/b.pdf"].error is None
    assert "not under the root folder" in (by_source["elsewhere.md"].error or "")


def test_a_single_file_is_named_by_its_file_name(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    planned = planning.plan_files(
        [root / "sub" / "deep" / "c.html"],
        root=None,
        manifest=None,
        allowed_extensions=ALLOWED,
        max_bytes=MB,
    )
    assert [(p.source, p.error) for p in planned] == [("c.html", None)]


def test_unusable_files_carry_a_clear_reason_and_the_rest_go_on(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    big = root / "big.txt"
    big.write_bytes(b"x" * (MB + 1))
    planned = planning.plan_files(
        [root / "skip.png", root / "missing.md", big, root / "a.md"],
        root=root,
        manifest=None,
        allowed_extensions=ALLOWED,
        max_bytes=MB,
    )
    errors = {p.source: p.error for p in planned}
    assert errors["a.md"] is None
    assert errors["skip.png"] is not None and "unsupported file type .png" in errors["skip.png"]
    assert errors["missing.md"] == "no such file"
    assert errors["big.txt"] is not None and "over the limit of 1 MiB" in errors["big.txt"]


def test_the_same_file_named_twice_is_planned_once(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    planned = planning.plan_files(
        [root, root / "a.md"], root=root, manifest=None, allowed_extensions=ALLOWED, max_bytes=MB
    )
    assert [p.source for p in planned].count("a.md") == 1


def test_overrides_are_checked_before_anything_is_recorded() -> None:
    levels = ("public", "employee", "confidential")
    assert planning.check_overrides({"owner": "Ops", "access_level": None}, levels) == {
        "owner": "Ops"
    }
    with pytest.raises(InvalidInput, match="unknown metadata field"):
        planning.check_overrides({"clearance": "x"}, levels)
    with pytest.raises(InvalidInput, match="'secret' is not one of public, employee"):
        planning.check_overrides({"access_level": "secret"}, levels)
    with pytest.raises(InvalidInput, match="'2024-13-01' is not a date"):
        planning.check_overrides({"effective_date": "2024-13-01"}, levels)
