"""Starting one entry point inside the sandbox, parse-only, and reading what its parser said.

The entry point runs through the ``local`` executor (bubblewrap; a dry run never runs without
it) as ``python -c LOADER SPEC``: the loader unpacks ``SPEC`` (the in-sandbox hook's source,
``HOOK_FILES`` in order, and what to start) and executes it. The hook answers with
``RAGCODE-DRYRUN`` lines on stdout (the program's own output goes to a log inside the sandbox);
the last final one counts, else the last pending one (a partial parse before a timeout).

A run the sandbox cut (the time limit, a memory or disk bound, a crash or a kill: no final
record) is a result with ``cut`` set, never cached. A final verdict is cached under a key of the
hook, the entry point (argv, folder, environment), the script's text, the interpreter with its
Python version, ragcode's version and the dry run's settings (``settings``); the record carries
the files, folders and installed modules the run depended on (``ragcode.dryrun.deps``), and a
lookup that finds any of them changed runs the entry point again.
"""

from __future__ import annotations

import base64
import json
import os
import shlex
import signal
import sys
import zlib
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from ragcode.check import CheckContext
from ragcode.dryrun.deps import Interpreter, interpreter, still_holds
from ragcode.dryrun.result import UNREACHED, Entry, ParseResult
from ragcode.fileio import write_json_atomic
from ragcode.hashing import digest
from ragcode.version import __version__

MARK = "RAGCODE-DRYRUN "
HOOK_FILES = ("_hook.py", "_hook_stubs.py", "_hook_deps.py", "_hook_launch.py", "_hook_fire.py", "_hook_libs.py")
LOADER = ("import base64,json,sys,zlib;S=json.loads(zlib.decompress(base64.b64decode(sys.argv[1])));"
          "exec(compile(S.pop('hook'),'<ragcode-dryrun>','exec'),{'__name__':'ragcode_dryrun','SPEC':S})")
DEFAULT_TIMEOUT_S = 30.0
# the end of the run's stdout kept: the last record with the files and modules it depended on (a
# script importing a large package records hundreds; 4000 bytes, an answer's tail, cut them)
RECORD_TAIL_BYTES = 1 << 20
# the execution settings a dry run's verdict can depend on (the rest is forced or unused there)
SETTINGS = ("env", "ro_paths", "memory_mb", "cpu_s", "file_mb", "disk_mb", "max_procs", "sandbox_uid_base")


def hook_source() -> str:
    here = Path(__file__).parent
    return "\n".join((here / name).read_text(encoding="utf-8") for name in HOOK_FILES)


def _plain(obj: Any) -> Any:
    return json.loads(json.dumps(obj, default=repr))


def decode_lines(stdout: str) -> dict[str, Any] | None:
    """The hook's answer in ``stdout``: the last final record, else the last pending one."""
    final, pending = None, None
    for line in stdout.splitlines():
        if not line.startswith(MARK):
            continue
        try:
            record = json.loads(zlib.decompress(base64.b64decode(line[len(MARK):].strip())))
        except (ValueError, zlib.error):
            continue
        if isinstance(record, dict):
            if record.get("final"):
                final = record
            else:
                pending = record
    return final or pending


