"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp's ``llama-server``,
llama-cpp-python's server): ``POST {base_url}/chat/completions`` with the system and user
messages.

Structured output is asked for in the most portable order, remembering what worked:
1. ``response_format: {type: json_schema, json_schema: {name, strict, schema}}`` (OpenAI,
   vLLM, Ollama, llama-server);
2. ``response_format: {type: json_object, schema}`` (llama-cpp-python's server, which answers
   a ``json_schema`` request with a validation error — as a 500);
3. no ``response_format``: plain text, parsed for ``NOT_IN_CONTEXT`` and ``[id]`` citations.
A reply that is not JSON is read as plain text whatever was asked for.

Faults: 429, 5xx, timeouts and connection errors are retried ``max_retries`` times with
exponential backoff (``Retry-After`` honoured, capped); then, and at once for other 4xx,
``LLMUnavailable`` is raised from the vendor error. Usage is summed over every call made.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from docent.contracts import Declined, Hit
from generate.errors import LLMUnavailable
from generate.outcomes import MODEL_REFUSED, OUTCOME_SCHEMA, parse_output
from generate.protocols import Generation, Usage
from render.prompt import RenderedPrompt

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
FORMAT_REJECTED_STATUSES = frozenset({400, 422, 500})
MAX_RETRY_AFTER_S = 30.0

JSON_SCHEMA_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {"name": "docent_outcome", "strict": True, "schema": OUTCOME_SCHEMA},
}
JSON_OBJECT_FORMAT: dict[str, Any] = {"type": "json_object", "schema": OUTCOME_SCHEMA}


class _FormatRejected(Exception):
    """The endpoint refused the ``response_format`` we sent; try the next one."""


class OpenAIChatGenerator:
    backend = "openai"
    quotes_by_wording = False

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        structured: bool = True,
        transport: httpx.BaseTransport | None = None,
        *,
        max_tokens: int = 700,
        temperature: float = 0.0,
        backoff_s: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        if not model:
            raise ValueError("model must be a non-empty name")
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.max_retries = max_retries
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.backoff_s = backoff_s
        self._sleep = sleep
        self._formats_lock = threading.Lock()
        self._formats: list[dict[str, Any] | None] = (
            [JSON_SCHEMA_FORMAT, JSON_OBJECT_FORMAT, None] if structured else [None]
        )
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=self.base_url, timeout=timeout, transport=transport, headers=headers
        )

    def close(self) -> None:
        self._client.close()

    def generate(self, prompt: RenderedPrompt, hits: Sequence[Hit]) -> Generation:
        messages = [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
        ]
        usage = Usage()
        notes: list[str] = []
        while True:
            response_format = self._formats[0]
            try:
                data, call_usage = self._call(messages, response_format)
                usage = usage + call_usage
                break
            except _FormatRejected as rejected:
                usage = usage + Usage(calls=1)
                notes.append(f"endpoint rejected response_format {_format_name(response_format)}")
                if len(self._formats) == 1:
                    raise LLMUnavailable(
                        f"chat endpoint {self.base_url} rejected a plain request"
                    ) from rejected
                with self._formats_lock:  # remembered: later asks start with what works
                    if self._formats[0] is response_format:
                        self._formats.pop(0)
        message = _message(data, self.base_url)
        model = str(data.get("model") or self.model)
        content = message.get("content")
        if not isinstance(content, str) or not content.strip():
            refusal = message.get("refusal")
            if isinstance(refusal, str) and refusal.strip():
                return Generation(Declined("policy", MODEL_REFUSED), refusal, model, usage)
            content = ""
        outcome, how = parse_output(content, hits)
        if response_format is not None and how == "text":
            notes.append("asked for JSON, got plain text; read as plain text")
        if _finish_reason(data) == "length":
            notes.append("reply cut off at max_tokens")
        notes.append(f"format={_format_name(response_format)}")
        return Generation(outcome, content, model, usage, tuple(notes))

    def _call(
        self, messages: list[dict[str, str]], response_format: dict[str, Any] | None
    ) -> tuple[dict[str, Any], Usage]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if response_format is not None:
            body["response_format"] = response_format
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                response = self._client.post("/chat/completions", json=body)
            except httpx.TimeoutException as exc:
                if last:
                    raise LLMUnavailable(
                        f"chat endpoint {self.base_url} timed out {attempts} time(s)"
                    ) from exc
                self._sleep(self._backoff(attempt, None))
                continue
            except httpx.TransportError as exc:
                if last:
                    raise LLMUnavailable(
                        f"chat endpoint {self.base_url} unreachable after {attempts} attempt(s): "
                        f"{exc.__class__.__name__}"
                    ) from exc
                self._sleep(self._backoff(attempt, None))
                continue
            if response.status_code < 400:
                try:
                    data = response.json()
                except ValueError as exc:
                    raise LLMUnavailable(
                        f"chat endpoint {self.base_url} returned a body that is not JSON"
                    ) from exc
                if not isinstance(data, dict):
                    raise LLMUnavailable(f"chat endpoint {self.base_url} returned {type(data)}")
                return data, _usage(data)
            if (
                response_format is not None
                and response.status_code in FORMAT_REJECTED_STATUSES
                and _mentions_format(response)
            ):
                raise _FormatRejected(response.text[:500])
            if response.status_code in RETRY_STATUSES and not last:
                self._sleep(self._backoff(attempt, response.headers.get("retry-after")))
                continue
            error = httpx.HTTPStatusError(
                f"HTTP {response.status_code}", request=response.request, response=response
            )
            retried = response.status_code in RETRY_STATUSES
            raise LLMUnavailable(
                f"chat endpoint {self.base_url} answered HTTP {response.status_code}"
                + (f" after {attempts} attempt(s)" if retried else ""),
                detail=_error_message(response),
            ) from error
        raise AssertionError("unreachable")  # pragma: no cover

    def _backoff(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(float(retry_after), MAX_RETRY_AFTER_S)
            except ValueError:
                pass
        return float(self.backoff_s * (2**attempt))


def _format_name(response_format: dict[str, Any] | None) -> str:
    return "text" if response_format is None else str(response_format["type"])


def _mentions_format(response: httpx.Response) -> bool:
    text = response.text.lower()
    return "response_format" in text or "json_schema" in text


def _error_message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:300]
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return str(error.get("message", ""))[:300]
    return str(error or data)[:300]


def _message(data: dict[str, Any], base_url: str) -> dict[str, Any]:
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise LLMUnavailable(f"chat endpoint {base_url} returned no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise LLMUnavailable(f"chat endpoint {base_url} returned a choice without a message")
    return message


def _finish_reason(data: dict[str, Any]) -> str | None:
    choices = data.get("choices") or [{}]
    reason = choices[0].get("finish_reason") if isinstance(choices[0], dict) else None
    return reason if isinstance(reason, str) else None


def _usage(data: dict[str, Any]) -> Usage:
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    assert isinstance(usage, dict)

    def count(key: str) -> int:
        value = usage.get(key)
        return int(value) if isinstance(value, int | float) else 0

    prompt, completion = count("prompt_tokens"), count("completion_tokens")
    return Usage(prompt, completion, count("total_tokens") or prompt + completion, calls=1)
