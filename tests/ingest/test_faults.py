"""A file's fault becomes its reason to fail and whether a retry can fix it: a file's own
fault cannot be fixed by trying again; a service that did not answer, a full disk or an
unexpected fault can."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from docent.errors import InvalidInput, Unavailable
from ingest.errors import (
    BadMetadata,
    CorruptFile,
    DiskFull,
    EmptyDocument,
    EncryptedFile,
    IngestFileError,
    Refused,
    TooLarge,
    UnreadableFile,
    UnsupportedFile,
)
from ingest.faults import Failed, attempt
from ingest.jobs import FileTask

TASK = FileTask(1, "job", "ingest", "a.pdf", Path("a.pdf"), {})


def failing(exc: Exception) -> Failed:
    def step() -> None:
        raise exc

    outcome = attempt(TASK, "fail", step)
    assert isinstance(outcome, Failed)
    return outcome


@pytest.mark.parametrize(
    "exc",
    [
        UnsupportedFile("a.pdf", "unsupported file type"),
        CorruptFile("a.pdf", "the PDF is damaged"),
        EncryptedFile("a.pdf", "password-protected"),
        EmptyDocument("a.pdf", "no text"),
        TooLarge("a.pdf", "too large"),
        BadMetadata("a.pdf", "effective_date", "not a date"),
        Refused("a.pdf", "above your clearance"),
        IngestFileError("a.pdf", "is no longer in the registry"),
        InvalidInput("a value we cannot use"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_files_own_fault_is_not_retryable(exc: Exception) -> None:
    failed = failing(exc)
    assert failed.retryable is False and failed.reason


@pytest.mark.parametrize(
    "exc",
    [
        DiskFull("a.pdf", "the data dir's disk is nearly full"),
        UnreadableFile("a.pdf", "no such file"),
        Unavailable("the vector index did not answer"),
        OperationalError("SELECT 1", {}, Exception("connection refused")),
        RuntimeError("a bug"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_fault_outside_the_file_is_retryable(exc: Exception) -> None:
    assert failing(exc).retryable is True


def test_a_value_is_returned_untouched() -> None:
    assert attempt(TASK, "fail", lambda: 42) == 42
