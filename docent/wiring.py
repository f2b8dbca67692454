"""The composition root: builds each heavy client and model once, on first use, and hands
them to the stages. The CLI, the API lifespan and the Celery worker each build one
``Services``; tests build one over a temporary data dir. Nothing else constructs clients."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from docent.settings import Settings

if TYPE_CHECKING:
    from qdrant_client import QdrantClient
    from sqlalchemy import Engine
    from sqlalchemy.orm import Session, sessionmaker

    from docent.contracts import Embedder
    from ingest.vector_store import QdrantIndex


class Services:
    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self._embedder = embedder

    @cached_property
    def engine(self) -> Engine:
        from docent.db.session import make_engine, migrate

        url = self.settings.resolved_database_url
        migrate(url)
        return make_engine(url)

    @cached_property
    def sessions(self) -> sessionmaker[Session]:
        from docent.db.session import session_factory

        return session_factory(self.engine)

    @cached_property
    def qdrant(self) -> QdrantClient:
        from ingest.vector_store import open_qdrant

        return open_qdrant(self.settings)

    @cached_property
    def embedder(self) -> Embedder:
        if self._embedder is not None:
            return self._embedder
        from ingest.embedding import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(
            self.settings.embedding_model,
            batch_size=self.settings.embedding_batch_size,
            bf16=self.settings.embedding_bf16,
        )

    @cached_property
    def index(self) -> QdrantIndex:
        from ingest.vector_store import QdrantIndex

        index = QdrantIndex(
            self.qdrant, self.settings.collection, self.embedder.model_name, self.embedder.dimension
        )
        index.ensure_collection()
        return index

    def close(self) -> None:
        if "qdrant" in self.__dict__:
            self.qdrant.close()
        if "engine" in self.__dict__:
            self.engine.dispose()
