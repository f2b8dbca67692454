"""A hostile OpenAI-compatible chat server, for tests and ``docent eval run --backend openai``.

It answers ``POST /v1/chat/completions`` from a committed table of hostile replies
(``evals/adversarial/table.jsonl``): hedged refusals with figures, uncited sentences, figures
found only in a file name or date, paraphrased quotes, invented ids, superseded ids, JSON cut
off mid-object, empty answers, obeyed prompt injections, one-reading ambiguity, very long
replies, HTTP faults and timeouts. A row is chosen by the question in the user message (the
``Question: …`` line); a question not in the table gets a row chosen by a stable hash of it,
so any case file can be run against it.

Replies name blocks by placeholder, filled from the ``<doc id=…>`` blocks of the prompt it
was sent: ``{{b1}}``/``{{b2}}``/``{{b3}}`` (ids by retrieval rank; the prompt puts the best
last), ``{{superseded}}`` (the first superseded block), ``{{src:NAME}}`` (the first block
whose source starts with NAME); each falls back to ``{{b1}}``.

Run one by hand: ``python -m evals.hostile --port 8089`` then
``DOCENT_LLM_BASE_URL=http://127.0.0.1:8089/v1 docent eval run … --backend openai``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from docent.contracts import Chunk, Hit

TABLE_DIR = Path(__file__).parent / "adversarial"
TABLE = TABLE_DIR / "table.jsonl"
CORPUS = TABLE_DIR / "corpus.jsonl"
_DOC = re.compile(r'<doc id="([^"]*)" source="([^"]*)"[^>]*status="([^"]*)">')
_QUESTION = re.compile(r"^Question: (.*)\Z", re.MULTILINE | re.DOTALL)
_PLACEHOLDER = re.compile(r"\{\{(b\d|superseded|src:[^}]+)\}\}")


@dataclass(frozen=True)
class Row:
    """One hostile reply and what the user may see after the checks."""

    id: str
    category: str
    question: str
    expect: Mapping[str, Any]
    reply: str | None = None  # message content as written (may be broken JSON)
    reply_json: Mapping[str, Any] | None = None  # message content: this object as JSON
    status: int = 200
    delay_s: float = 0.0
    raw_body: str | None = None  # the whole HTTP body instead of a chat completion
    refusal: str | None = None
    finish_reason: str = "stop"
    repeat: int = 1  # the reply text repeated this many times (long outputs)
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Row:
        known = {f for f in cls.__dataclass_fields__ if f != "extra"}
        return cls(
            **{k: v for k, v in data.items() if k in known},
            extra={k: v for k, v in data.items() if k not in known},
        )


def load_table(path: Path = TABLE) -> list[Row]:
    rows = [
        Row.from_dict(json.loads(line))
        for line in path.read_text("utf-8").splitlines()
        if line.strip()
    ]
    ids = [row.id for row in rows]
    if len(set(ids)) != len(ids):
        raise ValueError(f"duplicate row ids in {path}")
    return rows


def load_corpus(path: Path = CORPUS) -> list[Hit]:
    """The fixed blocks every table row is asked over, in rank order."""
    hits: list[Hit] = []
    for rank, line in enumerate(
        (line for line in path.read_text("utf-8").splitlines() if line.strip()), start=1
    ):
        data = json.loads(line)
        source = data["chunk_id"].split("#", 1)[0]
        effective = data.get("effective_date")
        chunk = Chunk(
            chunk_id=data["chunk_id"],
            doc_id=source,
            source=source,
            heading_path=tuple(data["heading_path"]),
            kind=data.get("kind", "text"),
            text=data["text"],
            embed_text=data["text"],
            sentences=(),
            content_hash="h-" + data["chunk_id"],
            effective_date=date.fromisoformat(effective) if effective else None,
            superseded_by=data.get("superseded_by"),
            status=data.get("status", "current"),
            access_level="employee",
            owner=data.get("owner"),
        )
        score = 0.9 - rank / 100
        hits.append(Hit(chunk, rank, score, rank, rank, 1 / (60 + rank), score))
    return hits


def fill(text: str, user_message: str) -> str:
    """Placeholders replaced by ids of the blocks the prompt showed (best first)."""
    blocks = list(reversed(_DOC.findall(user_message)))  # (id, source, status), best first
    if not blocks:
        return text

    def pick(match: re.Match[str]) -> str:
        name = match.group(1)
        chosen: str | None = None
        if name.startswith("b") and name[1:].isdigit():
            n = int(name[1:])
            chosen = blocks[n - 1][0] if n <= len(blocks) else None
        elif name == "superseded":
            chosen = next((b[0] for b in blocks if b[2] == "superseded"), None)
        elif name.startswith("src:"):
            chosen = next((b[0] for b in blocks if b[1].startswith(name[4:])), None)
        return chosen or blocks[0][0]

    return _PLACEHOLDER.sub(pick, text)


def question_of(user_message: str) -> str:
    match = _QUESTION.search(user_message)
    return match.group(1).strip() if match else ""


class HostileModel:
    """The table, looked up by question; records what it was sent."""

    def __init__(self, rows: Sequence[Row]) -> None:
        if not rows:
            raise ValueError("the hostile table is empty")
        self.rows = list(rows)
        self.by_question = {row.question: row for row in rows}
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def row_for(self, question: str) -> Row:
        row = self.by_question.get(question)
        if row is not None:
            return row
        digest = int(hashlib.sha256(question.encode("utf-8")).hexdigest(), 16)
        return self.rows[digest % len(self.rows)]

    def respond(self, body: Mapping[str, Any]) -> tuple[int, str, float]:
        """``(status, body text, delay seconds)`` for one chat completion request."""
        with self._lock:
            self.requests.append(dict(body))
        messages = body.get("messages") or []
        user = next((m.get("content", "") for m in messages if m.get("role") == "user"), "")
        row = self.row_for(question_of(str(user)))
        if row.raw_body is not None:
            return row.status, row.raw_body, row.delay_s
        if row.status >= 400:
            error = {"error": {"message": f"hostile row {row.id}", "type": "server_error"}}
            return row.status, json.dumps(error), row.delay_s
        if row.reply_json is not None:
            content: str | None = json.dumps(row.reply_json, ensure_ascii=False)
        else:
            content = row.reply
        if content is not None:
            content = fill(content * row.repeat, str(user))
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if row.refusal is not None:
            message["refusal"] = row.refusal
        completion = {
            "id": f"chatcmpl-{row.id}",
            "object": "chat.completion",
            "model": "hostile-1",
            "choices": [{"index": 0, "message": message, "finish_reason": row.finish_reason}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        }
        return 200, json.dumps(completion, ensure_ascii=False), row.delay_s


VISIBLE = ("outcome", "reason_code", "answer", "missing", "readings", "clarifying_question")


def visible(body: Mapping[str, Any]) -> dict[str, Any]:
    """What a user may see of an ``ask --json`` body (plus the outcome and reason): the
    answer, the citations' ids and quotes, the missing text, readings, clarifying question."""
    out = {key: body.get(key) for key in VISIBLE}
    citations = body.get("citations")
    out["citations"] = (
        None if citations is None else [[c.get("id"), c.get("quote")] for c in citations]
    )
    return out