class DryRunner:
    """Runs entry points in the sandbox; ``cache_dir`` holds one JSON result per content hash."""

    def __init__(self, execution: Any = None, cache_dir: str | Path | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S):
        from ragcode.config import ExecutionConfig

        self.execution = execution or ExecutionConfig()
        base = cache_dir or Path(os.environ.get("RAGCODE_CACHE", str(Path.home() / ".cache" / "ragcode"))) / "dryrun"
        self.cache_dir = Path(base)
        self.timeout_s = timeout_s
        self._executor: Any = None
        self._hook = hook_source()

    @classmethod
    def from_config(cls, config: Any) -> DryRunner:
        """A runner with ``config``'s execution settings, caching under its index cache folder."""
        cache = getattr(getattr(config, "index", None), "cache_dir", None)
        return cls(config.execution, cache_dir=f"{cache}/dryrun" if cache else None)

    @classmethod
    def for_context(cls, ctx: CheckContext) -> DryRunner:
        runner = ctx.extra.get("dryrun_runner")
        if isinstance(runner, DryRunner):
            return runner
        execution = ctx.extra.get("execution")
        if execution is None and ctx.interpreter:
            from ragcode.config import ExecutionConfig

            execution = ExecutionConfig(python=ctx.interpreter)
        return cls(execution)

    def interpreter(self, ctx: CheckContext) -> Interpreter:
        """The interpreter the sandbox runs ``ctx``'s entry points with (the executor's choice:
        ``execution.envs`` for the repository's folder name, else ``execution.python``, else this
        one), with its Python version and ``sys.path``."""
        ex = self.execution
        name = Path(ctx.repo_dir).name
        return interpreter(ex.envs.get(name) or ex.python or sys.executable, dict(ex.env),
                           lambda code: self._ask(code, name))

    def _ask(self, code: str, repo_name: str) -> str | None:
        """The stdout of ``python -c code`` in the sandbox, with ``repo_name``'s interpreter, in an
        empty folder; None without a sandbox."""
        import tempfile

        from ragcode.execution import ExecSpec

        executor = self._executor_for()
        if executor is None:
            return None
        with tempfile.TemporaryDirectory(prefix="ragcode-probe-") as empty:
            result = executor.run(ExecSpec(shlex.join(["python", "-c", code]), "bash", Path(empty), ".",
                                           self.timeout_s, repo_name=repo_name, stdout_bytes=RECORD_TAIL_BYTES))
        return None if result.infra_error or result.exit_code != 0 else result.stdout

    def settings(self) -> dict[str, Any]:
        """The dry run's own settings that its verdicts depend on."""
        return {"timeout_s": self.timeout_s, **self.execution.model_dump(include=set(SETTINGS))}

    def _key(self, entry: Entry, ctx: CheckContext, facts: Interpreter) -> str:
        script = Path(ctx.repo_dir) / entry.workdir / entry.target if entry.kind == "script" else None
        text = script.read_text(encoding="utf-8", errors="replace") if script is not None and script.is_file() else ""
        return digest({"hook": self._hook, "entry": asdict(entry), "script": text, "python": facts.executable,
                       "python_version": facts.version, "ragcode": __version__, "settings": self.settings()})

    def cache_path(self, entry: Entry, ctx: CheckContext) -> Path:
        """Where ``entry``'s verdict is cached."""
        key = self._key(entry, ctx, self.interpreter(ctx))
        return self.cache_dir / key[:2] / f"{key}.json"

    def run(self, entry: Entry, ctx: CheckContext) -> ParseResult:
        """``entry``'s parse: the cached verdict when its key and every dependency it recorded
        still hold, else a new run, cached when it finished with its dependencies recorded."""
        facts = self.interpreter(ctx)
        path = self.cache_path(entry, ctx)
        cached = _read_record(path)
        if cached is not None and still_holds(cached.get("deps"), ctx.repo_dir, facts):
            return self._result(entry, cached)
        record = self._sandboxed(entry, ctx)
        if record.get("cache", True) and not record.get("cut") and isinstance(record.get("deps"), dict):
            write_json_atomic(path, record)
        return self._result(entry, record)

    @staticmethod
    def _result(entry: Entry, record: dict[str, Any]) -> ParseResult:
        fields = {k: record[k] for k in ("params", "explicit", "unrecognized", "message", "parser", "calls",
                                         "stubbed", "cut", "cause", "spec", "versioned", "machine", "callee", "given")
                  if k in record}
        if not isinstance(fields.get("params", {}), dict):
            fields["params"] = {}
        for listed in ("spec", "versioned", "given"):
            if not isinstance(fields.get(listed, []), list):
                fields[listed] = []
        for text in ("machine", "callee"):
            if not isinstance(fields.get(text, ""), str):
                fields[text] = ""
        return ParseResult(str(record.get("status", UNREACHED)), entry, **fields)

    def _executor_for(self) -> Any:
        if self._executor is None:
            from ragcode.execution.bwrap import bwrap_works
            from ragcode.execution.local import LocalExecutor

            if not bwrap_works():
                return None
            config = self.execution.model_copy(update={"isolation": "bwrap", "network": False, "gpus": []})
            self._executor = LocalExecutor(config)
        return self._executor

    def command(self, entry: Entry, stub_all: bool = False) -> str:
        """The bash line that starts ``entry`` parse-only inside the sandbox."""
        root = os.path.relpath(".", entry.workdir) if entry.workdir not in ("", ".") else "."
        spec = {"hook": self._hook, "kind": entry.kind, "target": entry.target, "argv": list(entry.argv),
                "root": root, "calls": _plain(list(entry.calls)), "stub_all": stub_all}
        payload = base64.b64encode(zlib.compress(json.dumps(spec).encode("utf-8"), 9)).decode("ascii")
        env = [f"{k}={v}" for k, v in entry.env]
        return shlex.join(["env", *env, "python", "-c", LOADER, payload]) if env else \
            shlex.join(["python", "-c", LOADER, payload])

    def _sandboxed(self, entry: Entry, ctx: CheckContext) -> dict[str, Any]:
        """The hook's record; a run that failed on a missing module is tried once more with every
        missing module stubbed (one a library needs: ``tensorboard`` under ``torch.utils``)."""
        record = self._once(entry, ctx, stub_all=False)
        if entry.kind == "launcher":  # a launcher's parser runs on its real modules or not at all
            return record
        if record.get("status") == UNREACHED and "ModuleNotFoundError" in str(record.get("message", "")):
            record = self._once(entry, ctx, stub_all=True)
        return record

    def _once(self, entry: Entry, ctx: CheckContext, stub_all: bool) -> dict[str, Any]:
        from ragcode.execution import ExecSpec

        executor = self._executor_for()
        if executor is None:
            return {"status": UNREACHED, "message": "no bubblewrap sandbox to run the parser in", "cache": False}
        spec = ExecSpec(self.command(entry, stub_all), "bash", Path(ctx.repo_dir), entry.workdir, self.timeout_s,
                        repo_name=Path(ctx.repo_dir).name, stdout_bytes=RECORD_TAIL_BYTES)
        result = executor.run(spec)
        if result.infra_error:
            return {"status": UNREACHED, "message": f"sandbox: {result.infra_error}", "cache": False}
        record = decode_lines(result.stdout)
        if record is not None and record.get("final"):
            return record
        cut = self._cut(result)
        if record is None:  # no parse at all; else the partial parse stands, marked as cut
            return {"status": UNREACHED, **cut, "cache": False}
        return {**record, "cut": cut["cut"], "cause": cut["cause"], "cache": False}

    def _cut(self, result: Any) -> dict[str, str]:
        """Why a run ended without a final verdict: ``cut`` (timeout, limit, crash), what cut it in
        words (``cause``: the limit, or the signal or exit code) and a message saying so."""
        ex = self.execution
        if result.timed_out:
            limit = f"{self.timeout_s:g} s"
            return {"cut": "timeout", "cause": limit, "message": f"no parser reached within {limit}"}
        code = result.exit_code
        sig = code - 128 if isinstance(code, int) and 128 < code < 160 else 0
        bounds = {"memory": f"{ex.memory_mb} MB memory", "disk": f"{ex.disk_mb} MB disk",
                  signal.SIGXCPU: f"{ex.cpu_s} s CPU time", signal.SIGXFSZ: f"{ex.file_mb} MB file size"}
        limit = bounds.get(result.limit_hit) or bounds.get(sig, "")
        if limit:
            return {"cut": "limit", "cause": limit, "message": f"the program ran into the sandbox's {limit} limit "
                    "before any parser answered"}
        why = f"killed by {signal.Signals(sig).name}" if sig in signal.valid_signals() else f"exit code {code}"
        return {"cut": "crash", "cause": why, "message": f"the program ended without a parse ({why})"}


def _read_record(path: Path) -> dict[str, Any] | None:
    """A cached record, or None for a file missing, unreadable, truncated or not a record."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and isinstance(record.get("status"), str) else None


def with_entry(result: ParseResult, entry: Entry) -> ParseResult:
    return replace(result, entry=entry)
