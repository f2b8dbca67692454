"""The evidence order's term coverage (``retrieval/terms.py``): a question's words met by
the nearest word of each candidate, over the bundled embedder's vectors of single words,
kept on disk per model."""

import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from docent.contracts import Hit
from retrieval.order import DEFAULT_ORDER, pool_signals
from retrieval.terms import WordVectorCache, content_words, term_coverage
from tests.retrieval.corpus import make_chunk
from tests.retrieval.counting_embedder import CountingEmbedder


def hit(name: str, text: str, heading: tuple[str, ...] = ()) -> Hit:
    return Hit(
        chunk=make_chunk(name, 0, text, heading=heading), rank=1, score=0.5, rerank_score=0.5
    )


def test_content_words_are_the_distinct_lower_case_words_of_three_letters_or_more() -> None:
    words = content_words("Do I get 30 days of Annual leave? The annual LEAVE, RC-77.")
    assert words == ("annual", "days", "get", "leave")  # no stop words, digits or codes


def test_a_paraphrase_covers_the_question_where_no_word_is_shared(
    bundled_embedder: Any, tmp_path: Path
) -> None:
    words = WordVectorCache(bundled_embedder, tmp_path)
    question = "Can I get money back for washing my clothes on a trip?"
    laundry = hit("laundry.md", "Laundry expenses are reimbursed after four nights away.")
    parking = hit("parking.md", "Parking at the office is free for visitors.")
    coverage = term_coverage(question, [parking, laundry], words)
    assert coverage[1] > coverage[0] + 0.05
    assert all(0.0 <= c <= 1.0 for c in coverage)


def test_a_word_every_candidate_holds_tells_them_apart_less_than_a_rare_one(
    bundled_embedder: Any, tmp_path: Path
) -> None:
    words = WordVectorCache(bundled_embedder, tmp_path)
    question = "How many vacation days does TTS give?"
    tts = [hit(f"tts{i}.md", f"TTS staff note {i} about onboarding.") for i in range(4)]
    vacation = hit("vacation.md", "Vacation is 20 days a year.")
    coverage = term_coverage(question, [*tts, vacation], words)
    assert coverage[-1] == max(coverage)


def test_the_heading_path_counts_as_the_passages_words(
    bundled_embedder: Any, tmp_path: Path
) -> None:
    words = WordVectorCache(bundled_embedder, tmp_path)
    question = "How much is the per diem in Lisbon?"
    bare = hit("a.md", "Lisbon: 64 euros.")
    headed = hit("b.md", "Lisbon: 64 euros.", heading=("Travel", "Per diem rates"))
    coverage = term_coverage(question, [bare, headed], words)
    assert coverage[1] > coverage[0]


def test_no_words_to_match_reads_zero_and_the_order_without_vectors_keeps_its_six_signals(
    bundled_embedder: Any, tmp_path: Path
) -> None:
    words = WordVectorCache(bundled_embedder, tmp_path)
    hits = [hit("a.md", "Some text here."), hit("b.md", "Other text.")]
    assert term_coverage("is it 30?", hits, words).tolist() == [0.0, 0.0]
    assert term_coverage("vacation days", [], words).shape == (0,)
    without = pool_signals("vacation days", hits, None)
    assert without.shape == (2, 7) and without[:, 6].tolist() == [0.0, 0.0]
    assert DEFAULT_ORDER.terms > 0  # the default reads the coverage
    # A question with no candidates (nothing readable matched): no rows, not an error.
    assert pool_signals("vacation days", [], words).shape == (0, 7)


def test_each_word_is_embedded_once_and_a_new_process_reads_them_from_disk(
    bundled_embedder: Any, tmp_path: Path
) -> None:
    first = CountingEmbedder(bundled_embedder)
    cache = WordVectorCache(first, tmp_path)
    rows = cache.rows(["laundry", "parking", "laundry"])
    table = cache.table[rows]  # read after the rows: the table grows as words are added
    assert sorted(first.texts) == ["laundry", "parking"]
    np.testing.assert_allclose(table[0], table[2])
    np.testing.assert_allclose(table[0], bundled_embedder.embed(["laundry"])[0], atol=1e-5)
    cache.rows(["laundry"])
    assert len(first.texts) == 2  # not embedded again
    cache.save()

    second = CountingEmbedder(bundled_embedder)
    again = WordVectorCache(second, tmp_path)
    parking = again.rows(["parking"])
    np.testing.assert_allclose(again.table[parking], table[1:2])
    assert second.texts == [] and len(again) == 2


