"""A tool as the model sees it: a name, one line of description and typed parameters, written
out as a JSON schema (native tool calls) or a signature line (the text protocol); and the strict
check of a call's arguments against it.

Only ``string`` and ``integer`` parameters exist. A call's arguments must be a JSON object with
no unknown keys, every required parameter present and every value of its declared type (``"5"``
is not an integer); anything else is a ``ToolCallError`` whose one-line message goes back to the
model as the step's observation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

_REQUIRED = object()
_TYPES = {"string": str, "integer": int}


class ToolCallError(Exception):
    """A call the agent cannot carry out; its message is the observation the model gets."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # "string" | "integer"
    description: str
    default: Any = _REQUIRED

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED


@dataclass(frozen=True)
class Observation:
    """What a tool returns: the text the model reads, and what the loop keeps from it."""

    text: str
    done: bool = False  # submit: the episode ends with ``answer``
    answer: str = ""
    chunk_ids: tuple[str, ...] = ()  # chunks a search showed
    proposed: dict[str, Any] | None = None  # an answer check/run judged: {"answer", "penalty", ...}


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    params: tuple[Param, ...]
    fn: Callable[..., Observation] = field(compare=False)

    def schema(self) -> dict[str, Any]:
        """The parameters as a JSON schema object."""
        props: dict[str, Any] = {}
        for p in self.params:
            props[p.name] = {"type": p.type, "description": p.description}
            if not p.required:
                props[p.name]["default"] = p.default
        return {"type": "object", "properties": props,
                "required": [p.name for p in self.params if p.required], "additionalProperties": False}

    def openai(self) -> dict[str, Any]:
        """An OpenAI function definition (the ``tools`` field of a chat request)."""
        return {"type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": self.schema()}}

    def signature(self) -> str:
        """``search(query: string, k: integer = 5)``: how the text protocol's prompt lists it."""
        parts = [f"{p.name}: {p.type}" + ("" if p.required else f" = {p.default!r}") for p in self.params]
        return f"{self.name}({', '.join(parts)})"

    def bind(self, arguments: Any) -> dict[str, Any]:
        """The call's arguments checked against the parameters, defaults filled in."""
        if not isinstance(arguments, dict):
            raise ToolCallError(f"{self.name}: arguments must be a JSON object, got {_json_type(arguments)}")
        out: dict[str, Any] = {}
        for p in self.params:
            if p.name not in arguments:
                if p.required:
                    raise ToolCallError(f"{self.name}: missing argument {p.name!r}; it takes {self.signature()}")
                out[p.name] = p.default
                continue
            value = arguments[p.name]
            if not isinstance(value, _TYPES[p.type]) or isinstance(value, bool):
                raise ToolCallError(f"{self.name}: {p.name} must be a{'n' if p.type == 'integer' else ''} "
                                    f"{p.type}, got {_json_type(value)} {_short(value)}")
            out[p.name] = value
        return out

    def unknown(self, arguments: dict[str, Any]) -> list[str]:
        """Argument names the tool does not take."""
        known = {p.name for p in self.params}
        return sorted(set(arguments) - known)

    def __call__(self, env: Any, arguments: Any) -> Observation:
        """``fn(env, **arguments)``; ``env`` is whatever the tools take (the built-in tools: a
        ``ragcode.agent.tools.AgentEnv``, not imported here: tools imports this module).
        Arguments the tool does not take are left out and named at the top of the result
        (small models add a ``flags`` object to ``cli``; refusing the whole call cost them
        step after step), so a call with the right required arguments always runs."""
        bound = self.bind(arguments)
        extra = self.unknown(arguments)
        obs = self.fn(env, **bound)
        if extra:
            note = (f"(ignored unknown argument(s) {', '.join(map(repr, extra))}: "
                    f"it takes {self.signature()})\n")
            obs = replace(obs, text=note + obs.text)
        return obs


def _json_type(value: Any) -> str:
    names = {str: "a string", bool: "a boolean", int: "an integer", float: "a number",
             list: "an array", dict: "an object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
