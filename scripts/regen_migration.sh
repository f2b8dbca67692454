#!/usr/bin/env bash
# Until the first release, 0001_initial is regenerated from docent/db/models.py after a
# schema change (no deployed database exists yet). tests/docent/test_db.py checks they match.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
rm -f docent/db/migrations/versions/0001_initial.py
.venv/bin/python - "$tmp" <<'PY'
import sys
from alembic import command
from docent.db.session import alembic_config
command.revision(alembic_config(f"sqlite:///{sys.argv[1]}/gen.sqlite3"), message="initial", autogenerate=True, rev_id="0001")
PY
mv docent/db/migrations/versions/0001_initial.py docent/db/migrations/versions/0001_initial.py 2>/dev/null || true
rm -rf "$tmp"
