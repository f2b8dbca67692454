"""What every stage's commands share: the asker given on the command line, and faults
printed as one plain line instead of a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer

from docent.contracts import Principal
from docent.errors import DocentError
from docent.settings import Settings, split_commas

# Who a command reads as (``cli_principal``): ``docent ask``, ``search`` and ``trace show``.
AccessOpt = Annotated[
    str | None,
    typer.Option("--access", help="Clearance level to act as (default: the default level)."),
]
GroupsOpt = Annotated[
    str, typer.Option("--groups", help="Comma-separated groups the asker belongs to.")
]


def cli_principal(settings: Settings, access: str | None, groups: str) -> Principal:
    """The asker of ``--access L --groups a,b``; no ``--access`` means the default level."""
    level = access or settings.default_access_level
    if level not in settings.access_levels:
        raise typer.BadParameter(
            f"unknown access level {level!r}; choose one of: {', '.join(settings.access_levels)}",
            param_hint="--access",
        )
    return Principal(
        user_id="cli",
        clearance=level,
        groups=frozenset(split_commas(groups)),
    )


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Faults become one plain line on stderr and exit code 1, never a traceback."""
    from pydantic import ValidationError

    try:
        yield
    except DocentError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(1) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "settings"
        typer.echo(f"error: setting {where}: {first.get('msg')}", err=True)
        raise typer.Exit(1) from None
    except OSError as exc:
        typer.echo(f"error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), err=True)
        raise typer.Exit(1) from None
