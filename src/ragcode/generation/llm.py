"""The one interface every language-model backend implements, and how a backend is chosen.

A backend turns chat messages into ``n`` completions and counts tokens in its own tokenizer
(the context budget is measured in the chosen model's tokens). Backends are picked by name from
``config.generation.llm.backend`` through ``LLMS`` (``auto``, the default, picks llama.cpp when
llama-cpp-python is installed and transformers otherwise); a ``"package.module:Class"`` path works too,
so a user's own class needs no registration. Heavy libraries are imported inside the backends.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ragcode.errors import RagcodeError
from ragcode.registry import Registry

if TYPE_CHECKING:
    from ragcode.config import Config, LLMConfig

log = logging.getLogger(__name__)

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": str}


class LLMError(RagcodeError):
    """A model call failed after every retry (server errors, timeouts, malformed replies)."""


@dataclass(frozen=True)
class Sampling:
    """How to sample. Sample ``i`` of a call uses seed ``seed + i``, so runs are repeatable."""

    temperature: float = 0.2
    top_p: float = 0.95
    max_tokens: int = 256
    seed: int = 0
    stop: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["stop"] = list(self.stop)
        return d

    @classmethod
    def from_config(cls, llm: LLMConfig) -> Sampling:
        return cls(temperature=llm.temperature, top_p=llm.top_p, max_tokens=llm.max_tokens,
                   seed=llm.seed, stop=tuple(llm.stop))


@runtime_checkable
class LLM(Protocol):
    """A chat model. ``model_id`` names exactly what answered (recorded with every sample)."""

    model_id: str

    def generate(self, messages: list[Message], n: int, sampling: Sampling) -> list[str]:
        """Return ``n`` completions of the conversation ``messages`` (assistant text only)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Number of tokens ``text`` takes in this model's tokenizer."""
        ...


@dataclass(frozen=True)
class ToolCall:
    """One native tool call: the server's call id, the tool's name, its arguments as raw JSON."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatReply:
    """One reply of a tool-calling chat: its text, its tool calls, the server's token counts."""

    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@runtime_checkable
class ToolChat(Protocol):
    """A backend that takes tool definitions natively (OpenAI's ``tools`` / ``tool_calls``).
    ``tools`` are OpenAI function definitions; ``messages`` may hold assistant ``tool_calls``
    and ``tool`` messages."""

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
             sampling: Sampling) -> ChatReply:
        ...


LLMS = Registry("llm backend", {
    "scripted": "ragcode.generation.backends.scripted:ScriptedLLM",
    "openai": "ragcode.generation.backends.openai_api:OpenAIChatLLM",
    "llamacpp": "ragcode.generation.backends.llamacpp:LlamaCppLLM",
    "transformers": "ragcode.generation.backends.transformers_hf:TransformersLLM",
    "vllm": "ragcode.generation.backends.vllm_engine:VLLMLLM",
})


def backend_names() -> list[str]:
    """Every name ``generation.llm.backend`` takes: ``auto`` and the registered backends."""
    return ["auto", *LLMS.names()]


def load_llm(config: Config | None = None, **overrides: Any) -> LLM:
    """Build the backend named by ``config.generation.llm.backend``.

    ``overrides`` replace fields of ``config.generation.llm`` (e.g. ``backend="openai"``,
    ``model="gpt-4o-mini"``). Backends take ``(llm_config, cache_dir)``.
    """
    from ragcode.config import Config

    config = config or Config()
    llm_config = config.generation.llm
    if overrides:
        llm_config = llm_config.model_copy(update={k: v for k, v in overrides.items() if v is not None})
        llm_config = type(llm_config).model_validate(llm_config.model_dump())
    backend = llm_config.backend
    if backend == "auto":
        backend = choose_local_backend()
        llm_config = llm_config.model_copy(update={"backend": backend})
    cls = LLMS.get(backend)
    return cls(llm_config, cache_dir=config.index.cache_dir)


def choose_local_backend() -> str:
    """``auto``: llama.cpp when llama-cpp-python is installed (several times faster on CPU),
    else transformers (installs from wheels in seconds, loads the same GGUF files)."""
    import importlib.util

    backend = "llamacpp" if importlib.util.find_spec("llama_cpp") is not None else "transformers"
    log.info("llm backend 'auto' -> %s", backend)
    return backend
