"""Prompt templates (versioned YAML files) and the one function that turns an instruction and a
context into chat messages.

A template file holds ``name``, ``source``, ``system``, ``user`` (with ``{instruction}`` and
``{context}``) and optionally ``user_no_context`` (used when there is no context). Templates live
in ``ragcode/generation/templates/``; a name without a version (``ragcode``) means its newest
version (``ragcode-v1``); a path to a ``.yaml`` file works too. A template's ``sha256`` (of the
file's bytes) is recorded with every sample.

Only the instruction and the context can reach a prompt: ``build_prompt`` takes nothing else, so a
task's ``arguments``, ``output`` and ``oracle`` can only get in if a caller puts them into the
context on purpose (the explicit oracle setting).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Callable

import yaml

from ragcode.errors import ConfigError
from ragcode.generation.llm import Message
from ragcode.textfit import fitting_line_count
from ragcode.types import Context

_PLACEHOLDER = re.compile(r"\{(instruction|context)\}")
_VERSIONED = re.compile(r"^(?P<base>.+)-v(?P<version>\d+)$")


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    system: str
    user: str
    user_no_context: str
    source: str
    sha256: str

    @property
    def takes_context(self) -> bool:
        return "{context}" in self.user

    def render(self, instruction: str, context_text: str | None) -> list[Message]:
        if not context_text and self.user_no_context:
            body = self.user_no_context
        elif context_text is None:
            raise ConfigError(f"prompt template {self.name!r} needs a context; give one, or "
                              "pick a template with 'user_no_context' (e.g. ragcode, mlbench-none)")
        elif not self.takes_context:
            raise ConfigError(f"prompt template {self.name!r} takes no context, but one was "
                              "given; pick a template with {context} (e.g. ragcode)")
        else:
            body = self.user
        values = {"instruction": instruction.strip(), "context": context_text or ""}
        # one pass, so a context that contains "{instruction}" is not substituted again
        user = _PLACEHOLDER.sub(lambda m: values[m.group(1)], body)
        messages: list[Message] = []
        if self.system.strip():
            messages.append({"role": "system", "content": self.system})
        messages.append({"role": "user", "content": user})
        return messages


def template_names() -> list[str]:
    return sorted(p.name[:-5] for p in _template_dir().iterdir() if p.name.endswith(".yaml"))


def _template_dir():  # a Traversable (a real folder for normal installs)
    return resources.files("ragcode.generation") / "templates"


@lru_cache(maxsize=64)
def load_template(name: str) -> PromptTemplate:
    """A packaged template by name (``ragcode``, ``ragcode-v1``, ``mlbench-oracle``) or a path."""
    if name.endswith((".yaml", ".yml")) or "/" in name:
        path = Path(name).expanduser()
        if not path.is_file():
            raise ConfigError(f"prompt template file {path} does not exist")
        return _parse(path.read_bytes(), str(path))
    names = template_names()
    if name not in names:
        versions = sorted(
            (int(m.group("version")), n) for n in names
            if (m := _VERSIONED.match(n)) and m.group("base") == name
        )
        if not versions:
            raise ConfigError(f"unknown prompt template {name!r}; known: {', '.join(names)} "
                              "(or give a path to a .yaml template)")
        name = versions[-1][1]
    return _parse((_template_dir() / f"{name}.yaml").read_bytes(), name)


def _parse(raw: bytes, where: str) -> PromptTemplate:
    try:
        data = yaml.safe_load(raw.decode("utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(f"prompt template {where} is not valid YAML: {exc}") from None
    unknown = set(data) - {"name", "source", "system", "user", "user_no_context"}
    if unknown or not isinstance(data.get("name"), str):
        raise ConfigError(f"prompt template {where} must have a 'name' and only the keys name, "
                          f"source, system, user, user_no_context (unknown: {sorted(unknown)})")
    if not (data.get("user") or data.get("user_no_context")):
        raise ConfigError(f"prompt template {where} has neither 'user' nor 'user_no_context'")
    return PromptTemplate(
        name=data["name"], system=data.get("system") or "", user=data.get("user") or "",
        user_no_context=data.get("user_no_context") or "", source=data.get("source") or "",
        sha256=hashlib.sha256(raw).hexdigest(),
    )


def fit_to_tokens(text: str, budget: int, count: Callable[[str], int]) -> tuple[str, bool]:
    """``text`` cut at a line boundary to at most ``budget`` tokens; and whether it was cut."""
    if budget <= 0 or count(text) <= budget:
        return text, False
    lines = text.splitlines(keepends=True)
    keep = fitting_line_count(lines, budget, count, sep="")
    return "".join(lines[:keep]).rstrip("\n"), True


def build_prompt(
    instruction: str,
    context: Context | str | None,
    template: str | PromptTemplate = "ragcode",
) -> list[Message]:
    """Chat messages for ``instruction`` with ``context`` (a ``Context``, raw text, or ``None``).

    The model's own chat template is applied by the backend, not here.
    """
    tmpl = load_template(template) if isinstance(template, str) else template
    text = context.text if isinstance(context, Context) else context
    return tmpl.render(instruction, text)
