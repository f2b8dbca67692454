"""Tests marked ``llm`` need a real OpenAI-compatible endpoint. Without
``DOCENT_TEST_LLM_BASE_URL`` they are deselected (reported as deselected, never skipped), so
any ``-m`` expression — ``make test-fast``'s included — leaves them out; pytest's addopts
also carry ``-m "not llm"``. To run them: ``DOCENT_TEST_LLM_BASE_URL=… pytest -m llm``."""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("DOCENT_TEST_LLM_BASE_URL"):
        return
    needs_llm = [item for item in items if item.get_closest_marker("llm")]
    if needs_llm:
        config.hook.pytest_deselected(items=needs_llm)
        items[:] = [item for item in items if not item.get_closest_marker("llm")]
