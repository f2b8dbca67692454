from datetime import date
from pathlib import Path

from docent.contracts import Hit
from render.blocks import render_block
from render.prompt import NO_BLOCKS, render, system_message
from render.tokens import count_tokens
from tests.render.builders import make_hit
from tests.render.snapshot import assert_snapshot

SNAPSHOTS = Path(__file__).parent / "snapshots"


def sample_hits() -> list[Hit]:
    return [
        make_hit(
            "refunds.md#2",
            "A support team lead may approve refunds up to €1,000. Refunds above €1,000 need "
            "finance approval from the Finance Controller before they are paid.",
            rank=1,
            heading_path=("Refunds Policy", "Approval"),
            effective_date=date(2025, 3, 1),
        ),
        make_hit(
            "refunds-2022.md#1",
            "A support team lead may approve refunds up to €500.",
            rank=2,
            heading_path=("Refunds Policy 2022", "Approval"),
            effective_date=date(2022, 4, 1),
            status="superseded",
            superseded_by="refunds.md",
        ),
        make_hit(
            "expenses.md#4",
            "| City | Tier | Daily per diem |\n|---|---|---|\n| Lisbon | Tier 1 | €64 |",
            rank=3,
            kind="table",
            heading_path=("Expenses and Travel Policy", "Per diem rates"),
            effective_date=None,
        ),
    ]


def test_clamp_happens_before_reversing_so_rank_one_survives_and_sits_last() -> None:
    """The bug this catches: reversing first and clamping second spends the budget on the
    worst hits and drops rank 1. Here the budget fits two blocks of three."""
    hits = sample_hits()
    budget = count_tokens(render_block(hits[0])) + count_tokens(render_block(hits[1]))
    prompt = render("How much can a team lead approve?", hits, budget)
    assert prompt.chunks_dropped == 1
    assert prompt.block_ids == ("refunds-2022.md#1", "refunds.md#2")  # best last
    assert [h.rank for h in prompt.kept] == [1, 2]
    user = prompt.user
    assert "expenses.md#4" not in user
    assert user.index('id="refunds.md#2"') > user.index('id="refunds-2022.md#1"')
    assert user.rstrip().endswith("Question: How much can a team lead approve?")
    # nothing but the question follows the best block
    after = user[user.index('id="refunds.md#2"') :]
    assert after.count("<doc ") == 0 and after.count("</doc>") == 1


def test_rendered_prompt_snapshot() -> None:
    prompt = render("How much can a support team lead approve?", sample_hits(), 2000)
    text = f"=== system ===\n{prompt.system}\n=== user ===\n{prompt.user}\n"
    assert_snapshot(SNAPSHOTS / "prompt_three_blocks.txt", text)
    assert prompt.chunks_dropped == 0
    assert prompt.block_ids == ("expenses.md#4", "refunds-2022.md#1", "refunds.md#2")


def test_tight_budget_snapshot_shows_the_truncated_top_block() -> None:
    prompt = render("How much can a support team lead approve?", sample_hits(), 70)
    assert prompt.chunks_dropped == 2
    assert_snapshot(SNAPSHOTS / "prompt_truncated.txt", prompt.user + "\n")


def test_system_message_states_the_rules() -> None:
    system = system_message()
    for rule in (
        "only the text inside the <doc> blocks",
        "later effective date",
        'status="superseded"',
        "after every sentence",
        "A block about the same subject is not an answer",
        "insufficient_evidence",
        "ambiguous",
        "declined",
        "out_of_scope, requires_human or policy",
        "exactly NOT_IN_CONTEXT",
    ):
        assert rule in system, rule
    assert render("q", sample_hits(), 2000).system == system  # stable across asks


def test_question_text_is_inserted_as_written() -> None:
    question = "Is $blocks or ${question} or {0} special?"
    prompt = render(question, sample_hits()[:1], 2000)
    assert prompt.user.endswith(f"Question: {question}")
    assert prompt.question == question


def test_no_hits_renders_a_plain_notice() -> None:
    prompt = render("Anything?", [], 100)
    assert NO_BLOCKS in prompt.user
    assert prompt.block_ids == () and prompt.chunks_dropped == 0
