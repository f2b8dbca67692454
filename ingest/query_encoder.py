"""Which encoder embeds a question on this machine: the torch model, or its ONNX export.

A question is one short text on the request path, and ONNX Runtime embedded one 3-4x faster
than torch on both CPUs measured (../shared/NOTES.md, the README's speed figures). So
``DOCENT_QUERY_ENCODER=auto`` (the default) decides per machine, as the embedding precision
is decided (``ingest/precision.py``):

1. The embedder runs under bf16 autocast (it follows the precision the index records,
   ``ingest/index_precision.py``; float32 is the default where this encoder can serve):
   torch. The export computes in float32, and query vectors must stay in the stored
   vectors' space: float32 query vectors sit up to ~4e-5 (1 - cos) from torch's bf16 ones,
   enough to move rerank scores by ~2e-3 (measured).
2. Not possible: no ``onnxruntime``, a model pipeline the ONNX encoder does not reproduce
   (``onnx_encoder.pipeline_problem``), or an export whose vectors differ from torch's by
   more than ``MAX_DISTANCE`` (checked when it is made): torch, with the reason logged.
3. Otherwise a short timed calibration of one short query through each decides; the result
   is cached per machine (CPU, flags, threads, torch and ONNX Runtime versions, model and
   its files' hash, precision) in ``query-encoder.json`` beside the exports (below), so
   every data dir on the machine shares it.

``torch`` / ``onnx`` force one (``onnx`` raises ``ConfigError`` when it is not possible, and
warns with the measured distance over bf16 vectors). Ingest (batches) always runs torch. The
export is kept in a cache folder with the model files' hash (``onnx_encoder.cached_export``):
``$XDG_CACHE_HOME/docent/onnx`` (or ``~/.cache/docent/onnx``), so every data dir on a machine
shares one; ``<data_dir>/cache/onnx`` when that folder cannot be written.
"""

from __future__ import annotations

import hashlib
import logging
import os
import statistics
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from docent.contracts import Embedder
from docent.errors import ConfigError
from ingest.embedding import SentenceTransformerEmbedder
from ingest.onnx_encoder import (
    CHECK_TEXTS,
    MAX_DISTANCE,
    ExportRefused,
    OnnxQueryEncoder,
    cached_export,
    cosine_distance,
    export_transformer,
    load_tokenizer,
    pipeline_problem,
)
from ingest.precision import (
    machine_key,
    machine_threads,
    package_version,
    read_cpu_flags,
    read_machine_entry,
    write_machine_entry,
)

log = logging.getLogger(__name__)

EncoderMode = Literal["auto", "torch", "onnx"]
CACHE_NAME = "query-encoder.json"
# ONNX must beat torch by this factor to be chosen: torch is the reference, and a tie on a
# noisy machine is no reason to run a second copy of the model.
ONNX_MARGIN = 1.15
# The export computes in float32. Under bf16 autocast the stored vectors are bf16 ones, and
# float32 query vectors sit up to ~4e-5 (1 - cos) from torch's bf16 ones: enough to move
# rerank scores by up to ~2e-3 and swap near-ties (the same section in two formats) on
# ../shared/corpora (measured). ``auto`` keeps queries in the stored vectors' precision.
BF16_REASON = (
    "the embedder runs under bf16 autocast, and float32 ONNX query vectors would move scores "
    "against the bf16 vectors it stores (DOCENT_QUERY_ENCODER=onnx accepts that)"
)
CALIBRATION_QUERIES: tuple[str, ...] = (
    "How many days of paid holiday does a full-time employee get each year?",
    "Who approves travel over 500 euros?",
    "per diem Lisbon",
    "Can I carry over unused leave into next year?",
    "What is the notice period when I resign?",
    "Is RC-77 still the form for expense claims?",
)


@dataclass(frozen=True)
class EncoderTiming:
    """Milliseconds per short query of each encoder on this machine (best round's median)."""

    torch_ms: float
    onnx_ms: float


@dataclass(frozen=True)
class EncoderChoice:
    name: Literal["torch", "onnx"]
    reason: str
    timing: EncoderTiming | None = None
    cached: bool = False


@dataclass(frozen=True)
class QueryEncoder:
    """The encoder chosen for questions, and the choice."""

    encoder: Embedder
    choice: EncoderChoice