def test_two_processes_sharing_a_data_dir_keep_each_others_words(
    bundled_embedder: Any, tmp_path: Path
) -> None:
    # ``docent serve`` and a ``docent ask`` open the same data dir, each before the other
    # wrote: each saves what it embedded without dropping what the other saved.
    serve = WordVectorCache(bundled_embedder, tmp_path)
    ask = WordVectorCache(bundled_embedder, tmp_path)
    rows = serve.rows(["laundry"])
    laundry = serve.table[rows]  # read after the rows: the table grows as words are added
    serve.save()
    ask.rows(["parking"])
    ask.save()
    merged = ask.rows(["laundry"])  # merged at the save, not embedded
    np.testing.assert_allclose(ask.table[merged], laundry)

    counting = CountingEmbedder(bundled_embedder)
    later = WordVectorCache(counting, tmp_path)
    both = later.rows(["laundry", "parking"])
    assert counting.texts == [] and len(later) == 2
    np.testing.assert_allclose(later.table[both[:1]], laundry)


def test_an_unreadable_or_foreign_file_is_embedded_again_not_trusted(
    bundled_embedder: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = WordVectorCache(bundled_embedder, tmp_path)
    assert cache.path is not None
    cache.path.parent.mkdir(parents=True, exist_ok=True)
    cache.path.write_bytes(b"not an npz file")
    counting = CountingEmbedder(bundled_embedder)
    with caplog.at_level(logging.WARNING, logger="retrieval.terms"):
        fresh = WordVectorCache(counting, tmp_path)
    assert "unreadable" in caplog.text
    fresh.rows(["laundry"])
    assert counting.texts == ["laundry"]

    np.savez(cache.path, words=np.array(["laundry"]), vectors=np.zeros((1, 3), np.float32))
    with caplog.at_level(logging.WARNING, logger="retrieval.terms"):
        wrong_size = WordVectorCache(bundled_embedder, tmp_path)
    assert len(wrong_size) == 0 and "do not fit" in caplog.text


def test_learning_the_index_reads_every_passage_so_a_question_embeds_only_its_own_words(
    bundled_embedder: Any, tmp_path: Path
) -> None:
    counting = CountingEmbedder(bundled_embedder)
    cache = WordVectorCache(counting, tmp_path)
    passages = [
        hit("laundry.md", "Laundry expenses are reimbursed after four nights away."),
        hit("parking.md", "Parking at the office is free for visitors.", ("Facilities",)),
    ]
    cache.learn([h.chunk for h in passages])
    learned = len(counting.texts)
    assert "laundry" in counting.texts and "facilities" in counting.texts
    assert len(counting.texts) == len(set(counting.texts))  # each word once
    coverage = term_coverage("Is parking free?", passages, cache)
    assert counting.texts[learned:] == []  # every word was known: nothing embedded
    assert coverage[1] > coverage[0]
    assert WordVectorCache(bundled_embedder, tmp_path).rows(["laundry"]).shape == (1,)  # saved


def test_a_searcher_warmed_at_start_reads_its_index_off_the_question_path(
    tmp_path: Path, bundled_embedder: Any
) -> None:
    import threading

    from tests.retrieval.conftest import services_over
    from tests.retrieval.corpus import CORPUS

    with services_over(tmp_path / "data", bundled_embedder, CORPUS[:6]) as services:
        assert services.searcher.words is services.word_vectors
        services.searcher.warm()
        for thread in threading.enumerate():
            if thread.name == "warm-up":
                thread.join(timeout=120)
        words = services.word_vectors
        first = CORPUS[0]
        assert len(words) > 0 and words.passage_rows(first).size > 0
        # The reranker keeps every passage's stored vectors (the budget holds them all).
        cache = services.reranker.cache  # type: ignore[attr-defined]
        assert len(cache) == 6 and all(chunk in cache for chunk in CORPUS[:6])
