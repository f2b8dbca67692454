"""A cold ``docent ask`` (a new process) whose questions go through the ONNX encoder never
imports torch, sentence-transformers or the ingest-only libraries: they were ~4-6 s of a
~8.5 s first answer on the real corpus. The real CLI in a subprocess, over an embedded index
the bundled model wrote in float32."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docent.wiring import Services
from ingest.embedding import SentenceTransformerEmbedder
from ingest.onnx_encoder import OnnxQueryEncoder
from tests.retrieval.conftest import bump, make_settings
from tests.retrieval.corpus import CORPUS, write_chunks

pytestmark = pytest.mark.slow  # the real model writes the index, and the ONNX export

HEAVY = ("torch", "sentence_transformers", "transformers", "unstructured", "celery", "sklearn")
ASK = """
import json, sys
question, heavy = sys.argv[1], set(sys.argv[2:])
sys.argv = ["docent", "ask", question, "--json"]
from docent.cli import main
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
found = sorted({name.split(".")[0] for name in sys.modules} & heavy)
print("HEAVY " + json.dumps(found), file=sys.stderr)
"""


@pytest.fixture(scope="module")
def fp32_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir as float32 ingest leaves it, and the ONNX export made (or found) once."""
    data_dir = tmp_path_factory.mktemp("cold")
    embedder = SentenceTransformerEmbedder("bundled", bf16=False)
    services = Services(make_settings(data_dir, query_encoder="onnx"), embedder)
    try:
        write_chunks(services.index, services.embedder, CORPUS)
        bump(services)
        assert isinstance(services.query_encoder, OnnxQueryEncoder)
    finally:
        services.close()
    return data_dir


def cold_ask(data_dir: Path, question: str, **env: str) -> tuple[dict[str, object], list[str]]:
    environ = {**os.environ, "DOCENT_DATA_DIR": str(data_dir), **env}
    done = subprocess.run(
        [sys.executable, "-c", ASK, question, *HEAVY],
        capture_output=True,
        text=True,
        env=environ,
        cwd=data_dir,  # no .env of the checkout
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    heavy = next(line for line in done.stderr.splitlines() if line.startswith("HEAVY "))
    return json.loads(done.stdout), json.loads(heavy.removeprefix("HEAVY "))


def test_a_cold_ask_through_onnx_imports_neither_torch_nor_ingest_libraries(
    fp32_index: Path,
) -> None:
    started = time.perf_counter()
    answer, heavy = cold_ask(
        fp32_index,
        "How many days of annual leave do full-time employees get?",
        DOCENT_EMBEDDING_BF16="auto",  # the default: follows the index's float32 record
        DOCENT_QUERY_ENCODER="onnx",
    )
    took = time.perf_counter() - started
    assert heavy == [], f"imported {heavy}"
    retrieved = answer["retrieved"]
    assert isinstance(retrieved, list) and retrieved
    assert retrieved[0]["id"] == "leave.md#0"
    print(f"cold ask through ONNX: {took:.2f} s (load {os.getloadavg()[0]:.1f})")


def test_a_question_torch_must_embed_loads_it_in_the_same_cold_path(fp32_index: Path) -> None:
    """The other branch of the same lazy path: forced torch, the model loads at first use."""
    answer, heavy = cold_ask(
        fp32_index,
        "How many days of annual leave do full-time employees get?",
        DOCENT_QUERY_ENCODER="torch",
    )
    assert "torch" in heavy and "sentence_transformers" in heavy
    assert not {"unstructured", "celery"} & set(heavy)
    retrieved = answer["retrieved"]
    assert isinstance(retrieved, list) and retrieved[0]["id"] == "leave.md#0"
