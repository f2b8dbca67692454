"""Commands this package adds to ``docent``: ``serve``, ``demo`` and ``users ...``."""

from __future__ import annotations

import secrets
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from docent.cli_support import one_line_errors
from docent.settings import Settings, split_commas

if TYPE_CHECKING:
    from docent.wiring import Services

SAMPLE_CORPUS = Path(__file__).resolve().parents[1] / "examples" / "policies"
users_app = typer.Typer(no_args_is_help=True, help="Manage users, roles and API tokens.")


@dataclass(frozen=True)
class DemoUser:
    username: str
    clearance: str
    roles: tuple[str, ...]
    groups: tuple[str, ...]
    about: str


DEMO_USERS = (
    DemoUser("ada", "employee", ("asker",), (), "an employee: asks questions"),
    DemoUser("cy", "confidential", ("asker",), ("legal",), "confidential clearance, legal group"),
    DemoUser("eddie", "employee", ("asker", "editor"), ("People Ops",), "docs team: uploads"),
    DemoUser("otto", "employee", ("asker", "operator"), ("IT Security",), "ops: ingest jobs"),
    DemoUser(
        "admin", "restricted", ("admin",), (), "every role; no group, so not legal's documents"
    ),
)


def _services() -> Services:
    from docent.settings import get_settings
    from docent.wiring import open_services

    return open_services(get_settings())


INLINE_ON_EMBEDDED = (
    "DOCENT_BROKER_URL is set, but the index is embedded and this process holds it: no "
    "worker could open it, so uploads are ingested here. Set DOCENT_QDRANT_URL to a Qdrant "
    "server to have workers ingest them."
)


def _serving_services() -> Services:
    """The services of a command that serves the UI (``serve``, ``demo``)."""
    from docent.settings import get_settings
    from docent.wiring import open_services

    settings, note = serving_settings(get_settings())
    if note:
        typer.echo(note, err=True)
    return open_services(settings)


def serving_settings(settings: Settings) -> tuple[Settings, str | None]:
    """What ``docent serve`` runs on, and why it differs from ``settings``: with a broker but
    the embedded index, an upload queued for the workers would wait for ever (the server owns
    the index), so the server ingests uploads itself."""
    if settings.broker_url and settings.qdrant_url is None:
        return settings.model_copy(update={"broker_url": None}), INLINE_ON_EMBEDDED
    return settings, None


def serve_app(services: Services, host: str, port: int) -> None:
    import uvicorn

    from api.app import create_app

    app = create_app(services)
    # proxy_headers off: the peer address must stay the real one for DOCENT_TRUSTED_PROXIES.
    uvicorn.run(
        app,
        host=host,
        port=port,
        proxy_headers=False,
        log_level=services.settings.log_level.lower(),
        access_log=False,
    )


def serve(
    host: str | None = typer.Option(None, help="Address to listen on (DOCENT_HOST)."),
    port: int | None = typer.Option(None, help="Port to listen on (DOCENT_PORT)."),
) -> None:
    """Serve the API and the web UI."""
    with one_line_errors():
        services = _serving_services()
        settings = services.settings
        services.engine  # noqa: B018 - migrate before the first request
        services.index  # noqa: B018 - open the index now: a held or old index fails at start
        services.searcher.warm()  # the keyword index too: the first question does not build it
        services.generator  # noqa: B018 - a bad DOCENT_ANSWERER_FIT fails at start, not per ask
        typer.echo(f"Docent on http://{host or settings.host}:{port or settings.port}/")
        try:
            serve_app(services, host or settings.host, port or settings.port)
        finally:
            services.close()


def ensure_demo_users(services: Services) -> list[tuple[DemoUser, str]]:
    """Create (or reset the passwords of) the demo users; return them with their passwords."""
    from api.admin import create_user, reset_password
    from api.audit import Actor
    from api.users import find_user
    from docent.db.session import session_scope

    levels = services.settings.access_levels
    actor = Actor.cli()
    out = []
    with session_scope(services.sessions) as db:
        for demo in DEMO_USERS:
            clearance = demo.clearance if demo.clearance in levels else levels[-1]
            password = secrets.token_urlsafe(9)
            if find_user(db, demo.username) is None:
                create_user(
                    db,
                    actor,
                    demo.username,
                    clearance=clearance,
                    levels=levels,
                    groups=demo.groups,
                    roles=demo.roles,
                    password=password,
                )
            else:
                reset_password(db, actor, demo.username, password)
            out.append((demo, password))
    return out


