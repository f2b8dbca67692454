"""What `docent serve` and `docent demo` run on: with a broker but the embedded index, the
server ingests uploads itself (a user pass found uploads queued for workers that could never
open the index the server holds)."""

from __future__ import annotations

from pathlib import Path

from api.cli import INLINE_ON_EMBEDDED, serving_settings
from docent.settings import Settings


def test_a_broker_with_the_embedded_index_ingests_uploads_in_the_server(tmp_path: Path) -> None:
    base = Settings(data_dir=tmp_path, broker_url="redis://127.0.0.1:6379/9")
    served, note = serving_settings(base)
    assert served.broker_url is None and note == INLINE_ON_EMBEDDED
    assert "DOCENT_QDRANT_URL" in note
    # With a Qdrant server the workers can open the index: the broker stays.
    shared = base.model_copy(update={"qdrant_url": "http://127.0.0.1:6333"})
    assert serving_settings(shared) == (shared, None)
    # Without a broker there is nothing to say.
    plain = Settings(data_dir=tmp_path)
    assert serving_settings(plain) == (plain, None)
