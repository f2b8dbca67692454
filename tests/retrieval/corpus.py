# ruff: noqa: E501  (one passage per line reads better than wrapped prose)
"""A small synthetic policy corpus written straight into Qdrant (no ingest pipeline), so
the retrieval tests control every field: levels, groups, status, supersession."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import date

from docent.contracts import Chunk, Embedder, Hit
from store.protocol import ChunkIndex

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def make_chunk(
    source: str,
    n: int,
    text: str,
    *,
    heading: Sequence[str] = (),
    access_level: str = "employee",
    groups: Sequence[str] = (),
    status: str = "current",
    superseded_by: str | None = None,
    effective_date: date | None = None,
    title: str | None = None,
) -> Chunk:
    path = tuple(heading) or (source.rsplit(".", 1)[0].replace("-", " ").title(),)
    return Chunk(
        chunk_id=f"{source}#{n}",
        doc_id=source,
        source=source,
        heading_path=path,
        kind="text",
        text=text,
        embed_text=" > ".join(path) + "\n" + text,
        sentences=tuple(s for s in _SENTENCE_END.split(text) if s.strip()),
        content_hash=hashlib.sha256(text.encode()).hexdigest(),
        effective_date=effective_date,
        superseded_by=superseded_by,
        status=status,  # type: ignore[arg-type]
        access_level=access_level,
        groups=tuple(groups),
        title=title,
    )


def write_chunks(index: ChunkIndex, embedder: Embedder, chunks: Sequence[Chunk]) -> None:
    """What ingest writes: the chunk vector and one vector per sentence, aligned."""
    vectors = embedder.embed([c.embed_text for c in chunks])
    sentences = [embedder.embed(list(c.unit_embed_texts)) for c in chunks]
    index.upsert(list(chunks), vectors, sentences)


D = date.fromisoformat
BONUS_QUERY = "The executive bonus pool is twelve percent of base salary and pays out in March."

CORPUS: tuple[Chunk, ...] = (
    # --- leave (employee) ---------------------------------------------------------------
    make_chunk(
        "leave.md",
        0,
        "Full-time employees receive 25 days of annual leave per calendar year. Part-time employees receive leave pro rata. Up to 5 unused days may be carried over to the next year.",
        heading=("Leave Policy", "Annual leave"),
        effective_date=D("2024-01-01"),
    ),
    make_chunk(
        "leave.md",
        1,
        "If you are ill, tell your manager before 10:00 on the first day of absence. A doctor's certificate is required after 3 consecutive days of sick leave.",
        heading=("Leave Policy", "Sick leave"),
        effective_date=D("2024-01-01"),
    ),
    make_chunk(
        "leave.md",
        2,
        "Birth parents receive 26 weeks of paid parental leave. Partners receive 4 weeks of paid leave, taken within the first year after the birth.",
        heading=("Leave Policy", "Parental leave"),
        effective_date=D("2024-01-01"),
    ),
    # --- expenses (employee) ------------------------------------------------------------
    make_chunk(
        "expenses.md",
        0,
        "Hotel stays are capped at €180 per night in tier-1 cities and €130 per night elsewhere. Book hotels through the travel portal.",
        heading=("Expenses Policy", "Hotels"),
        effective_date=D("2024-04-01"),
    ),
    make_chunk(
        "expenses.md",
        1,
        "The daily meal allowance when travelling abroad is €45. Keep receipts for any single meal above €30.",
        heading=("Expenses Policy", "Per diem"),
        effective_date=D("2024-04-01"),
    ),
    make_chunk(
        "expenses.md",
        2,
        "Expenses over €5,000 need written approval from the finance director before the purchase is made.",
        heading=("Expenses Policy", "Approval limits"),
        effective_date=D("2024-04-01"),
    ),
    # --- procurement and trade (employee) -------------------------------------------------
    make_chunk(
        "procurement.md",
        0,
        "Under Clause 7.3(b), a supplier who handles customer data must sign the data processing addendum before onboarding.",
        heading=("Procurement Policy", "Suppliers"),
        effective_date=D("2024-02-01"),
    ),
    make_chunk(
        "procurement.md",
        1,
        "Purchases between €10,000 and €50,000 need three written quotes. Purchases above €50,000 go to a formal tender.",
        heading=("Procurement Policy", "Quotes and tenders"),
        effective_date=D("2024-02-01"),
    ),
    make_chunk(
        "trade.md",
        0,
        "Shipments to destinations on the E:1 list are blocked until the export desk completes a licence review.",
        heading=("Trade Controls", "Restricted destinations"),
        effective_date=D("2024-05-01"),
    ),
    # --- records: a code buried in a long chunk, among look-alike codes (vector leg misses it)
    make_chunk(
        "records.md",
        0,
        "Our records schedule sets how long each kind of document is kept, who owns it and how it is destroyed at the end of its life. Board minutes are kept permanently; payroll files for seven years; CCTV footage for 30 days. Retention code RC-77 covers signed customer contracts, which stay for six years after the contract ends.",
        heading=("Records Management", "Schedule"),
        effective_date=D("2024-06-01"),
    ),
    make_chunk(
        "records.md",
        1,
        "Retention codes RC-12 and RC-14 apply to recruitment files and are reviewed every year.",
        heading=("Records Management", "Recruitment files"),
        effective_date=D("2024-06-01"),
    ),
    make_chunk(
        "records.md",
        2,
        "Retention code RC-70 applies to expense receipts, kept for six years.",
        heading=("Records Management", "Finance records"),
        effective_date=D("2024-06-01"),
    ),
    make_chunk(
        "records.md",
        3,
        "Retention code RC-75 covers visitor logs, which are deleted after one year.",
        heading=("Records Management", "Visitor logs"),
        effective_date=D("2024-06-01"),
    ),
    make_chunk(
        "records.md",
        4,
        "Retention code RC-78 applies to IT access logs, kept for 18 months.",
        heading=("Records Management", "Access logs"),
        effective_date=D("2024-06-01"),
    ),
    # --- benefits (employee) --------------------------------------------------------------
    make_chunk(
        "benefits.md",
        0,
        "The company matches 401(k) contributions up to 4% of base salary. Matching contributions vest after one year.",
        heading=("Benefits", "Retirement"),
        effective_date=D("2025-01-01"),
    ),
    make_chunk(
        "benefits.md",
        1,
        "Each employee has a learning budget of €1,200 per year for courses, books and conferences.",
        heading=("Benefits", "Learning budget"),
        effective_date=D("2025-01-01"),
    ),
    make_chunk(
        "benefits.md",
        2,
        "Employees who refer a successful hire receive a €2,000 referral bonus, paid after the new hire passes probation.",
        heading=("Benefits", "Referral bonus"),
        effective_date=D("2025-01-01"),
    ),
    make_chunk(
        "benefits.md",
        3,
        "Sales staff earn a quarterly commission on closed deals; the commission plan is published each January.",
        heading=("Benefits", "Sales commission"),
        effective_date=D("2025-01-01"),
    ),
    make_chunk(
        "benefits.md",
        4,
        "Salaries are reviewed every March. Pay rises take effect from the April payroll.",
        heading=("Benefits", "Pay reviews"),
        effective_date=D("2025-01-01"),
    ),
    # --- security and remote work (employee) ------------------------------------------------
    make_chunk(
        "security.md",
        0,
        "Passwords must be at least 14 characters long and unique for each service. Use the company password manager.",
        heading=("Security Policy", "Passwords"),
        effective_date=D("2025-04-01"),
    ),
    make_chunk(
        "security.md",
        1,
        "Report a lost or stolen laptop to the IT service desk within one hour.",
        heading=("Security Policy", "Lost equipment"),
        effective_date=D("2025-04-01"),
    ),
    make_chunk(
        "remote-work.md",
        0,
        "You may work from another country for up to 30 days per year with your manager's approval.",
        heading=("Remote Work", "Working abroad"),
        effective_date=D("2024-09-01"),
    ),
    make_chunk(
        "remote-work.md",
        1,
        "Remote employees receive a one-off home office stipend of €500 for a desk and chair.",
        heading=("Remote Work", "Home office"),
        effective_date=D("2024-09-01"),
    ),
    # --- public: refunds, current and superseded -------------------------------------------
    make_chunk(
        "refunds.md",
        0,
        "Customers can ask for their money back within 30 days of buying. Approved refunds are paid within 5 business days.",
        heading=("Refunds Policy", "Refund window"),
        access_level="public",
        effective_date=D("2025-03-01"),
    ),
    make_chunk(
        "refunds-2022.md",
        0,
        "Customers may request a refund within 14 days of purchase. Refunds are paid within 10 business days.",
        heading=("Refunds Policy 2022", "Refund window"),
        access_level="public",
        status="superseded",
        superseded_by="refunds.md",
        effective_date=D("2022-04-01"),
    ),
    # --- pending (employee, effective in the future) ----------------------------------------
    make_chunk(
        "travel-2027.md",
        0,
        "From June 2027 hotel stays are capped at €250 per night in tier-1 cities and €175 elsewhere.",
        heading=("Travel Policy 2027", "Hotels"),
        status="pending",
        effective_date=D("2027-06-01"),
    ),
    # --- groups -------------------------------------------------------------------------------
    make_chunk(
        "litigation-hold.md",
        0,
        "Litigation hold LH-2026-014: named custodians must preserve every email and chat message about the Brannock matter.",
        heading=("Litigation Hold", "Preservation"),
        groups=("legal",),
        effective_date=D("2026-02-01"),
    ),
    make_chunk(
        "investigations.md",
        0,
        "Workplace investigations are run jointly by HR and Legal; interview notes are stored in the case file for seven years.",
        heading=("Investigations", "Records"),
        groups=("hr", "legal"),
        effective_date=D("2025-05-01"),
    ),
    # --- confidential: six chunks that match the bonus query word for word ----------------------
    *(
        make_chunk(
            "bonus-plan.md",
            n,
            BONUS_QUERY + extra,
            heading=("Executive Bonus Plan", section),
            access_level="confidential",
            effective_date=D("2026-01-01"),
        )
        for n, (section, extra) in enumerate(
            [
                ("Pool", " The pool is approved by the board."),
                ("Eligibility", " Directors and above are eligible."),
                ("Timing", " Payment follows the annual audit."),
                ("Clawback", " Bonuses can be clawed back for misconduct."),
                ("Pro rata", " New executives receive a pro rata share."),
                ("Leavers", " Leavers before March forfeit the bonus."),
            ]
        )
    ),
)


def hits_for(*chunk_ids: str) -> list[Hit]:
    """Hits for these corpus chunks, ranked in the order given."""
    by_id = {c.chunk_id: c for c in CORPUS}
    return [Hit(chunk=by_id[cid], rank=i, score=0.0) for i, cid in enumerate(chunk_ids, start=1)]
