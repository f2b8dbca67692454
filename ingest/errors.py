"""Faults ingest reports. Every per-file error names the file and the reason in plain words.

DocentError
└── IngestError                      ingest went wrong in a way that is not one file's fault
Unavailable
└── QueueUnavailable                 the broker did not take a file; its files fail, retryable
InvalidInput
└── IngestFileError                  one file cannot be ingested: "<source>: <reason>"
    ├── DiskFull                     no room on the data dir's disk (retryable: free space)
    ├── UnreadableFile               missing or unreadable when read (retryable: it may be back)
    ├── UnsupportedFile              the extension is not one we read
    ├── CorruptFile                  the bytes are not a readable document of that type
    ├── EncryptedFile                a password protects the content
    ├── EmptyDocument                no text: zero bytes, only whitespace, or nothing extracted
    ├── TooLarge                     over the configured size limit
    ├── BadMetadata                  a metadata field (``field``) has a value we cannot use
    └── Refused                      the uploader may not give the document that audience
"""

from __future__ import annotations

from docent.errors import DocentError, InvalidInput, Unavailable


class IngestError(DocentError):
    code = "ingest_error"


class QueueUnavailable(Unavailable):
    code = "queue_unavailable"


class IngestFileError(InvalidInput):
    """One file could not be ingested. The message is ``"<source>: <reason>"``; the reason
    describes the problem, never the document's text (errors reach people without clearance)."""

    code = "ingest_file_error"
    # Whether trying the same file again can succeed without changing it: a file's own fault
    # (its bytes, type, size, metadata, audience) cannot; a full disk can, once freed.
    retryable = False

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


class DiskFull(IngestFileError):
    """The data dir's disk has no room for the write; nothing was written."""

    code = "disk_full"
    retryable = True


class UnreadableFile(IngestFileError):
    """The file was not there, or could not be read, when its turn came (moved, not yet
    copied, no permission): once it is back, a retry reads it."""

    code = "unreadable_file"
    retryable = True


class UnsupportedFile(IngestFileError):
    code = "unsupported_file"


class CorruptFile(IngestFileError):
    code = "corrupt_file"


class EncryptedFile(IngestFileError):
    code = "encrypted_file"


class EmptyDocument(IngestFileError):
    code = "empty_document"


class TooLarge(IngestFileError):
    code = "too_large"


class BadMetadata(IngestFileError):
    """``field`` names the metadata field at fault (``"manifest"`` for the manifest's shape)."""

    code = "bad_metadata"

    def __init__(self, source: str, field: str, reason: str) -> None:
        super().__init__(source, reason)
        self.field = field


class Refused(IngestFileError):
    """The file would go in readable by more people than its own metadata allows, or at a
    level its uploader may not grant (``ingest.grant``); nothing of it is written."""

    code = "refused"
