"""One process owns an embedded index: an ``flock`` on ``<folder>/LOCK`` held for the life
of the index, with the owner's pid and command written in it, so a second opener is told who
holds the folder and what to do instead of failing inside the engine."""

from __future__ import annotations

import fcntl
import os
import sys
import weakref
from pathlib import Path
from typing import IO

from store.errors import IndexLocked


class FolderLock:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._file: IO[str] | None = None

    def acquire(self) -> None:
        fh = (self.folder / "LOCK").open("a+", encoding="utf-8")
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            fh.seek(0)
            owner = fh.read().strip() or "another process"
            fh.close()
            raise IndexLocked(
                f"the index in {self.folder} is open in {owner}; one process owns the "
                "embedded index. Stop that process (a running `docent serve` answers "
                "questions and ingests uploads itself, in its web UI and API), or set "
                "DOCENT_QDRANT_URL to a Qdrant server to share the index between processes."
            ) from exc
        fh.seek(0)
        fh.truncate()
        fh.write(f"process {os.getpid()} ({' '.join(_argv())})\n")
        fh.flush()
        self._file = fh
        # An index dropped without close() (a test's, a crashed command's) still lets go of
        # the folder when it is collected, instead of leaving the descriptor to the GC.
        self._finalizer = weakref.finalize(self, fh.close)

    def release(self) -> None:
        if self._file is not None:
            self._file = None
            self._finalizer()  # closes the descriptor, which drops the flock


def ensure_unlocked(folder: Path) -> None:
    """Raise ``IndexLocked`` (naming the owner) when another process holds ``folder``: a
    process that will open the index later (a worker's children) is refused at its start,
    not at every task. A folder not made yet is free."""
    if not folder.is_dir():
        return
    probe = FolderLock(folder)
    probe.acquire()
    probe.release()


def _argv() -> list[str]:
    """The program and its command ("docent serve"): an option's value may be cut off, or a
    secret, so no options."""
    if not sys.argv:
        return ["python"]
    return [Path(sys.argv[0]).name, *[a for a in sys.argv[1:] if not a.startswith("-")][:1]]
