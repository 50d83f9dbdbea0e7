"""The agent's native tool-call path: the openai backend against a real OpenAI-compatible
server on 127.0.0.1 that answers with ``tool_calls``."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agent_helpers import EXPECTED, INSTRUCTION, gan_index

from ragcode.agent import solve
from ragcode.config import LLMConfig
from ragcode.generation.backends.openai_api import OpenAIChatLLM
from ragcode.generation.llm import Sampling


def tool_call(i: int, name: str, arguments) -> dict:  # noqa: ANN001
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": args}}


REPLIES = [
    {"content": None, "tool_calls": [tool_call(1, "search", {"query": "dcgan learning rate"})]},
    {"content": "", "tool_calls": [tool_call(2, "open", '{"path": "implementations/dcgan/dcgan.py", ')]},
    {"content": "", "tool_calls": [tool_call(3, "cli", {"script": "implementations/dcgan/dcgan.py"}),
                                   tool_call(4, "ls", {})]},
    {"content": "I think the answer is clear now."},
    {"content": None, "tool_calls": [tool_call(5, "submit", {"answer": EXPECTED})]},
]


class ToolServer:
    """Replies with the next of ``REPLIES`` (as a chat completion with usage) to each request."""

    def __init__(self, replies):  # noqa: ANN001
        self.replies = list(replies)
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # noqa: ANN002
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                message = dict(server.replies.pop(0), role="assistant")
                data = json.dumps({"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                                   "usage": {"prompt_tokens": 100 + len(server.requests), "completion_tokens": 7}})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data.encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):  # noqa: ANN002
        self.httpd.shutdown()
        self.httpd.server_close()


def _llm(url: str) -> OpenAIChatLLM:
    return OpenAIChatLLM(LLMConfig(backend="openai", model="tool-model", base_url=url,
                                   api_key_env="RAGCODE_TEST_NO_KEY", retries=0, timeout_s=10.0))


def test_native_tool_calls_search_open_cli_and_submit(tmp_path):
    repo, cfg, index = gan_index(tmp_path)
    with ToolServer(REPLIES) as srv:
        cand = solve(INSTRUCTION, index=index, config=cfg, llm=_llm(srv.url))
    assert cand.code == EXPECTED
    agent = cand.metadata["agent"]
    assert (agent["protocol"], agent["stop"], agent["source"], agent["steps"]) == ("native", "submitted", "submit", 5)
    assert agent["tokens"] == sum(100 + i + 7 for i in range(1, 6))  # the server's own counts
    first = srv.requests[0]
    names = [t["function"]["name"] for t in first["tools"]]
    assert names == ["search", "open", "ls", "cli", "check", "submit"]  # run is off by default
    search = first["tools"][0]["function"]["parameters"]
    assert search["required"] == ["query"] and search["properties"]["k"] == {
        "type": "integer", "description": "how many hits (1-20)", "default": 5}
    assert search["additionalProperties"] is False
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert "<tool_call>" not in first["messages"][0]["content"]  # no text protocol here
    # results come back as tool messages answering each call id
    second = srv.requests[1]["messages"]
    assert second[2]["tool_calls"][0]["id"] == "call_1"
    assert second[3]["role"] == "tool" and second[3]["tool_call_id"] == "call_1"
    assert "implementations/dcgan/dcgan.py" in second[3]["content"]
    third = srv.requests[2]["messages"]
    assert third[-1]["tool_call_id"] == "call_2" and "not valid JSON" in third[-1]["content"]
    fourth = srv.requests[3]["messages"]
    cli_result, ls_result = fourth[-2], fourth[-1]
    assert cli_result["tool_call_id"] == "call_3" and "--n_epochs" in cli_result["content"]
    assert ls_result["tool_call_id"] == "call_4" and "one tool call per step" in ls_result["content"]
    fifth = srv.requests[4]["messages"]
    assert fifth[-1]["role"] == "user" and "no tool call" in fifth[-1]["content"]
    steps = cand.metadata["trajectory"]
    assert [s["call"] and s["call"]["name"] for s in steps] == ["search", "open", "cli", None, "submit"]
    assert "not valid JSON" in steps[1]["error"] and steps[2]["error"] == ""


def test_chat_returns_content_tool_calls_and_usage(tmp_path):
    reply = {"content": "ok", "tool_calls": [{"id": "c9", "type": "function",
                                             "function": {"name": "ls", "arguments": {"path": "."}}}]}
    with ToolServer([reply]) as srv:
        out = _llm(srv.url).chat([{"role": "user", "content": "hi"}], [], Sampling(max_tokens=9, seed=3))
    assert out.content == "ok" and out.tool_calls[0].name == "ls"
    assert json.loads(out.tool_calls[0].arguments) == {"path": "."}  # an object is sent on as JSON text
    assert (out.prompt_tokens, out.completion_tokens) == (101, 7)
    body = srv.requests[0]
    assert "tools" not in body and body["max_tokens"] == 9 and body["seed"] == 3 and body["n"] == 1


def test_a_native_reply_that_answers_in_a_code_block_without_a_call_is_its_submission(tmp_path):
    repo, cfg, index = gan_index(tmp_path)
    command = EXPECTED
    replies = [{"content": None, "tool_calls": [tool_call(1, "ls", {})]},
               {"content": f"This runs it:\n```bash\n{command}\n```"}]
    with ToolServer(replies) as srv:
        cand = solve(INSTRUCTION, index=index, config=cfg, llm=_llm(srv.url))
    assert len(srv.requests) == 2 and cand.code.strip() == command.strip()
    agent = cand.metadata["agent"]
    assert (agent["stop"], agent["source"], agent["steps"]) == ("submitted", "submit", 2)
    assert cand.metadata["trajectory"][1]["call"]["name"] == "submit"