def choose_encoder(
    mode: EncoderMode,
    bf16: bool,
    problem: str | None,
    calibrate: Callable[[], tuple[EncoderTiming, bool]],
) -> EncoderChoice:
    """The choice, given the mode, whether the embedder runs under bf16 autocast, why ONNX
    cannot serve (``None``: it can) and a way to get a calibration (``(timing,
    came_from_cache)``; called in ``auto`` mode only)."""
    if mode == "torch":
        return EncoderChoice("torch", "DOCENT_QUERY_ENCODER=torch")
    if mode == "auto" and bf16:
        return EncoderChoice("torch", BF16_REASON)
    if problem is not None:
        if mode == "onnx":
            raise ConfigError(f"DOCENT_QUERY_ENCODER=onnx is not possible here: {problem}")
        return EncoderChoice("torch", f"ONNX not possible: {problem}")
    if mode == "onnx":
        return EncoderChoice("onnx", "DOCENT_QUERY_ENCODER=onnx")
    timing, cached = calibrate()
    faster = timing.onnx_ms * ONNX_MARGIN <= timing.torch_ms
    reason = "calibrated: onnx faster" if faster else "calibrated: onnx not faster"
    return EncoderChoice("onnx" if faster else "torch", reason, timing, cached)


def parse_mode(value: str) -> EncoderMode:
    text = value.strip().lower()
    if text == "auto":
        return "auto"
    if text == "torch":
        return "torch"
    if text == "onnx":
        return "onnx"
    raise ConfigError(f"DOCENT_QUERY_ENCODER must be auto, torch or onnx, not {value!r}")


def time_encoders(
    torch_embed: Callable[[Sequence[str]], object],
    onnx_embed: Callable[[Sequence[str]], object],
    queries: Sequence[str] = CALIBRATION_QUERIES,
    rounds: int = 3,
) -> EncoderTiming:
    """Each encoder on each query alone: one warm-up pass each, then ``rounds`` interleaved
    passes; per encoder the lowest per-pass median (a busy neighbour slows a pass, not all)."""
    encoders = {"torch": torch_embed, "onnx": onnx_embed}
    for embed in encoders.values():
        for query in queries:
            embed([query])
    best = dict.fromkeys(encoders, float("inf"))
    for _ in range(rounds):
        for name, embed in encoders.items():
            took = []
            for query in queries:
                started = time.perf_counter()
                embed([query])
                took.append((time.perf_counter() - started) * 1000.0)
            best[name] = min(best[name], statistics.median(took))
    return EncoderTiming(round(best["torch"], 2), round(best["onnx"], 2))


def export_cache_dir(data_dir: Path | None) -> Path:
    """Where exports are kept: the user's cache folder, else the data dir's."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    shared = Path(base) / "docent" / "onnx"
    try:
        shared.mkdir(parents=True, exist_ok=True)
        if os.access(shared, os.W_OK):
            return shared
    except OSError:
        pass
    if data_dir is None:
        raise ExportRefused(f"no writable folder for the ONNX export ({shared} is not)")
    return data_dir / "cache" / "onnx"


def calibration_cache(data_dir: Path | None) -> Path | None:
    """Where the timing is kept: beside the exports, so every data dir on a machine shares
    it (a first question in a new data dir would otherwise load torch to time it again)."""
    try:
        return export_cache_dir(data_dir).parent / CACHE_NAME
    except ExportRefused:
        return None


def export_name(model_dir: Path) -> str:
    """One cache slot per model folder: the same folder with other files in it (an upgraded
    model package) finds its old export and refuses it by the model hash."""
    where = hashlib.sha256(str(model_dir.resolve()).encode()).hexdigest()[:12]
    return f"{model_dir.name}-{where}"


def _export_and_check(embedder: SentenceTransformerEmbedder) -> Callable[[Path], float]:
    """The exporter ``cached_export`` calls: export from the loaded weights, then check the
    export against torch's float32 vectors; refuse it when they differ."""

    def export(target: Path) -> float:
        tokenizer = load_tokenizer(embedder.model_path)
        try:
            export_transformer(embedder.transformer, tokenizer, target)
        except Exception as exc:  # torch raises many kinds; any of them means no export
            raise ExportRefused(f"torch.onnx.export failed: {exc}") from exc
        encoder = OnnxQueryEncoder(
            target, embedder.model_path, embedder.model_name, embedder.dimension
        )
        expected = embedder.encode_fp32(CHECK_TEXTS)
        distance = max(
            cosine_distance(encoder.embed(CHECK_TEXTS), expected),  # one padded batch
            cosine_distance(np.vstack([encoder.embed([t]) for t in CHECK_TEXTS]), expected),
        )
        if distance > MAX_DISTANCE:
            raise ExportRefused(
                f"the export's vectors differ from torch's: 1 - cos up to {distance:.2e} "
                f"(at most {MAX_DISTANCE:.0e})"
            )
        return distance

    return export


