"""Prometheus metrics, one registry per app (so tests can build many apps): ask latency per
stage, ask outcomes by type and reason (``generate.reasons``; ``none`` for a clean answer),
and, read from the database at scrape time, ingest jobs by state and documents/chunks
indexed."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from docent.db.models import Document, Job, JobFile
from docent.db.session import session_scope

log = logging.getLogger("docent.api.metrics")
JOB_STATES = ("queued", "running", "succeeded", "failed", "cancelled")
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)


class _DatabaseCollector(Collector):
    """Reads the counts at scrape time; a database that does not answer yields nothing
    (``/readyz`` is where that shows), so ``/metrics`` keeps serving the in-process series."""

    def __init__(self, sessions: Callable[[], sessionmaker[Session]]) -> None:
        self._sessions = sessions

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            families = self._families()
        except Exception:  # the database is down: report the rest
            log.warning("metrics: database counts unavailable")
            return
        yield from families

    def _families(self) -> list[GaugeMetricFamily]:
        jobs = GaugeMetricFamily("docent_ingest_jobs", "Ingest jobs by state", labels=["state"])
        files = GaugeMetricFamily(
            "docent_ingest_job_files", "Files of ingest jobs by state", labels=["state"]
        )
        docs = GaugeMetricFamily("docent_documents_indexed", "Documents in the index (not retired)")
        chunks = GaugeMetricFamily("docent_chunks_indexed", "Chunks in the index (not retired)")
        with session_scope(self._sessions()) as db:
            job_counts = dict(db.execute(select(Job.state, func.count()).group_by(Job.state)).all())
            file_counts = dict(
                db.execute(select(JobFile.state, func.count()).group_by(JobFile.state)).all()
            )
            n_docs, n_chunks = db.execute(
                select(func.count(), func.coalesce(func.sum(Document.chunk_count), 0)).where(
                    Document.retired.is_(False)
                )
            ).one()
        for state in sorted(set(JOB_STATES) | set(job_counts)):
            jobs.add_metric([state], float(job_counts.get(state, 0)))
        for state, count in sorted(file_counts.items()):
            files.add_metric([state], float(count))
        docs.add_metric([], float(n_docs))
        chunks.add_metric([], float(n_chunks))
        return [jobs, files, docs, chunks]


class Metrics:
    def __init__(self, sessions: Callable[[], sessionmaker[Session]] | None = None) -> None:
        self.registry = CollectorRegistry()
        self.ask_stage_seconds = Histogram(
            "docent_ask_stage_seconds",
            "Time spent per stage of an ask",
            ["stage"],
            registry=self.registry,
            buckets=_BUCKETS,
        )
        self.ask_seconds = Histogram(
            "docent_ask_seconds", "Whole ask latency", registry=self.registry, buckets=_BUCKETS
        )
        self.ask_outcomes = Counter(
            "docent_ask_outcomes",
            "Ask outcomes by type and reason",
            ["outcome", "reason"],
            registry=self.registry,
        )
        self.handoffs = Counter(
            "docent_handoffs_created", "Handoffs created", registry=self.registry
        )
        if sessions is not None:
            self.registry.register(_DatabaseCollector(sessions))

    def observe_ask(
        self,
        outcome: str,
        total_s: float,
        stages_ms: Mapping[str, float],
        reason: str | None = None,
    ) -> None:
        self.ask_outcomes.labels(outcome=outcome, reason=reason or "none").inc()
        self.ask_seconds.observe(total_s)
        for stage, ms in stages_ms.items():
            self.ask_stage_seconds.labels(stage=stage).observe(max(ms, 0.0) / 1000.0)

    def render(self) -> bytes:
        return bytes(generate_latest(self.registry))


def stage_timings(raw: object) -> dict[str, float]:
    """Accept ``{stage: ms}`` or ``[{stage, ms}]`` (or objects with those attributes)."""
    if isinstance(raw, Mapping):
        return {str(k): float(v) for k, v in raw.items() if isinstance(v, int | float)}
    out: dict[str, float] = {}
    if isinstance(raw, Iterable) and not isinstance(raw, str | bytes):
        for item in raw:
            stage = item.get("stage") if isinstance(item, Mapping) else getattr(item, "stage", None)
            ms = item.get("ms") if isinstance(item, Mapping) else getattr(item, "ms", None)
            if stage is not None and isinstance(ms, int | float):
                out[str(stage)] = float(ms)
    return out
