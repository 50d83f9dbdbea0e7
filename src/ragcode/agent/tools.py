"""The agent's tools: small typed functions over one repository, read-only.

- ``search(query, k)``: the task's index (``ragcode.retrieval.search``), each hit with its chunk id;
- ``open(path, start, end)``: a file's lines with their numbers, paged when long;
- ``ls(path)``: a folder's entries;
- ``cli(script)``: the flag table of a script's parser (``ragcode.check.facts.script_flags``);
- ``check(answer)``: the static checks (``ragcode.check``, bash + python + coverage);
- ``run(answer)``: the sandbox (``ragcode.execution``), off by default, with the scorer's limits
  (``execution.*``, timeout ``bench.exec_timeout_s`` or ``execution.timeout_s``);
- ``submit(answer)``: ends the episode with that answer.

Every path is relative to the repository root; one that resolves outside it (``..``, an
absolute path, a link out) is refused. Nothing here writes to the repository: ``run`` works on
the sandbox's scratch copy. Tools are looked up by name in ``TOOLS``.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcode.agent.schema import Observation, Param, Tool, ToolCallError
from ragcode.errors import ConfigError, RepoPathError
from ragcode.fileio import inside_repo
from ragcode.registry import Registry

_SKIP = {".git", "__pycache__", ".hg", ".svn"}
_LINE_CHARS = 400  # a longer line is cut in open's listing
_MAX_READ = 20_000_000  # bytes open reads past the page shown, counting lines
_MAX_SKIP = 1 << 30  # bytes open reads in all (to reach a late start)
_LINE_READ = 1 << 16  # a line is read in pieces of this size


@dataclass
class AgentEnv:
    """What the tools work on: the repository, its index, the config, and the task's working
    directory and instruction (for ``check`` and ``run``; neither is shown to the model)."""

    repo_dir: Path
    index: Any
    config: Any
    workdir: str = "."
    instruction: str = ""
    repo_name: str = ""
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.repo_dir = Path(self.repo_dir).resolve()

    @property
    def limit(self) -> int:
        return int(self.config.agent.max_observation_chars)

    def resolve(self, path: str) -> tuple[Path, str]:
        """``(absolute path, repository-relative path)``, or a refusal when it leaves the repository."""
        try:
            full = inside_repo(self.repo_dir, path)
        except RepoPathError as exc:
            raise ToolCallError(str(exc)) from None
        return full, full.relative_to(self.repo_dir).as_posix() or "."

    def check_context(self) -> Any:
        from ragcode.check import CheckContext

        return CheckContext.for_repo(self.repo_dir, self.workdir, self.instruction, self.config, self.repo_name)

    def lazy(self, name: str, make: Any) -> Any:
        if name not in self._cache:
            self._cache[name] = make()
        return self._cache[name]


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters at a line boundary where one is near, saying so."""
    if len(text) <= limit:
        return text
    head = text[: max(0, limit - 80)]
    nl = head.rfind("\n")
    if nl > len(head) // 2:
        head = head[:nl]
    return f"{head}\n[cut: {len(head)} of {len(text)} characters shown]"


# --- repository reading -----------------------------------------------------------------------

