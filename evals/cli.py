"""Commands this package adds to ``docent``: ``eval run | report | diff | sweep |
fit-answerer | retrieval`` (``fit-answerer`` from ``evals.fit_command``, ``cases-from-feedback``
from ``evals.feedback_cases``; what the commands share, from ``evals.cli_support``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from evals.cases import load_cases
from evals.cli_support import (
    CasesArg,
    SplitOpt,
    ThresholdOpt,
    cli_services,
    guard,
    limit_text,
    load_split,
    progress,
    write_table,
)
from evals.diff import check_comparable, diff_runs, format_diff
from evals.feedback_cases import register as register_feedback
from evals.fit_command import fit_answerer
from evals.results import meta_path, read_results, write_results

if TYPE_CHECKING:
    from docent.settings import Settings
    from evals.sweep import OperatingPoint

# `docent` imports this module at every start, so the commands import the rest when they
# run: measured with `python -X importtime`, evals.report takes ~1.5 s, docent.wiring
# ~0.5 s, generate.answer_gate and docent.settings ~0.2 s, evals.runner, evals.sweep,
# evals.answerer_fit and evals.gate_fit ~0.1 s each. The modules imported above take under
# 10 ms each, but for evals.feedback_cases, which every start needs for register().


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

    with cli_services(backend) as (settings, services):
        cases = load_split(cases_file, settings, split)
        if unretrieved:
            cases = with_unretrieved(cases, chunk_refs(services))
        rows = run_cases(services, cases, threshold=threshold, progress=progress(quiet))
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

    meta, rows = guard(lambda: read_results(results))
    cases = {c.qid: c for c in guard(lambda: load_cases(cases_file))}
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
    meta_a, rows_a = guard(lambda: read_results(a))
    meta_b, rows_b = guard(lambda: read_results(b))
    guard(lambda: check_comparable(meta_a, meta_b, force))
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
    with cli_services() as (settings, services):
        cases = load_split(cases_file, settings, split)
        if unretrieved:
            cases = with_unretrieved(cases, chunk_refs(services))
        graded = sweep_cases(services, cases, values, progress=progress(quiet))
        version = services.searcher.current_version()
    points = rows_by_threshold(graded)
    text, chosen = _sweep_text(points, max_false_abstention, len(cases), version, settings)
    if plot is not None:
        plot_operating_points(points, plot, chosen)
    write_table(out, text)
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
            f"(limit: {limit_text(max_false_abstention)})",
        ]
    )
    return text, chosen.threshold


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

    with cli_services() as (settings, services):
        cases = load_split(cases_file, settings, split)
        rankings = retrieval_rankings(services, cases, progress=progress(quiet))
        version = services.searcher.current_version()
    text = (
        f"Retrieval stages over {len(rankings)} must-answer cases with gold "
        f"(index_version {version}; nothing withheld, no threshold)\n\n"
        + retrieval_stage_table(rankings)
    )
    write_table(out, text)
    typer.echo(("\n" if not quiet else "") + text)


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
