"""Command-line interfaces of scripts, and the README commands that call them.

``extract_flags`` reads a Python file with tree-sitter and collects, from literals only (nothing
is imported or run):

- argparse: every ``X.add_argument(...)`` (parsers, argument groups, subparsers; a parser made
  by ``sub.add_parser("train")`` puts its flags under subcommand ``train``);
- click: ``@click.option(...)`` / ``@click.argument(...)`` (``click.Choice([...])`` gives choices);
- typer: parameters defaulting to (or annotated with) ``typer.Option(...)``/``typer.Argument``;
- absl / tf.flags: ``flags.DEFINE_<type>(name, default, help)`` (``DEFINE_enum`` choices).

``chunk_cli`` turns them into ONE chunk of kind ``cli`` per script: its path, how to run it,
and a line per flag (type, default, choices, required, help). Literal defaults are shown as
values, others as their source text (``default_literal: false`` in the metadata).

``link_cli`` finds commands in documentation chunks (``python train.py --lr 0.1``,
``python -m pkg.mod``, ``torchrun ... main.py``, ``accelerate launch x.py``, ``bash run.sh``,
``!python`` / ``%run`` in notebooks; ``cd dir`` earlier in the same chunk is followed; ``\\``
continuations are joined) and resolves the script against the directory of the last ``cd``,
the document's directory, the repository root, then a unique file name.
"""

from __future__ import annotations

import ast
import json
import logging
import posixpath
import re
import shlex
from dataclasses import replace
from typing import Any

from ragcode.config import ChunkingConfig
from ragcode.types import Chunk, SourceFile

log = logging.getLogger(__name__)

_HINT = re.compile(r"add_argument|click\.|typer\.|DEFINE_")
_ABSL_TYPES = {
    "string": "str", "integer": "int", "float": "float", "boolean": "bool", "bool": "bool",
    "enum": "enum", "list": "list", "spaceseplist": "list", "multi_string": "list[str]",
    "multi_integer": "list[int]", "multi_float": "list[float]", "multi_enum": "list[enum]",
    "enum_class": "enum",
}
_HELP_CHARS = 300


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


def _flag(names: list[str], line: int, parser: str, **extra: Any) -> dict[str, Any]:
    flag = {
        "name": names[0], "aliases": names[1:], "type": None, "default": None,
        "default_literal": True, "choices": None, "required": False, "help": "",
        "positional": not names[0].startswith("-"), "line": line, "parser": parser,
    }
    flag.update(extra)
    return flag


def _set_common(flag: dict[str, Any], kw: dict[str, Any]) -> None:
    if "default" in kw:
        flag["default"], flag["default_literal"] = _literal(kw["default"])
    if "help" in kw:
        value, ok = _literal(kw["help"])
        flag["help"] = value if ok and isinstance(value, str) else _text(kw["help"])
    if "required" in kw:
        value, ok = _literal(kw["required"])
        flag["required"] = bool(value) if ok else _text(kw["required"])
    if "choices" in kw:
        flag["choices"] = _literal(kw["choices"])[0]
    if "nargs" in kw:
        flag["nargs"] = _literal(kw["nargs"])[0]


def _argparse_flag(call: Any, subcommands: dict[str, str]) -> dict[str, Any] | None:
    pos, kw = _args(call)
    names = [s for s in (_str(p) for p in pos) if s]
    if not names and "dest" in kw:
        names = [_str(kw["dest"]) or _text(kw["dest"])]
    if not names:
        return None
    names.sort(key=lambda n: (not n.startswith("--"), not n.startswith("-")))
    func = call.child_by_field_name("function")
    owner = _text(func.child_by_field_name("object")) if func is not None else ""
    flag = _flag(names, call.start_point[0] + 1, "argparse")
    if owner in subcommands:
        flag["subcommand"] = subcommands[owner]
    _set_common(flag, kw)
    action = _str(kw.get("action")) if "action" in kw else None
    if action is None and "action" in kw:
        action = _text(kw["action"])
    if action:
        flag["action"] = action
    if "type" in kw:
        flag["type"] = _text(kw["type"])
    elif action in ("store_true", "store_false"):
        flag["type"] = "bool"
        if "default" not in kw:
            flag["default"] = action == "store_false"
    elif action == "count":
        flag["type"] = "int"
    elif action not in ("help", "version", "store_const", "append_const"):
        flag["type"] = "str"
    return flag