def search_tool(env: AgentEnv, query: str, k: int) -> Observation:
    from ragcode.retrieval.search import search

    if not query.strip():
        raise ToolCallError("search: the query is empty")
    k = max(1, min(int(k), 20))
    hits = search(env.index, query, k, env.config)
    if not hits:
        return Observation(f"no results for {query!r}")
    per_hit = max(200, env.limit // len(hits) - 100)
    parts = []
    for i, hit in enumerate(hits, 1):
        c = hit.chunk
        where = f", {c.symbol}" if c.symbol and c.symbol != c.kind else ""
        parts.append(f"[{i}] {c.id} ({c.kind}{where})\n{cut(c.text, per_hit)}")
    text = "\n\n".join(parts) + "\n\nopen(path, start, end) shows the lines around a hit."
    return Observation(text, chunk_ids=tuple(h.chunk.id for h in hits))


def open_tool(env: AgentEnv, path: str, start: int, end: int) -> Observation:
    full, rel = env.resolve(path)
    if full.is_dir():
        raise ToolCallError(f"open: {rel!r} is a folder; use ls")
    if not full.is_file():
        raise ToolCallError(f"open: no file {rel!r}; use ls or search to find one")
    with full.open("rb") as fh:
        if b"\0" in fh.read(8192):
            return Observation(f"{rel} is a binary file ({full.stat().st_size} bytes); not shown")
        fh.seek(0)
        page = read_page(fh, start, end, env.limit - 160)
    n = page.lines
    if n == 0 and page.complete:
        return Observation(f"{rel} is empty")
    if start < 1 or (start > n and page.complete):
        raise ToolCallError(f"open: {rel} has {n} lines; start must be between 1 and {n}")
    if not page.out:
        raise ToolCallError(f"open: stopped reading {rel} at line {n} (byte {page.offset} of "
                            f"{full.stat().st_size}); start {start} lies past what open reads")
    if 0 < end < start:
        raise ToolCallError(f"open: end {end} is before start {start}")
    bounded = end > 0 and not (page.complete and end >= n)  # an end before the file's last line
    whole = f"of {n}" if page.complete else (f"of at least {n}: stopped reading at byte {page.offset} of "
                                             f"{full.stat().st_size}; later lines are reached with start")
    head = f"{rel} (lines {start}-{page.shown} {whole})"
    more = page.shown < end if bounded else page.shown < n or not page.complete
    tail = "" if not more else (f"\n[more: open(path={rel!r}, start={page.shown + 1}"
                                + (f", end={end})" if bounded else ")") + " shows the next lines]")
    return Observation(head + "\n" + "\n".join(page.out) + tail)


@dataclass
class Page:
    out: list[str]  # the numbered lines shown
    shown: int  # the last line shown (start - 1 when none)
    lines: int  # lines seen in all
    offset: int  # bytes read
    complete: bool  # the end of the file was reached


def read_page(fh: Any, start: int, end: int, budget: int) -> Page:
    """Lines ``start``..``end`` (0: to the page's end) of a binary file, numbered, within
    ``budget`` characters; then the lines counted on up to ``_MAX_READ`` bytes past the page.
    Reading stops at ``_MAX_SKIP`` bytes in all; a line is kept to ``_LINE_CHARS``."""
    out: list[str] = []
    used, shown, n, offset, stop_at = 0, start - 1, 0, 0, _MAX_SKIP
    collecting = True
    while offset < stop_at:
        piece = fh.readline(_LINE_READ)
        if not piece:
            return Page(out, shown, n, offset, True)
        offset += len(piece)
        while not piece.endswith(b"\n"):  # the rest of a long line: counted, not kept
            rest = fh.readline(_LINE_READ)
            if not rest:
                break
            offset += len(rest)
            piece = piece[:_LINE_READ] + rest[-1:]
        n += 1
        if not collecting or n < start:
            continue
        text = piece.decode("utf-8", "replace").rstrip("\r\n")
        line = f"{n:>5}| {text if len(text) <= _LINE_CHARS else text[:_LINE_CHARS] + ' [line cut]'}"
        if (used + len(line) + 1 > budget and shown >= start) or (0 < end < n):
            collecting, stop_at = False, min(_MAX_SKIP, offset + _MAX_READ)
            continue
        out.append(line[:budget])
        used += len(line) + 1
        shown = n
    return Page(out, shown, n, offset, False)


def ls_tool(env: AgentEnv, path: str) -> Observation:
    full, rel = env.resolve(path)
    if not full.is_dir():
        raise ToolCallError(f"ls: {rel!r} is not a folder" + ("; use open" if full.is_file() else ""))
    with os.scandir(full) as it:  # file types from the listing itself: no stat per entry
        children = sorted((c for c in it if c.name not in _SKIP),
                          key=lambda c: (not c.is_dir(follow_symlinks=False), c.name.lower()))
    entries: list[str] = []
    used = 0
    for child in children:
        if used > env.limit:  # only what can be shown is looked at
            entries.append(f"[... {len(children) - len(entries)} more entries]")
            break
        if child.is_symlink():  # not followed here: open and ls say whether it stays inside
            entries.append(f"{child.name}@  (link)")
        elif child.is_dir(follow_symlinks=False):
            entries.append(child.name + "/")
        else:
            try:
                size = child.stat(follow_symlinks=False).st_size
            except OSError:
                size = 0
            entries.append(f"{child.name}  ({size} bytes)")
        used += len(entries[-1]) + 1
    head = f"{rel}/: {len(children)} entries" if rel != "." else f"repository root: {len(children)} entries"
    return Observation(cut("\n".join([head, *entries]), env.limit))


def cli_tool(env: AgentEnv, script: str) -> Observation:
    from ragcode.check.facts import script_flags
    from ragcode.chunking.scripts.table import format_flag

    full, rel = env.resolve(script)
    if not full.is_file():
        raise ToolCallError(f"cli: no file {rel!r}; use ls or search to find the script")
    flags = script_flags(full)
    if not flags:
        return Observation(f"{rel}: no command-line parser found (argparse, click, typer or absl)")
    lines = [f"Command-line flags of {rel}:"] + [format_flag(f) for f in flags]
    return Observation(cut("\n".join(lines), env.limit))


# --- answers ----------------------------------------------------------------------------------

def _parsed(answer: str, tool: str) -> Any:
    from ragcode.generation.parse import parse_answer

    parsed = parse_answer(answer)
    if not parsed.code.strip():
        raise ToolCallError(f"{tool}: the answer is empty")
    return parsed


def check_tool(env: AgentEnv, answer: str) -> Observation:
    from ragcode.check import DEFAULT_CHECKS, check_answer, load_checkers, penalty

    parsed = _parsed(answer, "check")
    # the checks generation runs (generation.check), so the agent's check says what generation's would
    checkers = env.lazy("checkers", lambda: load_checkers(env.config.generation.check or DEFAULT_CHECKS, env.config))
    ctx = env.check_context()
    findings = check_answer(parsed.code, parsed.answer_type, ctx, checkers)
    proposed: dict[str, Any] = {"answer": answer, "penalty": penalty(findings), "findings": len(findings),
                                "tool": "check"}
    if not findings:
        return Observation(cut(f"{parsed.answer_type} answer: the checks found nothing wrong", env.limit),
                           proposed=proposed)
    text = "\n".join([f"{parsed.answer_type} answer: {len(findings)} finding(s)"]
                     + [f"- {f.severity}: {f.message}" for f in findings])
    fixed = _kept_fix(parsed.code, parsed.answer_type, findings, ctx, checkers, env)
    if fixed is None:
        return Observation(cut(text, env.limit), proposed=proposed)
    tail = f"The automatic fixes would make it ({len(fixed.findings)} finding(s) left):\n{fixed.code}"
    proposed.update(fixed=fixed.code, fixed_findings=len(fixed.findings))
    head = cut(text, max(200, env.limit - len(tail) - 1))  # the findings are cut, never the fixed answer
    return Observation(cut(f"{head}\n{tail}", env.limit), proposed=proposed)


def _kept_fix(code: str, answer_type: str, findings: list[Any], ctx: Any, checkers: list[Any],
              env: AgentEnv) -> Any:
    """The answer as checked generation's fixes (``generation.fixes``) would return it, when the
    keep rule they share keeps it (``ragcode.answer.fixes.fix_and_keep``); else None."""
    from ragcode.answer.fixes import fix_and_keep

    return fix_and_keep(code, answer_type, findings, ctx, checkers, env.config.generation.fixes)


def run_tool(env: AgentEnv, answer: str) -> Observation:
    from ragcode.check import penalty
    from ragcode.check.executed import findings_from_stderr
    from ragcode.execution import ExecSpec, load_executor

    parsed = _parsed(answer, "run")
    cfg = env.config
    timeout = cfg.bench.exec_timeout_s or cfg.execution.timeout_s
    executor = env.lazy("executor", lambda: load_executor(cfg.execution))
    result = executor.run(ExecSpec(code=parsed.code, mode="bash" if parsed.answer_type == "bash" else "python",
                                   repo_dir=env.repo_dir, workdir=env.workdir or ".", timeout_s=timeout,
                                   repo_name=env.repo_name))
    if result.infra_error:
        return Observation(f"the sandbox could not run it: {result.infra_error}")
    if result.timed_out:
        head, score = f"still running after {timeout:g}s; stopped (no error by then)", 0.0
    else:
        ok = result.exit_code == 0 and not result.limit_hit
        head = f"exit code {result.exit_code}" + (f"; it hit the sandbox's {result.limit_hit} limit"
                                                  if result.limit_hit else "")
        score = 0.0 if ok else (penalty(findings_from_stderr(result.stderr)) or 1.5)
    half = max(200, env.limit // 2 - 100)
    text = head + "".join(f"\n{name} (last lines):\n{value[-half:]}" for name, value in
                          (("stdout", result.stdout), ("stderr", result.stderr)) if value.strip())
    return Observation(cut(text, env.limit), proposed={"answer": answer, "penalty": score,
                                                         "exit_code": result.exit_code, "tool": "run"})


def submit_tool(env: AgentEnv, answer: str) -> Observation:
    _parsed(answer, "submit")
    return Observation("submitted", done=True, answer=answer)


_ANSWER = Param("answer", "string", "one bash command line, or one complete Python script")

SEARCH = Tool("search", "Search the repository's index (documentation, code, flag tables); "
              "each hit shows its chunk id (path:lines:kind:hash) and text.",
              (Param("query", "string", "what to look for, in words or code names"),
               Param("k", "integer", "how many hits (1-20)", 5)), search_tool)
OPEN = Tool("open", "Show a file's lines with their numbers; long files come in pages.",
            (Param("path", "string", "file path relative to the repository root"),
             Param("start", "integer", "first line (1-based)", 1),
             Param("end", "integer", "last line; 0 = to the end of the page", 0)), open_tool)
LS = Tool("ls", "List a folder of the repository.",
          (Param("path", "string", "folder path relative to the repository root", "."),), ls_tool)
CLI = Tool("cli", "The command-line flags a Python script's parser declares: names, types, "
           "defaults, choices, help.", (Param("script", "string", "script path relative to the "
                                              "repository root"),), cli_tool)
CHECK = Tool("check", "Check an answer against the repository without running it: scripts "
             "and flags that do not exist, bad choices, imports that resolve nowhere, values of "
             "the task the answer leaves out.", (_ANSWER,), check_tool)
RUN = Tool("run", "Run an answer in a sandbox (a scratch copy of the repository, short "
           "timeout) and see its exit code and output.", (_ANSWER,), run_tool)
SUBMIT = Tool("submit", "Give your final answer; this ends the episode.", (_ANSWER,), submit_tool)

TOOLS = Registry("agent tool", {name: f"ragcode.agent.tools:{name.upper()}" for name in
                                ("search", "open", "ls", "cli", "check", "run", "submit")})


@functools.lru_cache(maxsize=64)
def load_tools(names: tuple[str, ...], search_k: int = 5) -> tuple[Tool, ...]:
    """The named tools (``agent.tools``), each once, with ``submit`` always last; ``search``'s
    default ``k`` is ``search_k`` (``agent.search_k``)."""
    out: list[Tool] = []
    for name in names:
        tool = TOOLS.get(name)
        if not isinstance(tool, Tool):
            raise ConfigError(f"agent.tools: {name!r} is not a ragcode.agent.schema.Tool")
        if tool is SEARCH:
            k = dataclasses.replace(tool.params[1], default=search_k)
            tool = dataclasses.replace(tool, params=(tool.params[0], k))
        if tool.name != "submit" and all(t.name != tool.name for t in out):
            out.append(tool)
    return (*out, SUBMIT)
