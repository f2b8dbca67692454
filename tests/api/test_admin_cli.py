"""``docent users ...`` changes are audited as ``cli:<os user>``, and ``docent audit --json``
prints what ``GET /api/admin/audit`` returns, from the same serialiser (real subprocesses
over the app's own data dir)."""

from __future__ import annotations

import getpass
import json
from collections.abc import Callable

import pytest

from tests.api.conftest import ApiEnv
from tests.api.test_users import docent


@pytest.mark.integration
def test_cli_changes_are_audited_and_audit_json_matches_the_api(
    make_env: Callable[..., ApiEnv],
) -> None:
    env = make_env()
    data_dir = env.services.settings.data_dir
    patched = env.client.patch(
        "/api/admin/users/ada", json={"clearance": "public"}, headers=env.as_user("admin")
    )
    assert patched.status_code == 200
    added = docent(
        ["users", "add", "zed", "--clearance", "employee", "--password-stdin"],
        data_dir,
        stdin="zed's first password\n",
    )
    assert added.returncode == 0, added.stderr
    short = docent(["users", "add", "yan", "--clearance", "employee", "--password-stdin"],
                   data_dir, stdin="short\n")  # fmt: skip
    assert short.returncode == 1 and "at least 8 characters" in short.stderr
    plain = docent(["users", "token", "zed", "--label", "ci"], data_dir).stdout.strip()
    prefix = plain.split("_")[1]
    assert docent(["users", "revoke", prefix], data_dir).returncode == 0
    assert docent(["users", "revoke", "zed"], data_dir).returncode == 0  # disables zed
    # The command line is how a locked-out admin gets back in: it may change anyone.
    back = docent(["users", "set", "admin", "--roles", "asker", "--disable"], data_dir)
    assert (
        back.returncode == 0 and "admin: disabled, clearance restricted, roles asker" in back.stdout
    )
    again = docent(["users", "set", "admin", "--roles", "admin", "--enable"], data_dir)
    assert again.returncode == 0, again.stderr
    bad = docent(["users", "set", "ada", "--clearance", "cosmic"], data_dir)
    assert bad.returncode == 1 and "clearance 'cosmic'" in bad.stderr

    printed = docent(["audit", "--json", "--limit", "50"], data_dir)
    assert printed.returncode == 0, printed.stderr
    entries = json.loads(printed.stdout)["entries"]
    assert entries == env.get("admin", "/api/admin/audit?limit=50").json()["entries"]
    cli = f"cli:{getpass.getuser()}"
    assert [(e["actor"], e["action"], e["target"]) for e in entries] == [
        (cli, "user.enabled", "admin"),
        (cli, "user.roles_changed", "admin"),
        (cli, "user.disabled", "admin"),
        (cli, "user.roles_changed", "admin"),
        (cli, "user.disabled", "zed"),
        (cli, "token.revoked", "zed"),
        (cli, "token.issued", "zed"),
        (cli, "user.added", "zed"),
        ("admin", "user.clearance_changed", "ada"),
    ]
    assert plain not in printed.stdout and "first password" not in printed.stdout

    text = docent(["audit", "--limit", "2"], data_dir)
    lines = text.stdout.strip().splitlines()
    assert len(lines) == 2 and "user.enabled" in lines[0] and "disabled: True -> False" in lines[0]
    issued = docent(["audit", "--limit", "7"], data_dir).stdout.strip().splitlines()[6]
    assert "token.issued" in issued and f"prefix: {prefix}; label: ci; user: zed" in issued
