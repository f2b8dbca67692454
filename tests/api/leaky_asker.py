# ruff: noqa: E501
"""A broken answer stage for the API's second permission check (``api/recheck.py``): a real
implementation of the asker interface that ignores the principal and puts passages, names
and sentences of EVERY access level into every field of an ask body, as a faulty searcher or
answerer upstream would. It saves its trace, as the real ``Asker`` does.

The corpus gives each document distinctive words (file name, title, headings, a code word
in a stored sentence, an owner), so a leak of any of them is seen wherever it lands.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from api.app import create_app
from docent.access import visible
from docent.contracts import (
    Ambiguous,
    Answered,
    Chunk,
    Citation,
    Hit,
    InsufficientEvidence,
    Outcome,
    Principal,
)
from docent.wiring import Services
from generate.result import AskResult, Handoff
from generate.trace import save_trace
from tests.api.conftest import ApiEnv, build_settings
from tests.api.corpus import USERS, make_users


@dataclass(frozen=True)
class Doc:
    source: str
    level: str
    groups: str
    owner: str
    title: str
    heading: str
    sentence: str  # the stored sentence the asker must never see above their clearance
    code_word: str
    superseded_by: str = ""
    supersedes: str = ""

    def markdown(self) -> str:
        return f"# {self.title}\n\n## {self.heading}\n\n{self.sentence}\n"

    def needles(self) -> tuple[str, ...]:
        """Every string that would show this document leaked."""
        return (
            self.source,
            self.source.removesuffix(".md"),
            self.title,
            self.heading,
            self.sentence,
            self.code_word,
            self.owner,
        )


DOCS = (
    Doc(
        "lobby-hours.md",
        "public",
        "",
        "Front Desk",
        "Lobby Hours",
        "Opening times",
        "The lobby opens at seven in the morning on weekdays.",
        "lobby",
    ),
    Doc(
        "canteen-slots.md",
        "employee",
        "",
        "Canteen Crew Nimbus",
        "Canteen Slots Nimbus",
        "Nimbus lunch rota",
        "Each team books a Nimbus lunch slot in the canteen every Monday.",
        "Nimbus",
    ),
    Doc(
        "merger-orion.md",
        "confidential",
        "",
        "Orion Deal Team",
        "Project Orion Merger Terms",
        "Orion exchange ratio",
        "Each Quillfeather share converts into 0.4187 Orion shares at closing.",
        "Quillfeather",
    ),
    Doc(
        "board-vesper.md",
        "confidential",
        "board",
        "Vesper Board Office",
        "Vesper Board Minutes",
        "Vesper succession vote",
        "The board elected Marisol Quenby as interim chief executive on a split vote.",
        "Quenby",
    ),
    Doc(
        "breach-tamarind.md",
        "restricted",
        "",
        "Tamarind Incident Cell",
        "Tamarind Breach Report",
        "Tamarind exfiltration path",
        "The intruders copied the payroll ledger through the forgotten Kestrel backup server.",
        "Kestrel",
    ),
    # A superseded pair across levels: the old one readable by employees, its successor not.
    Doc(
        "parking-old.md",
        "employee",
        "",
        "Facilities",
        "Parking Rules",
        "Parking permits",
        "Parking permits are issued by the facilities desk.",
        "permits",
        superseded_by="parking-zircon.md",
    ),
    Doc(
        "parking-zircon.md",
        "confidential",
        "",
        "Zircon Estates Office",
        "Zircon Garage Allocation",
        "Zircon executive bays",
        "The Zircon garage keeps twelve bays for the Halvorsen executives.",
        "Halvorsen",
    ),
    # And the other way round: a readable document that replaces a hidden one.
    Doc(
        "badge-onyx.md",
        "confidential",
        "",
        "Onyx Security Desk",
        "Onyx Badge Escrow",
        "Onyx master keys",
        "The Onyx master badges are kept in the Brightwater escrow safe.",
        "Brightwater",
    ),
    Doc(
        "badge-rules.md",
        "employee",
        "",
        "Facilities",
        "Badge Rules",
        "Visitor badges",
        "Visitors wear a red badge and stay with their host.",
        "badge",
        supersedes="badge-onyx.md",
    ),
)
BY_SOURCE = {d.source: d for d in DOCS}
ALWAYS_VISIBLE = BY_SOURCE["lobby-hours.md"]  # public: every role reads it
ROLES = ("pubby", "ada", "cy", "admin")  # public; employee; confidential+legal; restricted
SCENARIOS = (
    "answer_cites_every_level",  # citations, retrieved: hidden ones
    "answer_cites_one_hidden",  # only the citation is hidden; the hits are the asker's own
    "answer_over_hidden_hits",  # cites the asker's own passage; hidden text in the answer
    "insufficient",  # retrieved, closest, handoff, missing
    "ambiguous",  # retrieved, closest, handoff, readings, clarifying_question
)
ANSWERS = SCENARIOS[:3]
HONEST = "honest"  # not a leak: a non-answer over the asker's own passages, ``first`` first


def manifest() -> str:
    head = "path,effective_date,superseded_by,supersedes,access_level,owner,groups,doc_type,title\n"
    rows = [
        f"{d.source},2025-01-01,{d.superseded_by},{d.supersedes},{d.level},{d.owner},{d.groups},policy,{d.title}\n"
        for d in DOCS
    ]
    return head + "".join(rows)


def build_env(root: Path, embedder: Any) -> ApiEnv:
    """A fresh app over this corpus (hashing embedder, SQLite) with the usual test users."""
    from fastapi.testclient import TestClient

    corpus = root / "corpus"
    corpus.mkdir(parents=True)
    for doc in DOCS:
        (corpus / doc.source).write_text(doc.markdown())
    (corpus / "MANIFEST.csv").write_text(manifest())
    services = Services(build_settings(root / "data"), embedder=embedder)
    job_id = services.ingestor.submit(
        [corpus / d.source for d in DOCS],
        root=corpus,
        manifest=corpus / "MANIFEST.csv",
        overrides={},
        created_by="setup",
    )
    services.ingestor.run(job_id)
    assert services.ingestor.job_status(job_id)["state"] == "succeeded"
    tokens = make_users(services)
    client = TestClient(create_app(services), raise_server_exceptions=False)
    return ApiEnv(services, client.app, client, tokens, corpus)  # type: ignore[arg-type]


def readable(principal: Principal, doc: Doc) -> bool:
    return visible(principal, doc.level, [g for g in doc.groups.split(",") if g])


def hidden_docs(principal: Principal) -> list[Doc]:
    return [d for d in DOCS if not readable(principal, d)]


def principals() -> dict[str, Principal]:
    """The principals of the roles the property is checked for."""
    return {who: principal(who) for who in ROLES}


def cases() -> list[tuple[str, str]]:
    """(role, hidden source ranked first) for every document each role may not read."""
    return [(who, d.source) for who, p in principals().items() for d in hidden_docs(p)]


def stored_hit(chunk: Chunk, rank: int) -> Hit:
    """A hit with the chunk's own stored sentence as its closest sentence (fills excerpts)."""
    sentence = max(chunk.sentences, key=len) if chunk.sentences else chunk.text
    return Hit(chunk=chunk, rank=rank, score=1.0 / rank, best_sentence=sentence)


