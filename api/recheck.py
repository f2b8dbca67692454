"""The API's second permission check of an ask body, whatever the answer stage handed it.

Retrieval filters inside its queries and the ``Asker`` drops any hit the asker may not read,
so in a sound pipeline this check finds nothing. It exists for the unsound one (a searcher or
answer stage that leaks): every field of the body that names or quotes a document is walked,
by chunk id and by source, through the one visibility rule (``api.visibility``).

``AskBody`` declares the body field by field, each with the ``Check`` that says how it is
rechecked; a field the body carries that the model does not declare is dropped (and logged),
and a test holds the model to ``generate.ask.ask_json``, so a new field cannot pass unseen.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Annotated, Any, assert_never

from pydantic import BaseModel
from sqlalchemy.orm import Session

from api.passages import fetch_chunks
from api.users import CurrentUser
from api.visibility import can_read_chunk, readable_sources
from docent.contracts import TIER_NOT_COVERED, TIER_PROBABLY_HERE
from docent.errors import DocentError
from docent.wiring import Services
from generate.result import Handoff

log = logging.getLogger("docent.api.recheck")


class AnswerWithheld(DocentError):
    """An answer stood on a passage the caller may not read: a fault upstream, never shown."""

    code = "answer_withheld"


class Check(Enum):
    """How the recheck treats one field of the ask body."""

    CODE = "code"  # a short code or id (outcome, reason, trace id): must look like one
    NUMBER = "number"  # a number or null: carries no text
    TIER = "tier"  # a code that says passages were found: corrected when they were dropped
    CITED = "cited"  # the passages an answer stands on: one hidden one refuses the answer
    LISTED = "listed"  # passages offered to read: the hidden ones are dropped
    HANDOFF = "handoff"  # who to ask: naming a hidden source, it becomes the default queue
    ANSWER = "answer"  # the answer's words: refused when anything behind them was hidden
    FREE_TEXT = "free_text"  # the answer stage's own words: dropped then too


class AskBody(BaseModel):
    """The ``POST /api/ask`` body (``generate.ask.ask_json``), each field with its Check."""

    outcome: Annotated[str, Check.CODE]
    tier: Annotated[str | None, Check.TIER] = None
    confidence: Annotated[float | None, Check.NUMBER] = None
    answer: Annotated[str | None, Check.ANSWER] = None
    citations: Annotated[list[dict[str, Any]] | None, Check.CITED] = None
    missing: Annotated[str | None, Check.FREE_TEXT] = None
    readings: Annotated[list[str] | None, Check.FREE_TEXT] = None
    clarifying_question: Annotated[str | None, Check.FREE_TEXT] = None
    reason_code: Annotated[str | None, Check.CODE] = None
    handoff: Annotated[dict[str, Any] | None, Check.HANDOFF] = None
    retrieved: Annotated[list[dict[str, Any]], Check.LISTED] = []
    closest: Annotated[list[dict[str, Any]], Check.LISTED] = []
    trace_id: Annotated[str, Check.CODE]


def checks_of(model: type[BaseModel]) -> Mapping[str, Check]:
    """Each field's one declared Check; a field without one is an error at import."""
    out: dict[str, Check] = {}
    for name, info in model.model_fields.items():
        found = [m for m in info.metadata if isinstance(m, Check)]
        if len(found) != 1:
            raise TypeError(f"{model.__name__}.{name} must declare exactly one Check")
        out[name] = found[0]
    return MappingProxyType(out)


FIELD_CHECKS = checks_of(AskBody)
_CODE = re.compile(r"[\w.:-]{1,64}")  # no spaces: no sentence fits in one


@dataclass(frozen=True)
class Readable:
    """What the caller may read among what a body names: chunk ids (by the stored chunk) and
    sources (by the document registry), each through the one visibility rule."""

    chunk_ids: frozenset[str]
    sources: frozenset[str]

    def item(self, item: object) -> bool:
        """A passage item is shown only when both its chunk and its document are readable;
        an item without either (or not an object at all) is not."""
        if not isinstance(item, Mapping):
            return False
        return str(item.get("id")) in self.chunk_ids and str(item.get("source")) in self.sources


@dataclass(frozen=True)
class Rechecked:
    body: dict[str, Any]
    hidden: tuple[str, ...] = ()  # fields that had something the caller may not read
    unknown: tuple[str, ...] = ()  # fields the model does not declare (dropped)
    withheld: bool = False  # the answer stood on something hidden: refuse it whole
    dropped: int = 0  # how many things were dropped or replaced, in all


