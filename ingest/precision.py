"""Which precision the embedder runs in on this machine: bfloat16 autocast or float32.

bf16 is only fast where the CPU computes it natively (AVX512_BF16 or AMX); elsewhere it is
emulated and ran ~4x *slower* than float32 (an AVX2-only AMD EPYC, ../shared/NOTES.md). So
``DOCENT_EMBEDDING_BF16=auto`` (the default) decides per machine:

1. The capability probe (``native_bf16``, a pure function of the CPU flags): no native bf16
   means float32, without timing anything.
2. Native bf16, and questions can go through the ONNX query encoder (``ingest/query_encoder``,
   float32 only): float32. Query vectors must be in the stored vectors' precision, and one
   question through ONNX float32 took 4.7 ms against 20 ms through torch under bf16 on an
   Intel Xeon with AMX (retrieval p50 at 50k chunks 20.5 against 38 ms); ingest pays instead
   (bf16 embedded ~2.2-2.9x the texts/s there). Questions are asked far more often than
   documents change.
3. Otherwise a short timed calibration of both precisions on the model decides, because a
   flag is not a speed. Its result is cached per machine (CPU model, flags, thread count,
   torch version, model) under the data dir, so each machine pays it once.

``true`` / ``false`` force a precision. An index records the precision of its vectors, and an
existing index's record wins over this choice (``ingest/index_precision.py``). The pure parts
(probe, choice, cache key) are tested on both answers of the probe; only ``read_cpu_flags``
and the cache file touch the machine.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

log = logging.getLogger(__name__)

PrecisionMode = Literal["auto", "true", "false"]
CACHE_NAME = "embedding-precision.json"

# bf16 must beat float32 by this factor to be chosen: float32 is exact, and a tie on a noisy
# machine is no reason to give up exactness.
BF16_MARGIN = 1.15

# CPU flags (as /proc/cpuinfo names them) that mean bf16 arithmetic in hardware.
NATIVE_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})

# Calibration texts: chunk-length and sentence-length, as ingest embeds them.
_SENTENCE = (
    "Employees who travel for work must book economy fares through the approved agency and "
    "file every receipt within {n} working days of their return."
)
CALIBRATION_TEXTS: tuple[str, ...] = tuple(
    " ".join(_SENTENCE.format(n=n + k) for k in range(5 if n % 2 == 0 else 1)) for n in range(16)
)


@dataclass(frozen=True)
class Calibration:
    """Texts per second of each precision on the calibration texts, this machine."""

    fp32_per_s: float
    bf16_per_s: float


@dataclass(frozen=True)
class PrecisionChoice:
    bf16: bool
    reason: str
    calibration: Calibration | None = None
    cached: bool = False

    @property
    def name(self) -> str:
        return "bf16" if self.bf16 else "fp32"


def parse_mode(value: bool | str) -> PrecisionMode:
    """``DOCENT_EMBEDDING_BF16`` as a mode: ``auto``, or a bool in any spelling pydantic takes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = value.strip().lower()
    if text == "auto":
        return "auto"
    if text in ("1", "true", "yes", "on"):
        return "true"
    if text in ("0", "false", "no", "off"):
        return "false"
    raise ValueError(f"embedding bf16 must be auto, true or false, not {value!r}")


def native_bf16(flags: frozenset[str]) -> bool:
    """The capability probe: does a CPU with these flags compute bf16 in hardware?"""
    return bool(flags & NATIVE_BF16_FLAGS)


ONNX_REASON = "questions go through the ONNX query encoder, which computes in float32"


def choose_precision(
    mode: PrecisionMode,
    native: bool,
    calibrate: Callable[[], tuple[Calibration, bool]] | None = None,
    *,
    onnx_queries: bool = False,
) -> PrecisionChoice:
    """The choice, given the mode, the probe's answer, a way to get a calibration
    (``(calibration, came_from_cache)``, called only when the probe says it is worth it;
    ``None``: trust the probe) and whether the ONNX query encoder can serve this model."""
    if mode == "true":
        return PrecisionChoice(True, "DOCENT_EMBEDDING_BF16=true")
    if mode == "false":
        return PrecisionChoice(False, "DOCENT_EMBEDDING_BF16=false")
    if not native:
        return PrecisionChoice(False, "the CPU has no native bf16 (emulated bf16 is slower)")
    if onnx_queries:
        return PrecisionChoice(False, ONNX_REASON)
    if calibrate is None:
        return PrecisionChoice(True, "the CPU has native bf16 (not calibrated)")
    calibration, cached = calibrate()
    faster = calibration.bf16_per_s >= calibration.fp32_per_s * BF16_MARGIN
    reason = "calibrated: bf16 faster" if faster else "calibrated: bf16 not faster"
    return PrecisionChoice(faster, reason, calibration, cached)


