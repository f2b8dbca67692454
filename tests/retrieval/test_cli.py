"""``docent search``: JSON shape, --explain, access and groups, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from docent.commands.search import register
from docent.contracts import Embedder
from docent.settings import Settings, get_settings
from docent.wiring import Services
from tests.retrieval.conftest import bump, make_settings
from tests.retrieval.corpus import BONUS_QUERY, CORPUS, make_chunk, write_chunks

# Each invocation builds its own Services and loads the model, as the real command does.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def data_dir_with_corpus(
    tmp_path_factory: pytest.TempPathFactory, bundled_embedder: Embedder
) -> Path:
    data_dir = tmp_path_factory.mktemp("cli") / "data"
    services = Services(make_settings(data_dir), bundled_embedder)
    write_chunks(services.index, bundled_embedder, CORPUS)
    bump(services)
    services.close()  # local-mode Qdrant: one client per folder at a time
    return data_dir


@pytest.fixture
def run(data_dir_with_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Docent (test app)."""

    register(app)
    monkeypatch.chdir(tmp_path)  # no stray .env
    monkeypatch.setenv("DOCENT_DATA_DIR", str(data_dir_with_corpus))
    monkeypatch.setenv("DOCENT_ENV", "test")
    get_settings.cache_clear()

    def invoke(*args: str):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(app, ["search", *args])

    yield invoke
    get_settings.cache_clear()


HIT_KEYS = {"id", "source", "heading_path", "rank", "score", "status", "text"}


def test_json_output(run) -> None:  # type: ignore[no-untyped-def]
    result = run("How many days of annual leave do I get?", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert set(payload) == {"hits", "index_version"} and payload["index_version"] == 1
    top = payload["hits"][0]
    assert set(top) == HIT_KEYS  # an ask's ``retrieved`` (DESIGN "Interfaces")
    assert top["id"] == "leave.md#0" and top["rank"] == 1
    assert top["heading_path"] == ["Leave Policy", "Annual leave"]
    assert top["status"] == "current" and "25 days" in top["text"]

    explained = json.loads(
        run("How many days of annual leave do I get?", "--json", "--explain").stdout
    )
    top = explained["hits"][0]
    assert set(top) == HIT_KEYS | {"effective", "scores", "best_sentence"}
    assert top["effective"] == "2024-01-01"
    assert set(top["scores"]) == {"bm25_rank", "vector_rank", "fused", "rerank"}
    assert top["scores"]["bm25_rank"] == 1 and top["scores"]["rerank"] > 0.35
    assert "25 days" in top["best_sentence"]


def test_explain_lists_what_was_cut(run) -> None:  # type: ignore[no-untyped-def]
    result = run("What is the boiling point of mercury on Jupiter?", "--json", "--explain")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["hits"] == []
    assert payload["cut"] and {c["reason"] for c in payload["cut"]} == {"below_threshold"}
    default = Settings.model_fields["relevance_threshold"].default
    assert payload["threshold"] == default and payload["timings_ms"]["total"] > 0

    human = run("How many days of annual leave do I get?", "--explain", "--top-k", "1")
    assert human.exit_code == 0, human.output
    assert human.stdout.startswith("1. [")
    assert "leave.md › Leave Policy > Annual leave" in human.stdout
    assert "Cut (" in human.stdout and "(beyond top-k)" in human.stdout
    assert "(below threshold)" in human.stdout


def test_access_and_groups(run) -> None:  # type: ignore[no-untyped-def]
    employee = run(BONUS_QUERY, "--json", "--explain", "--threshold", "-1")
    assert employee.exit_code == 0, employee.output
    assert "bonus-plan.md" not in employee.stdout
    assert "executive bonus pool" not in employee.stdout.lower()
    cleared = run(BONUS_QUERY, "--json", "--access", "confidential")
    assert json.loads(cleared.stdout)["hits"][0]["source"] == "bonus-plan.md"

    query = "Which custodians must preserve email under litigation hold LH-2026-014?"
    assert "litigation-hold.md" not in run(query, "--json", "--explain").stdout
    legal = run(query, "--json", "--groups", "sales, legal")
    assert json.loads(legal.stdout)["hits"][0]["source"] == "litigation-hold.md"


def test_bad_input_is_refused_clearly(run) -> None:  # type: ignore[no-untyped-def]
    unknown = run("leave", "--access", "god-mode")
    assert unknown.exit_code == 2
    assert "unknown access level 'god-mode'" in unknown.output
    assert "public, employee, confidential, restricted" in unknown.output
    empty = run("   ")
    assert empty.exit_code == 1
    assert "query is empty" in empty.output


def test_collections_suggest_reads_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundled_embedder: Embedder
) -> None:
    data_dir = tmp_path / "orgs"
    services = Services(make_settings(data_dir), bundled_embedder)
    pages = {
        "acme-handbook/leave.md": "Acme Corp staff get 25 days; ask ACMEHR.",
        "acme-handbook/pay.md": "ACMEHR runs Acme payroll monthly.",
        "globex/leave.md": "Globex staff get 20 days; the GLX team answers.",
    }
    write_chunks(
        services.index,
        bundled_embedder,
        [make_chunk(source, 0, text) for source, text in pages.items()],
    )
    bump(services)
    services.close()
    app = typer.Typer()
    register(app)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCENT_DATA_DIR", str(data_dir))
    monkeypatch.setenv("DOCENT_ENV", "test")
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, ["collections", "suggest"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    assert "  acme-handbook/: acme, ACMEHR\n  globex/: globex, GLX\n" in result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("DOCENT_COLLECTIONS=")
    value = json.loads(line.split("=", 1)[1].strip("'"))
    # The printed value is a valid setting, ready to paste.
    assert Settings(_env_file=None, collections=value).collections == value  # type: ignore[call-arg]
