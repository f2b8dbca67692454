from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from store.protocol import ChunkIndex
from tests.store.adapters import KINDS, Adapter


@pytest.fixture(params=KINDS)
def adapter(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Adapter]:
    made = Adapter(request.param, tmp_path)
    yield made
    made.close_all()


@pytest.fixture
def index(adapter: Adapter) -> ChunkIndex:
    opened = adapter.open()
    opened.ensure()
    return opened
