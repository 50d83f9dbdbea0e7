"""``Flag``: one option or argument a script declares, and the tree-sitter literal readers the
extractors share (``flags`` for Python parsers, ``hf_args`` for ``HfArgumentParser``
dataclasses, ``shell_args`` for shell scripts).

A ``Flag`` is plain data: the cli chunk stores ``Flag.to_dict()`` in its metadata, the static
checks ask ``Flag.option_strings()`` what a command line may spell.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field, fields
from typing import Any

# the keys every flag dict has, in the order the cli chunk metadata always had them
_DICT_KEYS = ("name", "aliases", "type", "default", "default_literal", "choices", "required",
              "help", "positional", "line", "parser")
_OPTIONAL_KEYS = ("subcommand", "nargs", "action", "dest", "group")  # stored only when set


@dataclass
class Flag:
    """One option or positional argument a script's parser declares.

    ``name`` is the primary spelling (``--lr``; a positional's name), ``aliases`` the others
    (``-l``, ``--learning-rate``). ``default`` is the literal value when ``default_literal``,
    else its source text (``DEFAULT_EPOCHS``). ``required`` is a bool, or the source text of a
    non-literal expression. ``type`` is a name (``int``, ``bool``, ``choice``, an annotation or
    the ``type=`` source text). ``dest`` is the attribute the parsed value lands on.
    """

    name: str
    aliases: list[str] = field(default_factory=list)
    parser: str = ""  # argparse | click | typer | absl | hf | getopts | shell
    line: int = 0  # 1-based line of the declaration
    type: str | None = None
    default: Any = None
    default_literal: bool = True
    choices: Any = None  # a list, or the source text of a non-literal expression
    required: bool | str = False
    help: str = ""
    positional: bool = False
    dest: str | None = None
    action: str | None = None  # argparse; "append"/"count" also for click multiple/count, typer lists, absl multi_*
    nargs: Any = None
    subcommand: str | None = None  # argparse sub-parser the flag belongs to
    group: str | None = None  # hf: the dataclass the field belongs to

    @property
    def names(self) -> list[str]:
        return [self.name, *self.aliases]

    def option_strings(self) -> list[str]:
        """What a command line may spell to set this flag (``[]`` for a positional): the dashed
        names, click's ``--shout/--no-shout`` as two, and absl's ``--noX`` for a boolean."""
        out: list[str] = []
        for n in self.names:
            if not isinstance(n, str) or not n.startswith("-"):
                continue
            out.extend(p for p in (n.split("/") if self.parser == "click" else [n]) if p)
        if self.parser == "absl" and str(self.type or "").startswith("bool"):
            out.extend("--no" + n[2:] for n in list(out) if n.startswith("--"))
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (the cli chunk's ``metadata["flags"]`` items)."""
        out = {k: getattr(self, k) for k in _DICT_KEYS}
        out["aliases"] = list(self.aliases)
        out.update({k: getattr(self, k) for k in _OPTIONAL_KEYS if getattr(self, k) is not None})
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Flag:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def node_text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def literal(node: Any) -> tuple[Any, bool]:
    """``(value, True)`` for a Python literal, else ``(source text, False)``."""
    src = node_text(node)
    try:
        value = ast.literal_eval(src)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return src, False
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        if isinstance(value, (tuple, set, frozenset)):
            value = list(value)
        else:
            return src, False
    if isinstance(value, tuple):
        value = list(value)
    return value, True


def call_args(call: Any) -> tuple[list[Any], dict[str, Any]]:
    arglist = call.child_by_field_name("arguments")
    pos: list[Any] = []
    kw: dict[str, Any] = {}
    if arglist is None:
        return pos, kw
    for a in arglist.named_children:
        if a.type == "keyword_argument":
            kw[node_text(a.child_by_field_name("name"))] = a.child_by_field_name("value")
        elif a.type not in ("comment", "list_splat", "dictionary_splat"):
            pos.append(a)
    return pos, kw


def string_value(node: Any) -> str | None:
    if node is None or node.type not in ("string", "concatenated_string"):
        return None
    value, ok = literal(node)
    return value if ok and isinstance(value, str) else None
