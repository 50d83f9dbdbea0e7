"""Scoring policies by name: each turns one sample of one task into a ``Verdict``.

- ``mlbench-legacy``: the official scorer (see ``ragcode.bench.legacy`` for every rule and quirk);
- ``static``: the two text checks plus checks that need no environment (``static_checks``);
- ``exec-strict``: the two text checks plus an execution that exits 0 (a timeout fails);
- ``parsed``: the reference's entry point, and the values it sets, as the repository's own parser
  reads them (``ragcode.bench.parsed``; a parse-only dry run of reference and answer).

With no executor (``--no-exec``) the execution step is skipped and only the text checks count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ragcode.bench import legacy
from ragcode.bench.repos import repo_dir_for, task_dir
from ragcode.registry import Registry
from ragcode.types import Task, Verdict

if TYPE_CHECKING:
    from ragcode.config import Config
    from ragcode.execution import ExecResult, Executor


@dataclass
class ScoreContext:
    repos_dir: Path
    config: Config
    executor: Executor | None = None  # None: no execution (text checks only)


@runtime_checkable
class Scorer(Protocol):
    name: str
    executes: bool  # whether the policy runs answers (when an executor is given)

    def score_sample(self, task: Task, output: str, index: int, ctx: ScoreContext) -> Verdict:
        ...


def _text_checks(task: Task, output: str) -> dict[str, bool]:
    return {"arguments": legacy.arguments_ok(output, task.arguments),
            "type": legacy.type_ok(output, task.type)}


_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^'.]+)")
_COMMAND_NOT_FOUND = re.compile(r"([\w.+-]+): command not found")
_NO_GPU = re.compile(r"(nvidia-smi: command not found|Found no NVIDIA driver|Torch not compiled with CUDA enabled|no CUDA-capable device"
                     r"|CUDA_HOME environment variable is not set|CUDA driver version is insufficient)")


def environment_failure(stderr: str, repo_dir: Path | None = None) -> str:
    """Why a failed run points at the machine rather than the answer ('' when it does not):
    no GPU, or a missing module (or console command, e.g. ``fairseq-train``) that the
    repository's own code imports or that its docs / requirement files say to install (a real dependency the environment lacks; a module only
    the answer mentions may be made up, so it stays a model failure). Counted as an
    infrastructure failure."""
    m = _NO_GPU.search(stderr)
    if m:
        return f"needs a GPU / CUDA ({m.group(1)})"
    m = _MISSING_MODULE.search(stderr)
    if m and repo_dir is not None:
        from ragcode.check.facts_env import repo_declared_packages, repo_imports

        if m.group(1) in repo_imports(repo_dir):
            return f"environment lacks module {m.group(1)!r}, which the repository imports"
        if m.group(1).lower() in repo_declared_packages(repo_dir):
            return f"environment lacks module {m.group(1)!r}, which the repository says to pip install"
    if repo_dir is not None:
        from ragcode.check.facts_env import repo_declared_packages

        declared = repo_declared_packages(repo_dir)
        for cmd in _COMMAND_NOT_FOUND.findall(stderr):
            norm = cmd.lower().replace("-", "_")
            if any(norm == p or norm.startswith(p + "_") for p in declared):
                return f"environment lacks command {cmd!r} (from a package the repository says to install)"
    return ""


def _verdict(task: Task, index: int, policy: str, checks: dict[str, bool],
             result: ExecResult | None = None, detail: str = "", repo_dir: Path | None = None) -> Verdict:
    infra = result.infra_error if result is not None else ""
    if result is not None and not infra and not result.timed_out and result.exit_code not in (0, None):
        infra = environment_failure(result.stderr, repo_dir)
    return Verdict(
        task_key=task.key, sample_index=index, policy=policy,
        passed=bool(checks) and all(checks.values()) and not infra,
        checks=checks,
        exit_code=result.exit_code if result is not None else None,
        timed_out=result.timed_out if result is not None else False,
        infra_error=infra,
        detail=detail or (result.stderr[-500:] if result is not None and result.exit_code else ""),
    )


def _missing_repo(folder: str, ctx: ScoreContext) -> str:
    return f"repository {folder!r} not found under {ctx.repos_dir}; run `ragcode mlbench prepare`"


def _execute(task: Task, output: str, ctx: ScoreContext, timeout_s: float, drain: bool) -> ExecResult:
    from ragcode.execution import ExecResult, ExecSpec

    assert ctx.executor is not None
    repo_dir, folder = repo_dir_for(task, ctx.repos_dir)
    if not repo_dir.is_dir():
        return ExecResult(None, False, ctx.executor.isolation(),
                          infra_error=_missing_repo(folder, ctx))
    spec = ExecSpec(code=output, mode=legacy.run_mode(output), repo_dir=repo_dir,
                    workdir=str(task_dir(Path("."), task.path)), timeout_s=timeout_s,
                    repo_name=folder, drain_stdout=drain)
    return ctx.executor.run(spec)


class _ExecutedScorer:
    """The text checks, then (when they pass and an executor is given) one sandboxed run whose
    result adds the policy's own check ``exec_check``."""

    name = ""
    executes = True
    exec_check = ""
    drain = True

    def timeout(self, task: Task, output: str, ctx: ScoreContext) -> float:
        raise NotImplementedError

    def run_passed(self, result: ExecResult) -> bool:
        raise NotImplementedError

    def score_sample(self, task: Task, output: str, index: int, ctx: ScoreContext) -> Verdict:
        checks = _text_checks(task, output)
        if not all(checks.values()) or ctx.executor is None:
            return _verdict(task, index, self.name, checks)
        result = _execute(task, output, ctx, self.timeout(task, output, ctx), drain=self.drain)
        checks[self.exec_check] = self.run_passed(result)
        return _verdict(task, index, self.name, checks, result,
                        repo_dir=repo_dir_for(task, ctx.repos_dir)[0])