def _click_flag(call: Any, kind: str) -> dict[str, Any] | None:
    pos, kw = _args(call)
    names = [s for s in (_str(p) for p in pos) if s]
    if not names:
        return None
    dashed = [n for n in names if n.startswith("-")]
    if kind == "option" and dashed:
        names = sorted(dashed, key=lambda n: not n.startswith("--"))
    flag = _flag(names, call.start_point[0] + 1, "click")
    _set_common(flag, kw)
    t = kw.get("type")
    if t is not None:
        if t.type == "call" and _text(t.child_by_field_name("function")).endswith("Choice"):
            cpos, _ = _args(t)
            flag["choices"] = _literal(cpos[0])[0] if cpos else None
            flag["type"] = "choice"
        else:
            flag["type"] = _text(t)
    if "is_flag" in kw and _text(kw["is_flag"]) == "True":
        flag["type"] = "bool"
        if "default" not in kw:
            flag["default"] = False
    if flag["type"] is None:
        flag["type"] = "str"
    return flag


def _typer_flag(call: Any, kind: str) -> dict[str, Any] | None:
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
    flag = _flag(names, call.start_point[0] + 1, "typer")
    _set_common(flag, kw)
    value = param.child_by_field_name("value")
    if pos and pos[0].type not in ("string", "concatenated_string") and "default" not in kw:
        flag["default"], flag["default_literal"] = _literal(pos[0])
    elif value is not None and value.type != "call":
        flag["default"], flag["default_literal"] = _literal(value)
    if flag["default"] == "..." or (pos and _text(pos[0]) == "..."):
        flag["default"], flag["default_literal"], flag["required"] = None, True, True
    ann = param.child_by_field_name("type")
    if ann is not None:
        t = _text(ann)
        m = re.match(r"Annotated\[\s*([^,]+),", t)
        flag["type"] = m.group(1).strip() if m else t
    return flag


def _absl_flag(call: Any, suffix: str) -> dict[str, Any] | None:
    pos, kw = _args(call)
    name = _str(pos[0]) if pos else _str(kw.get("name"))
    if not name:
        return None
    flag = _flag(["--" + name], call.start_point[0] + 1, "absl",
                 type=_ABSL_TYPES.get(suffix, suffix))
    if len(pos) > 1:
        flag["default"], flag["default_literal"] = _literal(pos[1])
    is_enum = "enum" in suffix
    help_at = 3 if is_enum else 2
    if is_enum and len(pos) > 2:
        flag["choices"] = _literal(pos[2])[0]
    if "enum_values" in kw:
        flag["choices"] = _literal(kw["enum_values"])[0]
    if len(pos) > help_at:
        flag["help"] = _str(pos[help_at]) or _text(pos[help_at])
    _set_common(flag, kw)
    return flag


def extract_flags(text: str, tree: Any = None) -> list[dict[str, Any]]:
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
    flags: list[dict[str, Any]] = []
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


def _fmt(value: Any) -> str:
    return repr(value)


def format_flag(flag: dict[str, Any]) -> str:
    names = ", ".join([flag["name"], *flag["aliases"]])
    parts = [names if not flag["positional"] else f"{names} (positional)"]
    if flag.get("subcommand"):
        parts.append(f"subcommand: {flag['subcommand']}")
    if flag.get("type"):
        parts.append(f"type: {flag['type']}")
    if flag.get("action") and flag["action"] not in ("store", "store_true", "store_false"):
        parts.append(f"action: {flag['action']}")
    if flag["default"] is not None:
        shown = _fmt(flag["default"]) if flag["default_literal"] else flag["default"]
        parts.append(f"default: {shown}")
    if flag.get("choices") is not None:
        ch = flag["choices"]
        parts.append("choices: " + (", ".join(map(str, ch)) if isinstance(ch, list) else str(ch)))
    if flag.get("nargs") is not None:
        parts.append(f"nargs: {flag['nargs']}")
    if flag.get("required") is True:
        parts.append("required")
    line = "  ".join(parts)
    help_text = " ".join(str(flag.get("help") or "").split())
    if help_text:
        if len(help_text) > _HELP_CHARS:
            help_text = help_text[:_HELP_CHARS - 3] + "..."
        line += f"  help: {help_text}"
    return line


