"""The bundled model through ONNX Runtime, for one short query at a time.

A question is one short text, and torch spends most of its time on that in Python
dispatch: the same MiniLM exported with ``torch.onnx.export`` (opset 17) and run by ONNX
Runtime's CPU provider embedded one query in 11.5 ms against 66 ms through
sentence-transformers on an AVX2-only AMD EPYC, and in ~3 ms against ~9 ms (fp32) on an
Intel Xeon with AMX (../shared/NOTES.md, the README's speed figures). Batches (ingest) stay
with torch, which was faster there.

- The export is made from the loaded model's own weights, offline, at first use, and kept
  in a cache folder beside a record of the model files' hash and the export's own hash. A
  cached export whose model hash differs from the model's files now (a changed model), or
  whose file no longer matches its hash, is refused and made again, with a log line saying
  which.
- A fresh export is checked against torch's float32 vectors before it is used: above
  ``MAX_DISTANCE`` (1 − cosine) on any check text it is deleted and refused.
- Tokens come from the model's own ``tokenizer.json`` (the ``tokenizers`` library, as
  transformers' fast tokenizer uses it), truncated at the model's ``max_seq_length``; mean
  pooling over the attention mask and L2 normalisation are done in numpy, as the model's
  ``Pooling`` and ``Normalize`` modules do them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

log = logging.getLogger(__name__)

OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "last_hidden_state"
# Same-precision vectors from the export and from torch must agree this closely (1 − cos).
MAX_DISTANCE = 1e-5
# A file whose modification time is this recent is hashed again at the next start rather
# than trusted by its fingerprint (a write within one timestamp tick keeps the time).
RACY_NS = 2_000_000_000
# Texts a fresh export is checked on: short and long, padded together in one batch, and
# non-ASCII (the tokenizer's normaliser strips accents and splits CJK characters).
CHECK_TEXTS: tuple[str, ...] = (
    "How many days of annual leave do I get?",
    "per diem",
    "Wer genehmigt Reisekosten über 500 €?",
    "出張の日当はいくらですか",
    " ".join(
        "Employees who travel for work book economy fares through the approved agency and "
        "file every receipt within ten working days of their return.".split()
        * 12
    ),
    "",
)


class ExportRefused(Exception):
    """An ONNX export that cannot be used: the model's pipeline is not one this encoder
    reproduces, the export failed, or its vectors differ from torch's."""


def file_sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def model_files(model_dir: Path) -> list[Path]:
    """The files a model folder's hash covers, in name order (no hidden files or caches)."""
    found = []
    for path in sorted(p for p in model_dir.rglob("*") if p.is_file()):
        relative = path.relative_to(model_dir)
        if not any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            found.append(path)
    return found


def model_files_hash(model_dir: Path) -> str:
    """One hash over every file of a model folder (relative name and bytes, in name order),
    so a changed weight, config or tokenizer file is a different model."""
    digest = hashlib.sha256()
    for path in model_files(model_dir):
        relative = path.relative_to(model_dir)
        digest.update(str(relative).encode() + b"\0" + file_sha256(path).encode() + b"\n")
    return digest.hexdigest()


def files_stat(model_dir: Path, onnx_path: Path) -> tuple[str, int]:
    """A fingerprint of the model's files and the export as the file system describes them
    (name, size, modification time, inode), and the newest modification time (ns)."""
    digest, newest = hashlib.sha256(), 0
    for path in [*model_files(model_dir), onnx_path]:
        st = path.stat()
        newest = max(newest, st.st_mtime_ns)
        digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\n".encode())
    return digest.hexdigest(), newest


def pipeline_problem(model_dir: Path) -> str | None:
    """Why this encoder cannot reproduce the model's sentence-transformers pipeline, or
    ``None``: it must be a transformer, then mean pooling, then (optionally) normalisation."""
    try:
        modules = json.loads((model_dir / "modules.json").read_text())
        types = [str(m["type"]).rsplit(".", 1)[-1] for m in modules]
        pooling = next(m for m in modules if str(m["type"]).endswith("Pooling"))
        pool_config = json.loads((model_dir / pooling["path"] / "config.json").read_text())
    except (OSError, ValueError, KeyError, TypeError, StopIteration):
        return f"{model_dir} has no readable sentence-transformers modules.json and pooling config"
    if types not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return f"the model's modules are {types}, not Transformer, Pooling[, Normalize]"
    modes = sorted(k for k, v in pool_config.items() if k.startswith("pooling_mode") and v)
    if modes != ["pooling_mode_mean_tokens"]:
        return f"the model pools by {modes}, not by the mean of its tokens alone"
    if not (model_dir / "tokenizer.json").is_file():
        return f"{model_dir} has no tokenizer.json"
    return None


