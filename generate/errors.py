"""Faults of the answer stage. Expected non-answers are Outcome values, never these.

docent.errors.Unavailable (503)
├── LLMUnavailable            the chat endpoint failed, timed out or kept refusing after retries
└── TraceStoreUnavailable     the trace of an ask could not be written or read
docent.errors.NotFound (404)
└── TraceNotFound             no trace with that id
docent.errors.ConfigError (500)
└── AnswererFileError         DOCENT_ANSWERER_FIT is missing, unreadable or not a fit
"""

from __future__ import annotations

from docent.errors import ConfigError, NotFound, Unavailable


class LLMUnavailable(Unavailable):
    code = "llm_unavailable"


class TraceStoreUnavailable(Unavailable):
    code = "trace_store_unavailable"


class TraceNotFound(NotFound):
    code = "trace_not_found"


class AnswererFileError(ConfigError):
    code = "answerer_fit_invalid"
