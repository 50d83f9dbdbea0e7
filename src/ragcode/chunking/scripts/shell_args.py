"""The arguments a shell script reads, as ``Flag``s (read with the tree-sitter bash grammar).

- ``getopts "a:b" opt``: ``-a`` takes a value (``type: str``), ``-b`` is a switch
  (``action: store_true``), parser ``getopts``; ``dest`` is the variable the matching
  ``case`` branch assigns (``a) LR=$OPTARG ;;`` -> ``LR``);
- long options parsed by hand, ``case "$1" in --lr) LR="$2"; shift 2 ;; --fast) ...``
  (``--out=*`` patterns too): parser ``shell``; an option takes a value when its branch reads
  ``$2``, shifts by 2, or its pattern ends in ``=*``;
- positional ``$1`` .. ``$n`` (``${1}``, ``${1:-default}``, ``${1:?message}``) outside
  functions (a function's ``$1`` is its own argument) and outside such an option loop: one
  positional ``Flag`` per position up to the highest one read, named by the variable it is
  assigned to (``DATA=${1:-data}`` -> ``DATA``, alias ``$1``). A position is optional
  (``nargs: "?"``): bash expands a missing argument to nothing, unless the script says
  ``${1:?msg}`` or runs under ``set -u`` without a default; then it is required, and so is
  every position before it.
- ``$@`` / ``$*`` or a top-level ``shift``: one more positional ``$@`` with ``nargs: "*"``
  (the script takes, or forwards, any number of further arguments).
"""

from __future__ import annotations

import re
from typing import Any

from ragcode.chunking.languages import BASH, parser_for, text_of
from ragcode.chunking.scripts.flag import Flag

_EXPANSION = re.compile(r"^\$\{(\d+)(?:(:?[-=?+])(.*)|[#%/^,:].*)?\}$", re.S)
_POSITIONAL = re.compile(r"^\$(\d)$")
_ARGV = frozenset({'$1', '"$1"', "${1}", '"${1}"'})
_SET_U = re.compile(r"^-[a-zA-Z]*u[a-zA-Z]*$")
_HELP_NAMES = frozenset({"-h", "--help"})


def _walk(root: Any) -> list[Any]:
    out, stack = [], [root]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(n.named_children))
    return out


def _command_name(node: Any) -> str:
    return text_of(node.child_by_field_name("name")) if node.type == "command" else ""


def _arguments(node: Any) -> list[Any]:
    return [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "argument"]


def _word(node: Any) -> str:
    t = text_of(node)
    return t[1:-1] if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'" else t


def _inside(node: Any, nodes: set[int]) -> bool:
    p = node.parent
    while p is not None:
        if p.id in nodes:
            return True
        p = p.parent
    return False


def _assigned_var(item: Any, needle: str | None) -> str | None:
    """The variable a case branch assigns (the one whose value mentions ``needle``)."""
    for n in _walk(item):
        if n.type == "variable_assignment":
            value = text_of(n.child_by_field_name("value"))
            if needle is None or needle in value:
                return text_of(n.child_by_field_name("name"))
    return None


def _getopts(cmd: Any, items: list[Any]) -> list[Flag]:
    args = _arguments(cmd)
    if not args:
        return []
    spec = _word(args[0]).lstrip(":")
    flags: list[Flag] = []
    for k, ch in enumerate(spec):
        if not ch.isalnum():
            continue
        value = spec[k + 1:k + 2] == ":"
        branch = next((it for it in items if any(
            _word(p).strip() == ch for p in _patterns(it))), None)
        dest = _assigned_var(branch, "OPTARG" if value else None) if branch is not None else None
        flags.append(Flag(name=f"-{ch}", parser="getopts", line=cmd.start_point[0] + 1,
                          type="str" if value else "bool",
                          action=None if value else "store_true", dest=dest,
                          default=None if value else False))
    return flags


def _patterns(item: Any) -> list[Any]:
    return [c for i, c in enumerate(item.children) if item.field_name_for_child(i) == "value"]


