"""Starting one entry point inside the sandbox, parse-only, and reading what its parser said.

The entry point runs through the ``local`` executor (bubblewrap; a dry run never runs without
it) as ``python -c LOADER SPEC``: the loader unpacks ``SPEC`` (the in-sandbox hook's source,
``HOOK_FILES`` in order, and what to start) and executes it. The hook answers with
``RAGCODE-DRYRUN`` lines on stdout (the program's own output goes to a log inside the sandbox);
the last final one counts, else the last pending one (a partial parse before a timeout).
Results are cached by content hash: the hook, the entry point (argv, folder, environment), the
script's text and the interpreter.
"""

from __future__ import annotations

import base64
import json
import os
import shlex
import zlib
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from ragcode.check import CheckContext
from ragcode.dryrun.result import UNREACHED, Entry, ParseResult
from ragcode.fileio import write_json_atomic
from ragcode.hashing import digest

MARK = "RAGCODE-DRYRUN "
HOOK_FILES = ("_hook.py", "_hook_stubs.py", "_hook_libs.py")
LOADER = ("import base64,json,sys,zlib;S=json.loads(zlib.decompress(base64.b64decode(sys.argv[1])));"
          "exec(compile(S.pop('hook'),'<ragcode-dryrun>','exec'),{'__name__':'ragcode_dryrun','SPEC':S})")
DEFAULT_TIMEOUT_S = 30.0


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
    def for_context(cls, ctx: CheckContext) -> DryRunner:
        runner = ctx.extra.get("dryrun_runner")
        if isinstance(runner, DryRunner):
            return runner
        execution = ctx.extra.get("execution")
        if execution is None and ctx.interpreter:
            from ragcode.config import ExecutionConfig

            execution = ExecutionConfig(python=ctx.interpreter)
        return cls(execution)

    def _key(self, entry: Entry, ctx: CheckContext) -> str:
        script = Path(ctx.repo_dir) / entry.workdir / entry.target if entry.kind == "script" else None
        text = script.read_text(encoding="utf-8", errors="replace") if script is not None and script.is_file() else ""
        return digest({"hook": self._hook, "entry": asdict(entry), "script": text,
                       "python": self.execution.python or os.environ.get("RAGCODE_PYTHON", "")})

    def run(self, entry: Entry, ctx: CheckContext) -> ParseResult:
        key = self._key(entry, ctx)
        path = self.cache_dir / key[:2] / f"{key}.json"
        if path.is_file():
            try:
                return self._result(entry, json.loads(path.read_text(encoding="utf-8")))
            except (ValueError, TypeError):
                pass
        record = self._sandboxed(entry, ctx)
        if record.get("cache", True):
            write_json_atomic(path, record)
        return self._result(entry, record)

    @staticmethod
    def _result(entry: Entry, record: dict[str, Any]) -> ParseResult:
        fields = {k: record[k] for k in ("params", "explicit", "unrecognized", "message", "parser", "calls",
                                         "stubbed") if k in record}
        if not isinstance(fields.get("params", {}), dict):
            fields["params"] = {}
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
        if record.get("status") == UNREACHED and "ModuleNotFoundError" in str(record.get("message", "")):
            record = self._once(entry, ctx, stub_all=True)
        return record

    def _once(self, entry: Entry, ctx: CheckContext, stub_all: bool) -> dict[str, Any]:
        from ragcode.execution import ExecSpec

        executor = self._executor_for()
        if executor is None:
            return {"status": UNREACHED, "message": "no bubblewrap sandbox to run the parser in", "cache": False}
        spec = ExecSpec(self.command(entry, stub_all), "bash", Path(ctx.repo_dir), entry.workdir, self.timeout_s,
                        repo_name=Path(ctx.repo_dir).name)
        result = executor.run(spec)
        if result.infra_error:
            return {"status": UNREACHED, "message": f"sandbox: {result.infra_error}", "cache": False}
        record = decode_lines(result.stdout)
        if record is not None:
            return record
        if result.timed_out:
            return {"status": UNREACHED, "message": f"no parser reached within {self.timeout_s:g} s"}
        tail = result.stderr.strip().splitlines()[-1:] or [f"exit code {result.exit_code}"]
        return {"status": UNREACHED, "message": f"the program ended without a parse: {tail[0][:300]}"}


def with_entry(result: ParseResult, entry: Entry) -> ParseResult:
    return replace(result, entry=entry)
