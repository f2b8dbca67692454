"""The web UI's main navigation: the pages a user's roles open, in order. Every page and
every HTML error page (``api.errors``) shows it. ``badges``: a count to show beside a link
(History: the replies to one's handoffs not read yet)."""

from __future__ import annotations

from collections.abc import Mapping

from api.users import CurrentUser

NAV = (
    ("/", "Ask", "asker"),
    ("/history", "History", "asker"),
    ("/handoffs", "Handoffs", "any"),
    ("/documents", "Documents", "editor"),
    ("/gaps", "Content gaps", "editor"),
    ("/jobs", "Jobs", "operator"),
)


def nav_for(user: CurrentUser, badges: Mapping[str, int] | None = None) -> list[dict[str, str]]:
    return [
        {"href": href, "label": label, "badge": str((badges or {}).get(href) or "")}
        for href, label, role in NAV
        if role == "any" or user.has_role(role)
    ]
