"""The LLM rewriter: asks any OpenAI-compatible chat endpoint for a new template (a rewrite of one, or a whole
kernel of a user's task) and checks the answer's form.

It is on only when a model is named (`--llm-model` or TUNER_LLM_MODEL): a user's OPENAI_API_KEY, set for other
tools, never turns it on. It never raises for the endpoint or the answer: a timeout, an HTTP error, an answer
too large or off the contract becomes a rejected Proposal with a one-line reason. Requests are retried (own
loop, the client's retries off) on timeouts, lost connections, 408, 429 and 5xx with exponential backoff; the
answer's body is read in chunks and dropped once it passes `max_response_bytes`.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

import openai

from tuner.errors import UsageError
from tuner.mutate.base import GenerationContext, MutationContext, Mutator, Proposal
from tuner.mutate.contract import RESERVED_NAMES, ContractError, parse_answer
from tuner.mutate.generation import build_generation_messages
from tuner.mutate.prompts import build_messages, prompt_text, strip_line_labels

DEFAULT_BASE_URL = "https://api.openai.com/v1"
LOCAL_API_KEY = "unused"  # what a local server without a key is sent (the client insists on one)
RETRY_STATUSES = frozenset({408, 429})  # plus every 5xx
# the client's telemetry headers that describe this machine (OS, CPU, Python) are not sent
PRIVATE_HEADERS = ("X-Stainless-OS", "X-Stainless-Arch", "X-Stainless-Runtime", "X-Stainless-Runtime-Version")


class LlmConfigError(UsageError):
    """Raised when the LLM settings are unusable (a model but no endpoint credentials, a negative call budget)."""


class CallError(Exception):
    """One request's failure, with its one-line reason; `retry` says whether trying again may help."""

    def __init__(self, reason: str, *, retry: bool = False, delay_s: float | None = None) -> None:
        super().__init__(reason)
        self.retry, self.delay_s = retry, delay_s


@dataclass(frozen=True)
class LlmSettings:
    """Where and how the LLM is asked, and how much of it a run may use."""

    model: str
    base_url: str | None = None  # None: the OpenAI API
    api_key: str = LOCAL_API_KEY
    timeout_s: float = 60.0  # per request: connect, send, wait for the answer, read it
    max_retries: int = 2  # retries of one call (so 3 attempts)
    max_calls: int = 20  # requests a run may make (retries not counted)
    max_response_bytes: int = 256 * 1024  # a larger answer body is refused unread
    max_recorded_chars: int = 64 * 1024  # the answer kept in Proposal.response
    backoff_s: float = 0.5  # first retry delay, doubled on each retry
    max_backoff_s: float = 8.0  # cap on a retry delay, also on a server's Retry-After


def settings_from(model: str | None, no_llm: bool, max_calls: int,
                  env: Mapping[str, str] = os.environ) -> LlmSettings | None:
    """The LLM settings from the command line and the environment; None when the LLM is off: `no_llm`, no model
    named (--llm-model or TUNER_LLM_MODEL), or a call budget of 0. OPENAI_BASE_URL and OPENAI_API_KEY say
    where and with which key; a base URL without a key gets a dummy key, for local servers."""
    model = (model or env.get("TUNER_LLM_MODEL") or "").strip()
    if no_llm or not model or max_calls == 0:
        return None
    if max_calls < 0:
        raise LlmConfigError(f"--llm-max-calls must be 0 or more, not {max_calls}")
    base_url = env.get("OPENAI_BASE_URL", "").strip() or None
    if base_url is not None:
        _check_url(base_url)
    api_key = env.get("OPENAI_API_KEY", "").strip()
    if not api_key and base_url is None:
        raise LlmConfigError(f"LLM model '{model}' is named but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set")
    return LlmSettings(model=model, base_url=base_url, api_key=api_key or LOCAL_API_KEY, max_calls=max_calls)


def _check_url(url: str) -> None:
    try:
        parts = urlsplit(url)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port is None or parts.port > 0)
    except ValueError:
        valid = False
    if not valid:
        raise LlmConfigError(f"OPENAI_BASE_URL '{url}' is not an http(s) URL")


@dataclass(frozen=True)
class _Reply:
    content: str
    usage: dict[str, int]
    finish_reason: str | None