def cli_chunk(path: str, flags: list[dict[str, Any]], cfg: ChunkingConfig) -> Chunk:
    parsers = sorted({f["parser"] for f in flags})
    folder = posixpath.dirname(path)
    name = posixpath.basename(path)
    lines = [
        f"Command-line flags of {path} ({', '.join(parsers)})",
        f"Run from the repository root: python {path} [flags]",
    ]
    if folder:
        lines.append(f"Run from {folder}/: python {name} [flags]")
    subs = list(dict.fromkeys(f["subcommand"] for f in flags if f.get("subcommand")))
    if subs:
        lines.append(f"Subcommands: {', '.join(subs)}")
    lines.append("Flags:")
    lines.extend("  " + format_flag(f) for f in flags)
    start = min(f["line"] for f in flags)
    end = max(f["line"] for f in flags)
    return Chunk(
        path=path, kind="cli", text="\n".join(lines), start_line=start, end_line=end,
        symbol="cli", header=f"# {path} :: command-line flags" if cfg.code.header else "",
        language="python",
        metadata={"script": path, "parsers": parsers, "flags": flags},
    )


def chunk_cli(file: SourceFile, cfg: ChunkingConfig, tree: Any = None) -> list[Chunk]:
    """The ``cli`` chunk of a Python script, or ``[]`` when it declares no flags."""
    if not cfg.cli.enabled:
        return []
    try:
        flags = extract_flags(file.text, tree)
    except Exception as exc:  # noqa: BLE001 - one odd file must not stop indexing
        log.warning("cannot read the command-line flags of %s: %s", file.path, exc)
        return []
    return [cli_chunk(file.path, flags, cfg)] if flags else []


