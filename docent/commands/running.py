"""One command's services: opened from the composition root, closed when the command's
work is done, and an expected fault (``DocentError``: bad input, an index that cannot be
opened or read) printed as ``error: …`` with exit status 1 instead of a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from docent.settings import Settings
    from docent.wiring import Services


@contextmanager
def command_services(settings: Settings) -> Iterator[Services]:
    # Imported here: a cold ``docent ask`` pays only for what it uses (README, cold start).
    from docent.errors import DocentError
    from docent.wiring import open_services

    services = open_services(settings)
    try:
        yield services
    except DocentError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(1) from None
    finally:
        services.close()