class LlmMutator(Mutator):
    """Proposes rewrites of a template by asking an LLM; `calls` counts requests made, `skipped` says why the
    last `propose` returned nothing (the call budget was spent)."""

    origin = "llm"

    def __init__(self, settings: LlmSettings, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings, self._sleep = settings, sleep
        self.calls = 0
        self.skipped: str | None = None
        self._lock = threading.Lock()
        self._client = openai.OpenAI(api_key=settings.api_key, base_url=settings.base_url or DEFAULT_BASE_URL,
                                     timeout=settings.timeout_s, max_retries=0)

    def propose(self, context: MutationContext) -> list[Proposal]:
        """One proposal for `context` (possibly rejected, with its reason), or none once the budget is spent."""
        reserved = RESERVED_NAMES | set(context.knob_space) | set(context.soc_limits)
        return self._ask(build_messages(context), reserved)

    def generate(self, context: GenerationContext) -> list[Proposal]:
        """One whole kernel for a task (`context`), as `propose` answers; none once the budget is spent."""
        reserved = RESERVED_NAMES | set(context.knob_space) | set(context.names) | set(context.soc_limits)
        return self._ask(build_generation_messages(context), reserved)

    def _ask(self, messages: list[dict[str, str]], reserved: set[str] | frozenset[str]) -> list[Proposal]:
        with self._lock:
            if self.calls >= self.settings.max_calls:
                self.skipped = f"LLM call budget spent ({self.calls} of {self.settings.max_calls} calls)"
                return []
            self.calls += 1
            name = f"llm-{self.calls}"
        self.skipped = None
        proposal = Proposal(origin=self.origin, name=name, template=None, prompt=prompt_text(messages))
        try:
            reply = self._complete(messages)
        except CallError as exc:
            proposal.rejected = str(exc)
            return [proposal]
        proposal.usage, proposal.response = reply.usage, self._recorded(reply.content)
        if reply.finish_reason == "length":
            proposal.rejected = "the answer was cut off at the model's output limit (finish_reason=length)"
            return [proposal]
        try:
            answer = parse_answer(reply.content, reserved)
        except ContractError as exc:
            proposal.rejected = str(exc)
            return [proposal]
        proposal.template = strip_line_labels(answer.template)
        proposal.knobs_yaml, proposal.rationale = answer.knobs_yaml, answer.prose
        return [proposal]

    def _recorded(self, content: str) -> str:
        limit = self.settings.max_recorded_chars
        if len(content) <= limit:
            return content
        return f"{content[:limit]}\n[... truncated: {limit} of {len(content)} characters kept]"

    def _complete(self, messages: list[dict[str, str]]) -> _Reply:
        """The endpoint's reply, retrying what may pass on a second try; CallError says why it failed."""
        attempts = self.settings.max_retries + 1
        attempt = 1
        while True:
            try:
                return self._request(messages)
            except CallError as exc:
                if not exc.retry:
                    raise
                if attempt == attempts:
                    plural = "s" if attempts > 1 else ""
                    raise CallError(f"{exc} after {attempts} attempt{plural}") from None
                delay = max(self.settings.backoff_s * 2 ** (attempt - 1), exc.delay_s or 0.0)
                self._sleep(min(delay, self.settings.max_backoff_s))
                attempt += 1

    def _request(self, messages: list[dict[str, str]]) -> _Reply:
        """One request; its body is read in chunks so an oversized answer is dropped, never held."""
        limit = self.settings.max_response_bytes
        try:
            with self._client.chat.completions.with_streaming_response.create(
                    model=self.settings.model, messages=messages,
                    extra_headers={h: openai.Omit() for h in PRIVATE_HEADERS}) as response:
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limit:
                    raise CallError(f"answer of {declared} bytes exceeds {limit}")
                body = self._read(response.iter_bytes(), limit)
        except openai.APITimeoutError:
            raise CallError("endpoint timed out", retry=True) from None
        except openai.APIConnectionError:
            raise CallError("cannot reach the endpoint", retry=True) from None
        except openai.APIStatusError as exc:
            retry = exc.status_code in RETRY_STATUSES or exc.status_code >= 500
            if retry:
                raise CallError(f"HTTP {exc.status_code}", retry=True, delay_s=_retry_after(exc)) from None
            raise CallError(f"HTTP {exc.status_code}: {_one_line(_error_message(exc))}") from None
        except openai.OpenAIError as exc:
            raise CallError(f"client error: {_one_line(str(exc))}") from None
        return _parse_reply(body)

    def _read(self, chunks: Iterable[bytes], limit: int) -> bytes:
        """The body, up to `limit` bytes; the transport's own errors while it streams (httpx's or httpx2's, by
        openai version) count as a lost connection."""
        body = bytearray()
        deadline = time.monotonic() + self.settings.timeout_s
        try:
            for chunk in chunks:
                body += chunk
                if len(body) > limit:
                    raise CallError(f"answer exceeds {limit} bytes (stopped reading at {len(body)})")
                if time.monotonic() > deadline:
                    raise CallError("endpoint timed out", retry=True)
        except CallError:
            raise
        except Exception as exc:  # the transport library (httpx, httpx2) differs between openai versions
            raise CallError(f"connection lost while reading the answer ({type(exc).__name__})", retry=True) from None
        return bytes(body)


def _retry_after(exc: openai.APIStatusError) -> float | None:
    """The delay a 429 or 503 asks for (Retry-After in seconds), if any."""
    value = exc.response.headers.get("retry-after", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _error_message(exc: openai.APIStatusError) -> str:
    """The server's own words for an HTTP error (OpenAI's `{"error": {"message": ...}}`), else the client's."""
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    message = body.get("message") if isinstance(body, dict) else None
    return message if isinstance(message, str) and message.strip() else exc.message


def _parse_reply(body: bytes) -> _Reply:
    """The message, token usage and finish reason of a chat-completion body."""
    try:
        data = json.loads(body)
        choice = data["choices"][0]
        content = choice["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise CallError("the endpoint's answer is not a chat completion") from None
    if not isinstance(content, str) or not content.strip():
        raise CallError("the endpoint's answer has no message content")
    raw = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    usage = {k: int(raw[k]) for k in ("prompt_tokens", "completion_tokens", "total_tokens")
             if isinstance(raw.get(k), int)}
    if "total_tokens" not in usage and {"prompt_tokens", "completion_tokens"} <= usage.keys():
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return _Reply(content, usage, choice.get("finish_reason"))


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else f"{line[:limit]}..."
