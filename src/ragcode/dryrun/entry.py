"""The Python entry points an answer runs, as the dry run starts them.

Bash: every script or module call (``ragcode.check.bash.walk``: ``cd`` followed, env prefixes,
``torchrun``, ``python -m torch.distributed.launch``, ``accelerate launch`` and other launchers
reduced to the script they start; the launcher's own options are parsed apart, by
``ragcode.dryrun.launchers``); a ``bash X.sh`` that takes no arguments is opened to the
Python command inside it (``ragcode.check.expand.inner_command``); a command the repository
installs (``whisper talk.wav``: ``ragcode.check.facts.console_targets``) is started as the
``module:function`` it runs. A call whose words hold a
shell variable is left out (its values are unknown). Python: the answer's calls of names imported
from the repository, and constant keys looked up in them (``registry["vit_h"]``), with their
literal arguments; a name the answer binds once, at module level, to a literal (``dim = 64``
then ``Unet(dim)``) passes that literal; a method called on a name bound once, at module level, to
a call of a repository callable (``tok = RegexTokenizer()`` then ``tok.train(text, 512)``) is that
callable's method (``instance``: the sandbox binds it only when the callable is a class).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

from ragcode.check import CheckContext
from ragcode.check.answer import read_answer
from ragcode.check.bash import Step, walk
from ragcode.check.expand import inner_command
from ragcode.check.facts import installed_command, module_file
from ragcode.dryrun.result import Entry
from ragcode.shell import parse_command, split_commands, split_prefix

# what a distributed launcher would have set for the one process the dry run starts
LAUNCHED_ENV = (("LOCAL_RANK", "0"), ("RANK", "0"), ("WORLD_SIZE", "1"), ("MASTER_ADDR", "127.0.0.1"),
                ("MASTER_PORT", "29500"))


def entries(code: str, answer_type: str, ctx: CheckContext) -> list[Entry]:
    if answer_type == "python":
        entry = python_entry(code, ctx)
        return [entry] if entry is not None else []
    out: list[Entry] = []
    for step in walk(code, ctx, others=True):
        entry = _bash_entry(step, ctx)
        if entry is not None:
            out.append(entry)
    return out


def _rel(path: Path, repo: Path) -> str:
    return os.path.relpath(path, repo)


def _console_entry(step: Step, ctx: CheckContext) -> Entry | None:
    """A command the repository installs (``whisper talk.wav --model base``), started as the
    ``module:function`` its packaging names, with the command's name as ``argv[0]``."""
    repo = Path(ctx.repo_dir).resolve()
    target = installed_command(list(step.words), repo)
    env, words = split_prefix(list(step.words))
    if target is None or step.expands:
        return None
    return Entry("console", target, tuple(words), _rel(step.cwd, repo), tuple(sorted(env.items())),
                 step.first_line + 1, shown=" ".join(step.words))


def _bash_entry(step: Step, ctx: CheckContext) -> Entry | None:
    call = step.call
    if call is None:
        return _console_entry(step, ctx) if step.words[:1] != ["cd"] else None
    repo = Path(ctx.repo_dir).resolve()
    shown = " ".join(step.words)
    if call.kind == "script" and call.target.endswith(".sh"):
        if call.args or step.path is None or repo not in step.path.resolve().parents:
            return None
        inner = inner_command(step.path)
        words = split_commands(inner)[0] if inner else []
        call = parse_command(words) if words else None
        if call is None or any("$" in w for w in (call.target, *call.args)):
            return None
    elif step.expands:
        return None  # a shell variable's value is not known
    if call.kind == "script" and not call.target.endswith(".py"):
        return None
    env = dict(call.env)
    head = (call.launcher.split() or [""])[0].rsplit("/", 1)[-1]  # "" for ./train.py run directly
    if head and (not head.startswith("python") or "-m" in call.launcher.split()):
        env = {**dict(LAUNCHED_ENV), **env}
    return Entry(call.kind, call.target, tuple(call.args), _rel(step.cwd, repo), tuple(sorted(env.items())),
                 step.first_line + 1, shown=shown)


# -- Python answers ----------------------------------------------------------------------------
def _repo_module(name: str, ctx: CheckContext) -> bool:
    roots = [ctx.task_dir, Path(ctx.repo_dir)]
    return module_file(name.split(".")[0], roots) is not None