def _items(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


def _handoff_sources(value: object) -> list[str]:
    if not isinstance(value, Mapping):
        return []
    named = [value.get("source"), *_items(value.get("sources"))]
    return [str(s) for s in named if s]


def named_in(body: Mapping[str, Any], checks: Mapping[str, Check]) -> tuple[set[str], set[str]]:
    """The chunk ids and the sources the body's passage and handoff fields name."""
    ids: set[str] = set()
    sources: set[str] = set()
    for name, check in checks.items():
        if check in (Check.CITED, Check.LISTED):
            items = [i for i in _items(body.get(name)) if isinstance(i, Mapping)]
            ids.update(str(i["id"]) for i in items if i.get("id"))
            sources.update(str(i["source"]) for i in items if i.get("source"))
        elif check is Check.HANDOFF:
            sources.update(_handoff_sources(body.get(name)))
    return ids, sources


def readable_in(
    services: Services, db: Session, user: CurrentUser, body: Mapping[str, Any]
) -> Readable:
    ids, sources = named_in(body, FIELD_CHECKS)
    levels = services.settings.access_levels
    chunks = fetch_chunks(services.index, sorted(ids))
    return Readable(
        chunk_ids=frozenset(cid for cid, c in chunks.items() if can_read_chunk(user, c, levels)),
        sources=frozenset(readable_sources(db, user, sorted(sources), levels)),
    )


def _first_pass(
    check: Check, value: Any, readable: Readable, default_queue: str
) -> tuple[Any, int]:
    """(the value as shown, how many things in it the caller may not read)."""
    match check:
        case Check.CODE | Check.TIER:
            ok = value is None or (isinstance(value, str) and _CODE.fullmatch(value) is not None)
            return (value, 0) if ok else (None, 1)
        case Check.NUMBER:
            ok = value is None or (isinstance(value, int | float) and not isinstance(value, bool))
            return (value, 0) if ok else (None, 1)
        case Check.CITED | Check.LISTED:
            if value is None:
                return None, 0
            items = value if isinstance(value, list) else [value]
            kept = [item for item in items if readable.item(item)]
            return kept, len(items) - len(kept)
        case Check.HANDOFF:
            hidden = [s for s in _handoff_sources(value) if s not in readable.sources]
            if value is None or (isinstance(value, Mapping) and not hidden):
                return value, 0
            return Handoff(default_queue, None).to_dict(), 1  # the ask's handoff shape
        case Check.ANSWER | Check.FREE_TEXT:
            return value, 0  # judged once every other field is known (_second_pass)
    assert_never(check)


def _second_pass(check: Check, value: Any, body: Mapping[str, Any], hidden: bool) -> Any:
    if not hidden:
        return value
    match check:
        # The answer stage's own words may quote or paraphrase whatever it was given, so once
        # it was given something hidden they cannot be trusted: dropped (null), not replaced
        # by other words, since every client already shows its own fixed text for a null
        # ``missing``/``clarifying_question`` and no readings (DESIGN: absent fields null).
        case Check.FREE_TEXT:
            return None
        # No closest passage left to offer: nothing the caller may read matched.
        case Check.TIER if value == TIER_PROBABLY_HERE and not body.get("closest"):
            return TIER_NOT_COVERED
    return value


def recheck_body(
    body: Mapping[str, Any],
    readable: Readable,
    default_queue: str,
    checks: Mapping[str, Check] = FIELD_CHECKS,
) -> Rechecked:
    """The body as the caller may see it. Pure: ``readable`` says what they may read."""
    out: dict[str, Any] = {}
    hidden: dict[str, int] = {}
    for name, check in checks.items():
        out[name], count = _first_pass(check, body.get(name), readable, default_queue)
        if count:
            hidden[name] = count
    cited_hidden = any(checks[name] is Check.CITED for name in hidden)
    answer_given = any(out[n] is not None for n, c in checks.items() if c is Check.ANSWER)
    for name, check in checks.items():
        out[name] = _second_pass(check, out[name], out, bool(hidden))
    return Rechecked(
        body=out,
        hidden=tuple(sorted(hidden)),
        unknown=tuple(sorted(set(body) - set(checks))),
        withheld=cited_hidden or (answer_given and bool(hidden)),
        dropped=sum(hidden.values()),
    )


def recheck_ask(
    services: Services, db: Session, user: CurrentUser, body: Mapping[str, Any]
) -> dict[str, Any]:
    """The ask body as ``user`` may see it; AnswerWithheld when the answer stood on anything
    they may not read. The log says which fields, never what was in them."""
    result = recheck_body(
        body, readable_in(services, db, user, body), services.settings.default_handoff_queue
    )
    if result.unknown:
        log.error(
            "ask body fields not declared in api.recheck.AskBody were dropped",
            extra={"fields": list(result.unknown)},
        )
    if result.withheld:
        log.error(
            "an answer stood on something above the caller's clearance; withheld",
            extra={"fields": list(result.hidden), "items": result.dropped},
        )
        raise AnswerWithheld("the answer could not be shown; the error was logged")
    if result.hidden:
        log.error(
            "the answer stage named things above the caller's clearance; dropped",
            extra={"fields": list(result.hidden), "items": result.dropped},
        )
    return result.body
