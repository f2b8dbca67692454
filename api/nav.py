"""The web UI's main navigation: the pages a user's roles open, in order. Every page and
every HTML error page (``api.errors``) shows it. ``badges``: a count to show beside a link
(History: the replies to one's handoffs not read yet)."""

from __future__ import annotations

from collections.abc import Mapping

from api.users import GAP_READERS, CurrentUser

# (href, label, the roles that open it: "any" is everyone signed in)
NAV: tuple[tuple[str, str, str | tuple[str, ...]], ...] = (
    ("/", "Ask", "asker"),
    ("/history", "History", "asker"),
    ("/handoffs", "Handoffs", "any"),
    ("/documents", "Documents", "editor"),
    ("/gaps", "Content gaps", GAP_READERS),
    ("/feedback", "Feedback", "editor"),
    ("/jobs", "Jobs", "operator"),
    ("/users", "Users", "admin"),
)


def nav_for(user: CurrentUser, badges: Mapping[str, int] | None = None) -> list[dict[str, str]]:
    return [
        {"href": href, "label": label, "badge": str((badges or {}).get(href) or "")}
        for href, label, roles in NAV
        if roles == "any" or any(user.has_role(r) for r in _as_tuple(roles))
    ]


def _as_tuple(roles: str | tuple[str, ...]) -> tuple[str, ...]:
    return (roles,) if isinstance(roles, str) else roles