def max_seq_length(model_dir: Path, default: int = 256) -> int:
    try:
        config = json.loads((model_dir / "sentence_bert_config.json").read_text())
        return int(config.get("max_seq_length") or default)
    except (OSError, ValueError, TypeError):
        return default


def export_transformer(transformer: Any, tokenizer: ModelTokenizer, target: Path) -> None:
    """``torch.onnx.export`` of a Hugging Face encoder (``last_hidden_state`` out), dynamic
    batch and sequence axes, opset 17. Traced on two texts of different lengths, so the
    traced graph applies the attention mask to padding (an unpadded trace may drop it)."""
    import torch

    class KeywordArgs(torch.nn.Module):
        """The BERT model called with keyword arguments, as sentence-transformers calls it
        (the positional order of its ``forward`` is not the inputs' order)."""

        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return out.last_hidden_state

    ids, mask, types = tokenizer.padded(["per diem", "How many days of leave do I get?"])
    sample = tuple(torch.from_numpy(a) for a in (ids, mask, types))
    axes = {name: {0: "batch", 1: "sequence"} for name in (*INPUTS, OUTPUT)}
    with warnings.catch_warnings(), torch.no_grad():
        # The TorchScript exporter warns that it is the legacy one and that the trace took
        # Python branches; the output is checked against torch below instead.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            KeywordArgs(transformer).eval(),
            sample,
            str(target),
            input_names=list(INPUTS),
            output_names=[OUTPUT],
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,
        )


@dataclass(frozen=True)
class ModelTokenizer:
    """The model's fast tokenizer (truncating at its ``max_seq_length``, not padding) and
    the ids ``padded`` fills a shorter text's tail with."""

    tokenizer: Any
    pad_id: int
    pad_type_id: int

    def padded(
        self, texts: Sequence[str]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """Token ids, attention mask and token type ids of a batch, padded to its longest
        text, as transformers pads. One ``encode`` per text: ``encode_batch`` starts a
        thread pool, which a forked worker inherits broken."""
        encodings = [self.tokenizer.encode(text) for text in texts]
        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(texts), width), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        types = np.full((len(texts), width), self.pad_type_id, dtype=np.int64)
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[row, :n] = enc.ids
            mask[row, :n] = enc.attention_mask
            types[row, :n] = enc.type_ids
        return ids, mask, types


def load_tokenizer(model_dir: Path) -> ModelTokenizer:
    """The model's ``tokenizer.json``, with its own padding switched off (it pads to a fixed
    128 in the bundled model) and truncation at the model's ``max_seq_length`` (not the
    file's 128)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    pad = tokenizer.padding or {}
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_seq_length(model_dir))
    return ModelTokenizer(tokenizer, int(pad.get("pad_id", 0)), int(pad.get("pad_type_id", 0)))


def mean_pool_normalise(
    hidden: NDArray[np.float32], mask: NDArray[np.int64]
) -> NDArray[np.float32]:
    """sentence-transformers' mean pooling (padding masked out, count clamped at 1e-9) and
    its L2 normalisation (norm clamped at 1e-12), in float32 as torch computes them."""
    weights = mask[..., None].astype(np.float32)
    summed = (hidden.astype(np.float32) * weights).sum(axis=1)
    counts = np.maximum(weights.sum(axis=1), np.float32(1e-9))
    pooled = summed / counts
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), np.float32(1e-12))
    out: NDArray[np.float32] = (pooled / norms).astype(np.float32)
    return out


def cosine_distance(a: NDArray[np.float32], b: NDArray[np.float32]) -> float:
    """The largest 1 − cosine between matching rows of two unit-row matrices."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    cos = (a64 * b64).sum(axis=1) / (
        np.linalg.norm(a64, axis=1) * np.linalg.norm(b64, axis=1) + 1e-30
    )
    return float(np.max(1.0 - cos)) if len(cos) else 0.0


@dataclass(frozen=True)
class ExportRecord:
    """What ``<cache>/<name>.json`` says about the export beside it."""

    model_hash: str
    onnx_sha256: str
    opset: int
    max_distance: float  # 1 − cos to torch float32 on CHECK_TEXTS when it was made
    export_s: float
    # ``files_stat`` of the model files and the export when both hashes last matched ("":
    # not yet); the same fingerprint again spares hashing ~180 MB on every start.
    files_stat: str = ""


