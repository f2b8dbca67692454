"""The composition root: builds each heavy client and model once, on first use, and hands
them to the stages. Every driver (the CLI's commands, ``docent serve``, the Celery worker's
children, the evals and the benchmarks) gets its ``Services`` from ``open_services``; tests
build one over a temporary data dir. Nothing else constructs clients.

The stages' modules are imported inside the properties that build them, not at the top: a
cold ``docent ask`` must not import torch, sentence-transformers, unstructured or Celery
(seconds together) for a client it never builds (README, cold start;
tests/generate/test_cold_ask.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date
from functools import cached_property
from typing import TYPE_CHECKING

from docent.settings import Settings

log = logging.getLogger("docent.wiring")

if TYPE_CHECKING:
    import httpx
    from sqlalchemy import Engine
    from sqlalchemy.orm import Session, sessionmaker

    from docent.contracts import Embedder
    from generate.ask import Asker
    from generate.protocols import Generator
    from ingest.pipeline import Ingestor
    from retrieval.keyword import KeywordIndex
    from retrieval.rerank import Reranker
    from retrieval.searcher import Searcher
    from retrieval.terms import WordVectorCache
    from store.protocol import ChunkIndex

# Opens (and ensures) the chunk index for the configured embedder's model.
IndexOpener = Callable[["Embedder"], "ChunkIndex"]


def open_services(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    index_opener: IndexOpener | None = None,
    allow_legacy_index: bool = False,
) -> Services:
    """The services a driver runs on, over ``settings``; nothing opens until first used,
    and ``close()`` closes what was opened.

    ``embedder`` replaces the configured model (tests, benchmarks); ``index_opener``
    replaces the configured index adapter (a benchmark's other engine);
    ``allow_legacy_index`` opens the index even beside an old local-mode folder (only
    ``docent reindex``, which rebuilds from the registry, should)."""
    return Services(
        settings,
        embedder,
        index_opener=index_opener,
        allow_legacy_index=allow_legacy_index,
    )


class Services:
    def __init__(
        self,
        settings: Settings,
        embedder: Embedder | None = None,
        *,
        index_opener: IndexOpener | None = None,
        allow_legacy_index: bool = False,
        llm_transport: httpx.BaseTransport | None = None,
        today: Callable[[], date] = date.today,
    ) -> None:
        """Drivers call ``open_services`` (the arguments are explained there);
        ``llm_transport`` carries the OpenAI-compatible backend's HTTP (tests fake the
        provider there, at the vendor boundary). ``today``: the date statuses are derived
        against (a document not yet in force is pending) and a question's later year read."""
        self.settings = settings
        self._today = today
        self._embedder = embedder
        self._index_opener = index_opener
        self._allow_legacy_index = allow_legacy_index
        self._llm_transport = llm_transport
        self._bound_embedder: Embedder | None = None

    @cached_property
    def engine(self) -> Engine:
        from docent.db.session import at_head, make_engine, migrate

        url = self.settings.resolved_database_url
        engine = make_engine(url)  # first: it creates the SQLite file's folder
        if not at_head(engine):
            migrate(url)
        return engine

    @cached_property
    def sessions(self) -> sessionmaker[Session]:
        from docent.db.session import session_factory

        return session_factory(self.engine)

    @cached_property
    def configured_embedder(self) -> Embedder:
        """The configured model in this machine's own precision choice; its model loads at
        first use (``embedder`` is the one to embed with)."""
        if self._embedder is not None:
            return self._embedder
        from ingest.embedding import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(
            self.settings.embedding_model,
            batch_size=self.settings.embedding_batch_size,
            bf16=self.settings.embedding_bf16,
            cache_dir=self.settings.data_dir,
        )

    @cached_property
    def embedder(self) -> Embedder:
        """The embedder in the precision the index records for its vectors (opens the index;
        ingest/index_precision.py)."""
        _ = self.index
        assert self._bound_embedder is not None  # set when the index opened
        return self._bound_embedder

    @cached_property
    def index(self) -> ChunkIndex:
        """The chunk index: Qdrant Edge in the data dir, or the server at DOCENT_QDRANT_URL.
        Opening it settles the precision of the vectors written to it and asked of it: a new
        index records the embedder's, an existing one's record holds."""
        from ingest.index_precision import bind_precision

        model = self.configured_embedder
        index = (self._index_opener or self._configured_index)(model)
        try:
            self._bound_embedder = bind_precision(index, model)
        except BaseException:
            index.close()
            raise
        return index

    def _configured_index(self, model: Embedder) -> ChunkIndex:
        from store.open import open_index

        return open_index(
            self.settings, model.model_name, model.dimension, allow_legacy=self._allow_legacy_index
        )

    @cached_property
    def keyword_index(self) -> KeywordIndex:
        from retrieval.keyword import KeywordIndex

        return KeywordIndex(
            self.index, self.settings.data_dir, min_free_disk_mb=self.settings.min_free_disk_mb
        )

    @cached_property
    def query_encoder(self) -> Embedder:
        """What embeds a question: the embedder, or its ONNX export where that is faster
        (``DOCENT_QUERY_ENCODER``; chosen once per embedder, ingest/query_encoder.py)."""
        from ingest.query_encoder import query_encoder

        s = self.settings
        return query_encoder(self.embedder, s.query_encoder, s.data_dir).encoder

    @cached_property
    def query_embedder(self) -> Embedder:
        """The query encoder behind a cache of recent query vectors (search embeds each
        twice)."""
        from retrieval.query_cache import QueryVectorCache

        return QueryVectorCache(self.query_encoder)

    @cached_property
    def reranker(self) -> Reranker:
        from retrieval.rerank import CrossEncoderReranker, SentenceReranker
        from retrieval.vector_cache import StoredVectorCache

        s = self.settings
        if s.reranker_model:
            return CrossEncoderReranker(s.reranker_model)
        cache = StoredVectorCache(s.vector_cache_mb * 2**20) if s.vector_cache_mb else None
        return SentenceReranker(self.query_embedder, self.index, cache=cache)

    @cached_property
    def searcher(self) -> Searcher:
        from docent.scope import Collections
        from retrieval.order import DEFAULT_ORDER
        from retrieval.searcher import Searcher

        s = self.settings
        # The blend's weights are fitted for the offline reranker's scores.
        evidence = s.retrieval_order == "evidence" and not s.reranker_model
        return Searcher(
            self.index,
            self.query_embedder,
            self.keyword_index,
            self.reranker,
            self.sessions,
            levels=s.access_levels,
            leg_top_n=s.leg_top_n,
            fused_top_m=s.fused_top_m,
            rrf_k=s.rrf_k,
            top_k=s.top_k,
            threshold=s.relevance_threshold,
            include_pending=s.include_pending,
            collections=Collections.from_mapping(s.collections),
            order=DEFAULT_ORDER if evidence else None,
            words=self.word_vectors if evidence else None,
            today=self._today,
        )

    @cached_property
    def word_vectors(self) -> WordVectorCache:
        """Single words' vectors for the evidence order's term coverage, kept on disk."""
        from retrieval.terms import WordVectorCache

        return WordVectorCache(self.query_encoder, self.settings.data_dir / "terms")

    @cached_property
    def ingestor(self) -> Ingestor:
        """Jobs, files and the document registry; hands files to Celery when a broker is set.
        The index and the embedder open when a file first needs them, not here."""
        from ingest.dispatch import celery_dispatch
        from ingest.pipeline import Ingestor

        s = self.settings
        return Ingestor(
            s,
            self.sessions,
            index=lambda: self.index,
            embedder=lambda: self.embedder,
            dispatch=celery_dispatch(s) if s.broker_url else None,
            today=self._today,
            on_job_done=self._recheck_gaps,
        )

    def _recheck_gaps(self, job_id: str) -> None:
        """After an ingest job ends (inline or in a worker child): close each open content
        gap the documents now cover (api/gaps.py)."""
        from api.gaps import recheck_open_gaps

        recheck_open_gaps(
            self.sessions, lambda: self.searcher, self.settings.access_levels, job_id=job_id
        )

    @cached_property
    def generator(self) -> Generator:
        """The answer backend: ``extractive`` (no LLM) or any OpenAI-compatible endpoint."""
        s = self.settings
        if s.generator == "openai":
            from generate.openai_chat import OpenAIChatGenerator

            assert s.llm_base_url is not None  # Settings refuses openai without a base URL
            if s.answerer_fit is not None:
                log.warning("DOCENT_ANSWERER_FIT applies to the extractive generator; ignored")
            return OpenAIChatGenerator(
                s.llm_base_url,
                s.llm_model,
                api_key=s.llm_api_key.get_secret_value() if s.llm_api_key else None,
                timeout=s.llm_timeout_s,
                max_retries=s.llm_max_retries,
                structured=s.llm_structured_output,
                transport=self._llm_transport,
            )
        from generate.answerer_file import answerer_choice
        from generate.extractive import ExtractiveGenerator

        choice = answerer_choice(s)
        log.info("extractive answerer: %s", choice.source)
        return ExtractiveGenerator(weights=choice.weights, gate=choice.gate, today=self._today)

    @cached_property
    def asker(self) -> Asker:
        from generate.ask import Asker

        return Asker(
            self.searcher,
            self.generator,
            self.sessions,
            budget_tokens=self.settings.prompt_token_budget,
            levels=self.settings.access_levels,
            default_owner=self.settings.default_handoff_queue,
        )

    def close(self) -> None:
        if "word_vectors" in self.__dict__:
            self.word_vectors.save()
        if "keyword_index" in self.__dict__:
            self.keyword_index.close()
        if "index" in self.__dict__:
            self.index.close()
        if "engine" in self.__dict__:
            self.engine.dispose()