def citation_of(hit: Hit) -> Citation:
    c = hit.chunk
    return Citation(
        c.chunk_id,
        c.source,
        c.heading_path,
        c.effective_date,
        c.status,
        hit.best_sentence or c.text,
    )


class EveryLevelAsker:
    """Ignores (or half-ignores) the principal, per ``scenario``; ``first`` is the hidden
    document ranked first, so it reaches ``closest`` and the handoff."""

    def __init__(self, services: Services, scenario: str, first: str) -> None:
        self.services = services
        self.scenario = scenario
        self.first = first

    def hits(self, principal: Principal) -> list[Hit]:
        order = [self.first, ALWAYS_VISIBLE.source] + [
            d.source for d in DOCS if d.source not in (self.first, ALWAYS_VISIBLE.source)
        ]
        chunks = [c for source in order for c in self.services.index.chunks_of(source)]
        assert len(chunks) >= len(DOCS), "every document must have a stored chunk"
        if self.scenario == HONEST:  # a sound stage: only what the asker may read
            chunks = [c for c in chunks if visible(principal, c.access_level, c.groups)]
        return [stored_hit(c, rank) for rank, c in enumerate(chunks, start=1)]

    def outcome(self, hits: list[Hit], principal: Principal) -> tuple[Outcome, list[Hit]]:
        first = next(h for h in hits if h.chunk.source == self.first)
        own = [h for h in hits if visible(principal, h.chunk.access_level, h.chunk.groups)]
        lobby = next(h for h in own if h.chunk.source == ALWAYS_VISIBLE.source)
        doc = BY_SOURCE[self.first]
        match self.scenario:
            case "answer_cites_every_level":
                text = " ".join(f"{h.best_sentence} [{h.chunk.chunk_id}]" for h in hits)
                return Answered(text, tuple(citation_of(h) for h in hits)), hits
            case "answer_cites_one_hidden":
                text = f"{lobby.best_sentence} [{first.chunk.chunk_id}]"
                return Answered(text, (citation_of(first),)), own
            case "answer_over_hidden_hits":
                text = f"{lobby.best_sentence} [{lobby.chunk.chunk_id}] {doc.sentence}"
                return Answered(text, (citation_of(lobby),)), hits
            case "insufficient" | "honest":
                return InsufficientEvidence(f"Only this is stated: {doc.sentence}"), hits
            case "ambiguous":
                readings = (f"{doc.heading}: {doc.sentence}", str(lobby.best_sentence))
                return Ambiguous(readings, f"Do you mean {doc.title}?"), hits
        raise AssertionError(self.scenario)

    def ask(self, question: str, principal: Principal) -> AskResult:
        outcome, hits = self.outcome(self.hits(principal), principal)
        top = min(hits, key=lambda h: h.rank).chunk
        result = AskResult(
            trace_id=str(uuid.uuid4()),
            question=question,
            principal=principal,
            outcome=outcome,
            hits=tuple(hits),
            cut=(),
            prompt=None,
            generation=None,
            checks=(),
            timings_ms={},
            index_version=0,
            handoff=None if isinstance(outcome, Answered) else Handoff(top.owner or "", top.source),
            backend="leaky",
            stages={},
            levels=self.services.settings.access_levels,
        )
        save_trace(self.services.sessions, result)
        return result


