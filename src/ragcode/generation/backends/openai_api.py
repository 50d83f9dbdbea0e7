"""Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp server,
Together, DeepSeek, ...) over plain HTTP with httpx.

- Base URL: ``generation.llm.base_url``, else ``$OPENAI_BASE_URL``, else OpenAI's.
- Key: the environment variable named by ``generation.llm.api_key_env`` (none sent if unset).
- ``n`` samples are asked for in one request (``n`` field, so the server evaluates the prompt
  once where it supports that); servers that return fewer choices get follow-up requests, run
  concurrently under ``generation.llm.concurrency``.
- Retries: 429, 5xx, connection errors and timeouts are retried up to ``retries`` times with
  exponential backoff and full jitter (base ``backoff_s``), honouring ``Retry-After``. Other 4xx
  fail at once with the server's message.
- ``generation.llm.extra_body``: fields merged into every request as given (a server's own
  sampling parameters: vLLM's ``top_k``, ``repetition_penalty``, ``guided_regex``...).
- Answer length: sent as ``max_tokens``; a model that refuses it with a 400 naming
  ``max_completion_tokens`` (OpenAI's reasoning models) gets the request once more with that
  name, and so does every later request to that model from this process (and the reverse).
- Concurrency: one instance is shared by every thread of a run (``--workers``), so
  ``concurrency`` bounds the requests in flight across all of them.
- Token counts are estimated (about 3.5 characters per token): no tokenizer is downloaded.
- ``chat(messages, tools, sampling)``: one reply with native tool calls (the request's
  ``tools``, the reply's ``tool_calls``) and the server's ``usage`` token counts, for the agent.
"""

from __future__ import annotations

import email.utils
import json
import logging
import math
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ragcode.generation.llm import ChatReply, LLMError, Message, Sampling, ToolCall

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
LENGTH_FIELDS = ("max_tokens", "max_completion_tokens")
_LENGTH_FIELD: dict[tuple[str, str], str] = {}  # (base url, model) -> the name that server takes
_REFUSAL_WORDS = ("unsupported", "not supported", "unrecognized", "unknown", "not allowed",
                  "extra inputs", "not permitted")