def sample_files(corpus: Path) -> list[Path]:
    """The documents the manifest lists (so a README beside them is not ingested as policy);
    the whole folder when there is no manifest."""
    import csv

    manifest = corpus / "MANIFEST.csv"
    if not manifest.is_file():
        return [corpus]
    with manifest.open(newline="", encoding="utf-8") as fh:
        listed = [row.get("path", "").strip() for row in csv.DictReader(fh)]
    return [corpus / path for path in listed if path and (corpus / path).is_file()] or [corpus]


def ingest_sample(services: Services, corpus: Path) -> dict[str, Any]:
    ingestor = services.ingestor
    manifest = corpus / "MANIFEST.csv"
    job_id = ingestor.submit(
        sample_files(corpus),
        root=corpus,
        manifest=manifest if manifest.is_file() else None,
        overrides={},
        created_by="demo",
    )
    ingestor.run(job_id)
    return ingestor.job_status(job_id)


def demo(
    corpus: Path = typer.Option(SAMPLE_CORPUS, help="Folder of documents to ingest."),
    host: str | None = typer.Option(None, help="Address to listen on (DOCENT_HOST)."),
    port: int | None = typer.Option(None, help="Port to listen on (DOCENT_PORT)."),
    serve_ui: bool = typer.Option(True, "--serve/--no-serve", help="Serve the UI afterwards."),
) -> None:
    """Ingest the sample policies, create demo users, print how to sign in, and serve."""
    with one_line_errors():
        services = _serving_services()
        settings = services.settings
        services.generator  # noqa: B018 - a bad DOCENT_ANSWERER_FIT fails before the ingest
        typer.echo(f"Ingesting {corpus} (first run embeds every document; later runs skip) ...")
        status = ingest_sample(services, corpus)
        typer.echo(
            f"  job {status['job_id']}: {status['state']}, {status['documents']} documents, "
            f"{status['chunks']} chunks, {status['skipped']} unchanged"
        )
        for err in status.get("errors") or []:
            typer.echo(f"  failed: {err['source']}: {err['reason']}")
        users = ensure_demo_users(services)
        url = f"http://{host or settings.host}:{port or settings.port}/"
        typer.echo(f"\nSign in at {url} as one of (passwords are new on every run):")
        for demo_user, password in users:
            typer.echo(
                f"  {demo_user.username:<6} {password:<14} {demo_user.clearance:<13} "
                f"{','.join(demo_user.roles):<16} {demo_user.about}"
            )
        typer.echo("\nTry, as ada: 'How big is my annual budget for courses and conferences?'")
        typer.echo("  (a checked answer), 'How many days a week can I work remotely?' (not a")
        typer.echo("  checked answer: the passages it is probably in), and 'What is the severance")
        typer.echo("  policy?' (confidential: not for ada)")
        if serve_ui:
            try:
                services.searcher.warm()  # as `serve` does: keyword index, words' vectors
                serve_app(services, host or settings.host, port or settings.port)
            finally:
                services.close()
        else:
            services.close()


@users_app.command("add")
def users_add(
    name: str = typer.Argument(..., help="User name."),
    clearance: str = typer.Option(..., "--clearance", help="Access level the user may read."),
    groups: str = typer.Option("", "--groups", help="Comma-separated groups."),
    roles: str = typer.Option("asker", "--roles", help="asker, editor, operator, admin."),
    display_name: str | None = typer.Option(None, "--display-name"),
    password_stdin: bool = typer.Option(
        False, "--password-stdin", help="Read a web sign-in password from standard input."
    ),
) -> None:
    """Add a user (audited as cli:<your OS user>)."""
    from api.admin import create_user
    from api.audit import Actor
    from docent.db.session import session_scope

    password = sys.stdin.readline().rstrip("\n") if password_stdin else None
    if password_stdin and not password:
        typer.echo("error: --password-stdin given but no password on standard input", err=True)
        raise typer.Exit(1)
    with one_line_errors():
        services = _services()
        with session_scope(services.sessions) as db:
            user = create_user(
                db,
                Actor.cli(),
                name,
                clearance=clearance,
                levels=services.settings.access_levels,
                groups=split_commas(groups),
                roles=split_commas(roles),
                password=password,
                display_name=display_name,
            )
            typer.echo(
                f"added {user.username}: clearance {user.clearance}, roles "
                f"{','.join(user.roles) or '-'}, groups {','.join(user.groups) or '-'}"
            )


