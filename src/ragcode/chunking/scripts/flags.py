"""The command-line flags a Python script declares, as ``Flag`` values.

``extract_flags`` reads a Python file with tree-sitter and collects, from literals only (nothing
is imported or run):

- argparse: every ``X.add_argument(...)`` (parsers, argument groups, subparsers; a parser made
  by ``sub.add_parser("train")`` puts its flags under subcommand ``train``);
- click: ``@click.option(...)`` / ``@click.argument(...)`` (``click.Choice([...])`` gives choices);
- typer: parameters defaulting to (or annotated with) ``typer.Option(...)``/``typer.Argument``;
- absl / tf.flags: ``flags.DEFINE_<type>(name, default, help)`` (``DEFINE_enum`` choices);
- ``HfArgumentParser((ModelArguments, ...))`` dataclass fields (``hf_args``).

``Flag`` itself lives in ``flag`` (re-exported here).
"""

from __future__ import annotations

import re
from typing import Any

from ragcode.chunking.scripts.flag import Flag
from ragcode.chunking.scripts.flag import call_args as _args
from ragcode.chunking.scripts.flag import literal as _literal
from ragcode.chunking.scripts.flag import node_text as _text
from ragcode.chunking.scripts.flag import string_value as _str
from ragcode.chunking.scripts.hf_args import hf_flags

_HINT = re.compile(r"add_argument|click\.|typer\.|DEFINE_|HfArgumentParser")
_ABSL_TYPES = {
    "string": "str", "integer": "int", "float": "float", "boolean": "bool", "bool": "bool",
    "enum": "enum", "list": "list", "spaceseplist": "list", "multi_string": "list[str]",
    "multi_integer": "list[int]", "multi_float": "list[float]", "multi_enum": "list[enum]",
    "enum_class": "enum",
}


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
    flag.action = _click_repeats(kw)
    return flag


def _click_repeats(kw: dict[str, Any]) -> str | None:
    """``multiple=True`` collects each use of the option (argparse's ``append``), ``count=True``
    counts them: given twice is no mistake."""
    if "multiple" in kw and _text(kw["multiple"]) == "True":
        return "append"
    return "count" if "count" in kw and _text(kw["count"]) == "True" else None


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
        if re.match(r"(?:typing\.)?(?:List|list|Sequence|Tuple|tuple)\b", flag.type) and kind == "Option":
            flag.action = "append"  # typer collects each use of a list option
    return flag


def _absl_flag(call: Any, suffix: str) -> Flag | None:
    pos, kw = _args(call)
    name = _str(pos[0]) if pos else _str(kw.get("name"))
    if not name:
        return None
    flag = _new_flag(["--" + name], call, "absl", type=_ABSL_TYPES.get(suffix, suffix), dest=name)
    if suffix.startswith("multi_"):
        flag.action = "append"  # DEFINE_multi_*: each use adds one
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
    return flags + hf_flags(tree.root_node, calls)
