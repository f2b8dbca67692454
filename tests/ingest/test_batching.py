"""Embedding across files: each distinct text once, longest first, one call for many files,
and each file still written, committed and failed on its own."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from docent.contracts import Chunk
from docent.settings import Settings
from ingest.batching import BATCH_TEXTS, VectorMemo, by_length, distinct_texts
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.ingest.pipeline_support import BAD, ingestor_over, make_services, snapshot, write_doc

POISON = "Rule 9.0.1"  # a text the failing embedder below cannot embed


class RecordingEmbedder:
    """The hashing embedder, recording every call (and refusing ``POISON`` texts, as a model
    that chokes on one input would)."""

    def __init__(self, poison: str | None = None) -> None:
        self._inner = HashingEmbedder(64)
        self.calls: list[list[str]] = []
        self._poison = poison

    @property
    def model_name(self) -> str:
        return self._inner.model_name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.calls.append(list(texts))
        if self._poison and any(self._poison in t for t in texts):
            raise RuntimeError("the model could not embed this text")
        return self._inner.embed(texts)


def _chunk(n: int, text: str, sentences: tuple[str, ...]) -> Chunk:
    return Chunk(
        chunk_id=f"a.md#{n}",
        doc_id="a",
        source="a.md",
        heading_path=("A",),
        kind="text",
        text=text,
        embed_text=f"A\n{text}",  # as chunking writes it: the heading path, then the text
        sentences=sentences,
        content_hash=str(n),
    )


def test_a_one_sentence_chunk_and_repeated_units_are_embedded_once_longest_first() -> None:
    one = _chunk(0, "Leave is 25 days.", ("Leave is 25 days.",))
    two = _chunk(1, "Ask HR. Leave is 25 days.", ("Ask HR.", "Leave is 25 days."))
    empty = _chunk(2, "| a | b |", ())
    # Each unit is embedded under its heading path: a one-sentence chunk is its own unit.
    assert two.unit_embed_texts == ("A\nAsk HR.", "A\nLeave is 25 days.")
    assert distinct_texts([one, two, empty]) == [
        "A\nLeave is 25 days.",
        "A\nAsk HR. Leave is 25 days.",
        "A\nAsk HR.",
        "A\n| a | b |",
    ]
    assert by_length(["bb", "a", "ccc"]) == ["ccc", "bb", "a"]

    embedder = RecordingEmbedder()
    memo = VectorMemo(embedder, capacity=3)
    assert memo.embed(distinct_texts([one, two, empty])) == 4
    assert embedder.calls == [by_length(distinct_texts([one, two, empty]))]
    assert memo.embed(["A\nAsk HR.", "A\nAsk HR."]) == 0  # known already: no call
    embedded = memo.embedded([one, two, empty])
    alone = HashingEmbedder(64)
    assert np.array_equal(
        embedded.chunk_vectors, alone.embed([c.embed_text for c in (one, two, empty)])
    )
    assert np.array_equal(
        embedded.sentence_vectors[1], alone.embed(["A\nAsk HR.", "A\nLeave is 25 days."])
    )
    assert embedded.sentence_vectors[2].shape == (0, 64)
    memo.trim()  # capacity 3: the least recently used text goes
    assert memo.embed(["A\nAsk HR.", "A\n| a | b |"]) == 0
    assert memo.embed(distinct_texts([one, two])) == 1 and memo.embedded_texts == 5


def _corpus(root: Path) -> list[Path]:
    """Three good documents with a corrupt one in the middle, sharing a boilerplate line."""
    files = []
    for n, name in enumerate(["a.md", "b.md", "d.md"]):
        files.append(write_doc(root / name, f"Policy {name}", 3, seed=n))
    shutil.copy2(BAD / "corrupt.docx", root / "c.docx")
    return files


def _ids(services: object) -> set[str]:
    return {str(p["chunk_id"]) for p in snapshot(services).values()}  # type: ignore[arg-type]


def test_a_bad_file_inside_a_cross_file_batch_fails_alone_with_its_reason(
    settings: Settings, tmp_path: Path
) -> None:
    corpus = tmp_path / "c"
    _corpus(corpus)
    # One file per batch: the reference the batched run must match.
    alone = make_services(
        settings.model_copy(update={"data_dir": tmp_path / "alone"}), None, RecordingEmbedder()
    )
    batched_embedder = RecordingEmbedder()
    batched = make_services(settings, None, batched_embedder)
    reasons = []
    try:
        for services, batch_texts in ((alone, 1), (batched, 10_000)):
            ingestor = ingestor_over(services, batch_texts=batch_texts)
            job = ingestor.submit([corpus])
            seen: list[str] = []
            ingestor.run(job, on_file=lambda r, seen=seen: seen.append(r.source))  # type: ignore[misc]
            status = ingestor.job_status(job)
            assert sorted(seen) == ["a.md", "b.md", "c.docx", "d.md"]  # one report per file
            assert [e["source"] for e in status["errors"]] == ["c.docx"]
            assert status["documents"] == 3 and status["state"] == "failed"
            reasons.append(status["errors"][0]["reason"])
        assert len(batched_embedder.calls) == 1  # the three good files in one call
        assert reasons[0] == reasons[1] and "docx" in reasons[0].lower()
        assert _ids(batched) == _ids(alone) and len(_ids(batched)) > 3
    finally:
        alone.close()
        batched.close()


def test_a_file_the_model_chokes_on_fails_alone_and_the_rest_of_its_batch_is_written(
    settings: Settings, tmp_path: Path
) -> None:
    corpus = tmp_path / "c"
    write_doc(corpus / "a.md", "Policy A", 2, seed=1)
    write_doc(corpus / "b.md", "Policy B", 2, seed=9)  # its sentences hold POISON
    write_doc(corpus / "c.md", "Policy C", 2, seed=3)
    embedder = RecordingEmbedder(poison=POISON)
    services = make_services(settings, None, embedder)
    try:
        ingestor = ingestor_over(services, batch_texts=10_000)
        job = ingestor.submit([corpus])
        ingestor.run(job)
        status = ingestor.job_status(job)
        assert status["errors"] == [
            {
                "source": "b.md",
                "reason": "internal error while ingesting (RuntimeError)",
                "retryable": True,  # a fault outside the file: another try may succeed
            }
        ]
        assert {f["source"]: f["state"] for f in status["files"]} == {
            "a.md": "indexed",
            "b.md": "failed",
            "c.md": "indexed",
        }
        # One batch call that failed, then each file alone.
        assert len(embedder.calls) == 4
        assert {str(p["source"]) for p in snapshot(services).values()} == {"a.md", "c.md"}
    finally:
        services.close()


@pytest.mark.parametrize("batch_texts", [1, 10_000])
def test_reingest_after_a_batch_writes_nothing_new(
    settings: Settings, tmp_path: Path, batch_texts: int
) -> None:
    corpus = tmp_path / "c"
    write_doc(corpus / "a.md", "Policy A", 2, seed=1)
    write_doc(corpus / "b.md", "Policy B", 2, seed=2)
    embedder = RecordingEmbedder()
    services = make_services(settings, None, embedder)
    try:
        ingestor = ingestor_over(services, batch_texts=batch_texts)
        ingestor.run(ingestor.submit([corpus]))
        calls = len(embedder.calls)
        assert calls == (2 if batch_texts == 1 else 1)
        job = ingestor.submit([corpus])
        ingestor.run(job)
        assert ingestor.job_status(job)["skipped"] == 2 and len(embedder.calls) == calls
    finally:
        services.close()


def test_a_large_file_is_embedded_in_parts_and_its_progress_moves_meanwhile(
    settings: Settings, tmp_path: Path
) -> None:
    """A user pass: a one-file job's time left rose from 11 s to 23 s while the file was
    embedded in one call (its progress stood at "chunked" until the call returned). It is
    embedded ``BATCH_TEXTS`` texts to a call now, and its progress moves between the calls."""
    corpus = tmp_path / "c"
    write_doc(corpus / "big.md", "Big policy", 120, seed=4)
    embedder = RecordingEmbedder()
    services = make_services(settings, None, embedder)
    try:
        ingestor = ingestor_over(services, batch_texts=10_000)
        job = ingestor.submit([corpus])
        seen: list[float] = []
        inner = embedder.embed

        def watched(texts: Sequence[str]) -> NDArray[np.float32]:
            seen.append(float(ingestor.job_status(job)["files"][0]["progress"]))
            return inner(texts)

        embedder.embed = watched  # type: ignore[method-assign]
        ingestor.run(job)
        assert ingestor.job_status(job)["state"] == "succeeded"
        assert len(embedder.calls) >= 3 and all(len(c) <= BATCH_TEXTS for c in embedder.calls)
        assert seen[0] == 0.3 and seen == sorted(set(seen)) and seen[-1] < 0.9, seen
    finally:
        services.close()


def test_the_memo_tells_the_share_embedded_between_calls() -> None:
    texts = [f"rule {n}: " + "x" * (n % 7) for n in range(BATCH_TEXTS * 2 + 10)]
    shares: list[float] = []
    embedder = RecordingEmbedder()
    assert VectorMemo(embedder).embed(texts, shares.append) == len(texts)
    assert [len(c) for c in embedder.calls] == [BATCH_TEXTS, BATCH_TEXTS, 10]
    assert shares == [BATCH_TEXTS / len(texts), 2 * BATCH_TEXTS / len(texts)]


def test_after_a_failed_part_the_retry_counts_the_parts_kept_as_done() -> None:
    """A transient fault in the third part: the retry embeds only what is missing, and the
    share it reports goes on from the parts already kept, never back."""
    texts = [f"rule {n}" for n in range(BATCH_TEXTS * 3 + 10)]
    embedder = RecordingEmbedder(poison="rule 9")  # "rule 9…" sorts into the third part
    memo = VectorMemo(embedder)
    shares: list[float] = []
    with pytest.raises(RuntimeError):
        memo.embed(texts, shares.append)
    before = list(shares)
    embedder._poison = None
    shares.clear()
    assert memo.embed(texts, shares.append) == len(texts) - 2 * BATCH_TEXTS
    assert before == [BATCH_TEXTS / len(texts), 2 * BATCH_TEXTS / len(texts)]
    assert shares == [3 * BATCH_TEXTS / len(texts)]
