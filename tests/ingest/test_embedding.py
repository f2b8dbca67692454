"""The bundled embedder: unit vectors, the same vector for a query on one thread as in a
batch, torch's thread count left as it was, and no model path that needs a network."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from docent.errors import ConfigError
from ingest.embedding import SentenceTransformerEmbedder
from tests.ingest.hashing_embedder import HashingEmbedder


def test_a_single_query_matches_its_batch_vector_and_threads_are_restored(
    bundled_embedder: Any,
) -> None:
    import torch

    threads = torch.get_num_threads()
    texts = ["How many days of annual leave do I get?", "Expenses need a receipt."]
    batch = bundled_embedder.embed(texts)
    single = bundled_embedder.embed(texts[:1])
    assert batch.shape == (2, 384) and single.shape == (1, 384)
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-3)
    assert float(single[0] @ batch[0]) > 0.999
    assert torch.get_num_threads() == threads
    assert bundled_embedder.embed([]).shape == (0, 384)


def test_a_model_that_is_not_a_local_path_is_refused() -> None:
    with pytest.raises(ConfigError, match="never downloads"):
        SentenceTransformerEmbedder("sentence-transformers/all-mpnet-base-v2")


def test_hashing_embedder_is_deterministic_and_normalised() -> None:
    emb = HashingEmbedder(64)
    a, b = emb.embed(["leave days", "leave days"])
    assert np.array_equal(a, b) and abs(float(np.linalg.norm(a)) - 1.0) < 1e-6
    assert not emb.embed([""]).any()
