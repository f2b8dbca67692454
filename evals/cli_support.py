"""What the ``docent eval`` commands share: their argument types, the services they open,
the case loading, progress on stderr, and their one-line errors."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from docent.errors import DocentError
from evals.cases import Case, load_cases, select_split

if TYPE_CHECKING:
    from docent.settings import Settings
    from docent.wiring import Services


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


def progress(quiet: bool) -> Callable[[str], None] | None:
    if quiet:
        return None
    count = [0]

    def tick(_: str) -> None:
        count[0] += 1
        print(f"\r{count[0]} cases", end="", file=sys.stderr, flush=True)

    return tick


@contextmanager
def cli_services(backend: str | None = None) -> Iterator[tuple[Settings, Services]]:
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


def load_split(cases_file: Path, settings: Settings, split: str | None = None) -> list[Case]:
    return select_split(load_cases(cases_file, settings.access_levels), split)


def write_table(out: Path | None, text: str) -> None:
    """``--out``: also write ``text`` there (its folder made where missing)."""
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")


def writable(path: Path) -> bool:
    """Can ``path`` be written (its folder created where missing)?"""
    folder = path.resolve().parent
    while not folder.exists():
        folder = folder.parent
    return folder.is_dir() and os.access(folder, os.W_OK)


def limit_text(max_false_abstention: float | None) -> str:
    if max_false_abstention is None:
        return "the sweep's lowest; the gate may add none"
    return f"{max_false_abstention:.0%}"


def guard(fn: Callable[[], T]) -> T:
    try:
        return fn()
    except DocentError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(1) from None
