"""``docent ask`` and ``docent trace show`` over a real ingested sample (bundled model, Qdrant
local mode, SQLite), through typer's runner."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from docent.commands.ask import register as register_generate
from docent.commands.ingest import register as register_ingest
from docent.settings import get_settings
from generate.views import numbered_answer

pytestmark = [pytest.mark.integration, pytest.mark.slow]
SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "policies"
FILES = ["handbook.md", "refunds.md", "refunds-2022.md", "expenses.md"]


def make_app() -> typer.Typer:
    app = typer.Typer()
    register_ingest(app)
    register_generate(app)
    return app


class Docent:
    def __init__(self, data_dir: Path) -> None:
        self.app = make_app()
        self.env = {"DOCENT_DATA_DIR": str(data_dir), "DOCENT_ENV": "test"}

    def __call__(self, *args: str, **env: str) -> tuple[int, str, str]:
        get_settings.cache_clear()
        try:
            result = CliRunner().invoke(self.app, list(args), env={**self.env, **env})
        finally:
            get_settings.cache_clear()
        return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def docent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Docent]:
    root = tmp_path_factory.mktemp("cli")
    corpus = root / "corpus"
    corpus.mkdir()
    lines = (SAMPLE / "MANIFEST.csv").read_text().splitlines()
    manifest = [lines[0]] + [line for line in lines[1:] if line.split(",", 1)[0] in FILES]
    (corpus / "MANIFEST.csv").write_text("\n".join(manifest) + "\n")
    for name in FILES:
        shutil.copy2(SAMPLE / name, corpus / name)
    data = root / "data"
    data.mkdir()
    run = Docent(data)
    code, out, err = run("ingest", str(corpus), "--manifest", str(corpus / "MANIFEST.csv"))
    assert code == 0, out + err
    yield run


def test_ask_json_answers_with_the_current_figure_and_a_citation(docent: Docent) -> None:
    code, out, _ = docent("ask", "How much can a support team lead approve for a refund?", "--json")
    assert code == 0
    body = json.loads(out)
    assert body["outcome"] == "answered"
    assert "€1,000" in body["answer"] and "€500" not in body["answer"]
    citation = body["citations"][0]
    assert citation["source"] == "refunds.md" and citation["status"] == "current"
    assert citation["quote"] in next(
        r["text"] for r in body["retrieved"] if r["id"] == citation["id"]
    )
    assert {"id", "source", "heading_path", "rank", "score", "status", "text"} == set(
        body["retrieved"][0]
    )


def test_ask_human_output_numbers_citations(docent: Docent) -> None:
    code, out, _ = docent(
        "ask",
        "How many days of paid annual leave do full-time employees get?",
        DOCENT_ANSWER_CONFIDENCE="0",  # a deployment with the gate open: the answer's form
    )
    assert code == 0
    assert "25 days" in out and "[1]" in out
    assert "Sources" in out and "[1] handbook.md › Employee Handbook > Annual leave" in out
    assert "trace " in out


def test_ask_outside_the_documents_says_so_and_who_to_ask(docent: Docent) -> None:
    code, out, _ = docent("ask", "Can I bring my dog to the office on Fridays?")
    assert code == 0
    assert out.startswith("The documents you can read don't seem to cover this.\n")
    # Said once: the reason's title does not say it again under the tier's line.
    assert "The documents do not cover this." not in out
    assert "No document you can read matched the question closely enough." in out
    assert "Who to ask:" in out
    # Nothing cleared the relevance bar: the nearest passages are offered as a weak match,
    # never as where the answer probably is.
    assert "Closest passages" not in out and "probably" not in out
    assert "Nearest passages, a weak match (they may not hold the answer):" in out


def test_passages_that_match_but_state_no_answer_are_offered_to_read(docent: Docent) -> None:
    question = "How many days of paid annual leave do full-time employees get?"
    unreachable = {"DOCENT_EXTRACTIVE_MIN_SCORE": "9"}  # no unit can answer
    code, out, _ = docent("ask", question, **unreachable)
    assert code == 0
    assert out.startswith("Not a checked answer. The answer is probably in these passages:\n")
    # Its words agree with the tier: the answer may be in them, not "none states it".
    assert "Not clear enough to quote as the answer." in out
    assert "No sentence of the passages found matches the question closely enough" in out
    assert "None of the passages found states" not in out
    offered = out.split("not a checked answer):\n", 1)[1].split("Who to ask:", 1)[0].splitlines()
    passages = [line for line in offered if line.startswith("  - ")]
    assert passages[0] == "  - handbook.md › Employee Handbook › Annual leave › Entitlement"
    assert 1 <= len(passages) <= 3
    # Under each, its excerpt quoted: this short passage whole, its unit nearest the
    # question (here the answer) marked as the web UI highlights it.
    assert offered[1].startswith(
        "      “»Full-time employees receive 25 days of paid annual leave per calendar year, "
        "in addition to the public holidays of the country where they are employed.« Part-time"
    )
    code, out, _ = docent("ask", question, "--json", **unreachable)
    assert json.loads(out)["closest"][0]["id"] == "handbook.md#2"


def test_only_passages_the_asker_may_read_are_offered(docent: Docent) -> None:
    question = "Up to what amount can a manager or team lead approve refunds and expense claims?"
    unreachable = {"DOCENT_EXTRACTIVE_MIN_SCORE": "9"}
    code, out, _ = docent("ask", question, **unreachable)
    assert code == 0 and "expenses.md › Expenses and Travel Policy › Approval limits" in out
    # The same question from the public: the expenses policy is not theirs to read.
    code, out, _ = docent("ask", question, "--access", "public", **unreachable)
    assert code == 0 and "Closest passages (" in out
    offered = out.split("not a checked answer):\n", 1)[1].split("Who to ask:", 1)[0].splitlines()
    passages = [line for line in offered if line.startswith("  - ")]
    assert passages and all(line.startswith("  - refunds.md › ") for line in passages)
    # Their excerpts are the refunds policy's own sentences, nothing from what is hidden.
    assert all(line.startswith("      “") for line in offered if not line.startswith("  - "))
    assert "expenses" not in out.lower() and "handbook" not in out.lower()


def test_an_answer_the_gate_holds_back_says_the_documents_do_not_answer_it_clearly(
    docent: Docent,
) -> None:
    question = "How many days of paid annual leave do full-time employees get?"
    strict = {"DOCENT_ANSWER_CONFIDENCE": "1.0"}  # no answer stands out enough
    code, out, _ = docent("ask", question, **strict)
    assert code == 0
    assert out.startswith("Not a checked answer. The answer is probably in these passages:\n")
    assert "Not clear enough to quote as the answer." in out
    assert "none of them stands out clearly enough" in out and "Who to ask:" in out
    assert "not a checked answer):\n  - handbook.md › Employee Handbook › Annual leave" in out
    code, out, _ = docent("ask", question, "--json", **strict)
    body = json.loads(out)
    assert body["outcome"] == "insufficient_evidence"
    assert body["reason_code"] == "unclear_evidence"


def test_a_public_asker_gets_nothing_from_employee_documents(docent: Docent) -> None:
    code, out, _ = docent(
        "ask",
        "How many days of paid annual leave do full-time employees get?",
        "--access",
        "public",
        "--json",
    )
    assert code == 0
    body = json.loads(out)
    assert "25 days" not in out
    assert all(not r["source"].startswith(("handbook", "expenses")) for r in body["retrieved"])
    assert body["handoff"] is None or body["handoff"]["source"] not in {
        "handbook.md",
        "expenses.md",
    }


def test_an_unknown_access_level_is_refused(docent: Docent) -> None:
    code, _, err = docent("ask", "anything", "--access", "boss")
    assert code == 2
    assert "unknown access level 'boss'" in err


def test_trace_show_reads_back_the_ask(docent: Docent) -> None:
    code, out, _ = docent("ask", "How long do approved refunds take to be paid?", "--json")
    trace_id = json.loads(out)["trace_id"]
    code, out, _ = docent("trace", "show", trace_id)
    assert code == 0
    assert f"trace {trace_id}" in out
    assert "question: How long do approved refunds take to be paid?" in out
    assert "checks:" in out and "user prompt:" in out and '<doc id="refunds.md#' in out
    assert "backend extractive" in out and "/ None" not in out  # no model: none named
    code, out, _ = docent("trace", "show", trace_id, "--json")
    trace = json.loads(out)
    assert trace["trace_id"] == trace_id and trace["payload"]["backend"] == "extractive"
    code, _, err = docent("trace", "show", "no-such-id")
    assert code == 1 and "no trace with id 'no-such-id'" in err


def test_trace_show_reads_as_docent_ask_does(docent: Docent) -> None:
    """Without a sign-in, ``--access`` / ``--groups`` say who reads, as for ``docent ask``
    (no ``--access``: the default level): a trace naming a passage above the reader is an
    unknown id (a red-team read printed any stored trace in full, prompt and model output
    included)."""
    question = "How many days of paid annual leave do full-time employees get?"
    code, out, _ = docent("ask", question, "--json")  # the default level: employee
    body = json.loads(out)
    assert any(r["source"] == "handbook.md" for r in body["retrieved"]), body
    trace_id = body["trace_id"]
    code, out, err = docent("trace", "show", trace_id, "--access", "public")
    assert code == 1 and f"no trace with id {trace_id!r}" in err and "25 days" not in out
    code, out, _ = docent("trace", "show", trace_id)
    assert code == 0 and "handbook.md" in out


def test_numbered_answer_maps_ids_in_citation_order() -> None:
    answer = "A [x.md#2]. B [y.md#1][x.md#2]. C [x.md#2, y.md#1]."
    assert numbered_answer(answer, ["x.md#2", "y.md#1"]) == "A [1]. B [2][1]. C [1][2]."


def test_numbered_answer_leaves_a_documents_own_brackets_alone() -> None:
    answer = "Write to dpo[at]example[dot]com [x.md#2]."
    assert numbered_answer(answer, ["x.md#2"]) == "Write to dpo[at]example[dot]com [1]."
