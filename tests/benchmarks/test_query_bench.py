"""The query benchmark's in-process parts over a real (small) index: the warm-up it does
before its timings, and both orders timed in one process."""

from __future__ import annotations

from pathlib import Path

from benchmarks.query_bench import compare_orders, warm_up
from docent.contracts import Embedder, Principal
from tests.retrieval.conftest import services_over
from tests.retrieval.corpus import CORPUS

QUESTIONS = ["How many days of annual leave do I get?", "Do I need a receipt for a taxi?"]


def test_warm_up_and_both_orders_timed_in_one_process(
    tmp_path: Path, bundled_embedder: Embedder
) -> None:
    with services_over(tmp_path / "data", bundled_embedder, CORPUS[:6]) as services:
        services.searcher.warm(background=False)
        warmed = warm_up(services)
        assert warmed["vectors_kept"] == 6 and warmed["count"] > 0
        own = services.searcher.order
        assert own is not None
        got = compare_orders(services, QUESTIONS, Principal("bench", "employee"), rounds=1)
        assert set(got) == {"evidence", "rerank"}
        for stages in got.values():
            assert set(stages) == {"rerank", "search"}
            assert 0.0 <= stages["rerank"] <= stages["search"]
        assert services.searcher.order is own  # restored
        services.searcher.order = None
        assert compare_orders(services, QUESTIONS, Principal("bench", "employee")) == {}
