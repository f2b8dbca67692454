"""Markdown quirks of real handbooks that partitioning must survive."""

from __future__ import annotations

from pathlib import Path

from ingest.partition import blank_line_before_tables, partition_file


def test_a_markdown_table_right_under_a_text_line_is_still_one_table(tmp_path: Path) -> None:
    doc = tmp_path / "schedules.md"
    doc.write_text(
        "# Schedules\n\n## Types\n\nFor example:\n| Type | Core hours |\n|---|---|\n"
        "| Flexitour | 9-3 |\n| Gliding | 10-2 |\n\n```\nFor example:\n| not | a table |\n```\n"
    )
    parsed = partition_file(doc, "schedules.md")
    tables = [e for e in parsed.elements if e.kind == "table"]
    assert len(tables) == 1
    assert "Gliding" in tables[0].text
    assert blank_line_before_tables("a\n| x |\n") == "a\n\n| x |"
    assert blank_line_before_tables("```\na\n| x |\n```") == "```\na\n| x |\n```"
