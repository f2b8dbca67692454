"""`docent eval run | diff | sweep | retrieval` over the real chain: part of the sample
corpus ingested once with its manifest (real model, Qdrant local mode, SQLite)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from docent.settings import Settings, get_settings
from docent.wiring import Services
from evals.cli import register
from evals.fingerprint import prompt_hash
from evals.results import meta_path, read_results
from generate.answer_gate import SIGNALS
from generate.answerer_file import load_fit

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "policies"
FILES = [
    "handbook.md",
    "pricing.md",
    "pricing-2023.md",
    "refunds.md",
    "refunds-2022.md",
    "restructuring-plan.md",
    "litigation-hold.md",
]
QIDS = [
    "ans-001",
    "ans-002",
    "ans-004",
    "sup-001",
    "sup-002",
    "sup-008",
    "perm-004",
    "perm-006",
    "perm-008",
    "pallow-006",
    "ooc-001",
    "ooc-008",
]
ASK_KEYS = {"outcome", "answer", "citations", "missing", "handoff", "retrieved", "trace_id"}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("eval-chain")


@pytest.fixture(scope="module")
def cli_env(workdir: Path, bundled_embedder) -> Iterator[Path]:  # type: ignore[no-untyped-def]
    """The corpus subset ingested into a fresh data dir; DOCENT_* pointing at it."""
    data_dir = workdir / "data"
    data_dir.mkdir()
    settings = Settings(_env_file=None, env="test", data_dir=data_dir)  # type: ignore[call-arg]
    services = Services(settings, embedder=bundled_embedder)
    try:
        job = services.ingestor.submit(
            [CORPUS / f for f in FILES], root=CORPUS, manifest=CORPUS / "MANIFEST.csv"
        )
        services.ingestor.run(job)
        assert services.index.count() > 0
    finally:
        services.close()  # Qdrant local mode: one process-wide owner of the folder at a time
    with pytest.MonkeyPatch.context() as env:
        env.setenv("DOCENT_DATA_DIR", str(data_dir))
        env.setenv("DOCENT_ENV", "test")
        # The answer gate open: these tests exercise the eval chain (runs, diffs, fits), not
        # the default bar, which hands most of this small corpus's questions back.
        env.setenv("DOCENT_ANSWER_CONFIDENCE", "0")
        get_settings.cache_clear()
        yield data_dir
    get_settings.cache_clear()


@pytest.fixture(scope="module")
def cases_file(workdir: Path) -> Path:
    rows = {}
    for line in (ROOT / "evals" / "cases" / "sample.jsonl").read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            rows[row["qid"]] = line
    missing = [q for q in QIDS if q not in rows]
    assert not missing, f"sample.jsonl no longer has {missing}"
    path = workdir / "cases.jsonl"
    path.write_text("\n".join(rows[q] for q in QIDS) + "\n", encoding="utf-8")
    return path


def invoke(*args: str) -> tuple[int, str]:
    app = typer.Typer()
    register(app)
    result = CliRunner().invoke(app, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def base_run(cli_env: Path, cases_file: Path, workdir: Path) -> tuple[Path, str]:
    out = workdir / "runs" / "base.jsonl"
    code, output = invoke("eval", "run", str(cases_file), "--out", str(out), "--quiet")
    assert code == 0, output
    return out, output


def test_run_writes_one_graded_line_per_case_and_the_index_version(
    base_run: tuple[Path, str],
) -> None:
    out, output = base_run
    meta, rows = read_results(out)
    qids = [r["qid"] for r in rows]
    # The three answerable cases with gold also run as derived unretrieved cases.
    assert qids == QIDS + ["ans-001~unretrieved", "ans-002~unretrieved", "ans-004~unretrieved"]
    for row in rows:
        assert ASK_KEYS <= row.keys()
        assert row["latency_ms"] > 0
        assert row["grade"]["column"] in {"correct", "wrong", "abstained"}
        assert row["index_version"] == meta["index_version"]
    assert meta["config"]["backend"] == "extractive"
    assert meta["config"]["threshold"] == get_settings().relevance_threshold
    assert meta["prompt_hash"] == prompt_hash()
    assert re.fullmatch(r"[0-9a-f]{64}", meta["index_fingerprint"])
    assert f"index fingerprint `{meta['index_fingerprint'][:16]}`" in output
    by_qid = {r["qid"]: r for r in rows}
    # Withheld chunks are never retrieved for a derived case.
    derived = by_qid["ans-001~unretrieved"]
    assert derived["withheld"]
    assert not {h["id"] for h in derived["retrieved"]} & set(derived["withheld"])
    # Permission: the employee gets no answer and no text from the confidential plan.
    for qid in ("perm-004", "perm-006", "perm-008"):
        assert by_qid[qid]["outcome"] != "answered"
        assert by_qid[qid]["leaks"] == []
    # ...while a confidential asker's search reaches it (whatever the answer stage makes of it).
    assert "restructuring-plan.md" in {h["source"] for h in by_qid["pallow-006"]["ranked"]}
    assert by_qid["pallow-006"]["leaks"] == []
    # The printed report: its columns close and it shows no leak.
    all_row = re.search(
        r"\| \*\*all\*\* \| (\d+) \| (\d+)/\d+ .*? \| (\d+)/\d+ .*? \| (\d+)/", output
    )
    assert all_row is not None, output
    n, correct, wrong, abstained = map(int, all_row.groups())
    assert n == len(rows) == correct + wrong + abstained
    assert "| cases leaking text above the asker's level (must be 0) | 0 |" in output


def test_run_on_one_split_and_on_a_file_without_splits(
    cli_env: Path, cases_file: Path, workdir: Path
) -> None:
    lines = [json.loads(line) for line in cases_file.read_text().splitlines() if line.strip()]
    dev = [c["qid"] for c in lines if c["split"] == "dev"]
    assert dev and len(dev) < len(lines)
    out = workdir / "runs" / "dev.jsonl"
    code, output = invoke(
        "eval", "run", str(cases_file), "--out", str(out), "--split", "dev", "--no-unretrieved"
    )
    assert code == 0, output
    _, rows = read_results(out)
    assert [r["qid"] for r in rows] == dev
    assert "### dev: by stratum" in output and "### test:" not in output

    # A user's own case file, without fact/phrasing/split: runs as before, no split section.
    plain = workdir / "plain.jsonl"
    fields = ("fact", "phrasing", "split")
    plain.write_text(
        "".join(json.dumps({k: v for k, v in c.items() if k not in fields}) + "\n" for c in lines)
    )
    code, output = invoke(
        "eval", "run", str(plain), "--out", str(workdir / "runs" / "plain.jsonl"), "--quiet"
    )
    assert code == 0, output
    assert "| **all** |" in output and "Dev and test" not in output
    code, output = invoke("eval", "run", str(plain), "--out", str(out), "--split", "test")
    assert code == 1
    assert "no case in the test split" in output


def test_diff_shows_transitions_and_refuses_other_index_versions(
    base_run: tuple[Path, str], cases_file: Path, workdir: Path
) -> None:
    base, _ = base_run
    strict = workdir / "runs" / "strict.jsonl"
    # No rerank score reaches 1.5: every case abstains at the gate.
    code, output = invoke(
        "eval", "run", str(cases_file), "--out", str(strict), "--threshold", "1.5", "--quiet"
    )
    assert code == 0, output
    _, base_rows = read_results(base)
    _, strict_rows = read_results(strict)
    assert {r["outcome"] for r in strict_rows} == {"insufficient_evidence"}
    answered_correct = sorted(
        r["qid"]
        for r in base_rows
        if r["grade"]["column"] == "correct" and r["outcome"] == "answered"
    )
    assert answered_correct
    code, output = invoke("eval", "diff", str(base), str(strict))
    assert code == 0, output
    assert (
        f"| correct | abstained | {len(answered_correct)} | {', '.join(answered_correct)} |"
        in output
    )

    moved = workdir / "runs" / "other.jsonl"
    shutil.copy(strict, moved)
    meta = json.loads(meta_path(strict).read_text())
    for key, refusal in (
        ("index_fingerprint", "different indexes"),
        ("prompt_hash", "different prompts"),
    ):
        changed = {**meta, key: "0" * 64}
        meta_path(moved).write_text(json.dumps(changed))
        code, output = invoke("eval", "diff", str(base), str(moved))
        assert code == 1 and refusal in output, output
        code, output = invoke("eval", "diff", str(base), str(moved), "--force")
        assert code == 0, output


def _sweep_rows(output: str) -> dict[float, list[tuple[int, int]]]:
    rows = {}
    for line in output.splitlines():
        m = re.match(r"\| (\d\.\d+)[^|]* \|(.*)", line)
        if m:
            rows[float(m.group(1))] = [
                (int(k), int(n)) for k, n in re.findall(r"(\d+)/(\d+)", m.group(2))
            ]
    return rows


def test_sweep_is_monotonic_and_agrees_with_a_real_run(
    base_run: tuple[Path, str], cases_file: Path, workdir: Path
) -> None:
    base, _ = base_run
    plot = workdir / "sweep.png"
    threshold = get_settings().relevance_threshold
    code, output = invoke(
        "eval",
        "sweep",
        str(cases_file),
        "--thresholds",
        f"0.0,{threshold},1.5",
        "--plot",
        str(plot),
        "--quiet",
    )
    assert code == 0, output
    assert plot.read_bytes()[:4] == b"\x89PNG"
    rows = _sweep_rows(output)
    assert sorted(rows) == [0.0, threshold, 1.5]
    fa = [rows[t][0] for t in sorted(rows)]  # (k, n) false abstention
    answered_abstain = [rows[t][2] for t in sorted(rows)]
    assert [k for k, _ in fa] == sorted(k for k, _ in fa)
    assert [k for k, _ in answered_abstain] == sorted(
        (k for k, _ in answered_abstain), reverse=True
    )
    assert fa[-1][0] == fa[-1][1] and answered_abstain[-1][0] == 0
    assert "chosen:" in output
    # One retrieval replayed per threshold gives what a real run at that threshold gives.
    _, base_rows = read_results(base)
    correct = sum(r["grade"]["column"] == "correct" for r in base_rows)
    wrong = sum(r["grade"]["column"] == "wrong" for r in base_rows)
    assert rows[threshold][1] == (wrong, len(base_rows))
    assert rows[threshold][3] == (correct, len(base_rows))


def test_retrieval_stage_table(cli_env: Path, cases_file: Path) -> None:
    code, output = invoke("eval", "retrieval", str(cases_file), "--quiet")
    assert code == 0, output
    for label in ("BM25 only", "vector only", "fused (RRF)", "fused + rerank"):
        line = next(line for line in output.splitlines() if line.startswith(f"| {label} |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[1] == "7"  # must-answer cases with gold in the subset
        assert all(0.0 <= float(v) <= 1.0 for v in cells[2:])
    fused = next(line for line in output.splitlines() if line.startswith("| fused + rerank |"))
    assert float(fused.strip("|").split("|")[4]) == 1.0  # section recall@10


def test_fit_answerer_fits_on_dev_and_refuses_the_test_split(
    cli_env: Path, cases_file: Path, workdir: Path
) -> None:
    out, fit = workdir / "fit.md", workdir / "fit.json"
    code, output = invoke(
        "eval", "fit-answerer", str(cases_file), "--quiet", "--out", str(out), "--save", str(fit)
    )
    assert code == 0, output
    # The saved fit is the reported one, ready for DOCENT_ANSWERER_FIT.
    fitted = load_fit(fit)
    assert fitted.fitted_on.startswith("cases.jsonl, dev split")
    assert f"min_score = {fitted.weights.min_score}" in out.read_text(encoding="utf-8")
    assert f"DOCENT_ANSWERER_FIT={fit}" in output
    report = out.read_text(encoding="utf-8")
    assert report.startswith("Answerer fit on the dev split of cases.jsonl")
    assert "semantic = 1.0" in report  # the weights are scaled to the semantic weight
    assert "◀ chosen" in report and "min_score" in report
    gate = report.split("The answer gate", 1)[1]  # fitted, or why it could not be
    assert "◀ chosen" in gate or "Not fitted: the" in gate
    # Each fitted case graded under the deployment's answerer and under the fit.
    move = report.split("## The fit's move on these ", 1)[1]
    fitted_cases = int(report.split(": ", 1)[1].split(" cases", 1)[0])
    assert move.startswith(f"{fitted_cases} cases (in-sample)")
    rows = [line for line in move.splitlines() if line.startswith(("| deployment", "| this fit"))]
    assert len(rows) == 2
    for row in rows:
        assert sum(int(cell) for cell in row.strip("|").split("|")[1:]) == fitted_cases
    assert "changed their grade:" in move or "No case changed its grade." in move
    code, output = invoke("eval", "fit-answerer", str(cases_file), "--split", "test")
    assert code != 0 and "test split is only reported" in output


def test_fit_answerer_fits_a_file_without_splits_whole(
    cli_env: Path, cases_file: Path, workdir: Path
) -> None:
    # A team's own dev cases carry no split field (README, "On your own documents").
    lines = [json.loads(line) for line in cases_file.read_text().splitlines() if line.strip()]
    plain = workdir / "own-dev.jsonl"
    plain.write_text(
        "".join(
            json.dumps({k: v for k, v in c.items() if k not in ("fact", "phrasing", "split")})
            + "\n"
            for c in lines
        )
    )
    fit = workdir / "own-fit.json"
    code, output = invoke("eval", "fit-answerer", str(plain), "--quiet", "--save", str(fit))
    assert code == 0, output
    assert output.lstrip().startswith(
        f"Answerer fit on all cases (no split field) of own-dev.jsonl: {len(lines)} cases"
    )
    assert load_fit(fit).fitted_on.startswith(f"own-dev.jsonl, all cases, {len(lines)} cases")


def test_transfer_record_asks_each_case_with_the_gate_open_and_shut(
    cli_env: Path, cases_file: Path, workdir: Path
) -> None:
    from evals.transfer_record import main as record_main

    out = workdir / "transfer" / "rows.jsonl"
    argv = ["--corpus", "sub", "--data-dir", str(cli_env), "--cases", str(cases_file)]
    assert record_main([*argv, "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    written = sum(1 for line in cases_file.read_text(encoding="utf-8").splitlines() if line)
    assert len(rows) >= written  # each case, and the unretrieved twins derived from them
    assert {r["corpus"] for r in rows} == {"sub"}
    drafts = [r for r in rows if r["gated"]]
    assert drafts and all(set(r["signals"]) == set(SIGNALS) for r in drafts)
    # With the gate shut nothing is answered: every case shows its tier and what it offers.
    assert {r["held_tier"] for r in rows} <= {"probably_here", "not_covered"}
    assert all(r["first_screen"] is not None for r in rows if r["must_answer"])


def test_order_fit_records_every_fused_candidate_and_reports_each_fold(
    cli_env: Path, cases_file: Path, workdir: Path
) -> None:
    from evals.order_fit import main as order_main

    paths = []
    for corpus in ("one", "two"):  # the same cases as two corpora: each fold fits on the other
        out = workdir / "order" / f"{corpus}.jsonl"
        argv = ["record", "--corpus", corpus, "--data-dir", str(cli_env), "--cases"]
        assert order_main([*argv, str(cases_file), "--out", str(out)]) == 0
        paths.append(out)
    rows = [json.loads(line) for line in paths[0].read_text(encoding="utf-8").splitlines()]
    assert rows and all(r["corpus"] == "one" and r["candidates"] for r in rows)
    assert all(len(c["signals"]) == 7 for r in rows for c in r["candidates"])
    assert any(c["holds"] for r in rows for c in r["candidates"])
    ranks = [sorted(c["rerank_rank"] for c in r["candidates"]) for r in rows]
    assert all(rank == list(range(1, len(rank) + 1)) for rank in ranks)
    report = workdir / "order" / "report.md"
    split = rows[0]["split"]
    argv = ["report", *map(str, paths), "--split", str(split), "--out", str(report)]
    assert order_main(argv) == 0
    text = report.read_text(encoding="utf-8")
    assert "| one |" in text and "| two |" in text and "Fitted on every corpus" in text