def leaks(text: str, principal: Principal) -> list[str]:
    """The needles of documents ``principal`` may not read that appear in ``text``."""
    return [n for d in hidden_docs(principal) for n in d.needles() if n in text]


def principal(who: str) -> Principal:
    """A test user's principal (tests/api/corpus.py ``USERS``)."""
    return Principal(who, USERS[who].clearance, frozenset(USERS[who].groups))


def raise_level(env: ApiEnv, source: str, level: str) -> None:
    """Re-ingest one document at another access level, as the docs team would."""
    doc = BY_SOURCE[source]
    before = f"{doc.source},2025-01-01,{doc.superseded_by},{doc.supersedes},{doc.level},"
    after = f"{doc.source},2025-01-01,{doc.superseded_by},{doc.supersedes},{level},"
    (env.corpus / "MANIFEST.csv").write_text(manifest().replace(before, after))
    ingestor = env.services.ingestor
    job_id = ingestor.submit(
        [env.corpus / source],
        root=env.corpus,
        manifest=env.corpus / "MANIFEST.csv",
        overrides={},
        created_by="setup",
    )
    ingestor.run(job_id)
    assert ingestor.job_status(job_id)["state"] == "succeeded"
    assert {c.access_level for c in env.services.index.chunks_of(source)} == {level}
