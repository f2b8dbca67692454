"""What a fault may say outside the process (docent/errors.py ``public_message``)."""

from __future__ import annotations

from docent.errors import (
    INTERNAL_MESSAGE,
    SERVICE_BY_CODE,
    ConfigError,
    InvalidInput,
    Unavailable,
    public_message,
)
from tests.api.test_errors import all_docent_errors


def test_every_unavailable_class_names_its_service() -> None:
    codes = {cls.code for cls in all_docent_errors() if issubclass(cls, Unavailable)}
    assert {"index_unavailable", "queue_unavailable", "llm_unavailable"} <= codes
    assert codes <= set(SERVICE_BY_CODE), f"add {sorted(codes - set(SERVICE_BY_CODE))}"


def test_a_fault_shows_a_fixed_text_and_an_input_error_its_own() -> None:
    vendor = "database at postgresql://u:***@10.1.2.3:5432/docent is not reachable"
    assert public_message(Unavailable(vendor)) == (
        "a service we depend on did not answer; try again shortly"
    )
    assert public_message(ConfigError("model at /srv/models/x is broken")) == INTERNAL_MESSAGE
    assert public_message(InvalidInput("access_level: 'x' is not a level")) == (
        "access_level: 'x' is not a level"
    )
