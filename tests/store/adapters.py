"""The adapters the contract suite runs on: ``EdgeIndex`` on a temporary folder,
``ServerIndex`` on qdrant-client local mode (the server's test double), and ``ServerIndex``
on a real Qdrant server when ``DOCENT_TEST_QDRANT_URL`` is set (``docker compose up
qdrant``); without it that parameter is deselected (see ``tests/conftest.py``)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from docent.contracts import Chunk, Embedder
from store.edge import EdgeIndex
from store.protocol import ChunkIndex
from store.server import ServerIndex

SERVER_URL_ENV = "DOCENT_TEST_QDRANT_URL"
KINDS = ("edge", "local", pytest.param("server", marks=pytest.mark.qdrant_server))


@dataclass
class Adapter:
    """Opens indexes of one kind over one storage place (so a test can reopen it)."""

    kind: str
    folder: Path
    name: str = field(default_factory=lambda: f"t{uuid.uuid4().hex[:10]}")
    _opened: list[ChunkIndex] = field(default_factory=list)
    _client: object | None = None

    def open(self, model: str = "hashing-64", dimension: int = 64) -> ChunkIndex:
        index: ChunkIndex
        if self.kind == "edge":
            index = EdgeIndex(self.folder / self.name, model, dimension)
        elif self.kind == "local":
            if self._client is None:
                self._client = ServerIndex.local(
                    str(self.folder / "local"), self.name, model, dimension
                ).client
            index = ServerIndex(self._client, self.name, model, dimension)  # type: ignore[arg-type]
        else:
            index = ServerIndex.connect(
                os.environ[SERVER_URL_ENV], None, self.name, model, dimension
            )
        self._opened.append(index)
        return index

    def release(self, index: ChunkIndex) -> None:
        """Close one index so the storage can be opened again (the shared local client
        stays open: local mode allows one client per folder)."""
        if self.kind != "local":
            index.close()

    def close_all(self) -> None:
        if self.kind == "server" and self._opened:
            server = self._opened[0]
            assert isinstance(server, ServerIndex)
            server.client.delete_collection(self.name)
        for index in self._opened:
            if self.kind != "local":
                index.close()
        if self._client is not None:
            self._client.close()  # type: ignore[attr-defined]


def write(index: ChunkIndex, embedder: Embedder, chunks: Sequence[Chunk]) -> None:
    """What ingest writes: the chunk vector and one vector per sentence, aligned."""
    index.upsert(
        list(chunks),
        embedder.embed([c.embed_text for c in chunks]),
        [embedder.embed(list(c.unit_embed_texts)) for c in chunks],
    )


Opener = Callable[..., ChunkIndex]