@users_app.command("list")
def users_list() -> None:
    """List users with clearance, roles, groups and active tokens."""
    from api.users import active_tokens, list_users
    from docent.db.session import session_scope

    with one_line_errors():
        services = _services()
        with session_scope(services.sessions) as db:
            typer.echo(f"{'user':<20} {'clearance':<13} {'roles':<24} {'groups':<24} tokens")
            for user in list_users(db):
                tokens = ",".join(t.prefix for t in active_tokens(db, user)) or "-"
                state = " (disabled)" if user.disabled else ""
                typer.echo(
                    f"{user.username + state:<20} {user.clearance:<13} "
                    f"{','.join(user.roles) or '-':<24} {','.join(user.groups) or '-':<24} {tokens}"
                )


@users_app.command("token")
def users_token(
    name: str = typer.Argument(..., help="User name."),
    label: str = typer.Option("cli", "--label", help="What the token is for."),
) -> None:
    """Mint an API token for a user; it is shown once, only its hash is stored."""
    from api.admin import issue_token
    from api.audit import Actor
    from docent.db.session import session_scope

    with one_line_errors():
        services = _services()
        with session_scope(services.sessions) as db:
            plain, _row = issue_token(db, Actor.cli(), name, label)
        typer.echo(plain)
        typer.echo(
            "Shown once: send it as 'Authorization: Bearer <token>'. "
            f"Revoke with: docent users revoke {plain.split('_')[1]}",
            err=True,
        )


@users_app.command("set")
def users_set(
    name: str = typer.Argument(..., help="User name."),
    clearance: str | None = typer.Option(None, "--clearance", help="A new clearance."),
    groups: str | None = typer.Option(None, "--groups", help="The groups, comma-separated."),
    roles: str | None = typer.Option(None, "--roles", help="The roles, comma-separated."),
    display_name: str | None = typer.Option(None, "--display-name"),
    disabled: bool | None = typer.Option(None, "--disable/--enable", help="Sign-in off or on."),
) -> None:
    """Change a user (audited as cli:<your OS user>); also how a locked-out admin gets back."""
    from api.admin import UserChange, change_user
    from api.audit import Actor
    from docent.db.session import session_scope

    change = UserChange(
        clearance=clearance,
        groups=None if groups is None else split_commas(groups),
        roles=None if roles is None else split_commas(roles),
        disabled=disabled,
        display_name=display_name,
    )
    with one_line_errors():
        services = _services()
        with session_scope(services.sessions) as db:
            levels = services.settings.access_levels
            user = change_user(db, Actor.cli(), name, change, levels)
            state = "disabled" if user.disabled else "enabled"
            typer.echo(
                f"{user.username}: {state}, clearance {user.clearance}, roles "
                f"{','.join(user.roles) or '-'}, groups {','.join(user.groups) or '-'}"
            )


@users_app.command("revoke")
def users_revoke(target: str = typer.Argument(..., help="A token prefix, or a user name.")) -> None:
    """Revoke one token (by prefix), or disable a user and revoke all their tokens."""
    from api.admin import revoke
    from api.audit import Actor
    from docent.db.session import session_scope

    with one_line_errors():
        services = _services()
        with session_scope(services.sessions) as db:
            typer.echo(revoke(db, Actor.cli(), target))


def audit(
    limit: int = typer.Option(50, "--limit", min=1, max=1000, help="How many entries."),
    as_json: bool = typer.Option(False, "--json", help="Print what GET /api/admin/audit does."),
) -> None:
    """Show the audit log of changes to users and API tokens, newest first."""
    import json

    from api.audit import audit_json, recent
    from docent.db.session import session_scope

    with one_line_errors():
        services = _services()
        with session_scope(services.sessions) as db:
            entries = [audit_json(entry) for entry in recent(db, limit)]
        if as_json:
            typer.echo(json.dumps({"entries": entries}, indent=2))
            return
        if not entries:
            typer.echo("no changes recorded yet")
        for entry in entries:
            typer.echo(audit_line(entry))


def audit_line(entry: dict[str, Any]) -> str:
    """One entry on one line: when, who, what, to whom, and each field before -> after."""
    from api.audit import changes

    moved = "; ".join(
        f"{c['field']}: {_shown(c['before'])} -> {_shown(c['after'])}"
        if c["changed"]
        else f"{c['field']}: {_shown(c['after'])}"
        for c in changes(entry)
    )
    when = str(entry["at"])[:19].replace("T", " ")
    line = f"{when}  {entry['actor']:<16} {entry['action']:<26} {entry['target']}"
    return f"{line}  {moved}" if moved else line


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value) or "-"
    return "-" if value is None else str(value)


def register(app: typer.Typer) -> None:
    """Add this package's commands to the ``docent`` app."""
    app.command("serve")(serve)
    app.command("demo")(demo)
    app.add_typer(users_app, name="users")
    app.command("audit")(audit)
