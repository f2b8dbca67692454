"""Commands this package adds to ``docent``: ``eval run | report | diff | sweep |
fit-answerer | retrieval`` (and ``cases-from-feedback``, from ``evals.feedback_cases``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from docent.errors import DocentError
from evals.cases import Case, load_cases, select_split
from evals.diff import check_comparable, diff_runs, format_diff
from evals.feedback_cases import register as register_feedback
from evals.fit_move import graded_pair, move_section
from evals.results import meta_path, read_results, write_results

if TYPE_CHECKING:
    from docent.settings import Settings
    from docent.wiring import Services
    from evals.metrics import Column
    from evals.sweep import OperatingPoint
    from generate.answer_gate import AnswerGate
    from generate.unit_scoring import Weights

# `docent` imports this module at every start, so the commands import the rest when they
# run: measured with `python -X importtime`, evals.report takes ~1.5 s, docent.wiring
# ~0.5 s, generate.answer_gate and docent.settings ~0.2 s, evals.runner, evals.sweep,
# evals.answerer_fit and evals.gate_fit ~0.1 s each. The modules imported above take under
# 10 ms each, but for evals.feedback_cases, which every start needs for register().

T = TypeVar("T")
CasesArg = Annotated[
    Path, typer.Argument(help="JSONL case file ({qid, q, expect, gold, stratum, user_access}).")
]
SplitOpt = Annotated[
    str | None,
    typer.Option(
        "--split",
        help="Only the cases of this split (dev or test; the case file's 'split' field).",
    ),
]
ThresholdOpt = Annotated[
    float | None,
    typer.Option("--threshold", help="Relevance threshold for this run (default: the setting)."),
]


def _progress(quiet: bool) -> Callable[[str], None] | None:
    if quiet:
        return None
    count = [0]

    def tick(_: str) -> None:
        count[0] += 1
        print(f"\r{count[0]} cases", end="", file=sys.stderr, flush=True)

    return tick


@contextmanager
def _services(backend: str | None = None) -> Iterator[tuple[Settings, Services]]:
    """Settings from the environment (with a backend override) and the services over them;
    a DocentError becomes a one-line error and exit status 1."""
    from docent.settings import get_settings
    from docent.wiring import open_services

    try:
        settings = get_settings()
        if backend is not None:
            if backend not in ("extractive", "openai"):
                raise typer.BadParameter("choose extractive or openai", param_hint="--backend")
            if backend == "openai" and not settings.llm_base_url:
                raise typer.BadParameter(
                    "the openai backend needs DOCENT_LLM_BASE_URL", param_hint="--backend"
                )
            settings = settings.model_copy(update={"generator": backend})
        services = open_services(settings)
        try:
            yield settings, services
        finally:
            services.close()
    except DocentError as exc:
        typer.echo(f"\nerror: {exc.message}", err=True)
        raise typer.Exit(1) from None


def _load(cases_file: Path, settings: Settings, split: str | None = None) -> list[Case]:
    return select_split(load_cases(cases_file, settings.access_levels), split)


def run(
    cases_file: CasesArg,
    out: Annotated[Path, typer.Option("--out", help="Results JSONL to write.")],
    backend: Annotated[
        str | None, typer.Option("--backend", help="extractive or openai (default: setting).")
    ] = None,
    threshold: ThresholdOpt = None,
    unretrieved: Annotated[
        bool,
        typer.Option(help="Add the derived unretrieved stratum (gold chunks withheld)."),
    ] = True,
    report: Annotated[
        Path | None, typer.Option("--report", help="Also write the report (Markdown) here.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress on stderr.")] = False,
    split: SplitOpt = None,
) -> None:
    """Run the whole chain per case, write one result line per case and print the report."""
    from evals.report import build_report
    from evals.runner import chunk_refs, run_cases, run_config, run_meta, with_unretrieved

    with _services(backend) as (settings, services):
        cases = _load(cases_file, settings, split)
        if unretrieved:
            cases = with_unretrieved(cases, chunk_refs(services))
        rows = run_cases(services, cases, threshold=threshold, progress=_progress(quiet))
        meta = run_meta(services, cases_file, run_config(settings, threshold), rows)
        write_results(out, rows, meta)
        text = build_report(rows, {c.qid: c for c in cases}, meta)
    if not quiet:
        typer.echo(f"\nwrote {out} and {meta_path(out)}", err=True)
    if report is not None:
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(text, encoding="utf-8")
    typer.echo(text)


def report_cmd(
    results: Annotated[Path, typer.Argument(help="Results JSONL written by `eval run`.")],
    cases_file: Annotated[Path, typer.Option("--cases", help="The case file of the run.")],
) -> None:
    """Print the report of a results file again (no index needed beyond the case file)."""
    from evals.report import build_report

    meta, rows = _guard(lambda: read_results(results))
    cases = {c.qid: c for c in _guard(lambda: load_cases(cases_file))}
    typer.echo(build_report(rows, cases, meta))


def diff(
    a: Annotated[Path, typer.Argument(help="Results JSONL of the earlier run.")],
    b: Annotated[Path, typer.Argument(help="Results JSONL of the later run.")],
    force: Annotated[
        bool,
        typer.Option("--force", help="Compare runs over different indexes or prompts."),
    ] = False,
) -> None:
    """Per-case transitions between correct / wrong-and-confident / abstained."""
    meta_a, rows_a = _guard(lambda: read_results(a))
    meta_b, rows_b = _guard(lambda: read_results(b))
    _guard(lambda: check_comparable(meta_a, meta_b, force))
    typer.echo(format_diff(diff_runs(rows_a, rows_b), meta_a, meta_b))


def sweep(
    cases_file: CasesArg,
    thresholds: Annotated[
        str, typer.Option("--thresholds", help="START:STOP:STEP or a comma list.")
    ] = "0.2:0.7:0.05",
    plot: Annotated[
        Path | None, typer.Option("--plot", help="Write the operating-point plot (PNG).")
    ] = None,
    max_false_abstention: Annotated[
        float | None,
        typer.Option(
            help="Highest acceptable false-abstention rate when choosing "
            "(default: the sweep's lowest — the gate may add none)."
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the table (Markdown) here.")
    ] = None,
    unretrieved: Annotated[bool, typer.Option(help="Add the derived unretrieved stratum.")] = True,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress on stderr.")] = False,
    split: SplitOpt = None,
) -> None:
    """Vary the relevance threshold: the operating-point table, a chosen threshold, a plot.
    One retrieval per case; each threshold re-runs only the cut, gate and generator."""
    from evals.runner import chunk_refs, sweep_cases, with_unretrieved
    from evals.sweep import parse_thresholds, plot_operating_points, rows_by_threshold

    try:
        values = parse_thresholds(thresholds)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--thresholds") from None
    with _services() as (settings, services):
        cases = _load(cases_file, settings, split)
        if unretrieved:
            cases = with_unretrieved(cases, chunk_refs(services))
        graded = sweep_cases(services, cases, values, progress=_progress(quiet))
        version = services.searcher.current_version()
    points = rows_by_threshold(graded)
    text, chosen = _sweep_text(points, max_false_abstention, len(cases), version, settings)
    if plot is not None:
        plot_operating_points(points, plot, chosen)
    _write_table(out, text)
    typer.echo(("\n" if not quiet else "") + text)


def _sweep_text(
    points: list[OperatingPoint],
    max_false_abstention: float | None,
    cases: int,
    version: int,
    settings: Settings,
) -> tuple[str, float]:
    """The sweep's table with the threshold it chooses, and that threshold."""
    from evals.sweep import choose_threshold, sweep_table

    chosen = choose_threshold(points, max_false_abstention)
    text = "\n".join(
        [
            f"Threshold sweep over {cases} cases (index_version {version}, "
            f"backend {settings.generator}, top_k {settings.top_k})",
            "",
            sweep_table(points, chosen.threshold),
            "",
            f"chosen: {chosen.threshold:g} — the lowest wrong-and-confident rate "
            f"({chosen.wrong}) with false abstention {chosen.false_abstention} "
            f"(limit: {_limit(max_false_abstention)})",
        ]
    )
    return text, chosen.threshold


