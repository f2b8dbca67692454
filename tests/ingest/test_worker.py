"""``docent worker --concurrency N``: the children share the cores instead of each taking
all of them."""

from __future__ import annotations

from ingest.worker import available_cores, torch_threads


def test_children_divide_the_cores_between_their_torch_threads() -> None:
    assert torch_threads(2, 1) == 2
    assert torch_threads(2, 2) == 1
    assert torch_threads(8, 3) == 2
    assert torch_threads(2, 4) == 1  # never zero, even with more children than cores
    assert torch_threads(4, 0) == 4


def test_the_cores_are_the_ones_this_process_may_use() -> None:
    import os

    cores = available_cores()
    assert 1 <= cores <= (os.cpu_count() or 1)
