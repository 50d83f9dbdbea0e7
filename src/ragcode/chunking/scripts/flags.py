"""The command-line flags a Python script declares, as ``Flag`` values.

``extract_flags`` reads a Python file with tree-sitter and collects, from literals only (nothing
is imported or run):

- argparse: every ``X.add_argument(...)`` (parsers, argument groups, subparsers; a parser made
  by ``sub.add_parser("train")`` puts its flags under subcommand ``train``);
- click: ``@click.option(...)`` / ``@click.argument(...)`` (``click.Choice([...])`` gives choices);
- typer: parameters defaulting to (or annotated with) ``typer.Option(...)``/``typer.Argument``;
- absl / tf.flags: ``flags.DEFINE_<type>(name, default, help)`` (``DEFINE_enum`` choices).

A ``Flag`` is plain data: the cli chunk stores ``Flag.to_dict()`` in its metadata, the static
checks ask ``Flag.option_strings()`` what a command line may spell.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field, fields
from typing import Any

_HINT = re.compile(r"add_argument|click\.|typer\.|DEFINE_")
_ABSL_TYPES = {
    "string": "str", "integer": "int", "float": "float", "boolean": "bool", "bool": "bool",
    "enum": "enum", "list": "list", "spaceseplist": "list", "multi_string": "list[str]",
    "multi_integer": "list[int]", "multi_float": "list[float]", "multi_enum": "list[enum]",
    "enum_class": "enum",
}
# the keys every flag dict has, in the order the cli chunk metadata always had them
_DICT_KEYS = ("name", "aliases", "type", "default", "default_literal", "choices", "required",
              "help", "positional", "line", "parser")
_OPTIONAL_KEYS = ("subcommand", "nargs", "action", "dest")  # stored only when set


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
    parser: str = ""  # argparse | click | typer | absl
    line: int = 0  # 1-based line of the declaration
    type: str | None = None
    default: Any = None
    default_literal: bool = True
    choices: Any = None  # a list, or the source text of a non-literal expression
    required: bool | str = False
    help: str = ""
    positional: bool = False
    dest: str | None = None
    action: str | None = None  # argparse
    nargs: Any = None
    subcommand: str | None = None  # argparse sub-parser the flag belongs to

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


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _literal(node: Any) -> tuple[Any, bool]:
    """``(value, True)`` for a Python literal, else ``(source text, False)``."""
    src = _text(node)
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


def _args(call: Any) -> tuple[list[Any], dict[str, Any]]:
    arglist = call.child_by_field_name("arguments")
    pos: list[Any] = []
    kw: dict[str, Any] = {}
    if arglist is None:
        return pos, kw
    for a in arglist.named_children:
        if a.type == "keyword_argument":
            kw[_text(a.child_by_field_name("name"))] = a.child_by_field_name("value")
        elif a.type not in ("comment", "list_splat", "dictionary_splat"):
            pos.append(a)
    return pos, kw


def _str(node: Any) -> str | None:
    if node is None or node.type not in ("string", "concatenated_string"):
        return None
    value, ok = _literal(node)
    return value if ok and isinstance(value, str) else None


def _calls(root: Any) -> list[Any]:
    out = []
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "call":
            out.append(n)
        stack.extend(reversed(n.children))
    return sorted(out, key=lambda n: n.start_byte)


def _new_flag(names: list[str], call: Any, parser: str, **extra: Any) -> Flag:
    return Flag(name=names[0], aliases=names[1:], parser=parser, line=call.start_point[0] + 1,
                positional=not names[0].startswith("-"), **extra)


def _set_common(flag: Flag, kw: dict[str, Any]) -> None:
    if "default" in kw:
        flag.default, flag.default_literal = _literal(kw["default"])
    if "help" in kw:
        value, ok = _literal(kw["help"])
        flag.help = value if ok and isinstance(value, str) else _text(kw["help"])
    if "required" in kw:
        value, ok = _literal(kw["required"])
        flag.required = bool(value) if ok else _text(kw["required"])
    if "choices" in kw:
        flag.choices = _literal(kw["choices"])[0]
    if "nargs" in kw:
        flag.nargs = _literal(kw["nargs"])[0]


def _option_dest(names: list[str]) -> str:
    """argparse's rule: the first long option (else the first short one), dashes as ``_``."""
    first = next((n for n in names if n.startswith("--")), names[0])
    return first.lstrip("-").replace("-", "_")


def _argparse_flag(call: Any, subcommands: dict[str, str]) -> Flag | None:
    pos, kw = _args(call)
    names = [s for s in (_str(p) for p in pos) if s]
    explicit_dest = (_str(kw["dest"]) or _text(kw["dest"])) if "dest" in kw else None
    if not names and explicit_dest:
        names = [explicit_dest]
    if not names:
        return None
    names.sort(key=lambda n: (not n.startswith("--"), not n.startswith("-")))
    func = call.child_by_field_name("function")
    owner = _text(func.child_by_field_name("object")) if func is not None else ""
    flag = _new_flag(names, call, "argparse", subcommand=subcommands.get(owner))
    flag.dest = explicit_dest or (names[0] if flag.positional else _option_dest(names))
    _set_common(flag, kw)
    action = _str(kw.get("action")) if "action" in kw else None
    if action is None and "action" in kw:
        action = _text(kw["action"])
    flag.action = action or None
    if "type" in kw:
        flag.type = _text(kw["type"])
    elif action in ("store_true", "store_false"):
        flag.type = "bool"
        if "default" not in kw:
            flag.default = action == "store_false"
    elif action == "count":
        flag.type = "int"
    elif action not in ("help", "version", "store_const", "append_const"):
        flag.type = "str"
    return flag


