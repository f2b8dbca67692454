"""The web UI's main navigation: the pages a user's roles open, in order. Every page and
every HTML error page (``api.errors``) shows it."""

from __future__ import annotations

from api.users import CurrentUser

NAV = (
    ("/", "Ask", "asker"),
    ("/handoffs", "Handoffs", "any"),
    ("/documents", "Documents", "editor"),
    ("/gaps", "Content gaps", "editor"),
    ("/jobs", "Jobs", "operator"),
    ("/users", "Users", "admin"),
)


def nav_for(user: CurrentUser) -> list[dict[str, str]]:
    return [
        {"href": href, "label": label}
        for href, label, role in NAV
        if role == "any" or user.has_role(role)
    ]
