"""Faults of the retrieval stage.

    DocentError
    ├── InvalidInput
    │   └── EmptyQuery               the query has no text to search for
    ├── ConfigError
    │   └── RerankerUnavailable      the configured reranker model cannot be loaded
    └── Unavailable
        └── KeywordIndexError        the keyword index is not loaded or cannot be built

Vector-index faults arrive as ``store.errors.IndexUnavailable``.
"""

from __future__ import annotations

from docent.errors import ConfigError, InvalidInput, Unavailable


class EmptyQuery(InvalidInput):
    code = "empty_query"


class RerankerUnavailable(ConfigError):
    code = "reranker_unavailable"


class KeywordIndexError(Unavailable):
    code = "keyword_index_unavailable"