def _imported_names(tree: ast.Module, ctx: CheckContext) -> dict[str, tuple[str, list[str]]]:
    """Local name -> (module to import, attributes to follow) for imports of repository code."""
    names: dict[str, tuple[str, list[str]]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level and _repo_module(node.module, ctx):
            for alias in node.names:
                if alias.name != "*":
                    names[alias.asname or alias.name] = (node.module, [alias.name])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _repo_module(alias.name, ctx):
                    local = alias.asname or alias.name.split(".")[0]
                    module = alias.name if alias.asname else alias.name.split(".")[0]
                    names[local] = (module, [])
    return names


def _chain(node: ast.expr) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def _literal(node: ast.expr, constants: dict[str, Any] | None = None) -> Any:
    """``node``'s value when it is a literal, or a name bound to one (``constants``); else None."""
    if isinstance(node, ast.Name) and constants and node.id in constants:
        return constants[node.id]
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _store_counts(tree: ast.Module) -> dict[str, int]:
    """How often each name is bound anywhere in ``tree``: 1 for each store, 2 for a parameter or a
    ``global``/``nonlocal`` declaration (a name bound once at module level counts exactly 1)."""
    stores: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):
            stores[node.arg] = stores.get(node.arg, 0) + 2
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                stores[name] = stores.get(name, 0) + 2
    return stores


def _constants(tree: ast.Module) -> dict[str, Any]:
    """Names the answer binds once, at module level, to a literal (``embed_dim = 768``): a call
    passing ``embed_dim`` passes 768. A name stored anywhere else too (reassigned, a loop
    variable, a parameter) is left out."""
    stores = _store_counts(tree)
    out: dict[str, Any] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            value = _literal(stmt.value)
            if stores.get(name) == 1 and value is not None:  # None reads the same as unknown
                out[name] = value
    return out


def _instances(tree: ast.Module, names: dict[str, tuple[str, list[str]]]) -> dict[str, tuple[str, list[str]]]:
    """Names the answer binds once, at module level, to a call of a repository callable
    (``tok = RegexTokenizer()``), -> that callable: ``tok.train(...)`` is then its method's call.
    A name stored anywhere else too is left out (what it holds there cannot be told)."""
    stores = _store_counts(tree)
    out: dict[str, tuple[str, list[str]]] = {}
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call)):
            continue
        chain = _chain(stmt.value.func)
        name = stmt.targets[0].id
        if chain and chain[0] in names and stores.get(name) == 1 and name not in names:
            module, attrs = names[chain[0]]
            out[name] = (module, [*attrs, *chain[1:]])
    return out


def _call_spec(node: ast.Call | ast.Subscript, names: dict[str, tuple[str, list[str]]],
               constants: dict[str, Any] | None = None,
               instances: dict[str, tuple[str, list[str]]] | None = None) -> dict[str, Any] | None:
    target = node.func if isinstance(node, ast.Call) else node.value if isinstance(node, ast.Subscript) else None
    chain = _chain(target) if target is not None else None
    made = (instances or {}).get(chain[0]) if chain and isinstance(node, ast.Call) and len(chain) == 2 else None
    if not chain or (chain[0] not in names and made is None):
        return None
    module, attrs = made if made is not None else names[chain[0]]
    spec: dict[str, Any] = {"line": node.lineno, "name": ".".join(chain), "module": module,
                            "attrs": [*attrs, *chain[1:]]}
    if made is not None:  # a method of what a repository class made: bound with its ``self``
        spec["instance"] = True
    if isinstance(node, ast.Subscript):
        key = _literal(node.slice)
        if not isinstance(key, str):
            return None
        return {**spec, "key": key}
    assert isinstance(node, ast.Call)
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None  # *args / **kwargs: what binds where cannot be told
    return {**spec, "npos": len(node.args), "kw": [k.arg for k in node.keywords],
            "posnames": [a.id if isinstance(a, ast.Name) else "" for a in node.args],
            "values": [_literal(a, constants) for a in node.args],
            "kwvalues": {k.arg: _literal(k.value, constants) for k in node.keywords}}


def python_entry(code: str, ctx: CheckContext) -> Entry | None:
    tree = read_answer(code, "python").tree  # the one guarded parse: nesting past the stack is no tree
    if tree is None:
        return None
    names = _imported_names(tree, ctx)
    if not names:
        return None
    nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Call, ast.Subscript))]
    constants, instances = _constants(tree), _instances(tree, names)
    calls = [s for s in (_call_spec(n, names, constants, instances) for n in nodes) if s is not None]
    if not calls:
        return None
    calls.sort(key=lambda s: s["line"])
    return Entry("calls", "", workdir=_rel(ctx.task_dir, Path(ctx.repo_dir).resolve()), line=calls[0]["line"],
                 calls=tuple(calls))
