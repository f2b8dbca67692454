"""``docent search`` and ``docent collections suggest``: retrieval's commands, built on the
services the composition root wires (``docent.wiring``)."""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Annotated, Any

import typer

from docent.cli_support import AccessOpt, GroupsOpt
from retrieval.views import hit_line, search_hit

if TYPE_CHECKING:
    from retrieval.searcher import SearchResult


def search(
    query: Annotated[str, typer.Argument(help="What to search for.")],
    access: AccessOpt = None,
    groups: GroupsOpt = "",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    explain: Annotated[
        bool, typer.Option("--explain", help="Also show the candidates that were cut.")
    ] = False,
    top_k: Annotated[int | None, typer.Option("--top-k", min=1)] = None,
    threshold: Annotated[float | None, typer.Option("--threshold")] = None,
    include_pending: Annotated[
        bool, typer.Option("--include-pending", help="Include not-yet-effective documents.")
    ] = False,
) -> None:
    """Search the indexed documents as a given asker: the hits retrieval passes on."""
    from docent.cli_support import cli_principal
    from docent.commands.running import command_services
    from docent.settings import get_settings

    settings = get_settings()
    principal = cli_principal(settings, access, groups)
    with command_services(settings) as services:
        result = services.searcher.search(
            query,
            principal,
            top_k=top_k,
            threshold=threshold,
            include_pending=include_pending or None,
        )
    bar = settings.relevance_threshold if threshold is None else threshold
    if as_json:
        _echo_json(result, explain, bar)
    else:
        _echo_lines(result, explain, bar)


def _echo_json(result: SearchResult, explain: bool, bar: float) -> None:
    payload: dict[str, Any] = {
        "hits": [search_hit(h, explain=explain) for h in result.hits],
        "index_version": result.index_version,
    }
    if explain:
        payload["cut"] = [search_hit(h, explain=True, threshold=bar) for h in result.cut]
        payload["threshold"] = bar
        payload["timings_ms"] = {k: round(v, 2) for k, v in result.timings_ms.items()}
    typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))


def _echo_lines(result: SearchResult, explain: bool, bar: float) -> None:
    if not result.hits:
        typer.echo(f"No passage clears the relevance threshold ({bar}).")
    for hit in result.hits:
        typer.echo(hit_line(hit))
    if explain:
        typer.echo(f"\nCut ({len(result.cut)} candidates; threshold {bar}):")
        for hit in result.cut:
            typer.echo(hit_line(hit, bar))
        timings = ", ".join(f"{k} {v:.1f} ms" for k, v in result.timings_ms.items())
        typer.echo(f"\nindex version {result.index_version}; {timings}")


collections_app = typer.Typer(
    no_args_is_help=True,
    help="The named parts of a corpus gathered from several organisations (DOCENT_COLLECTIONS).",
)


@collections_app.command("suggest")
def suggest() -> None:
    """Read the indexed documents and print a DOCENT_COLLECTIONS value to check and set:
    one collection per top-level folder, named by the folder and its distinctive names."""
    from docent.commands.running import command_services
    from docent.scope import suggest_collections
    from docent.settings import get_settings

    settings = get_settings()
    texts: dict[str, list[str]] = {}
    with command_services(settings) as services:
        for chunk in services.index.scroll():
            texts.setdefault(chunk.source, []).append(chunk.text)
    suggested = suggest_collections({s: "\n".join(t) for s, t in texts.items()})
    if not suggested:
        typer.echo(
            f"{len(texts)} documents, under fewer than two top-level folders: "
            "nothing to divide into collections."
        )
        return
    typer.echo("Suggested collections (source prefix: the names a question may use):")
    for prefix, names in suggested.items():
        typer.echo(f"  {prefix}: {', '.join(names)}")
    typer.echo("\nCheck the names (add what your people call each part), then set:")
    typer.echo(f"DOCENT_COLLECTIONS={shlex.quote(json.dumps(suggested, ensure_ascii=False))}")
    if settings.collections:
        typer.echo(f"\n(Set now: {json.dumps(settings.collections, ensure_ascii=False)})")


def register(app: typer.Typer) -> None:
    """Add retrieval's commands to the ``docent`` app."""
    app.command("search")(search)
    app.add_typer(collections_app, name="collections")