class LegacyScorer(_ExecutedScorer):
    """ML-Bench's official rule: exit 0, or still running at the per-repository timeout."""

    name = "mlbench-legacy"
    exec_check = "executes"
    drain = False

    def timeout(self, task: Task, output: str, ctx: ScoreContext) -> float:
        return legacy.legacy_timeout(task.github_id, legacy.run_mode(output))

    def run_passed(self, result: ExecResult) -> bool:
        return (result.timed_out or result.exit_code == 0) and not result.limit_hit


class ExecStrictScorer(_ExecutedScorer):
    """Exit 0 within the configured timeout; a timeout fails."""

    name = "exec-strict"
    exec_check = "exit_0"

    def timeout(self, task: Task, output: str, ctx: ScoreContext) -> float:
        return ctx.config.bench.exec_timeout_s or ctx.config.execution.timeout_s

    def run_passed(self, result: ExecResult) -> bool:
        return (not result.timed_out) and result.exit_code == 0 and not result.limit_hit


class StaticScorer:
    name = "static"
    executes = False

    def score_sample(self, task: Task, output: str, index: int, ctx: ScoreContext) -> Verdict:
        from ragcode.bench.static_checks import check_python, check_shell
        from ragcode.execution import ExecResult

        checks = _text_checks(task, output)
        repo_dir, folder = repo_dir_for(task, ctx.repos_dir)
        if not repo_dir.is_dir():
            return _verdict(task, index, self.name, checks,
                            ExecResult(None, False, "static", infra_error=_missing_repo(folder, ctx)))
        where = task_dir(repo_dir, task.path)
        if legacy.run_mode(output) == "bash":
            res = check_shell(output, repo_dir, where)
        else:
            interp = ctx.config.execution.envs.get(folder) or ctx.config.execution.python
            res = check_python(output, repo_dir, where, interp)
        checks.update(res.checks)
        return _verdict(task, index, self.name, checks, detail="; ".join(res.notes))


SCORERS = Registry("scoring policy", {
    "mlbench-legacy": "ragcode.bench.scoring:LegacyScorer",
    "static": "ragcode.bench.scoring:StaticScorer",
    "exec-strict": "ragcode.bench.scoring:ExecStrictScorer",
    "parsed": "ragcode.bench.parsed:ParsedScorer",  # the repository's parser: same entry point, same values
})


def load_scorer(name: str) -> Scorer:
    return SCORERS.get(name)()


def executor_for(scorer: Scorer, config: Config, execute: bool = True) -> Executor | None:
    """The configured executor when ``execute`` is asked and the policy runs answers, else None
    (the policy's text checks only). The one place a scoring run chooses its executor."""
    if not (execute and scorer.executes):
        return None
    from ragcode.execution import load_executor

    return load_executor(config.execution)