def _onnx_encoder(
    embedder: SentenceTransformerEmbedder, data_dir: Path | None
) -> tuple[OnnxQueryEncoder | None, str | None]:
    """The ONNX encoder, or why there is none."""
    problem = pipeline_problem(embedder.model_path)
    if problem is not None:
        return None, problem
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return None, "onnxruntime is not installed"
    try:
        path, record = cached_export(
            embedder.model_path,
            export_cache_dir(data_dir),
            _export_and_check(embedder),
            name=export_name(embedder.model_path),
        )
        encoder = OnnxQueryEncoder(
            path,
            embedder.model_path,
            embedder.model_name,
            embedder.dimension,
            model_hash=record.model_hash,
        )
    except (ExportRefused, OSError) as exc:
        return None, str(exc)
    except Exception as exc:  # onnxruntime raises its own kinds on a file it cannot load
        return None, f"ONNX Runtime could not load the export: {exc}"
    return encoder, None


def _calibrate(
    embedder: SentenceTransformerEmbedder, encoder: OnnxQueryEncoder, data_dir: Path | None
) -> tuple[EncoderTiming, bool]:
    cpu_model, flags = read_cpu_flags()
    runtime = package_version("onnxruntime")
    model = (
        f"{embedder.model_name} {encoder.model_hash} {embedder.precision.name} "
        f"onnxruntime {runtime}"
    )
    key = machine_key(cpu_model, flags, machine_threads(), package_version("torch"), model)
    cache = calibration_cache(data_dir)
    if cache is not None:
        found = _load(cache, key)
        if found is not None:
            return found, True
    timing = time_encoders(embedder.embed, encoder.embed)
    if cache is not None:
        write_machine_entry(cache, key, asdict(timing), "the query encoder calibration")
    return timing, False


def _load(cache: Path, key: str) -> EncoderTiming | None:
    entry = read_machine_entry(cache, key)
    try:
        return EncoderTiming(float(entry["torch_ms"]), float(entry["onnx_ms"]))
    except (KeyError, TypeError, ValueError):
        return None


# One choice per embedder object and mode: tests and benchmarks build many ``Services`` over
# one loaded model, and each would otherwise calibrate again.
_chosen: weakref.WeakKeyDictionary[SentenceTransformerEmbedder, dict[str, QueryEncoder]] = (
    weakref.WeakKeyDictionary()
)
_choosing = threading.Lock()


def query_encoder(embedder: Embedder, mode: str, data_dir: Path | None) -> QueryEncoder:
    """The encoder for questions: ``embedder`` itself unless it is the torch model and its
    ONNX export is chosen (see the module docstring). Chosen once per embedder and mode."""
    if not isinstance(embedder, SentenceTransformerEmbedder):
        return QueryEncoder(embedder, EncoderChoice("torch", "not the sentence-transformers model"))
    parsed = parse_mode(mode)
    with _choosing:
        known = _chosen.setdefault(embedder, {})
        if parsed not in known:
            known[parsed] = choose_query_encoder(embedder, parsed, data_dir)
        return known[parsed]


def choose_query_encoder(
    embedder: SentenceTransformerEmbedder, mode: EncoderMode, data_dir: Path | None
) -> QueryEncoder:
    bf16 = embedder.precision.bf16
    encoder: OnnxQueryEncoder | None = None
    problem: str | None = None
    if mode == "onnx" or (mode == "auto" and not bf16):
        encoder, problem = _onnx_encoder(embedder, data_dir)

    def calibrate() -> tuple[EncoderTiming, bool]:
        assert encoder is not None
        return _calibrate(embedder, encoder, data_dir)

    choice = choose_encoder(mode, bf16, problem, calibrate)
    timing = ""
    if choice.timing is not None:
        t = choice.timing
        timing = (
            f"; one query: torch ({embedder.precision.name}) {t.torch_ms} ms, onnx {t.onnx_ms} ms"
            f"{' (cached)' if choice.cached else ''}"
        )
    log.info("query encoder: %s (%s%s)", choice.name, choice.reason, timing)
    if choice.name == "onnx" and encoder is not None:
        if bf16:
            log.warning(
                "query encoder: float32 ONNX query vectors against the bf16 vectors the "
                "embedder stores (1 - cos ~1e-5 to 4e-5): scores move by up to ~2e-3"
            )
        return QueryEncoder(encoder, choice)
    return QueryEncoder(embedder, choice)
