"""``docent ask`` and ``docent trace show``: the answer stage's commands, built on the
services the composition root wires (``docent.wiring``). Imports stay inside the commands:
a cold ``docent ask`` must not import what other commands need (README, cold start)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from docent.cli_support import AccessOpt, GroupsOpt
from generate.views import human, trace_text


def ask(
    question: Annotated[str, typer.Argument(help="The question, in plain words.")],
    access: AccessOpt = None,
    groups: GroupsOpt = "",
    as_json: Annotated[bool, typer.Option("--json", help="Print the ask JSON.")] = False,
) -> None:
    """Answer a question from the indexed documents, with citations, or say they do not."""
    from docent.cli_support import cli_principal
    from docent.commands.running import command_services
    from docent.settings import get_settings
    from generate.ask import ask_json

    settings = get_settings()
    principal = cli_principal(settings, access, groups)
    with command_services(settings) as services:
        result = services.asker.ask(question, principal)
    if as_json:
        typer.echo(json.dumps(ask_json(result), ensure_ascii=False, indent=2))
    else:
        typer.echo(human(result))


trace_app = typer.Typer(no_args_is_help=True, help="Read the trace of an ask.")


@trace_app.command("show")
def trace_show(
    trace_id: Annotated[str, typer.Argument(help="The trace id an ask printed.")],
    access: AccessOpt = None,
    groups: GroupsOpt = "",
    as_json: Annotated[bool, typer.Option("--json", help="Print the trace as JSON.")] = False,
) -> None:
    """Show what one ask retrieved, what the model was sent and said, and the checks: only a
    trace whose every passage the reader (``--access``, ``--groups``, as ``docent ask``)
    may read; any other reads as an unknown id."""
    from docent.cli_support import cli_principal
    from docent.commands.running import command_services
    from docent.settings import get_settings
    from generate.trace import load_trace

    settings = get_settings()
    principal = cli_principal(settings, access, groups)
    with command_services(settings) as services:
        trace = load_trace(services.sessions, trace_id, principal, settings.access_levels)
    if as_json:
        typer.echo(json.dumps(trace, ensure_ascii=False, indent=2))
    else:
        typer.echo(trace_text(trace))


def register(app: typer.Typer) -> None:
    """Add the answer stage's commands to the ``docent`` app."""
    app.command("ask")(ask)
    app.add_typer(trace_app, name="trace")