class OpenAIChatLLM:
    def __init__(self, llm_config: Any, cache_dir: str | Path = ""):
        import httpx

        self.config = llm_config
        self.base_url = (llm_config.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.model_id = llm_config.model
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(llm_config.api_key_env, "") if llm_config.api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._client = httpx.Client(base_url=self.base_url, headers=headers,
                                    timeout=httpx.Timeout(llm_config.timeout_s))
        self._slots = threading.BoundedSemaphore(max(1, llm_config.concurrency))
        self._rng = random.Random()
        reserved = sorted({"model", "messages"} & set(llm_config.extra_body or {}))
        if reserved:
            from ragcode.errors import ConfigError

            raise ConfigError(f"generation.llm.extra_body may not set {', '.join(reserved)} (use "
                              "generation.llm.model; messages come from the prompt)")

    # --- LLM protocol -----------------------------------------------------------------------
    def generate(self, messages: list[Message], n: int, sampling: Sampling) -> list[str]:
        texts = self._request(messages, n, sampling, seed=sampling.seed)
        missing = n - len(texts)
        if missing > 0:  # the server ignored n (or capped it): one request per remaining sample
            log.debug("server returned %d of %d choices; requesting the rest one by one", len(texts), n)
            seeds = [sampling.seed + len(texts) + i for i in range(missing)]
            workers = max(1, min(self.config.concurrency, missing))
            with ThreadPoolExecutor(max_workers=workers) as pool:
                for more in pool.map(lambda s: self._request(messages, 1, sampling, seed=s), seeds):
                    texts.extend(more[:1])
        return texts[:n]

    def count_tokens(self, text: str) -> int:
        return math.ceil(len(text) / 3.5)

    def close(self) -> None:
        self._client.close()

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
             sampling: Sampling) -> ChatReply:
        """One reply with native tool calls (``tools`` are OpenAI function definitions)."""
        body = self._body(messages, 1, sampling, sampling.seed)
        if tools:
            body["tools"] = tools
        resp, url = self._post(body)
        try:
            data = resp.json()
            message = data["choices"][0]["message"]
            calls = tuple(ToolCall(str(c.get("id") or f"call_{i}"), str(c["function"]["name"]),
                                   _arguments_text(c["function"].get("arguments")))
                          for i, c in enumerate(message.get("tool_calls") or []))
            usage = data.get("usage") or {}
            return ChatReply(message.get("content") or "", calls, usage.get("prompt_tokens"),
                             usage.get("completion_tokens"))
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
            raise LLMError(f"{url} returned a reply that is not a chat completion ({exc!r}): "
                           f"{resp.text[:200]!r}") from None

    # --- HTTP -------------------------------------------------------------------------------
    def _body(self, messages: list[Any], n: int, sampling: Sampling, seed: int) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model_id,
            "messages": messages,
            "n": n,
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            _LENGTH_FIELD.get((self.base_url, self.model_id), "max_tokens"): sampling.max_tokens,
            "seed": seed,
        }
        if sampling.stop:
            body["stop"] = list(sampling.stop)
        body.update(self.config.extra_body or {})
        return body

    def _swap_length_field(self, body: dict[str, Any], text: str) -> bool:
        """When a 400's ``text`` refuses the answer-length field, rename it in ``body`` (and for
        this model from now on); whether it did."""
        used = next((f for f in LENGTH_FIELDS if f in body), None)
        if used is None or used in (self.config.extra_body or {}):
            return False
        other = LENGTH_FIELDS[1 - LENGTH_FIELDS.index(used)]
        low = text.lower()
        if other not in text and not (used in text and any(w in low for w in _REFUSAL_WORDS)):
            return False
        log.info("%s refused %r; sending %r instead", self.model_id, used, other)
        body[other] = body.pop(used)
        _LENGTH_FIELD[(self.base_url, self.model_id)] = other
        return True

    def _request(self, messages: list[Message], n: int, sampling: Sampling, seed: int) -> list[str]:
        resp, url = self._post(self._body(messages, n, sampling, seed))
        return self._choices(resp, url)

    def _choices(self, resp: Any, url: str) -> list[str]:
        try:
            data = resp.json()
            return [c["message"]["content"] or "" for c in data["choices"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise LLMError(f"{url} returned a reply that is not a chat completion "
                           f"({exc!r}): {resp.text[:200]!r}") from None

    def _post(self, body: dict[str, Any], swapped: bool = False) -> tuple[Any, str]:
        """The 200 response to ``body``, retried as configured; and the URL. ``swapped``: the
        answer-length field was renamed after a 400 already (it is renamed once)."""
        import httpx

        url = f"{self.base_url}/chat/completions"
        attempts = self.config.retries + 1
        last = ""
        for attempt in range(attempts):
            delay: float | None = None
            try:
                with self._slots:
                    resp = self._client.post("/chat/completions", json=body)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                last = f"{type(exc).__name__}: {exc}"
            else:
                if resp.status_code == 200:
                    return resp, url
                detail = resp.text[:300].strip()
                last = f"HTTP {resp.status_code}: {detail}"
                if resp.status_code == 400 and not swapped and self._swap_length_field(body, resp.text):
                    return self._post(body, swapped=True)
                if resp.status_code not in _RETRY_STATUS:
                    raise LLMError(f"{url} refused the request ({last}); check the model name "
                                   f"{self.model_id!r}, the key in ${self.config.api_key_env}, "
                                   "and the request settings")
                delay = _retry_after(resp.headers.get("retry-after"))
            if attempt + 1 < attempts:
                if delay is None:
                    delay = self._rng.uniform(0, self.config.backoff_s * (2 ** attempt))
                delay = min(delay, self.config.max_backoff_s)
                log.warning("%s failed (%s); retry %d/%d in %.2fs", url, last, attempt + 1,
                            attempts - 1, delay)
                time.sleep(delay)
        raise LLMError(f"{url} failed {attempts} time(s); last error: {last}. Check that the server "
                       "is up and reachable, or raise generation.llm.retries / timeout_s")


def _arguments_text(value: Any) -> str:
    """A tool call's arguments as JSON text (some servers send an object instead of a string)."""
    return value if isinstance(value, str) else json.dumps(value if value is not None else {})


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
