"""An ``Embedder`` that remembers the vectors of recent single texts.

One search embeds its query twice (the vector leg, then the reranker) and an eval or a
retried question repeats queries: both hit this cache. Batches (ingest) pass straight
through, uncached."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from docent.contracts import Embedder


class QueryVectorCache:
    def __init__(self, embedder: Embedder, size: int = 256) -> None:
        if size <= 0:
            raise ValueError(f"cache size must be greater than 0, got {size}")
        self.inner = embedder
        self.size = size
        self._vectors: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if len(texts) != 1:
            return self.inner.embed(texts)
        text = texts[0]
        with self._lock:
            cached = self._vectors.get(text)
            if cached is not None:
                self._vectors.move_to_end(text)
                return cached.copy()
        vectors = self.inner.embed([text])
        with self._lock:
            self._vectors[text] = vectors.copy()
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)
        return vectors
