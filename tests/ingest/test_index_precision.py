"""An index and its questions in one precision: a new index records the precision it is
written in, every later process follows the record (even where it would choose the other),
a forced other precision is refused, and an index from before the record is read once
from its own vectors. The real model, the embedded index, ``Services`` as the CLI builds it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from docent.errors import ConfigError
from docent.wiring import Services
from ingest.embedding import SentenceTransformerEmbedder
from ingest.onnx_encoder import OnnxQueryEncoder, cosine_distance
from ingest.precision import PrecisionChoice
from store.ids import CHUNK_VECTOR, PRECISION_KEY
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.retrieval.conftest import make_settings
from tests.retrieval.corpus import CORPUS, write_chunks

pytestmark = pytest.mark.slow  # the real model, in both precisions

SAMPLE = CORPUS[:8]
QUESTION = "How many days of annual leave do I get?"


@pytest.fixture(scope="module")
def auto() -> SentenceTransformerEmbedder:
    """``DOCENT_EMBEDDING_BF16=auto`` as the CLI builds it, its model loaded once (the
    ``with_precision`` copies below share it)."""
    embedder = SentenceTransformerEmbedder("bundled", bf16="auto")
    embedder.embed(["load the model"])
    return embedder


def in_precision(embedder: SentenceTransformerEmbedder, name: str) -> SentenceTransformerEmbedder:
    return embedder.with_precision(PrecisionChoice(name == "bf16", f"written in {name}"))


def built(data_dir: Path, embedder: SentenceTransformerEmbedder) -> Path:
    """An index of SAMPLE written by ``embedder``; returns its ``index.json``."""
    services = Services(make_settings(data_dir), embedder)
    try:
        write_chunks(services.index, services.embedder, SAMPLE)
        return Path(services.settings.index_path) / "index.json"
    finally:
        services.close()


def recorded(meta: Path) -> object:
    return json.loads(meta.read_text()).get(PRECISION_KEY)


def stored_distance(services: Services) -> float:
    """1 - cos between stored chunk vectors and the same texts through ``embedder`` now."""
    stored = services.index.get([c.chunk_id for c in SAMPLE], vectors=(CHUNK_VECTOR,))
    rows = [stored[c.chunk_id] for c in SAMPLE]
    again = services.embedder.embed([r.chunk.embed_text for r in rows])
    return cosine_distance(again, np.vstack([r.vectors[CHUNK_VECTOR] for r in rows]))


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_a_new_index_records_its_precision_and_every_reader_follows_it(
    tmp_path: Path, auto: SentenceTransformerEmbedder, precision: str
) -> None:
    own = auto.precision
    meta = built(tmp_path, in_precision(auto, precision))
    assert recorded(meta) == precision

    services = Services(make_settings(tmp_path), auto)  # this machine's own choice, whatever
    try:
        assert services.embedder.precision.name == precision
        assert stored_distance(services) < 1e-6  # the stored vectors' precision exactly
        query = services.query_encoder.embed([QUESTION])
        expected = in_precision(auto, precision).embed([QUESTION])
        assert cosine_distance(query, expected) < 1e-6
        if precision == "bf16":  # float32 ONNX questions would not be in the index's space
            assert not isinstance(services.query_encoder, OnnxQueryEncoder)
    finally:
        services.close()
    assert auto.precision == own  # followed by a copy: a shared embedder is not changed
    assert recorded(meta) == precision


def test_a_forced_other_precision_is_refused_and_leaves_the_index_closed(
    tmp_path: Path, auto: SentenceTransformerEmbedder
) -> None:
    meta = built(tmp_path, in_precision(auto, "bf16"))
    forced = SentenceTransformerEmbedder("bundled", bf16=False)
    services = Services(make_settings(tmp_path), forced)
    with pytest.raises(ConfigError, match="holds bf16 vectors, and DOCENT_EMBEDDING_BF16 forces"):
        _ = services.embedder
    assert not forced.loaded  # refused before any vector was computed
    services.close()
    again = Services(make_settings(tmp_path), auto)  # the lock was released
    try:
        assert again.embedder.precision.name == "bf16" and recorded(meta) == "bf16"
    finally:
        again.close()


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_an_index_from_before_the_record_is_read_from_its_vectors_once(
    tmp_path: Path, auto: SentenceTransformerEmbedder, precision: str
) -> None:
    meta = built(tmp_path, in_precision(auto, precision))
    old = json.loads(meta.read_text())
    del old[PRECISION_KEY]
    meta.write_text(json.dumps(old))

    services = Services(make_settings(tmp_path), auto)
    try:
        assert services.index.embedding_precision == precision == recorded(meta)
        assert services.embedder.precision.name == precision
        assert stored_distance(services) < 1e-6
    finally:
        services.close()


def test_an_embedder_without_a_precision_records_none(tmp_path: Path) -> None:
    hashing = HashingEmbedder(32)
    services = Services(make_settings(tmp_path), hashing)
    try:
        assert services.embedder is hashing and services.index.embedding_precision is None
    finally:
        services.close()
