"""The ingestor tells ``on_job_done`` once, when a job ends, after its state is committed (the
root re-asks the open content gaps there); a fault in it never fails the job."""

from __future__ import annotations

from pathlib import Path

import pytest

from docent.wiring import Services
from tests.ingest.pipeline_support import ingestor_over, write_doc

pytestmark = pytest.mark.integration


def test_a_job_that_ends_is_told_once_and_a_faulty_follow_up_fails_nothing(
    services: Services, tmp_path: Path
) -> None:
    for n in range(2):
        write_doc(tmp_path / "c" / f"doc{n}.md", f"Doc {n}", 1, seed=n)
    seen: list[tuple[str, str]] = []

    def follow_up(job_id: str) -> None:
        seen.append((job_id, ingestor.job_status(job_id)["state"]))  # committed already
        raise RuntimeError("the follow-up broke")

    ingestor = ingestor_over(services, on_job_done=follow_up)
    job_id = ingestor.submit([tmp_path / "c"])
    ingestor.run(job_id)
    assert seen == [(job_id, "succeeded")]  # two files, one call: from the one that ended it
    assert ingestor.job_status(job_id)["state"] == "succeeded"
    ingestor.run(job_id)  # a finished job run again: nothing, and no second call
    assert len(seen) == 1
