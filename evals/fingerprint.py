"""What a run is pinned to: the index it read and the prompt it sent. Pure.

- ``index_fingerprint``: a SHA-256 over every indexed chunk's id and text, in id order — two
  indexes with the same chunks have the same fingerprint whatever their version counters
  say (a reindex bumps the counter, not the content), and any changed, added or removed
  chunk changes it.
- ``prompt_hash``: a SHA-256 over the system and user prompt templates
  (``render/prompts``), so a run made with another prompt is told apart.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable


def index_fingerprint(chunks: Iterable[tuple[str, str]]) -> str:
    digest = hashlib.sha256()
    for chunk_id, text in sorted(chunks):
        digest.update(chunk_id.encode("utf-8") + b"\0" + text.encode("utf-8") + b"\0\n")
    return digest.hexdigest()


def prompt_hash() -> str:
    from render.prompt import load_prompt

    digest = hashlib.sha256()
    for name in ("system", "user"):
        digest.update(name.encode("utf-8") + b"\0" + load_prompt(name).encode("utf-8") + b"\0")
    return digest.hexdigest()
