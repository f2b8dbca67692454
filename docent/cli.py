"""The ``docent`` command. Each stage package contributes its commands through a
``register(app)`` function in its own ``cli.py``; this module only assembles them."""

from __future__ import annotations

import os

import typer

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Docent: cited answers from your own documents.",
)


def _register_all() -> None:
    # unstructured phones home at import unless told not to; we never need the network.
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from api.cli import register as register_api
    from docent.commands.ask import register as register_generate
    from docent.commands.ingest import register as register_ingest
    from docent.commands.reindex import register as register_reindex
    from docent.commands.search import register as register_retrieval
    from evals.cli import register as register_evals

    for register in (
        register_ingest,
        register_reindex,
        register_retrieval,
        register_generate,
        register_api,
        register_evals,
    ):
        register(app)


def main() -> None:
    _register_all()
    app()
