"""``HfArgumentParser`` dataclasses as ``Flag``s, read with tree-sitter from literals.

``HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))`` turns every field of
every dataclass into an option, the way ``transformers.hf_argparser`` does:

- ``--{name}``, and ``--{name-with-dashes}`` when the name has ``_`` (newer transformers), plus
  ``metadata["aliases"]``; ``metadata["help"]`` / ``["choices"]`` as argparse would take them;
- ``Optional[X]`` / ``X | None`` -> type ``X``; ``Literal[...]`` -> choices; ``list[X]`` ->
  ``nargs="+"``; ``bool`` -> ``nargs="?"`` (``--do_train`` alone means true) and, when the
  default is ``True``, a second flag ``--no_{name}`` (``store_false``);
- no ``default`` and no ``default_factory`` -> required; ``field(init=False)`` and ``ClassVar``
  fields are not options.

Dataclasses must be defined in the same file (their local base classes are followed), or be
one of transformers' own (``TrainingArguments``, ``Seq2SeqTrainingArguments``: their fields
come from ``hf_known``, a table of them written from transformers' source). When any dataclass
cannot be resolved, no flags are returned for that parser: a partial table would make every
other flag look unknown to the answer checks.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ragcode.chunking.scripts.flag import Flag
from ragcode.chunking.scripts.flag import call_args as _args
from ragcode.chunking.scripts.flag import literal as _literal
from ragcode.chunking.scripts.flag import node_text as _text
from ragcode.chunking.scripts.flag import string_value as _str
from ragcode.chunking.scripts.hf_known import KNOWN_DATACLASSES

PARSER = "hf"
_FILE_PARSERS = ("parse_json_file", "parse_yaml_file")
_OPTIONAL = re.compile(r"^(?:typing\.)?(?:Optional\[(.+)\]|Union\[(.+?),\s*None\])$")
_NONE_UNION = re.compile(r"^(.+?)\s*\|\s*None$|^None\s*\|\s*(.+)$")
_LIST = re.compile(r"^(?:typing\.)?(?:List|list|Sequence|Tuple|tuple)\[\s*([^,\]]+)")
_LITERAL = re.compile(r"^(?:typing\.)?Literal\[(.*)\]$", re.S)


def _classes(root: Any) -> dict[str, Any]:
    """Module-level class definitions by name (decorated ones included)."""
    out: dict[str, Any] = {}
    for node in root.named_children:
        cls = node.child_by_field_name("definition") if node.type == "decorated_definition" \
            else node
        if cls is not None and cls.type == "class_definition":
            out[_text(cls.child_by_field_name("name"))] = cls
    return out


def _requested(call: Any) -> list[str]:
    """The dataclass names an ``HfArgumentParser(...)`` call is given."""
    pos, kw = _args(call)
    arg = pos[0] if pos else kw.get("dataclass_types")
    if arg is None:
        return []
    items = arg.named_children if arg.type in ("tuple", "list") else [arg]
    return [_text(i) for i in items if i.type in ("identifier", "attribute")]


def _unwrap(annotation: str) -> tuple[str, bool]:
    """``(inner type, optional)``: ``Optional[int]`` -> ``("int", True)``."""
    t = " ".join(annotation.split())
    m = _OPTIONAL.match(t) or _NONE_UNION.match(t)
    if m:
        return next(g for g in m.groups() if g).strip(), True
    return t, False


def _field_flags(stmt: Any, cls_name: str) -> list[Flag]:
    node = stmt.named_children[0] if stmt.type == "expression_statement" and \
        stmt.named_children else None
    if node is None or node.type != "assignment" or node.child_by_field_name("type") is None:
        return []
    left = node.child_by_field_name("left")
    if left is None or left.type != "identifier":
        return []
    name = _text(left)
    annotation, _ = _unwrap(_text(node.child_by_field_name("type")))
    if annotation.split("[")[0].rsplit(".", 1)[-1] in ("ClassVar", "InitVar"):
        return []
    value = node.child_by_field_name("right")
    kw: dict[str, Any] = {}
    if value is not None and value.type == "call" and \
            _text(value.child_by_field_name("function")).rsplit(".", 1)[-1] == "field":
        _, kw = _args(value)
        if "init" in kw and _text(kw["init"]) == "False":
            return []
        default_node = kw.get("default")
    else:
        default_node = value
    meta = _metadata(kw.get("metadata"))
    return _flags(name, annotation, default_node, "default_factory" in kw, meta, cls_name,
                  stmt.start_point[0] + 1)


def _metadata(node: Any) -> dict[str, Any]:
    """``metadata={"help": ..., "choices": [...], "aliases": ...}``, key by key (a value that
    is not a literal is kept as its source text)."""
    out: dict[str, Any] = {}
    if node is None or node.type != "dictionary":
        return out
    for pair in node.named_children:
        if pair.type != "pair":
            continue
        key = _str(pair.child_by_field_name("key"))
        if key:
            value, ok = _literal(pair.child_by_field_name("value"))
            out[key] = value if ok else _text(pair.child_by_field_name("value"))
    return out


def _flags(name: str, annotation: str, default_node: Any, has_factory: bool,
           meta: dict[str, Any], group: str, line: int) -> list[Flag]:
    names = [f"--{name}"] + ([f"--{name.replace('_', '-')}"] if "_" in name else [])
    aliases = meta.get("aliases", [])
    names += [aliases] if isinstance(aliases, str) else [a for a in aliases if isinstance(a, str)]
    flag = Flag(name=names[0], aliases=names[1:], parser=PARSER, line=line, dest=name,
                help=str(meta.get("help", "")), group=group)
    if default_node is not None:
        flag.default, flag.default_literal = _literal(default_node)
    flag.required = default_node is None and not has_factory
    lit = _LITERAL.match(annotation)
    lst = _LIST.match(annotation)
    if lit:
        try:
            flag.choices = list(ast.literal_eval("[" + lit.group(1) + "]"))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            flag.choices = lit.group(1)
        flag.type = "choice"
    elif annotation == "bool":
        flag.type, flag.nargs = "bool", "?"
        if default_node is None:
            flag.default, flag.required = False, False
    elif lst:
        flag.type, flag.nargs = lst.group(1).strip(), "+"
    else:
        flag.type = annotation
    if "choices" in meta:
        flag.choices = meta["choices"]
    out = [flag]
    if annotation == "bool" and flag.default is True:
        out.append(Flag(name=f"--no_{name}", aliases=[f"--no-{name.replace('_', '-')}"],
                        parser=PARSER, line=line, type="bool", default=False, dest=name,
                        action="store_false", help=flag.help, group=group))
    return out


def _known_flag(entry: dict[str, Any], group: str, line: int) -> Flag:
    """A ``hf_known`` entry as a ``Flag`` (its ``--`` spellings and ``dest`` derived)."""
    data = dict(entry)
    plain = data.pop("name")
    negated = data.get("action") == "store_false" and plain.startswith("no_")
    base = plain[3:] if negated else plain
    if negated:
        aliases = ["--no-" + base.replace("_", "-")]
    else:
        aliases = ["--" + base.replace("_", "-")] if "_" in base else []
    data.update(name="--" + plain, aliases=aliases, dest=base, parser=PARSER, group=group,
                line=line)
    return Flag.from_dict(data)


def _dataclass_flags(name: str, classes: dict[str, Any], seen: set[str], line: int
                     ) -> list[Flag] | None:
    """Fields of dataclass ``name``, bases first; ``None`` when it cannot be resolved."""
    short = name.rsplit(".", 1)[-1]
    if short in seen:
        return []
    seen.add(short)
    cls = classes.get(short)
    if cls is None:
        return _known_flags(short, line)
    out: list[Flag] = []
    bases = cls.child_by_field_name("superclasses")
    for base in (bases.named_children if bases is not None else []):
        if base.type not in ("identifier", "attribute"):
            continue
        base_name = _text(base)
        if base_name.rsplit(".", 1)[-1] in ("object", "ABC", "Generic"):
            continue
        if base.type == "attribute" and base_name.rsplit(".", 1)[-1] == short:  # shadows its base:
            inherited = _known_flags(short, base.start_point[0] + 1)  # TrainingArguments(transformers.TrainingArguments)
        else:
            inherited = _dataclass_flags(base_name, classes, seen, base.start_point[0] + 1)
        if inherited is None:
            return None
        out.extend(inherited)
    body = cls.child_by_field_name("body")
    for stmt in (body.named_children if body is not None else []):
        for flag in _field_flags(stmt, short):
            out = [f for f in out if f.dest != flag.dest or f.action != flag.action]  # overridden
            out.append(flag)
    return out


def _known_flags(short: str, line: int) -> list[Flag] | None:
    """One of transformers' own dataclasses from the ``hf_known`` table; None when not known."""
    known = KNOWN_DATACLASSES.get(short)
    return None if known is None else [_known_flag(d, f"{short} (transformers)", line) for d in known]


