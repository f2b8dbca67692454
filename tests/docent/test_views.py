"""One serialiser per contract: the CLI's ``--json`` and the API emit the same keys for the
same chunk, document, job, search hit and ask result (DESIGN "Interfaces"). A real index over
part of examples/policies, written by ``docent ingest`` (typer's runner); then the real API
(FastAPI's TestClient) over the same data dir."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.app import create_app
from docent.commands.ask import register as register_ask
from docent.commands.ingest import register as register_ingest
from docent.commands.search import register as register_search
from docent.settings import Settings, get_settings
from docent.wiring import Services
from tests.api.corpus import make_users

pytestmark = [pytest.mark.integration, pytest.mark.slow]
SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "policies"
FILES = ["handbook.md", "refunds.md", "refunds-2022.md", "expenses.md"]
QUESTION = "How much can a support team lead approve for a refund?"
ABSTAINED = "Can I bring my dog to the office on Fridays?"


@dataclass
class Emitted:
    """What the CLI printed (``--json``) and what the API answered, for the same things."""

    cli: dict[str, Any]
    api: dict[str, Any]


def _corpus(folder: Path) -> Path:
    folder.mkdir()
    lines = (SAMPLE / "MANIFEST.csv").read_text().splitlines()
    manifest = [lines[0]] + [line for line in lines[1:] if line.split(",", 1)[0] in FILES]
    (folder / "MANIFEST.csv").write_text("\n".join(manifest) + "\n")
    for name in FILES:
        shutil.copy2(SAMPLE / name, folder / name)
    return folder


def _cli(data: Path, *args: str) -> Any:
    app = typer.Typer()
    for register in (register_ingest, register_search, register_ask):
        register(app)
    get_settings.cache_clear()
    try:
        env = {"DOCENT_DATA_DIR": str(data), "DOCENT_ENV": "test"}
        result = CliRunner().invoke(app, list(args), env=env)
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def emitted(
    tmp_path_factory: pytest.TempPathFactory, bundled_embedder: Any
) -> Iterator[dict[str, Emitted]]:
    root = tmp_path_factory.mktemp("shapes")
    corpus = _corpus(root / "corpus")
    data = root / "data"
    data.mkdir()
    cli = {
        "job": _cli(
            data, "ingest", str(corpus), "--manifest", str(corpus / "MANIFEST.csv"), "--json"
        ),
        "documents": _cli(data, "docs", "list", "--json"),
        "document": _cli(data, "docs", "show", "refunds.md", "--json"),
        "search": _cli(data, "search", QUESTION, "--json"),
        "ask": _cli(data, "ask", QUESTION, "--json"),
        "abstained": _cli(data, "ask", ABSTAINED, "--json"),
    }
    # The CLI's commands have closed the index: the API's services may open it now.
    settings = Settings(_env_file=None, env="test", data_dir=data)  # type: ignore[call-arg]
    services = Services(settings, embedder=bundled_embedder)
    tokens = make_users(services)
    try:
        with TestClient(create_app(services)) as client:

            def get(user: str, path: str) -> Any:
                answer = client.get(path, headers={"Authorization": f"Bearer {tokens[user]}"})
                assert answer.status_code == 200, answer.text
                return answer.json()

            def ask(question: str) -> Any:
                answer = client.post(
                    "/api/ask",
                    json={"question": question},
                    headers={"Authorization": f"Bearer {tokens['ada']}"},  # an employee
                )
                assert answer.status_code == 200, answer.text
                return answer.json()

            doc_id = cli["document"]["document"]["doc_id"]
            api = {
                "job": get("admin", f"/api/jobs/{cli['job']['job_id']}"),
                "documents": get("admin", "/api/documents"),
                "document": get("admin", f"/api/documents/{doc_id}"),
                "ask": ask(QUESTION),
                "abstained": ask(ABSTAINED),
            }
            api["search"] = api["ask"]  # the API's search hits: an ask's ``retrieved``
    finally:
        services.close()
    yield {name: Emitted(cli[name], api[name]) for name in cli}


def _keys(items: list[dict[str, Any]]) -> set[frozenset[str]]:
    assert items, "nothing to compare"
    return {frozenset(item) for item in items}


def test_a_job_has_the_same_keys(emitted: dict[str, Emitted]) -> None:
    job = emitted["job"]
    assert job.cli["state"] == job.api["state"] == "succeeded"
    assert set(job.cli) == set(job.api)
    assert _keys(job.cli["files"]) == _keys(job.api["files"])
    assert job.cli["documents"] == job.api["documents"] == len(FILES)


def test_a_document_and_its_chunks_have_the_same_keys(emitted: dict[str, Emitted]) -> None:
    listed = emitted["documents"]
    assert set(listed.cli) == set(listed.api) == {"documents"}
    assert _keys(listed.cli["documents"]) == _keys(listed.api["documents"])
    assert [d["source"] for d in listed.cli["documents"]] == sorted(FILES)
    shown = emitted["document"]
    assert set(shown.cli) == set(shown.api) == {"document", "chunks"}
    assert set(shown.cli["document"]) == set(shown.api["document"])
    assert "content_hash" in shown.api["document"]  # the CLI's change test, for both
    assert _keys(shown.cli["chunks"]) == _keys(shown.api["chunks"])
    assert [c["id"] for c in shown.cli["chunks"]] == [c["id"] for c in shown.api["chunks"]]


def test_a_search_hit_has_the_keys_of_an_asks_retrieved(emitted: dict[str, Emitted]) -> None:
    search = emitted["search"]
    assert _keys(search.cli["hits"]) == _keys(search.api["retrieved"])
    assert search.cli["hits"][0]["id"] == search.api["retrieved"][0]["id"]


@pytest.mark.parametrize("case", ["ask", "abstained"])
def test_an_ask_result_has_the_same_keys(emitted: dict[str, Emitted], case: str) -> None:
    ask = emitted[case]
    assert ask.cli["outcome"] == ask.api["outcome"]
    assert set(ask.cli) == set(ask.api)
    for listed in ("citations", "retrieved", "closest"):
        cli, api = ask.cli[listed] or [], ask.api[listed] or []
        assert {frozenset(i) for i in cli} == {frozenset(i) for i in api}, listed
    if case == "ask":
        assert ask.cli["outcome"] == "answered" and ask.cli["citations"]
    else:
        assert ask.cli["outcome"] != "answered" and ask.cli["closest"]
        assert set(ask.cli["handoff"] or {}) == set(ask.api["handoff"] or {})
