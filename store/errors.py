"""The chunk index's faults. Each carries a fixed message a person can act on; the vendor's
own text is logged where it is caught and never leaves the process.

    docent.errors.DocentError
    ├── IndexUnavailable (503)   the engine did not answer or failed a call
    │   └── IndexLocked (503)    another process owns the embedded shard
    ├── ModelMismatch (409)      the index was built with another embedding model
    └── LegacyIndex (500)        the data dir holds an index in the old local-mode format
"""

from __future__ import annotations

from docent.errors import ConfigError, Conflict, Unavailable


class IndexUnavailable(Unavailable):
    code = "index_unavailable"


class IndexLocked(IndexUnavailable):
    code = "index_locked"


class ModelMismatch(Conflict):
    code = "embedding_model_mismatch"


class LegacyIndex(ConfigError):
    code = "legacy_index"


__all__ = ["IndexLocked", "IndexUnavailable", "LegacyIndex", "ModelMismatch"]