def _click_dest(names: list[str]) -> str:
    """click's rule: an identifier among the declarations, else the option with the longest
    prefix (``--`` before ``-``), dashes as ``_``, lower case."""
    ident = next((n for n in names if n.isidentifier()), None)
    if ident:
        return ident
    first = sorted((n.split("/")[0] for n in names), key=lambda n: -(len(n) - len(n.lstrip("-"))))
    return first[0].lstrip("-").replace("-", "_").lower()


def _click_flag(call: Any, kind: str) -> Flag | None:
    pos, kw = _args(call)
    names = [s for s in (_str(p) for p in pos) if s]
    if not names:
        return None
    dest = _click_dest(names)
    dashed = [n for n in names if n.startswith("-")]
    if kind == "option" and dashed:
        names = sorted(dashed, key=lambda n: not n.startswith("--"))
    flag = _new_flag(names, call, "click", dest=dest)
    _set_common(flag, kw)
    t = kw.get("type")
    if t is not None:
        if t.type == "call" and _text(t.child_by_field_name("function")).endswith("Choice"):
            cpos, _ = _args(t)
            flag.choices = _literal(cpos[0])[0] if cpos else None
            flag.type = "choice"
        else:
            flag.type = _text(t)
    if "is_flag" in kw and _text(kw["is_flag"]) == "True":
        flag.type = "bool"
        if "default" not in kw:
            flag.default = False
    if flag.type is None:
        flag.type = "str"
    return flag


def _typer_flag(call: Any, kind: str) -> Flag | None:
    param = call.parent
    while param is not None and param.type not in (
            "typed_default_parameter", "default_parameter", "typed_parameter"):
        if param.type in ("function_definition", "module", "block"):
            return None
        param = param.parent
    if param is None:
        return None
    pname = param.child_by_field_name("name")
    if pname is None:
        pname = next((c for c in param.named_children if c.type == "identifier"), None)
    name = _text(pname)
    pos, kw = _args(call)
    names = [s for s in (_str(p) for p in pos) if s and s.startswith("-")]
    if kind == "Option" and not names:
        names = ["--" + name.replace("_", "-")]
    if kind == "Argument":
        names = [name]
    flag = _new_flag(names, call, "typer", dest=name)
    _set_common(flag, kw)
    value = param.child_by_field_name("value")
    if pos and pos[0].type not in ("string", "concatenated_string") and "default" not in kw:
        flag.default, flag.default_literal = _literal(pos[0])
    elif value is not None and value.type != "call":
        flag.default, flag.default_literal = _literal(value)
    if flag.default == "..." or (pos and _text(pos[0]) == "..."):
        flag.default, flag.default_literal, flag.required = None, True, True
    ann = param.child_by_field_name("type")
    if ann is not None:
        t = _text(ann)
        m = re.match(r"Annotated\[\s*([^,]+),", t)
        flag.type = m.group(1).strip() if m else t
    return flag


def _absl_flag(call: Any, suffix: str) -> Flag | None:
    pos, kw = _args(call)
    name = _str(pos[0]) if pos else _str(kw.get("name"))
    if not name:
        return None
    flag = _new_flag(["--" + name], call, "absl", type=_ABSL_TYPES.get(suffix, suffix), dest=name)
    if len(pos) > 1:
        flag.default, flag.default_literal = _literal(pos[1])
    is_enum = "enum" in suffix
    help_at = 3 if is_enum else 2
    if is_enum and len(pos) > 2:
        flag.choices = _literal(pos[2])[0]
    if "enum_values" in kw:
        flag.choices = _literal(kw["enum_values"])[0]
    if len(pos) > help_at:
        flag.help = _str(pos[help_at]) or _text(pos[help_at])
    _set_common(flag, kw)
    return flag


def extract_flags(text: str, tree: Any = None) -> list[Flag]:
    """Every command-line flag a Python file declares, in source order (see module doc)."""
    if not _HINT.search(text):
        return []
    if tree is None:
        from ragcode.chunking.code import parse_python

        tree = parse_python(text)
    calls = _calls(tree.root_node)
    subcommands: dict[str, str] = {}
    for call in calls:  # sub = subparsers.add_parser("train", ...)
        func = call.child_by_field_name("function")
        if func is None or func.type != "attribute" or \
                _text(func.child_by_field_name("attribute")) != "add_parser":
            continue
        parent = call.parent
        pos, _ = _args(call)
        if parent is not None and parent.type == "assignment" and pos and _str(pos[0]):
            subcommands[_text(parent.child_by_field_name("left"))] = _str(pos[0]) or ""
    flags: list[Flag] = []
    for call in calls:
        func = call.child_by_field_name("function")
        if func is None:
            continue
        fname = _text(func)
        attr = fname.rsplit(".", 1)[-1]
        flag = None
        if attr == "add_argument" and func.type == "attribute":
            flag = _argparse_flag(call, subcommands)
        elif fname in ("click.option", "click.argument"):
            flag = _click_flag(call, attr)
        elif fname in ("typer.Option", "typer.Argument"):
            flag = _typer_flag(call, attr)
        elif attr.startswith("DEFINE_"):
            flag = _absl_flag(call, attr[len("DEFINE_"):])
        if flag is not None:
            flags.append(flag)
    return flags
