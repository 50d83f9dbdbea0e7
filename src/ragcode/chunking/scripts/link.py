"""README commands linked to the ``cli`` chunks of the scripts they run.

``link_cli`` finds commands in documentation chunks (``python train.py --lr 0.1``,
``python -m pkg.mod``, ``torchrun ... main.py``, ``accelerate launch x.py``, ``bash run.sh``,
``!python`` / ``%run`` in notebooks; ``cd dir`` earlier in the same chunk is followed; ``\\``
continuations are joined) and resolves the script against the directory of the last ``cd``,
the document's directory, the repository root, then a unique file name.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from typing import Any

from ragcode import shell
from ragcode.types import Chunk

_DOC_KINDS = ("markdown", "notebook", "shell", "text")
# a cheap test before a chunk is read line by line
_CMD_HINT = re.compile(rf"\b(?:{shell.LAUNCHER_WORD})\b|%run\b|\.sh\b|\./\S+\.py\b")
_PROMPT = re.compile(r"^\s*(?:\$|>>>|>|#\s*\$|!|%%bash|%%sh)\s*")
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_IN_PROSE = re.compile(  # "(ex. python test.py)" inside a sentence
    rf"(?:^|[\s(\[\"'])((?:{shell.LAUNCHER_WORD})\s+[\w./-]+\.(?:py|sh)\b[^)\]\"'`]*)")


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
    for offset, line in shell.logical_lines(chunk.text):
        line = line.strip()
        if not line:
            continue
        spans = _INLINE_CODE.findall(line) if "`" in line.strip("`") else []
        line = _PROMPT.sub("", line.strip("`"))
        commands = [words for part in [line, *spans] for words in shell.split_commands(part)]
        if not any(shell.parse_command(words) for words in commands):
            commands += [words for part in _IN_PROSE.findall(line)
                         for words in shell.split_commands(part)]
        for words in commands:
            if words[0] == "cd" and len(words) > 1:
                base = cwd if cwd is not None else doc_dir
                cwd = posixpath.normpath(posixpath.join(base, words[1].rstrip("/"))) \
                    if not words[1].startswith(("/", "~", "$")) else None
                if cwd == ".":
                    cwd = ""
                continue
            call = shell.parse_command(words)
            if call is None:
                continue
            found.append({
                "command": " ".join(words),
                "target": call.target,
                "script": resolver.resolve(call.target, call.kind, doc_dir, cwd),
                "flags": [a.split("=", 1)[0] for a in call.args if a.startswith("-")],
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