class CliChunker:
    name = "cli"

    def chunk(self, file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
        return chunk_cli(file, cfg)


# --- linking README commands to the scripts they run ------------------------------------

_DOC_KINDS = ("markdown", "notebook", "shell", "text")
_CMD_HINT = re.compile(r"\b(?:python[\d.]*|torchrun|deepspeed|accelerate|bash|sh|%run)\b|\.sh\b")
_PROMPT = re.compile(r"^\s*(?:\$|>>>|>|#\s*\$|!|%%bash|%%sh)\s*")
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_IN_PROSE = re.compile(
    r"(?:^|[\s(\[\"'])((?:python[\d.]*|torchrun|bash|sh)\s+[\w./-]+\.(?:py|sh)\b[^)\]\"'`]*)")
_SEP = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")
_PYTHON = re.compile(r"^(?:.*/)?python[\d.]*$")
_LAUNCHERS = {"torchrun", "deepspeed", "horovodrun", "mpirun", "srun", "accelerate"}
_WRAPPERS = {"nohup", "time", "exec", "sudo", "env", "CUDA_LAUNCH_BLOCKING=1"}


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Lines with ``\\`` continuations joined, each with its 0-based first line index."""
    out: list[tuple[int, str]] = []
    buf, first = "", 0
    for i, line in enumerate(text.split("\n")):
        if not buf:
            first = i
        stripped = line.rstrip()
        if stripped.endswith("\\"):
            buf += stripped[:-1] + " "
            continue
        out.append((first, buf + line))
        buf = ""
    if buf:
        out.append((first, buf))
    return out


def _split_words(s: str) -> list[str]:
    try:
        return shlex.split(s, comments=True)
    except ValueError:
        return s.split()


def parse_command(words: list[str]) -> tuple[str, str, list[str]] | None:
    """``(kind, target, args)`` for a command that runs a script; kind is script/module/shell."""
    i = 0
    while i < len(words) and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[i])
                              or words[i] in _WRAPPERS):
        i += 1
    if i >= len(words):
        return None
    head = words[i]
    rest = words[i + 1:]
    if head == "%run" and rest:
        return "script", rest[0], rest[1:]
    if _PYTHON.match(head):
        j = 0
        while j < len(rest) and rest[j].startswith("-") and rest[j] != "-m":
            j += 2 if rest[j] in ("-W", "-X") else 1
        if j < len(rest) and rest[j] == "-m" and j + 1 < len(rest):
            module = rest[j + 1]
            if module.startswith("torch.distributed"):
                return _first_script(rest[j + 2:])
            return "module", module, rest[j + 2:]
        if j < len(rest) and rest[j].endswith(".py"):
            return "script", rest[j], rest[j + 1:]
        return None
    if head in _LAUNCHERS or head.endswith("/torchrun"):
        return _first_script(rest)
    if head in ("bash", "sh", "source", "zsh") and rest:
        k = 0
        while k < len(rest) and rest[k].startswith("-"):
            k += 1
        if k < len(rest) and rest[k].endswith(".sh"):
            return "shell", rest[k], rest[k + 1:]
        return None
    if head.endswith(".sh") and "/" in head:
        return "shell", head, rest
    if head.endswith(".py") and head.startswith("./"):
        return "script", head, rest
    return None


def _first_script(words: list[str]) -> tuple[str, str, list[str]] | None:
    for k, w in enumerate(words):
        if w.endswith(".py") and not w.startswith("-"):
            return "script", w, words[k + 1:]
        if w == "-m" and k + 1 < len(words):
            return "module", words[k + 1], words[k + 2:]
    return None


def _ancestors(folder: str) -> list[str]:
    """``a/b`` -> ``["a/b", "a", ""]``: a script's folder, its parents, the repository root."""
    out = []
    while folder:
        out.append(folder)
        folder = posixpath.dirname(folder)
    return out + [""]


class _Resolver:
    def __init__(self, paths: set[str]):
        self.paths = paths
        self.by_name: dict[str, list[str]] = {}
        for p in paths:
            self.by_name.setdefault(posixpath.basename(p), []).append(p)

    def resolve(self, target: str, kind: str, doc_dir: str, cwd: str | None) -> str | None:
        if kind == "module":
            rel = target.replace(".", "/")
            cands = [rel + ".py", rel + "/__main__.py"]
        else:
            cands = [target]
        for cand in cands:
            cand = cand.lstrip("/") if cand.startswith("/") else cand
            bases = ([cwd] if cwd is not None else []) + _ancestors(doc_dir)
            for base in bases:
                p = posixpath.normpath(posixpath.join(base, cand)) if base else \
                    posixpath.normpath(cand)
                if p in self.paths:
                    return p
        name = posixpath.basename(cands[0])
        found = self.by_name.get(name, [])
        if len(found) == 1:
            return found[0]
        for base in ([cwd] if cwd else []) + ([doc_dir] if doc_dir else []):
            below = [p for p in found if p.startswith(base + "/")]  # one in a subfolder
            if len(below) == 1:
                return below[0]
        if len(found) > 1 and "/" in cands[0]:  # a path suffix that names one file
            tail = posixpath.normpath(cands[0]).lstrip("./")
            hits = [p for p in found if p == tail or p.endswith("/" + tail)]
            if len(hits) == 1:
                return hits[0]
        return None


_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\(?([\w \t,*]+)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)", re.M)
_IMPORT_DEPTH = 3


def local_imports(path: str, text: str, paths: set[str]) -> list[str]:
    """Repository files a Python file imports (``from options.train import X``, ``import a.b``,
    relative imports), resolved against the file's folder, its parents and the root."""
    here = posixpath.dirname(path)
    found: list[str] = []

    def add(rel: str, bases: list[str]) -> None:
        for base in bases:
            stem = posixpath.normpath(posixpath.join(base, rel)) if base else rel
            for cand in (stem + ".py", stem + "/__init__.py"):
                if cand in paths and cand != path and cand not in found:
                    found.append(cand)
                    return

    for m in _FROM_IMPORT.finditer(text):
        mod, names = m.group(1), [n.split()[0] for n in m.group(2).split(",") if n.strip()]
        dots = len(mod) - len(mod.lstrip("."))
        rel = mod.lstrip(".").replace(".", "/")
        if dots:
            base = here
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            bases = [base]
        else:
            bases = _ancestors(here)
        if rel:
            add(rel, bases)
        for name in names:
            if name != "*":
                add(posixpath.join(rel, name) if rel else name, bases)
    for m in _IMPORT.finditer(text):
        for mod in m.group(1).split(","):
            add(mod.strip().replace(".", "/"), _ancestors(here))
    return found


def find_commands(chunk: Chunk, resolver: _Resolver) -> list[dict[str, Any]]:
    """Commands in a document chunk that run a script, with the script resolved when possible."""
    doc_dir = posixpath.dirname(chunk.path)
    cwd: str | None = None
    found = []
    for offset, line in _logical_lines(chunk.text):
        line = line.strip()
        if not line:
            continue
        spans = _INLINE_CODE.findall(line) if "`" in line.strip("`") else []
        line = _PROMPT.sub("", line.strip("`"))
        segments = [*_SEP.split(line), *spans]
        if not any(parse_command(_split_words(seg)) for seg in segments):
            segments += _IN_PROSE.findall(line)  # "(ex. python test.py)" inside a sentence
        for segment in segments:
            words = _split_words(segment)
            if not words:
                continue
            if words[0] == "cd" and len(words) > 1:
                base = cwd if cwd is not None else doc_dir
                cwd = posixpath.normpath(posixpath.join(base, words[1].rstrip("/"))) \
                    if not words[1].startswith(("/", "~", "$")) else None
                if cwd == ".":
                    cwd = ""
                continue
            parsed = parse_command(words)
            if parsed is None:
                continue
            kind, target, args = parsed
            script = resolver.resolve(target, kind, doc_dir, cwd)
            found.append({
                "command": " ".join(words),
                "target": target,
                "script": script,
                "flags": [a.split("=", 1)[0] for a in args if a.startswith("-")],
                "line": chunk.start_line + offset if chunk.kind != "notebook" else None,
            })
    return found


def link_cli(chunks: list[Chunk]) -> list[Chunk]:
    """Link documentation commands and the ``cli`` chunks of the scripts they run.

    Returns the chunks in the same order; changed ones are new ``Chunk`` objects whose metadata
    carries ``commands`` (documents: every command found, with its resolved ``script`` or
    ``None``, and ``flags_from``: the scripts whose cli chunks describe its flags) and
    ``cli_links`` (documents: ids of the cli chunks they call; cli chunks: ids of the document
    chunks that call them). A script without its own parser gets the cli chunks of the
    repository modules it imports (up to 3 imports deep), e.g. ``train.py`` importing
    ``options/train_options.py``.
    """
    paths = {c.path for c in chunks}
    cli_by_script = {c.metadata.get("script", c.path): i for i, c in enumerate(chunks)
                     if c.kind == "cli"}
    code_text: dict[str, list[str]] = {}
    for c in chunks:
        if c.kind == "code" and c.path.endswith(".py"):
            code_text.setdefault(c.path, []).append(c.text)
    resolver = _Resolver(paths)
    memo: dict[str, list[int]] = {}

    def cli_for(script: str) -> list[int]:
        if script in memo:
            return memo[script]
        if script in cli_by_script:
            memo[script] = [cli_by_script[script]]
            return memo[script]
        out: list[int] = []
        seen = {script}
        frontier = [script]
        for _ in range(_IMPORT_DEPTH):
            nxt = []
            for p in frontier:
                for q in local_imports(p, "\n".join(code_text.get(p, [])), paths):
                    if q in seen:
                        continue
                    seen.add(q)
                    nxt.append(q)
                    if q in cli_by_script:
                        out.append(cli_by_script[q])
            frontier = nxt
        memo[script] = out
        return out

    doc_links: dict[int, tuple[list[dict[str, Any]], list[str]]] = {}
    cli_links: dict[int, list[str]] = {}
    for i, c in enumerate(chunks):
        if c.kind not in _DOC_KINDS or not _CMD_HINT.search(c.text):
            continue
        commands = find_commands(c, resolver)
        if not commands:
            continue
        linked: list[str] = []
        for cmd in commands:
            targets = cli_for(cmd["script"]) if cmd["script"] else []
            cmd["flags_from"] = [chunks[j].metadata.get("script", chunks[j].path) for j in targets]
            for j in targets:
                cli_id = chunks[j].id
                if cli_id not in linked:
                    linked.append(cli_id)
                cli_links.setdefault(j, [])
                if c.id not in cli_links[j]:
                    cli_links[j].append(c.id)
        doc_links[i] = (commands, linked)
    out = list(chunks)
    for i, (commands, linked) in doc_links.items():
        meta = dict(chunks[i].metadata, commands=commands, cli_links=linked)
        out[i] = replace(chunks[i], metadata=meta)
    for j, ids in cli_links.items():
        out[j] = replace(chunks[j], metadata=dict(chunks[j].metadata, cli_links=ids))
    return out
