"""``HashingEmbedder``: a deterministic, instant embedder for the stages' unit tests, a real
(if crude) implementation of ``docent.contracts.Embedder``; never for serving."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from docent.errors import ConfigError

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
