"""How the model calls tools: native tool calls, or a plain text protocol any model can follow.

- ``native``: the backend's ``chat(messages, tools, sampling)`` (``ragcode.generation.llm.
  ToolChat``; the openai backend sends ``tools`` and reads ``tool_calls``). Results go back as
  ``tool`` messages with the call's id.
- ``text``: the model writes exactly one block
  ``<tool_call>{"name": "search", "arguments": {"query": "..."}}</tool_call>`` per reply (the
  format Qwen and Hermes models are trained on); prose around it is allowed. The block must be
  one JSON object with exactly the keys ``name`` (a string) and ``arguments`` (an object); no
  block, two blocks, invalid JSON or other keys is a one-line error the model reads back as
  the step's observation. ``</tool_call>`` is a stop sequence, so a reply that ends inside the
  block is closed. Small models often write the same object in a fenced code block
  (```` ```json {"name": ..., "arguments": ...} ``` ````) or bare instead: with no ``<tool_call>``
  block, one fenced block (or the whole reply) that parses as a JSON object with a ``name`` is
  read as the call, under the same rules (the 1.5B Qwen did so on every step of its first
  episodes and never recovered from the error message). Results go back as user messages
  starting ``Result of NAME:``.

Under both protocols a reply that calls no tool but gives an answer in a ``bash``/``sh``/
``python`` code block is taken as ``submit`` of that block (``answer_call``): that is how chat
models end a task, and the 1.5B's first reply was often exactly the single-shot answer, which
the old error message threw away.

``auto`` (``agent.protocol``) picks native where the backend has ``chat`` and text elsewhere.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ragcode.agent.schema import Tool
from ragcode.errors import ConfigError
from ragcode.generation.llm import LLM, Sampling, ToolChat
from ragcode.registry import Registry

_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_ANSWER_FENCE = re.compile(r"```[ \t]*(bash|sh|shell|console|python|py)[ \t]*\n(.*?)(?:```|\Z)",
                           re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*(?:json|tool_call|tool)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL | re.IGNORECASE)

INTRO = """\
You are an expert machine-learning engineer working inside a cloned GitHub repository. Your job:
write the one bash command line or Python script that does the user's task with this
repository's own code. Look around the repository with the tools, then submit your answer.
- The answer is ONE bash command run from the task's working directory (e.g. `python train.py
  --flag value`), using the script's real flags as the repository spells them; or, when no
  script does the job, ONE complete Python script that imports the repository's modules.
- Put every value the task names (paths, numbers, model and dataset names) into the answer.
- Paths in tool calls are relative to the repository root.
- You have at most {max_steps} tool calls; submit before they run out."""

TEXT_RULES = """\
Call exactly one tool per reply, as one JSON object inside a <tool_call> block, and write
nothing after the block; the result comes back in the next message. Example:
<tool_call>
{"name": "search", "arguments": {"query": "train on cifar10", "k": 5}}
</tool_call>
Escape newlines in strings as \\n (a Python script in "answer" is one JSON string)."""


@dataclass(frozen=True)
class Call:
    """One tool call read from a reply: its name and arguments, or why it could not be read."""

    name: str = ""
    arguments: Any = None
    id: str = ""  # native calls: the server's id, echoed in the result message
    error: str = ""


@dataclass
class Turn:
    """One model reply: the assistant message to keep, the calls in it, its token counts."""

    assistant: dict[str, Any]
    calls: list[Call]
    prompt_tokens: int
    completion_tokens: int
    raw: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def count_message(llm: LLM, message: dict[str, Any]) -> int:
    calls = message.get("tool_calls") or []
    text = (message.get("content") or "") + "".join(c["function"]["arguments"] for c in calls)
    return llm.count_tokens(text) + 4


class TextProtocol:
    name = "text"
    stop = ("</tool_call>",)

    def system_prompt(self, tools: tuple[Tool, ...], max_steps: int) -> str:
        listing = "\n".join(f"- {t.signature()}: {t.description}" for t in tools)
        return f"{INTRO.format(max_steps=max_steps)}\n\nTools:\n{listing}\n\n{TEXT_RULES}"

    def ask(self, llm: LLM, messages: list[dict[str, Any]], tools: tuple[Tool, ...],
            sampling: Sampling) -> Turn:
        reply = llm.generate(messages, 1, sampling)[0]
        if reply.count("<tool_call>") > reply.count("</tool_call>"):
            reply = reply.rstrip() + "\n</tool_call>"  # the stop sequence ate the closing tag
        prompt = sum(count_message(llm, m) for m in messages)
        return Turn({"role": "assistant", "content": reply}, [parse_text_call(reply)], prompt,
                    llm.count_tokens(reply), raw=reply)

    def feedback(self, turn: Turn, results: list[str], note: str = "") -> list[dict[str, Any]]:
        call = turn.calls[0]
        head = f"Result of {call.name}:" if call.name and not call.error else "Error:"
        return [{"role": "user", "content": f"{head}\n{results[0]}" + (f"\n\n{note}" if note else "")}]


def parse_text_call(reply: str) -> Call:
    """The one tool call of a text-protocol reply, strictly: anything else is a ``Call`` whose
    ``error`` says what was wrong and how to write it."""
    text = _THINK.sub("", reply or "")
    blocks = _BLOCK.findall(text) or _fenced_calls(text)
    if not blocks:
        answer = answer_call(text)
        if answer is not None:
            return answer
        return Call(error='no tool call found; reply with one <tool_call>{"name": ..., "arguments": '
                          '{...}}</tool_call> block (submit gives the final answer)')
    if len(blocks) > 1:
        return Call(error=f"{len(blocks)} tool calls in one reply; make exactly one per reply")
    body = blocks[0].strip()
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as exc:
        return Call(error=f"the tool call is not valid JSON ({exc.msg} at line {exc.lineno} "
                          f"column {exc.colno}); write one JSON object")
    if not isinstance(obj, dict):
        return Call(error='the tool call must be a JSON object {"name": ..., "arguments": {...}}')
    extra = sorted(set(obj) - {"name", "arguments"})
    if extra:
        return Call(error=f"unexpected key(s) {', '.join(map(repr, extra))} in the tool call; "
                          'only "name" and "arguments"')
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        return Call(error='the tool call needs "name": the tool to call, as a string')
    if "arguments" not in obj:
        return Call(name=name, error='the tool call needs "arguments": an object (use {} for none)')
    return Call(name=name, arguments=obj["arguments"])


def answer_call(text: str) -> Call | None:
    """``submit`` of the code block of a reply that calls no tool but answers (one
    ``bash``/``sh``/``python`` block, kept with its fence so the answer type stays readable)."""
    blocks = [(lang.lower(), body) for lang, body in _ANSWER_FENCE.findall(_THINK.sub("", text or ""))
              if body.strip()]
    if len(blocks) != 1:
        return None
    lang, body = blocks[0]
    lang = "python" if lang in ("python", "py") else "bash"
    return Call(name="submit", arguments={"answer": f"```{lang}\n{body.strip()}\n```"})


def _fenced_calls(text: str) -> list[str]:
    """Bodies of fenced blocks (or of the whole reply) that parse as a JSON object with a
    ``name``: a tool call written without the ``<tool_call>`` tags."""
    bodies = _FENCE.findall(text) or [text]
    out = []
    for body in bodies:
        try:
            obj = json.loads(body.strip())
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and "name" in obj:
            out.append(body)
    return out


class NativeProtocol:
    name = "native"
    stop: tuple[str, ...] = ()

    def system_prompt(self, tools: tuple[Tool, ...], max_steps: int) -> str:
        return (INTRO.format(max_steps=max_steps)
                + "\nCall one tool per reply; end with submit(answer).")

    def ask(self, llm: LLM, messages: list[dict[str, Any]], tools: tuple[Tool, ...],
            sampling: Sampling) -> Turn:
        assert isinstance(llm, ToolChat)
        reply = llm.chat(messages, [t.openai() for t in tools], sampling)
        assistant: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
        calls: list[Call] = []
        if reply.tool_calls:
            assistant["tool_calls"] = [{"id": c.id, "type": "function",
                                        "function": {"name": c.name, "arguments": c.arguments}}
                                       for c in reply.tool_calls]
        else:
            assistant["content"] = reply.content
        for c in reply.tool_calls:
            try:
                args = json.loads(c.arguments or "{}")
            except json.JSONDecodeError as exc:
                calls.append(Call(c.name, None, c.id, f"the arguments of {c.name} are not valid JSON "
                                                     f"({exc.msg} at column {exc.colno})"))
                continue
            calls.append(Call(c.name, args, c.id))
        if not calls:
            answer = answer_call(reply.content or "")
            calls = [answer if answer is not None else
                     Call(error="no tool call in the reply; call a tool (submit gives the final answer)")]
        prompt = reply.prompt_tokens if reply.prompt_tokens is not None else \
            sum(count_message(llm, m) for m in messages)
        completion = reply.completion_tokens if reply.completion_tokens is not None else \
            count_message(llm, assistant)
        raw = reply.content + "".join(f"\n{c.name}({c.arguments})" for c in reply.tool_calls)
        return Turn(assistant, calls, prompt, completion, raw=raw.strip())

    def feedback(self, turn: Turn, results: list[str], note: str = "") -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        suffix = f"\n\n{note}" if note else ""
        for i, (call, result) in enumerate(zip(turn.calls, results)):
            text = (result if not call.error else f"Error: {result}") + (suffix if i == len(results) - 1 else "")
            if call.id:
                out.append({"role": "tool", "tool_call_id": call.id, "content": text})
            else:
                out.append({"role": "user", "content": text})
        return out


PROTOCOLS = Registry("agent protocol", {"text": "ragcode.agent.protocol:TextProtocol",
                                        "native": "ragcode.agent.protocol:NativeProtocol"})


def choose_protocol(name: str, llm: LLM) -> Any:
    """The protocol ``agent.protocol`` names for this backend (``auto``: native where it can)."""
    native = isinstance(llm, ToolChat)
    if name == "auto":
        name = "native" if native else "text"
    if name == "native" and not native:
        raise ConfigError(f"agent.protocol=native needs a backend with native tool calls (openai); "
                          f"{type(llm).__name__} has none: use agent.protocol=text or auto")
    return PROTOCOLS.get(name)()
