"""The `openai` backend against a real OpenAI-compatible HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ragcode.config import LLMConfig
from ragcode.generation.backends.openai_api import OpenAIChatLLM, _retry_after
from ragcode.generation.llm import LLMError, Sampling

MESSAGES = [{"role": "user", "content": "run train.py"}]


class FakeServer:
    """Replies from a script: each request takes the next step (the last one repeats)."""

    def __init__(self, steps):
        self.steps = list(steps)
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.times: list[float] = []
        self.active = self.max_active = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "body": body})
                server.headers.append(dict(self.headers))
                server.times.append(time.monotonic())
                step = server.steps.pop(0) if len(server.steps) > 1 else server.steps[0]
                kind = step[0]
                if kind == "sleep":
                    with server.lock:
                        server.active += 1
                        server.max_active = max(server.max_active, server.active)
                    time.sleep(step[1])
                    with server.lock:
                        server.active -= 1
                    step = ("ok",)
                    kind = "ok"
                if kind == "needs":  # ("needs", field): a model that takes only that length field
                    wrong = [f for f in ("max_tokens", "max_completion_tokens") if f in body and f != step[1]]
                    step = ("status", 400, {}, f"Unsupported parameter: '{wrong[0]}' is not supported with "
                                               f"this model. Use '{step[1]}' instead.") if wrong else ("ok",)
                    kind = step[0]
                if kind == "ok":
                    n = step[1] if len(step) > 1 else body.get("n", 1)
                    payload = {"choices": [
                        {"index": i, "message": {"role": "assistant",
                                                 "content": f"```bash\npython train.py --seed {body.get('seed')} --i {i}\n```"}}
                        for i in range(n)]}
                    data = json.dumps(payload).encode()
                    self.send_response(200)
                else:  # ("status", code, headers)
                    message = step[3] if len(step) > 3 else f"status {step[1]}"
                    data = json.dumps({"error": {"message": message}}).encode()
                    self.send_response(step[1])
                    for k, v in (step[2] if len(step) > 2 else {}).items():
                        self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def _llm(url: str, **kw) -> OpenAIChatLLM:
    cfg = LLMConfig(backend="openai", model="test-model", base_url=url, api_key_env="RAGCODE_TEST_KEY",
                    retries=kw.pop("retries", 3), backoff_s=kw.pop("backoff_s", 0.01),
                    timeout_s=kw.pop("timeout_s", 5.0), **kw)
    return OpenAIChatLLM(cfg)


def test_success_sends_model_sampling_key_and_returns_n_choices(monkeypatch):
    monkeypatch.setenv("RAGCODE_TEST_KEY", "sk-test")
    with FakeServer([("ok",)]) as srv:
        out = _llm(srv.url).generate(MESSAGES, 3, Sampling(temperature=0.7, top_p=0.9, max_tokens=32, seed=5))
    assert len(out) == 3 and out[0].startswith("```bash")
    assert len(srv.requests) == 1  # n in one request: the server evaluates the prompt once
    req = srv.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["body"]["model"] == "test-model" and req["body"]["n"] == 3
    assert req["body"]["messages"] == MESSAGES
    assert (req["body"]["temperature"], req["body"]["top_p"], req["body"]["max_tokens"]) == (0.7, 0.9, 32)
    assert req["body"]["seed"] == 5
    assert srv.headers[0]["Authorization"] == "Bearer sk-test"


def test_no_key_in_env_sends_no_authorization(monkeypatch):
    monkeypatch.delenv("RAGCODE_TEST_KEY", raising=False)
    with FakeServer([("ok",)]) as srv:
        _llm(srv.url).generate(MESSAGES, 1, Sampling())
    assert "Authorization" not in srv.headers[0]


def test_429_then_success_is_retried_and_honours_retry_after():
    with FakeServer([("status", 429, {"Retry-After": "0.3"}), ("ok",)]) as srv:
        out = _llm(srv.url, backoff_s=0.0).generate(MESSAGES, 1, Sampling())
    assert len(out) == 1 and len(srv.requests) == 2
    assert srv.times[1] - srv.times[0] >= 0.3  # waited as the server asked


def test_500s_exhausted_raise_a_clear_error():
    with FakeServer([("status", 500)]) as srv:
        with pytest.raises(LLMError) as err:
            _llm(srv.url, retries=2).generate(MESSAGES, 1, Sampling())
    assert len(srv.requests) == 3  # first try + 2 retries
    msg = str(err.value)
    assert "failed 3 time(s)" in msg and "HTTP 500" in msg and "/chat/completions" in msg


def test_400_is_not_retried():
    with FakeServer([("status", 400)]) as srv:
        with pytest.raises(LLMError, match="refused the request .*HTTP 400"):
            _llm(srv.url).generate(MESSAGES, 1, Sampling())
    assert len(srv.requests) == 1


def test_timeout_is_retried_then_reported():
    with FakeServer([("sleep", 1.0)]) as srv:
        with pytest.raises(LLMError, match="ReadTimeout"):
            _llm(srv.url, timeout_s=0.2, retries=1).generate(MESSAGES, 1, Sampling())
    assert len(srv.requests) == 2


def test_connection_refused_is_reported_after_retries():
    with FakeServer([("ok",)]) as srv:
        url = srv.url
    with pytest.raises(LLMError, match="ConnectError"):
        _llm(url, retries=1).generate(MESSAGES, 1, Sampling())


def test_server_that_ignores_n_gets_one_request_per_missing_sample():
    with FakeServer([("ok", 1)]) as srv:
        out = _llm(srv.url, concurrency=2).generate(MESSAGES, 3, Sampling(seed=10))
    assert len(out) == 3 and len(srv.requests) == 3
    seeds = sorted(r["body"]["seed"] for r in srv.requests)
    assert seeds == [10, 11, 12]  # each sample keeps its own seed
    assert [r["body"]["n"] for r in srv.requests[1:]] == [1, 1]


def test_malformed_reply_is_an_llm_error():
    llm = _llm("http://127.0.0.1:9/v1")

    class Resp:
        text = "<html>oops</html>"

        def json(self):
            raise ValueError("not json")

    with pytest.raises(LLMError, match="not a chat completion"):
        llm._choices(Resp(), "u")


def test_retry_after_parses_seconds_and_http_dates():
    assert _retry_after("2") == 2.0
    assert _retry_after(None) is None and _retry_after("soon") is None
    assert _retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: no wait


def test_extra_body_fields_reach_the_server_and_cannot_replace_model_or_messages():
    with FakeServer([("ok",)]) as srv:
        _llm(srv.url, extra_body={"top_k": 20, "repetition_penalty": 1.1}).generate(MESSAGES, 1, Sampling())
    body = srv.requests[0]["body"]
    assert body["top_k"] == 20 and body["repetition_penalty"] == 1.1 and body["model"] == "test-model"
    from ragcode.errors import ConfigError

    with pytest.raises(ConfigError, match="extra_body may not set messages, model"):
        _llm("http://127.0.0.1:9/v1", extra_body={"model": "x", "messages": []})


def test_a_model_that_refuses_max_tokens_gets_max_completion_tokens_once_and_from_then_on():
    with FakeServer([("needs", "max_completion_tokens")]) as srv:
        llm = _llm(srv.url)
        out = llm.generate(MESSAGES, 2, Sampling(max_tokens=40))
        assert len(out) == 2
        first, retried = srv.requests[0]["body"], srv.requests[1]["body"]
        assert first["max_tokens"] == 40 and "max_completion_tokens" not in first
        assert retried["max_completion_tokens"] == 40 and "max_tokens" not in retried
        _llm(srv.url).generate(MESSAGES, 1, Sampling(max_tokens=7))  # a new client: learnt already
    assert len(srv.requests) == 3 and srv.requests[2]["body"]["max_completion_tokens"] == 7


def test_a_400_about_something_else_is_not_retried_with_the_other_name():
    with FakeServer([("status", 400, {}, "Invalid value for 'temperature': must be <= 2")]) as srv:
        with pytest.raises(LLMError, match="refused the request .*temperature"):
            _llm(srv.url).generate(MESSAGES, 1, Sampling())
    assert len(srv.requests) == 1


def test_a_server_that_refuses_both_names_fails_after_one_swap():
    with FakeServer([("status", 400, {}, "Unsupported parameter: 'max_tokens'"),
                     ("status", 400, {}, "Unsupported parameter: 'max_completion_tokens'")]) as srv:
        with pytest.raises(LLMError, match="max_completion_tokens"):
            _llm(srv.url).generate(MESSAGES, 1, Sampling())
    assert len(srv.requests) == 2


def test_concurrency_is_shared_by_every_thread_using_one_client():
    from concurrent.futures import ThreadPoolExecutor

    with FakeServer([("sleep", 0.3)]) as srv:
        llm = _llm(srv.url, concurrency=2)
        with ThreadPoolExecutor(max_workers=6) as pool:  # six workers of one run, one client
            outs = list(pool.map(lambda i: llm.generate(MESSAGES, 1, Sampling(seed=i)), range(6)))
    assert len(outs) == 6 and len(srv.requests) == 6
    assert srv.max_active == 2  # never more in flight than generation.llm.concurrency