def _long_options(case: Any) -> list[Flag]:
    by_name: dict[str, Flag] = {}
    for item in (c for c in case.named_children if c.type == "case_item"):
        names = [_word(p) for p in _patterns(item)]
        dashed = [n for n in names if n.startswith("-") and n.strip("-*")]
        if not dashed:
            continue
        body = text_of(item)
        glued = any(n.endswith("=*") for n in dashed)
        value = glued or "$2" in body or "${2" in body or re.search(r"\bshift\s+2\b", body)
        spelled = list(dict.fromkeys(n[:-2] if n.endswith("=*") else n for n in dashed))
        key = spelled[0]
        if key in by_name:
            if value:
                by_name[key].type, by_name[key].action = "str", None
            continue
        help_action = "help" if _HELP_NAMES & set(spelled) else None
        spelled.sort(key=lambda n: not n.startswith("--"))
        by_name[key] = Flag(
            name=spelled[0], aliases=spelled[1:], parser="shell", line=item.start_point[0] + 1,
            type="str" if value else "bool",
            action=help_action or (None if value else "store_true"),
            dest=_assigned_var(item, None), default=None if value else False)
    return list(by_name.values())


def _enclosing_loop(node: Any) -> Any:
    p = node.parent
    while p is not None and p.type not in ("while_statement", "for_statement", "program"):
        p = p.parent
    return p if p is not None and p.type != "program" else node


def extract_shell_flags(text: str, tree: Any = None) -> list[Flag]:
    """Every argument a shell script reads, in the order of the module doc."""
    if tree is None:
        parser = parser_for(BASH)
        if parser is None:
            return []
        tree = parser.parse(text.encode("utf-8", "surrogatepass"))
    nodes = _walk(tree.root_node)
    functions = {n.id for n in nodes if n.type == "function_definition"}
    items = [n for n in nodes if n.type == "case_item"]
    flags: list[Flag] = []
    option_loops: set[int] = set()
    strict = False
    for n in nodes:
        name = _command_name(n)
        if name == "getopts":
            flags.extend(_getopts(n, items))
            option_loops.add(_enclosing_loop(n).id)
        elif name == "set":
            words = [_word(a) for a in _arguments(n)]
            strict = strict or any(_SET_U.match(w) for w in words) or "nounset" in words
        elif n.type == "case_statement" and \
                text_of(n.child_by_field_name("value")) in _ARGV:
            found = _long_options(n)
            if found:
                flags.extend(found)
                option_loops.add(_enclosing_loop(n).id)
    skip = functions | option_loops
    return flags + _positionals(nodes, skip, strict)


def _positionals(nodes: list[Any], skip: set[int], strict: bool) -> list[Flag]:
    seen: dict[int, dict[str, Any]] = {}
    rest_line = 0
    for n in nodes:
        if n.type not in ("simple_expansion", "expansion", "command") or _inside(n, skip) \
                or n.id in skip:
            continue
        if n.type == "command":
            if _command_name(n) == "shift" and not rest_line:
                rest_line = n.start_point[0] + 1
            continue
        t = text_of(n)
        if t in ("$@", "$*", "${@}", "${*}") or t.startswith(("${@:", "${*:")):
            rest_line = rest_line or n.start_point[0] + 1
            continue
        m = _POSITIONAL.match(t) or _EXPANSION.match(t)
        if not m or int(m.group(1)) == 0:
            continue
        k = int(m.group(1))
        op, arg = (m.group(2), m.group(3)) if m.re is _EXPANSION else (None, None)
        info = seen.setdefault(k, {"line": n.start_point[0] + 1, "default": None,
                                   "required": False, "help": "", "var": None, "plain": False})
        if op and op.lstrip(":") in "-=":
            info["default"] = info["default"] if info["default"] is not None else arg
        elif op and op.lstrip(":") == "?":
            info["required"], info["help"] = True, (arg or "").strip()
        elif not op:
            info["plain"] = True
        parent = n.parent.parent if n.parent is not None and n.parent.type == "string" \
            else n.parent
        if info["var"] is None and parent is not None and parent.type == "variable_assignment" \
                and _word(parent.child_by_field_name("value")) == t:
            info["var"] = text_of(parent.child_by_field_name("name"))
    last_required = max((k for k, i in seen.items() if i["required"] or (
        strict and i["plain"] and i["default"] is None)), default=0)
    flags: list[Flag] = []
    for k in range(1, max(seen, default=0) + 1):
        info = seen.get(k, {"line": 0, "default": None, "required": False, "help": "",
                            "var": None, "plain": False})
        required = k <= last_required  # a later required position needs this one given too
        var = info["var"]
        flags.append(Flag(
            name=var or f"${k}", aliases=[f"${k}"] if var else [], parser="shell",
            line=info["line"] or (flags[-1].line if flags else 1), type="str",
            default=info["default"], required=required, help=info["help"], positional=True,
            nargs=None if required else "?", dest=var))
    if rest_line:
        flags.append(Flag(name="$@", parser="shell", line=rest_line, positional=True, nargs="*",
                          help="further arguments (the script shifts or forwards them)"))
    return flags
