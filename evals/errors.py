"""Faults of the eval tools.

DocentError
├── InvalidInput
│   └── CaseFileError          a case or results file line is not what the format says
└── Conflict
    └── IndexVersionMismatch   two runs compared were made over different index versions
"""

from __future__ import annotations

from docent.errors import Conflict, InvalidInput


class CaseFileError(InvalidInput):
    code = "bad_case_file"


class IndexVersionMismatch(Conflict):
    code = "index_version_mismatch"
