"""Faults of the eval tools.

DocentError
├── InvalidInput
│   └── CaseFileError          a case or results file line is not what the format says
└── Conflict
    └── RunsNotComparable      two runs compared were not made over the same things
        ├── IndexVersionMismatch   over different indexes (fingerprints differ or are missing)
        └── PromptMismatch         with different prompts (prompt hashes differ or are missing)
"""

from __future__ import annotations

from docent.errors import Conflict, InvalidInput


class CaseFileError(InvalidInput):
    code = "bad_case_file"


class RunsNotComparable(Conflict):
    code = "runs_not_comparable"


class IndexVersionMismatch(RunsNotComparable):
    code = "index_version_mismatch"


class PromptMismatch(RunsNotComparable):
    code = "prompt_mismatch"