def read_cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> tuple[str, frozenset[str]]:
    """This machine's CPU model name and flags (Linux); elsewhere torch's own probes."""
    model, flags = "", frozenset[str]()
    try:
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and not model:
                model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = frozenset(value.split())
            if model and flags:
                break
    except OSError:
        pass
    if not flags:
        import torch

        probes = {"avx512_bf16": torch.cpu._is_avx512_bf16_supported}
        probes["amx_bf16"] = torch.cpu._is_amx_tile_supported
        flags = frozenset(name for name, probe in probes.items() if probe())
    return model, flags


def package_version(name: str) -> str:
    """An installed package's version, read from its metadata (importing torch to ask it
    would cost a second on the question path)."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"


def machine_threads() -> int:
    """The threads torch and ONNX Runtime start with here: ``OMP_NUM_THREADS`` when set,
    else the cores this process may run on (a cache key, read without importing torch)."""
    try:
        return max(1, int(os.environ.get("OMP_NUM_THREADS", "")))
    except ValueError:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1


def machine_key(
    cpu_model: str, flags: frozenset[str], threads: int, torch_version: str, model_name: str
) -> str:
    """What a calibration depends on: a different CPU, thread count, torch or model is a new
    calibration."""
    record = [cpu_model, sorted(flags), threads, torch_version, model_name]
    return hashlib.sha256(json.dumps(record).encode()).hexdigest()[:16]


def load_calibration(cache: Path, key: str) -> Calibration | None:
    entry = read_machine_entry(cache, key)
    try:
        return Calibration(float(entry["fp32_per_s"]), float(entry["bf16_per_s"]))
    except (KeyError, TypeError, ValueError):
        return None


def save_calibration(cache: Path, key: str, calibration: Calibration) -> None:
    write_machine_entry(cache, key, asdict(calibration), "the embedding calibration")


def read_machine_entry(cache: Path, key: str) -> dict[str, Any]:
    """One machine's entry of a per-machine cache file (a JSON object keyed by
    ``machine_key``); empty when the file or the entry is missing or not an object."""
    try:
        entry = json.loads(cache.read_text())[key]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return entry if isinstance(entry, dict) else {}


def write_machine_entry(cache: Path, key: str, entry: dict[str, Any], what: str) -> None:
    """Add this machine's entry to a per-machine cache file; a cache that cannot be written
    only means the next start measures again (logged, naming ``what``)."""
    try:
        entries = json.loads(cache.read_text()) if cache.is_file() else {}
        if not isinstance(entries, dict):
            entries = {}
    except (OSError, ValueError):
        entries = {}
    entries[key] = entry
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        # Per process: two processes calibrating at once never write into one staging file.
        staging = cache.with_name(f".{cache.name}.{os.getpid()}")
        staging.write_text(json.dumps(entries, indent=1, sort_keys=True))
        staging.replace(cache)
    except OSError as exc:
        log.warning("could not cache %s in %s: %s", what, cache, exc)


def time_precisions(
    encode: Callable[[Sequence[str], bool], object],
    texts: Sequence[str] = CALIBRATION_TEXTS,
    rounds: int = 2,
) -> Calibration:
    """Texts per second of ``encode(texts, bf16)`` for each precision: one warm-up each, then
    the best of ``rounds`` interleaved runs (a busy neighbour slows one run, not the best)."""
    best = {False: float("inf"), True: float("inf")}
    for bf16 in (False, True):
        encode(texts[:4], bf16)
    for _ in range(rounds):
        for bf16 in (False, True):
            started = time.perf_counter()
            encode(texts, bf16)
            best[bf16] = min(best[bf16], time.perf_counter() - started)
    return Calibration(
        round(len(texts) / max(best[False], 1e-9), 1), round(len(texts) / max(best[True], 1e-9), 1)
    )
