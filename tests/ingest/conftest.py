"""The ingest tests' ``services``: SQLite (the embedded default), or real PostgreSQL when a
test is marked ``BOTH_DBS`` (tests/ingest/pipeline_support.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from docent.settings import Settings
from docent.wiring import Services
from tests.ingest.pipeline_support import make_services


@pytest.fixture
def services(
    request: pytest.FixtureRequest, settings: Settings, bundled_embedder: Any
) -> Iterator[Services]:
    backend = getattr(request, "param", "sqlite")
    url = None if backend == "sqlite" else str(request.getfixturevalue("pg_url"))
    services = make_services(settings, url, bundled_embedder)
    yield services
    services.close()
