"""A test double: an embedder passed through, every text it embeds recorded in order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray


@dataclass
class CountingEmbedder:
    inner: Any
    texts: list[str] = field(default_factory=list)

    @property
    def model_name(self) -> str:
        return str(self.inner.model_name)

    @property
    def dimension(self) -> int:
        return int(self.inner.dimension)

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.texts.extend(texts)
        out: NDArray[np.float32] = self.inner.embed(texts)
        return out
