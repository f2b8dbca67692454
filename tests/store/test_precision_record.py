"""Part of the contract every adapter passes: the index records the precision its vectors
were computed in, keeps it across a reopen, and keeps the rest of its record."""

from __future__ import annotations

from docent.contracts import Chunk
from store.protocol import ChunkIndex
from tests.store.adapters import Adapter, write
from tests.store.test_contract import EMB, chunk


def test_the_precision_record_survives_a_reopen(adapter: Adapter, index: ChunkIndex) -> None:
    one: Chunk = chunk("a.md", 0, "kept")
    write(index, EMB, [one])
    assert index.embedding_precision is None  # a new index records nothing by itself
    index.record_precision("bf16")
    assert index.embedding_precision == "bf16"
    adapter.release(index)

    again = adapter.open("hashing-64", 64)
    assert again.embedding_precision is None  # read by ensure, not before
    again.ensure()
    assert again.embedding_precision == "bf16" and again.count() == 1
    again.record_precision("fp32")
    adapter.release(again)
    third = adapter.open("hashing-64", 64)
    third.ensure()
    assert third.embedding_precision == "fp32"
    assert third.get([one.chunk_id])[one.chunk_id].chunk.text == "kept"
