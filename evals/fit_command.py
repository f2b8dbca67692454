"""``docent eval fit-answerer``: fit the extractive answerer's unit weights, min_score and
answer gate on one split, report the fit and its move, and save it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from evals.cases import Case, select_split
from evals.cli_support import CasesArg, cli_services, load_split, progress, writable, write_table
from evals.fit_move import graded_pair, move_section

if TYPE_CHECKING:
    from docent.wiring import Services
    from evals.metrics import Column
    from generate.answer_gate import AnswerGate
    from generate.unit_scoring import Weights


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
    with cli_services() as (settings, services):
        cases, part = _fit_cases(load_split(cases_file, settings), split)
        fit = _fit(services, cases, wrong_cost, max_answer_loss, quiet)
    fitted_part = f"the {part}" if part != _WHOLE_FILE else "all cases (no split field)"
    text = _fit_text(
        fit,
        wrong_cost,
        f"Answerer fit on {fitted_part} of {cases_file.name}: {len(cases)} cases "
        f"(index_version {fit.version}, top_k {settings.top_k}, relevance threshold "
        f"{settings.relevance_threshold})",
    )
    write_table(out, text)
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
        if target is not None and not writable(target):
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
        services, cases, weights, min_score_grid(data, weights), progress(quiet)
    )
    weights = replace(weights, min_score=choose_min_score(graded, wrong_cost))
    # The gate learns from questions the documents do not answer too: every case
    # again with its gold passages withheld (the eval's derived unretrieved cases).
    everything = with_unretrieved(cases, chunk_refs(services))
    rows, columns = gate_rows(services, everything, weights, progress(quiet))
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
