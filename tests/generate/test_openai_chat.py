"""The OpenAI-compatible backend against recorded responses, faked at the HTTP transport."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest

from docent.contracts import Answered, Declined
from docent.errors import Unavailable
from generate.errors import LLMUnavailable
from generate.openai_chat import OpenAIChatGenerator
from render.prompt import RenderedPrompt, render
from tests.render.builders import make_hit

RECORDED = Path(__file__).parent / "recorded"
HITS = [
    make_hit(
        "handbook.md#3",
        "Full-time employees receive 25 days of paid annual leave per calendar year, in "
        "addition to the public holidays of the country where they are employed.",
        heading_path=("Employee Handbook", "Annual leave", "Entitlement"),
        effective_date=date(2025, 1, 6),
    )
]
PROMPT = render("How many days of annual leave does a full-time employee get?", HITS, 2000)


def recorded(name: str) -> httpx.Response:
    data = json.loads((RECORDED / f"{name}.json").read_text())
    return httpx.Response(data["status"], headers=data["headers"], json=data["body"])


def chat(content: str | None, usage: dict[str, int] | None = None) -> httpx.Response:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "served-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
    }
    if usage is not None:
        body["usage"] = usage
    return httpx.Response(200, json=body)


class Endpoint:
    """Replays responses in order and records every request it was sent."""

    def __init__(self, *responses: httpx.Response | Callable[[httpx.Request], httpx.Response]):
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        step = self.responses.pop(0)
        return step(request) if callable(step) else step

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


def generator(endpoint: Endpoint, **options: Any) -> tuple[OpenAIChatGenerator, list[float]]:
    slept: list[float] = []
    options.setdefault("max_retries", 2)
    gen = OpenAIChatGenerator(
        "http://llm.test/v1",
        "gpt-4o-mini",
        api_key="sk-test",
        timeout=5,
        transport=httpx.MockTransport(endpoint),
        sleep=slept.append,
        **options,
    )
    return gen, slept


def run(gen: OpenAIChatGenerator, prompt: RenderedPrompt = PROMPT) -> Any:
    return gen.generate(prompt, prompt.kept)


def test_structured_request_and_answer() -> None:
    endpoint = Endpoint(recorded("openai_structured_answered"))
    gen, _ = generator(endpoint)
    result = run(gen)
    (request,) = endpoint.requests
    assert request.url == "http://llm.test/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    body = endpoint.bodies()[0]
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"] == [
        {"role": "system", "content": PROMPT.system},
        {"role": "user", "content": PROMPT.user},
    ]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["response_format"]["json_schema"]["schema"]["required"][0] == "kind"
    assert isinstance(result.outcome, Answered)
    assert result.outcome.citations[0].id == "handbook.md#3"
    assert result.model == "gpt-4o-mini-2024-07-18"
    assert result.usage.prompt_tokens == 412 and result.usage.completion_tokens == 61
    assert result.usage.total_tokens == 473 and result.usage.calls == 1


def test_llama_cpp_python_rejects_json_schema_then_json_object_is_used_and_remembered() -> None:
    endpoint = Endpoint(
        recorded("llamacpp_json_schema_rejected"),
        recorded("llamacpp_json_object"),
        recorded("llamacpp_json_object"),
    )
    gen, slept = generator(endpoint)
    first = run(gen)
    assert [b.get("response_format", {}).get("type") for b in endpoint.bodies()] == [
        "json_schema",
        "json_object",
    ]
    assert endpoint.bodies()[1]["response_format"]["schema"]["type"] == "object"
    assert slept == []  # a rejected format is not a fault to back off from
    assert "endpoint rejected response_format json_schema" in first.notes
    assert first.usage.calls == 2
    run(gen)  # the next ask starts with the format that worked
    assert endpoint.bodies()[2]["response_format"]["type"] == "json_object"
    # the recorded 135M model's JSON is valid but cites with a garbage quote: parsed, not trusted
    assert first.outcome.kind in {"answered", "insufficient_evidence", "ambiguous", "declined"}
    assert first.raw_output.startswith("{")


def test_plain_text_mode_sends_no_response_format_and_parses_citations() -> None:
    endpoint = Endpoint(
        chat(
            "Full-time employees get 25 days of paid annual leave [handbook.md#3].",
            {"prompt_tokens": 300, "completion_tokens": 20, "total_tokens": 320},
        )
    )
    gen, _ = generator(endpoint, structured=False)
    result = run(gen)
    assert "response_format" not in endpoint.bodies()[0]
    assert isinstance(result.outcome, Answered)
    assert [c.id for c in result.outcome.citations] == ["handbook.md#3"]
    assert result.model == "served-model"


def test_plain_text_not_in_context() -> None:
    gen, _ = generator(Endpoint(chat("NOT_IN_CONTEXT")), structured=False)
    assert run(gen).outcome.kind == "insufficient_evidence"


def test_recorded_plain_text_without_citations_is_declined_for_a_person() -> None:
    gen, _ = generator(Endpoint(recorded("llamacpp_plain_text")), structured=False)
    result = run(gen)
    assert isinstance(result.outcome, Declined)
    assert result.outcome.reason_code == "requires_human"
    assert result.usage.total_tokens > 0


def test_a_structured_request_answered_in_prose_is_read_as_plain_text() -> None:
    gen, _ = generator(Endpoint(chat("You get 25 days [handbook.md#3].")))
    result = run(gen)
    assert isinstance(result.outcome, Answered)
    assert "asked for JSON, got plain text; read as plain text" in result.notes


def test_500_then_success_is_retried_with_backoff() -> None:
    endpoint = Endpoint(
        httpx.Response(500, json={"error": {"message": "upstream overloaded"}}),
        httpx.Response(503, text="busy"),
        recorded("openai_structured_answered"),
    )
    gen, slept = generator(endpoint, backoff_s=0.5)
    result = run(gen)
    assert isinstance(result.outcome, Answered)
    assert len(endpoint.requests) == 3
    assert slept == [0.5, 1.0]


def test_429_honours_retry_after() -> None:
    endpoint = Endpoint(recorded("openai_rate_limited"), recorded("openai_structured_answered"))
    gen, slept = generator(endpoint)
    assert isinstance(run(gen).outcome, Answered)
    assert slept == [0.0]  # the recorded Retry-After: 0


def test_persistent_5xx_becomes_llm_unavailable() -> None:
    endpoint = Endpoint(*[httpx.Response(502, text="bad gateway") for _ in range(3)])
    gen, slept = generator(endpoint)
    with pytest.raises(LLMUnavailable, match="HTTP 502 after 3 attempt") as info:
        run(gen)
    assert isinstance(info.value, Unavailable) and info.value.http_status == 503
    assert isinstance(info.value.__cause__, httpx.HTTPStatusError)
    assert len(slept) == 2


def test_timeouts_are_retried_then_raise_llm_unavailable() -> None:
    def timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    endpoint = Endpoint(timeout, timeout, timeout)
    gen, slept = generator(endpoint)
    with pytest.raises(LLMUnavailable, match="timed out 3 time") as info:
        run(gen)
    assert isinstance(info.value.__cause__, httpx.TimeoutException)
    assert len(endpoint.requests) == 3 and len(slept) == 2


def test_a_timeout_then_success_recovers() -> None:
    def timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectTimeout("connect timed out", request=request)

    gen, _ = generator(Endpoint(timeout, recorded("openai_structured_answered")))
    assert isinstance(run(gen).outcome, Answered)


def test_connection_refused_becomes_llm_unavailable() -> None:
    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    gen, _ = generator(Endpoint(refused), max_retries=0)
    with pytest.raises(LLMUnavailable, match="unreachable after 1 attempt"):
        run(gen)


def test_a_bad_key_is_not_retried_and_the_key_is_not_echoed() -> None:
    endpoint = Endpoint(recorded("openai_bad_key"))
    gen, slept = generator(endpoint)
    with pytest.raises(LLMUnavailable, match="HTTP 401") as info:
        run(gen)
    assert len(endpoint.requests) == 1 and slept == []
    assert "sk-test" not in info.value.message


def test_a_refusal_is_declined() -> None:
    gen, _ = generator(Endpoint(recorded("openai_refusal")))
    result = run(gen)
    assert result.outcome == Declined("policy", "model refused")
    assert result.usage.completion_tokens == 12


def test_usage_is_summed_over_calls_and_missing_usage_counts_zero() -> None:
    endpoint = Endpoint(
        chat("NOT_IN_CONTEXT"),
        chat("NOT_IN_CONTEXT", {"prompt_tokens": 10, "completion_tokens": 2}),
    )
    gen, _ = generator(endpoint, structured=False)
    assert run(gen).usage.total_tokens == 0
    second = run(gen).usage
    assert (second.prompt_tokens, second.completion_tokens, second.total_tokens) == (10, 2, 12)


def test_malformed_bodies_are_faults() -> None:
    gen, _ = generator(Endpoint(httpx.Response(200, json={"choices": []})))
    with pytest.raises(LLMUnavailable, match="no choices"):
        run(gen)
    gen, _ = generator(Endpoint(httpx.Response(200, text="<html>proxy</html>")))
    with pytest.raises(LLMUnavailable, match="not JSON"):
        run(gen)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"base_url": "llm.test"}, "base_url"),
        ({"model": ""}, "model"),
        ({"timeout": 0}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
    ],
)
def test_constructor_checks_its_arguments(options: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"base_url": "http://llm.test/v1", "model": "m"} | options
    with pytest.raises(ValueError, match=message):
        OpenAIChatGenerator(**args)
