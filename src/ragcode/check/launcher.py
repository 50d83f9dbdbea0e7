"""A cluster launcher the user did not ask for: ``run_with_submitit.py`` where ``main.py`` runs.

Research repositories ship, beside their training script, a second entry point that submits the
same run as a cluster job (``run_with_submitit.py``, ``submitit_pretrain.py``): it imports a
job-submission library and the training script, whose parser it extends with the cluster's flags
(``--nodes``, ``--partition``, ``--use_volta32``). The README shows both, and a small model copies
the cluster one for a run the user asked for in plain words. ``cluster_launcher`` tells such a
call, when the instruction says no word of clusters or jobs (``SLURM``, ``nodes``, ``partition``);
its suggestion is the wrapped script, written where the launcher was. The ``unlaunch`` fix step
(``ragcode.answer.fixes``) moves the call there; the cluster flags, which the wrapped script
refuses, are left for ``drop``.

Which script it wraps: the one module of the launcher's own folder that it imports and that has a
command line of its own (``import main as classification``); none, or two: no finding.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from pathlib import Path

from ragcode.check import WARNING, Finding, say
from ragcode.check.facts import mtime, read_text, script_flags

JOB_LIBRARIES = frozenset({"submitit"})  # libraries that submit a Python function as a cluster job
_CLUSTER_WORDS = frozenset({"slurm", "submitit", "cluster", "clusters", "node", "nodes", "multinode", "partition",
                            "job", "jobs", "scheduler", "sbatch", "srun"})


def wrapped_script(path: Path) -> Path | None:
    """The script of its own folder that the job launcher at ``path`` runs, or None when
    ``path`` imports no job library or not exactly one sibling module with a command line."""
    launch = _launch(path)
    return launch[0] if launch else None


def _launch(path: Path) -> tuple[Path, str] | None:
    """The script the launcher at ``path`` wraps and the job libraries it imports."""
    names = _imports_of(path.resolve(), mtime(path)) if path.suffix == ".py" else frozenset()
    libraries = sorted(names & JOB_LIBRARIES)
    if not libraries:
        return None
    siblings = [path.parent / f"{n}.py" for n in sorted(names) if n != path.stem]
    runnable = [p for p in siblings if p.is_file() and script_flags(p)]
    return (runnable[0], ", ".join(libraries)) if len(runnable) == 1 else None


@functools.lru_cache(maxsize=256)
def _imports_of(path: Path, _mtime: float) -> frozenset[str]:
    """What the script at ``path`` imports (``_imported``), read once per version of the file."""
    text = read_text(path)
    try:
        return frozenset(_imported(ast.parse(text))) if text is not None else frozenset()
    except (SyntaxError, ValueError):
        return frozenset()


def _imported(tree: ast.Module) -> set[str]:
    """The top-level names of the modules ``tree`` imports anywhere (``import a.b`` -> ``a``)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".")[0])
    return out


def asks_cluster(instruction: str) -> bool:
    """The instruction speaks of a cluster or its jobs (``on 2 nodes``, ``the SLURM partition``)."""
    return bool(set(re.findall(r"[a-z-]+", instruction.lower())) & _CLUSTER_WORDS)


def cluster_launcher(target: str, path: Path | None, instruction: str, line: int) -> list[Finding]:
    """``cluster-launcher`` for a call of the script at ``path`` (written ``target``) that wraps
    another in a cluster job, when the instruction asks for no cluster."""
    launch = _launch(path) if path is not None else None
    if launch is None or asks_cluster(instruction):
        return []
    instead = os.path.join(os.path.dirname(target), launch[0].name)
    return [Finding("bash", "cluster-launcher", say("cluster-launcher", script=target, library=launch[1],
                                                    wrapped=instead),
                    severity=WARNING, line=line, target=target, suggestion=instead)]