def hf_flags(root: Any, calls: list[Any]) -> list[Flag]:
    """Flags of every ``HfArgumentParser(...)`` among ``calls`` (see the module doc)."""
    parsers = [c for c in calls
               if _text(c.child_by_field_name("function")).rsplit(".", 1)[-1]
               == "HfArgumentParser"]
    if not parsers:
        return []
    classes = _classes(root)
    flags: list[Flag] = []
    seen: set[str] = set()
    for call in parsers:
        found: list[Flag] = []
        for name in _requested(call):
            got = _dataclass_flags(name, classes, seen, call.start_point[0] + 1)
            if got is None:
                found = []
                break
            found.extend(got)
        flags.extend(found)
    if flags and any(_text(c.child_by_field_name("function")).rsplit(".", 1)[-1]
                     in _FILE_PARSERS for c in calls):
        flags.append(Flag(name="args_file", parser=PARSER, positional=True, nargs="?",
                          line=parsers[0].start_point[0] + 1, type="str",
                          help="a .json/.yaml file holding all the arguments instead of flags"))
    return flags


_DEFAULTS = {("aliases", ()), ("default_literal", True), ("required", False)}


def known_table(training_args_source: str) -> dict[str, list[dict[str, Any]]]:
    """The ``hf_known`` table from transformers' ``training_args.py`` (and, merged by the
    caller, ``training_args_seq2seq.py``): every field of each ``*TrainingArguments`` class,
    help left out."""
    from ragcode.chunking.code import parse_python

    root = parse_python(training_args_source).root_node
    classes = _classes(root)
    out = {}
    for name in classes:
        if name.endswith("TrainingArguments"):
            got = _dataclass_flags(name, classes, set(), 0) or []
            out[name] = [{k: v for k, v in f.to_dict().items()
                          if k not in ("help", "line", "parser", "group", "positional")
                          and v is not None and (k, tuple(v) if isinstance(v, list) else v)
                          not in _DEFAULTS} for f in got]
    return out
