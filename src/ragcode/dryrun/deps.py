"""Whether a cached dry-run verdict still holds: its recorded dependencies recomputed on the host.

A final record of the hook carries ``deps`` (``ragcode.dryrun._hook_deps``): the digest of every
repository file the run read (modules, configs, ``exec(open(...))``), of every repository folder
it listed, and the stamp of every top-level module it imported from outside the repository (the
installed distribution's version; ``None`` for one that was missing and stubbed). ``still_holds``
recomputes them: files and folders from the checkout, module stamps over the configured
interpreter's own ``sys.path``, which ``interpreter`` asks that interpreter for, in the sandbox,
once per process and environment state (its folders' modification times; an install or a
removal changes them).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcode.dryrun import _hook_deps

PROBE = ("import importlib.machinery as m, json, sys; "
         "print(json.dumps([sys.version, [p for p in sys.path if p], m.all_suffixes()]))")


@dataclass(frozen=True)
class Interpreter:
    """What the dry run's interpreter is: its path, ``sys.version``, its own ``sys.path`` (the
    environment's variables applied, the repository not on it) and its module file suffixes;
    ``version`` is empty when it could not be asked."""

    executable: str
    version: str
    path: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()


_KNOWN: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[tuple[int, ...], Interpreter]] = {}
_LOCK = threading.Lock()
_STAMPS: dict[Any, Any] = {}  # folder listings and distribution indexes, keyed by folder mtime


def _signature(executable: str, path: tuple[str, ...]) -> tuple[int, ...]:
    out = []
    for p in (executable, *path):
        try:
            out.append(os.stat(p).st_mtime_ns)
        except OSError:
            out.append(-1)
    return tuple(out)


def _probe(executable: str, ask: Callable[[str], str | None]) -> Interpreter:
    try:
        version, path, suffixes = json.loads((ask(PROBE) or "").strip().splitlines()[-1])
    except (ValueError, IndexError, TypeError):
        return Interpreter(executable, "")
    return Interpreter(executable, str(version), tuple(map(str, path)), tuple(map(str, suffixes)))


def interpreter(executable: str, env: dict[str, str], ask: Callable[[str], str | None]) -> Interpreter:
    """The facts of ``executable`` run with ``env``: ``ask(code)`` runs ``python -c code`` as the
    dry run does (in the sandbox: the interpreter's ``site`` may run code, never on the host) and
    returns its stdout. Asked once, and again when the interpreter or a folder of its ``sys.path``
    has changed since (an install or a removal changes the folder's modification time)."""
    key = (executable, tuple(sorted(env.items())))
    with _LOCK:
        known = _KNOWN.get(key)
    if known is not None and known[0] == _signature(executable, known[1].path):
        return known[1]
    facts = _probe(executable, ask)
    signature = _signature(executable, facts.path)
    if all(_hook_deps.settled(t) for t in signature if t >= 0):
        with _LOCK:
            _KNOWN[key] = (signature, facts)
    return facts


def _digests_hold(recorded: Any, repo: Path, digest: Any) -> bool:
    if not isinstance(recorded, dict):
        return False
    root = repo.resolve()
    for rel, want in recorded.items():
        full = (root / str(rel)).resolve()
        if full != root and root not in full.parents:
            return False
        if digest(str(full)) != want:
            return False
    return True


def still_holds(deps: Any, repo: str | Path, facts: Interpreter) -> bool:
    """Whether every dependency ``deps`` recorded is as it was: the same file and folder digests
    in ``repo``, the same module stamps over ``facts``' ``sys.path``. Anything else (no record, an
    interpreter that could not be asked) is a change."""
    if not isinstance(deps, dict) or not facts.version:
        return False
    repo = Path(repo)
    if not (_digests_hold(deps.get("files"), repo, _hook_deps.file_digest)
            and _digests_hold(deps.get("dirs"), repo, _hook_deps.dir_digest)):
        return False
    modules = deps.get("modules")
    if not isinstance(modules, dict):
        return False
    return all(_hook_deps.module_stamp(str(name), facts.path, facts.suffixes, _STAMPS) == want
               for name, want in modules.items())