def fail_closed_violations(shown: Mapping[str, Any], hits: Mapping[str, Hit]) -> list[str]:
    """What a user sees (``visible``) that breaks the fail-closed rule, re-read from the
    final text: an answer sentence without a citation of a shown block, a figure its cited
    blocks do not state, a citation quote not in its block, a figure in the missing text, a
    reading or the clarifying question that no shown block states. Empty when all is well."""
    from generate.checks import supported_figures
    from generate.claims import split_claims
    from generate.figures import answer_figures
    from generate.text import appears_in, split_sentences

    problems: list[str] = []
    if shown.get("answer") is not None:
        texts = [hit.chunk.text for hit in hits.values()]
        claims = split_claims(str(shown["answer"]), set(hits), texts)
        if not claims:
            problems.append("an answer with no sentence")
        for claim in claims:
            if not claim.ids or not set(claim.ids) <= set(hits):
                problems.append(f"uncited: {claim.text}")
                continue
            have = set().union(*(supported_figures(hits[cid]) for cid in claim.ids))
            if not answer_figures(claim.text) <= have:
                problems.append(f"unsupported figure: {claim.text}")
        for cid, quote in shown.get("citations") or []:
            lines = str(quote).replace("…", "\n").splitlines()
            pieces = [s for line in lines for s in split_sentences(line) if s.strip()]
            if cid not in hits or not all(appears_in(p, [hits[cid].chunk.text]) for p in pieces):
                problems.append(f"quote not in {cid}: {quote}")
    anywhere = set().union(set(), *(supported_figures(hit) for hit in hits.values()))
    for text in [
        shown.get("missing"),
        shown.get("clarifying_question"),
        *(shown.get("readings") or []),
    ]:
        if text and not answer_figures(str(text)) <= anywhere:
            problems.append(f"unsupported figure: {text}")
    return problems


def _handler(model: HostileModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._send(400, json.dumps({"error": {"message": "body is not JSON"}}))
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, json.dumps({"error": {"message": "not found"}}))
                return
            status, text, delay = model.respond(body)
            if delay:
                time.sleep(delay)
            self._send(status, text)

        def _send(self, status: int, text: str) -> None:
            data = text.encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                pass

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            return

    return Handler


@contextmanager
def serve(
    rows: Sequence[Row] | None = None, host: str = "127.0.0.1", port: int = 0
) -> Iterator[tuple[str, HostileModel]]:
    """Run the server in a thread; yields ``(base_url, model)`` (base URL ends in ``/v1``)."""
    model = HostileModel(load_table() if rows is None else rows)
    server = ThreadingHTTPServer((host, port), _handler(model))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="hostile-llm", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}/v1", model
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8089)
    args = parser.parse_args(argv)
    with serve(host=args.host, port=args.port) as (url, _):
        print(f"hostile model at {url} (Ctrl-C to stop)", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