def fit_answerer(
    cases_file: CasesArg,
    split: Annotated[
        str,
        typer.Option(
            "--split",
            help="The split to fit on (never the test split); a file whose cases have no "
            "'split' field is fitted whole.",
        ),
    ] = "dev",
    wrong_cost: Annotated[
        float,
        typer.Option(help="How many abstentions one wrong-and-confident answer costs."),
    ] = 3.0,
    max_answer_loss: Annotated[
        float,
        typer.Option(
            help="How much of the answerable cases' correct rate the answer gate may give "
            "up (0.01 = 1 point) for fewer wrong answers."
        ),
    ] = 0.01,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the report (Markdown) here.")
    ] = None,
    save: Annotated[
        Path | None,
        typer.Option(
            "--save",
            help="Also write the fit (JSON) here; DOCENT_ANSWERER_FIT=<file> answers with it.",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress on stderr.")] = False,
) -> None:
    """Fit the extractive answerer on one split: its unit weights, its min_score, and its
    answer gate (coefficients and threshold)."""
    _check_fit_targets(split, out, save)
    with _services() as (settings, services):
        cases, part = _fit_cases(_load(cases_file, settings), split)
        fit = _fit(services, cases, wrong_cost, max_answer_loss, quiet)
    fitted_part = f"the {part}" if part != _WHOLE_FILE else "all cases (no split field)"
    text = _fit_text(
        fit,
        wrong_cost,
        f"Answerer fit on {fitted_part} of {cases_file.name}: {len(cases)} cases "
        f"(index_version {fit.version}, top_k {settings.top_k}, relevance threshold "
        f"{settings.relevance_threshold})",
    )
    _write_table(out, text)
    if save is not None:
        fitted_on = f"{cases_file.name}, {part}, {len(cases)} cases, index_version {fit.version}"
        text += _save_fit(save, fit, fitted_on, text)
    typer.echo(("\n" if not quiet else "") + text)


_WHOLE_FILE = "all cases"


@dataclass(frozen=True)
class _Fit:
    """What ``fit-answerer`` fitted and measured, for its report and its saved file."""

    weights: Weights
    gate: AnswerGate | None
    top1: tuple[int, int]
    graded: dict[float, list[tuple[Case, Column]]]
    gate_section: str
    moved: str
    version: int


def _check_fit_targets(split: str, out: Path | None, save: Path | None) -> None:
    if split == "test":
        raise typer.BadParameter(
            "fit on dev; the test split is only reported", param_hint="--split"
        )
    for target, hint in ((out, "--out"), (save, "--save")):
        # Checked before a fit of minutes, not after it.
        if target is not None and not _writable(target):
            raise typer.BadParameter(f"cannot write {target}", param_hint=hint)


def _fit_cases(cases: list[Case], split: str) -> tuple[list[Case], str]:
    """The cases to fit on and what part of the file they are.

    A team's own dev file has no splits: all of it is for fitting (measure on another
    file). A file with splits is fitted on the one asked for."""
    if any(c.split is not None for c in cases):
        return select_split(cases, split), f"{split} split"
    return cases, _WHOLE_FILE


def _fit(
    services: Services,
    cases: list[Case],
    wrong_cost: float,
    max_answer_loss: float,
    quiet: bool,
) -> _Fit:
    """The unit weights and min_score, then the answer gate over them, then how the fitted
    answerer moves each case from the deployed one."""
    from evals.answerer_fit import (
        as_weights,
        case_units,
        choose_min_score,
        fit_conditional_logit,
        min_score_grid,
        sweep_min_score,
        top1_accuracy,
    )
    from evals.gate_fit import gate_rows, gate_section
    from evals.runner import chunk_refs, with_unretrieved
    from generate.answer_gate import AnswerGate
    from generate.extractive import ExtractiveGenerator

    data = case_units(services, cases)
    vector = fit_conditional_logit(data)
    weights = as_weights(vector, 0.0)
    graded = sweep_min_score(
        services, cases, weights, min_score_grid(data, weights), _progress(quiet)
    )
    weights = replace(weights, min_score=choose_min_score(graded, wrong_cost))
    # The gate learns from questions the documents do not answer too: every case
    # again with its gold passages withheld (the eval's derived unretrieved cases).
    everything = with_unretrieved(cases, chunk_refs(services))
    rows, columns = gate_rows(services, everything, weights, _progress(quiet))
    version = services.searcher.current_version()
    gate, section = gate_section(
        rows, columns, len(cases), len(everything), wrong_cost, max_answer_loss
    )
    fitted = ExtractiveGenerator(weights=weights, gate=gate or AnswerGate())
    moved = move_section(graded_pair(services, cases, services.generator, fitted))
    return _Fit(weights, gate, top1_accuracy(data, vector), graded, section, moved, version)


def _fit_text(fit: _Fit, wrong_cost: float, header: str) -> str:
    from evals.answerer_fit import fit_report

    text = fit_report(fit.weights, fit.top1, fit.graded, wrong_cost, header)
    return text + fit.gate_section + "\n" + fit.moved


def _save_fit(save: Path, fit: _Fit, fitted_on: str, text: str) -> str:
    """Write the fit to ``save``; the line the report ends with. A write that fails prints
    the report first, then the error, and exits 1."""
    from generate.answer_gate import AnswerGate
    from generate.answerer_file import FittedAnswerer, save_fit

    try:
        save.parent.mkdir(parents=True, exist_ok=True)
        save_fit(save, FittedAnswerer(fit.weights, fit.gate or AnswerGate(), fitted_on))
    except OSError as exc:
        typer.echo(text)
        typer.echo(f"error: cannot write {save}: {exc.strerror}", err=True)
        raise typer.Exit(1) from exc
    return (
        f"\n\nSaved to {save.resolve()}: answer with it by setting "
        f"DOCENT_ANSWERER_FIT={save.resolve()}."
    )


def retrieval(
    cases_file: CasesArg,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the table (Markdown) here.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress on stderr.")] = False,
    split: SplitOpt = None,
) -> None:
    """recall@k and MRR per retrieval stage (BM25, vector, fused, fused + rerank)."""
    from evals.report import retrieval_stage_table
    from evals.runner import retrieval_rankings

    with _services() as (settings, services):
        cases = _load(cases_file, settings, split)
        rankings = retrieval_rankings(services, cases, progress=_progress(quiet))
        version = services.searcher.current_version()
    text = (
        f"Retrieval stages over {len(rankings)} must-answer cases with gold "
        f"(index_version {version}; nothing withheld, no threshold)\n\n"
        + retrieval_stage_table(rankings)
    )
    _write_table(out, text)
    typer.echo(("\n" if not quiet else "") + text)


def _write_table(out: Path | None, text: str) -> None:
    """``--out``: also write ``text`` there (its folder made where missing)."""
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")


def register(app: typer.Typer) -> None:
    """Add this package's commands to the ``docent`` app."""
    eval_app = typer.Typer(
        no_args_is_help=True, help="Measure answers, abstentions, leaks and speed over cases."
    )
    app.add_typer(eval_app, name="eval")
    eval_app.command("run")(run)
    eval_app.command("report")(report_cmd)
    eval_app.command("diff")(diff)
    eval_app.command("sweep")(sweep)
    eval_app.command("fit-answerer")(fit_answerer)
    eval_app.command("retrieval")(retrieval)
    register_feedback(eval_app)


def _writable(path: Path) -> bool:
    """Can ``path`` be written (its folder created where missing)?"""
    folder = path.resolve().parent
    while not folder.exists():
        folder = folder.parent
    return folder.is_dir() and os.access(folder, os.W_OK)


def _limit(max_false_abstention: float | None) -> str:
    if max_false_abstention is None:
        return "the sweep's lowest; the gate may add none"
    return f"{max_false_abstention:.0%}"


def _guard(fn: Callable[[], T]) -> T:
    try:
        return fn()
    except DocentError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(1) from None