def cached_export(
    model_dir: Path,
    cache_dir: Path,
    export: Callable[[Path], float],
    *,
    name: str = "query-encoder",
) -> tuple[Path, ExportRecord]:
    """The ONNX export of the model in ``model_dir``, from ``cache_dir`` when the record there
    was made from the same model files and the file is the one recorded; otherwise made
    again by ``export(path) -> max distance to torch`` (which raises ``ExportRefused``)."""
    onnx_path, record_path = cache_dir / f"{name}.onnx", cache_dir / f"{name}.json"
    found = _read_record(record_path)
    if found is not None and onnx_path.is_file():
        stat, newest = files_stat(model_dir, onnx_path)
        if found.files_stat and found.files_stat == stat:
            return onnx_path, found  # no file changed since both hashes last matched
    model_hash = model_files_hash(model_dir)
    if found is not None and onnx_path.is_file():
        if found.model_hash != model_hash:
            log.warning(
                "ONNX query encoder: the cached export %s was made from other model files "
                "(model hash %s…, the files in %s now hash %s…); refused, exporting again",
                onnx_path,
                found.model_hash[:12],
                model_dir,
                model_hash[:12],
            )
        elif file_sha256(onnx_path) != found.onnx_sha256:
            log.warning(
                "ONNX query encoder: the cached export %s is not the file that was exported "
                "(its hash differs from the record); refused, exporting again",
                onnx_path,
            )
        else:
            # A file changed within RACY_NS of being looked at could change again within the
            # same timestamp tick: its fingerprint is recorded at a later start.
            if time.time_ns() - newest > RACY_NS:
                found = replace(found, files_stat=stat)
                _write_record(record_path, found, name)
            return onnx_path, found
    return onnx_path, _export_again(export, cache_dir, name, model_hash)


def _export_again(
    export: Callable[[Path], float], cache_dir: Path, name: str, model_hash: str
) -> ExportRecord:
    """Export into ``cache_dir`` (through a partial file, replaced into place) and record it."""
    onnx_path, record_path = cache_dir / f"{name}.onnx", cache_dir / f"{name}.json"
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = cache_dir / f".{name}.{os.getpid()}.onnx"
    started = time.perf_counter()
    try:
        distance = export(partial)
        record = ExportRecord(
            model_hash=model_hash,
            onnx_sha256=file_sha256(partial),
            opset=OPSET,
            max_distance=distance,
            export_s=round(time.perf_counter() - started, 1),
        )
        partial.replace(onnx_path)  # another process exporting at once writes the same bytes
    finally:
        partial.unlink(missing_ok=True)
    _write_record(record_path, record, name)
    log.info(
        "ONNX query encoder: exported %s in %.1f s (1 - cos to torch fp32 at most %.1e)",
        onnx_path,
        record.export_s,
        distance,
    )
    return record


def _write_record(record_path: Path, record: ExportRecord, name: str) -> None:
    staging = record_path.with_name(f".{name}.{os.getpid()}.json")
    try:
        staging.write_text(json.dumps(record.__dict__, indent=1, sort_keys=True))
        staging.replace(record_path)
    finally:
        staging.unlink(missing_ok=True)


def _read_record(path: Path) -> ExportRecord | None:
    try:
        raw = json.loads(path.read_text())
        return ExportRecord(
            model_hash=str(raw["model_hash"]),
            onnx_sha256=str(raw["onnx_sha256"]),
            opset=int(raw["opset"]),
            max_distance=float(raw["max_distance"]),
            export_s=float(raw["export_s"]),
            files_stat=str(raw.get("files_stat", "")),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


class OnnxQueryEncoder:
    """An ``Embedder`` over an ONNX export of a sentence-transformers model: the same model
    name and dimension, vectors equal to the float32 torch model's within ``MAX_DISTANCE``.
    One intra-op thread: a query is small, and with both cores busy one thread was the
    faster (the same rule the torch embedder follows for one text)."""

    def __init__(
        self,
        onnx_path: Path,
        model_dir: Path,
        model_name: str,
        dimension: int,
        *,
        model_hash: str = "",
    ) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # its warnings are about graph fusions it skipped
        self._session = ort.InferenceSession(
            str(onnx_path), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = load_tokenizer(model_dir)
        self._name = model_name
        self._dimension = dimension
        self.onnx_path = onnx_path
        self.model_hash = model_hash  # of the model files it was exported from

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        ids, mask, types = self._tokenizer.padded(texts)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        hidden = self._session.run([OUTPUT], feeds)[0]
        return mean_pool_normalise(np.asarray(hidden, dtype=np.float32), mask)
