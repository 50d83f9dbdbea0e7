"""The tools a server offers: the agent's own tools (``ragcode.agent.tools``) with the arguments
a caller outside an agent episode needs.

Each is a ``ragcode.agent.schema.Tool`` (typed parameters, a JSON schema, the strict argument
check), whose function takes a ``Catalogue`` and does its work through the agent's tool
functions (``search_tool``, ``open_tool``, ``ls_tool``, ``cli_tool``, ``check_tool``,
``run_tool``) on an ``AgentEnv`` over the leased index: the same path guard, the same
observation limit (``agent.max_observation_chars``), the same sandbox and timeouts.

- ``search(query, k, kind)``: ranked hits, each ``path:start-end:kind:hash`` and its text;
  ``kind`` keeps one chunk kind (``retrieval.kinds``);
- ``open(path, start, end)``, ``ls(path)``, ``cli(script)``: as in the agent;
- ``check(answer, path, instruction)``: the static checks from the folder ``path``, and the
  answer as the fixes would keep it (``ragcode.answer.fixes.fix_and_keep``, the keep rule of
  generation and ``ragcode check --fix``) when they keep one;
- ``run(answer, path)``: only with ``allow_run``; the scorer's sandbox;
- ``generate(instruction, path)``: only with a model; retrieval, generation and the checks as
  ``ragcode generate`` does them.

With several indexes every tool takes ``index`` (default: the first served one).
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from typing import Any

from ragcode.agent import tools as agent_tools
from ragcode.agent.schema import Observation, Param, Tool, ToolCallError
from ragcode.serve.api_tool import api_observation, api_tool
from ragcode.serve.served import ServedIndex

_PATH = Param("path", "string", "the folder inside the repository the answer runs from "
              "(relative to the repository root)", ".")


@dataclass
class Catalogue:
    """What the tools work on: the served indexes (the first is the default), whether ``run``
    is offered, and the model of ``generate`` (loaded on first use; ``None``: no ``generate``)."""

    served: list[ServedIndex]
    allow_run: bool = False
    model_config: Any = None  # the config whose generation.llm backs generate; None: no generate
    _llm: Any = None
    _llm_lock: threading.Lock = field(default_factory=threading.Lock)

    def pick(self, name: str) -> ServedIndex:
        if not name:
            return self.served[0]
        for s in self.served:
            if s.name == name:
                return s
        raise ToolCallError(f"unknown index {name!r}; served: {', '.join(s.name for s in self.served)}")

    def tools(self) -> tuple[Tool, ...]:
        """The tools offered, each with ``index`` when several indexes are served."""
        out = [SEARCH, OPEN, LS, CLI, API, CHECK]
        if self.allow_run:
            out.append(RUN)
        if self.model_config is not None:
            out.append(GENERATE)
        if len(self.served) > 1:
            names = ", ".join(s.name for s in self.served)
            extra = Param("index", "string", f"which served index: {names}", self.served[0].name)
            out = [dataclasses.replace(t, params=(*t.params, extra)) for t in out]
        return tuple(out)

    def llm(self) -> Any:
        with self._llm_lock:
            if self._llm is None:
                from ragcode.generation.llm import load_llm

                self._llm = load_llm(self.model_config)
            return self._llm


def with_kind(config: Any, kind: str) -> Any:
    """``config`` with retrieval limited to chunks of ``kind``."""
    return config.model_copy(update={"retrieval": config.retrieval.model_copy(update={"kinds": [kind]})})


def search_fn(cat: Catalogue, query: str, k: int, kind: str = "", index: str = "") -> Observation:
    served = cat.pick(index)
    with served.lease() as idx:
        env = served.env(idx)
        if kind:
            kinds = sorted(idx.manifest.counts.chunks_by_kind)
            if kind not in kinds:
                raise ToolCallError(f"search: {served.name} has no chunks of kind {kind!r}; its kinds: "
                                    f"{', '.join(kinds)}")
            env.config = with_kind(env.config, kind)
        with served.search_lock:
            return agent_tools.search_tool(env, query, k)


def open_fn(cat: Catalogue, path: str, start: int, end: int, index: str = "") -> Observation:
    served = cat.pick(index)
    with served.lease() as idx:
        return agent_tools.open_tool(served.env(idx), path, start, end)


def ls_fn(cat: Catalogue, path: str, index: str = "") -> Observation:
    served = cat.pick(index)
    with served.lease() as idx:
        return agent_tools.ls_tool(served.env(idx), path)


def cli_fn(cat: Catalogue, script: str, index: str = "") -> Observation:
    served = cat.pick(index)
    with served.lease() as idx:
        return agent_tools.cli_tool(served.env(idx), script)


def api_fn(cat: Catalogue, name: str, index: str = "") -> Observation:
    served = cat.pick(index)
    with served.lease() as idx:
        return api_observation(idx, name, served.env(idx).limit)


def _workdir(env: Any, path: str) -> str:
    full, rel = env.resolve(path)  # the agent's path guard: a folder outside the repository is refused
    if not full.is_dir():
        raise ToolCallError(f"path: {rel!r} is not a folder of the repository")
    return rel


def check_fn(cat: Catalogue, answer: str, path: str = ".", instruction: str = "", index: str = "") -> Observation:
    """The agent's check tool: findings, and the answer the fixes would keep under the one keep
    rule of generation and ``ragcode check --fix`` (``fixed``, ``fixed_findings``) when there is one."""
    served = cat.pick(index)
    with served.lease() as idx:
        env = served.env(idx, _workdir(served.env(idx), path), instruction)
        obs = agent_tools.check_tool(env, answer)
        proposed = dict(obs.proposed or {})
        proposed.pop("tool", None)
        return dataclasses.replace(obs, proposed=proposed)


def run_fn(cat: Catalogue, answer: str, path: str = ".", index: str = "") -> Observation:
    if not cat.allow_run:  # not offered; a call by name is refused all the same
        raise ToolCallError("run is not enabled on this server (ragcode serve --allow-run)")
    served = cat.pick(index)
    with served.lease() as idx:
        env = served.env(idx)
        return agent_tools.run_tool(served.env(idx, _workdir(env, path)), answer)


def generate_fn(cat: Catalogue, instruction: str, path: str = ".", index: str = "") -> Observation:
    from ragcode.answering import generate

    if cat.model_config is None:
        raise ToolCallError("generate is not enabled on this server (ragcode serve --llm BACKEND)")
    if not instruction.strip():
        raise ToolCallError("generate: the instruction is empty; say what the answer should do")
    served = cat.pick(index)
    with served.lease() as idx:
        env = served.env(idx)
        workdir = _workdir(env, path)
        llm = cat.llm()
        with cat._llm_lock:  # one generation at a time on the one model
            cands = generate(instruction, index=idx, n=1, config=served.config, llm=llm, path=workdir)
    if not cands:
        return Observation("the model gave no answer")
    best = cands[0]
    check = best.metadata.get("check") or {}
    findings = check.get("findings") or []
    lines = [f"{best.answer_type} answer:", best.code]
    if findings:
        lines += [f"{len(findings)} finding(s) left:"] + [f"- {f.get('severity')}: {f.get('message')}" for f in findings]
    return Observation(agent_tools.cut("\n".join(lines), env.limit),
                       proposed={"answer": best.code, "answer_type": best.answer_type,
                                 "findings": len(findings)})


_INDEX_NOTE = " Paths are relative to the repository root; one outside it is refused."

SEARCH = Tool(
    "search", "Search the repository's index (README sections, code, each script's command-line "
    "flag table). Each hit shows its chunk id path:start-end:kind:hash and its text; open(path, "
    "start, end) shows the lines around a hit.",
    (Param("query", "string", "what to look for, in words or code names"),
     Param("k", "integer", "how many hits (1-20)", 5),
     Param("kind", "string", "only chunks of this kind (markdown, code, cli, shell, ...); empty = all", "")),
    search_fn)
OPEN = Tool("open", "Show a file's lines with their numbers; long files come in pages and say how "
            "to get the next one." + _INDEX_NOTE, agent_tools.OPEN.params, open_fn)
LS = Tool("ls", "List a folder of the repository: sub-folders, then files with their sizes." + _INDEX_NOTE,
          agent_tools.LS.params, ls_fn)
CLI = Tool("cli", "The command-line flags a script's parser declares (argparse, click, typer, absl): "
           "name, type, default, choices, required, help. Use it before writing a command that "
           "runs the script.", agent_tools.CLI.params, cli_fn)
API = api_tool(api_fn)
CHECK = Tool(
    "check", "Check a bash command or Python script against the repository without running it: "
    "scripts and flags that do not exist (with the closest real spelling), bad choices, imports "
    "that resolve nowhere, values of the instruction the answer leaves out. Where the fixes keep a "
    "corrected answer it is given too.",
    (agent_tools.CHECK.params[0], _PATH,
     Param("instruction", "string", "the user's request, when known: values it names that the "
           "answer leaves out are reported", "")), check_fn)
RUN = Tool("run", "Run a bash command or Python script in the sandbox (a scratch copy of the "
           "repository, the scorer's limits and timeout) and see its exit code and the ends of "
           "its output.", (agent_tools.RUN.params[0], _PATH), run_fn)
GENERATE = Tool("generate", "Write the bash command or Python script that does an instruction with "
                "this repository's code: retrieval, the configured model, then the checks.",
                (Param("instruction", "string", "what the answer should do, in plain words"), _PATH),
                generate_fn)


def structured(obs: Observation) -> dict[str, Any] | None:
    """The machine-readable part of a result: a search's hits (from their chunk ids), or what
    check, run and generate judged."""
    if obs.chunk_ids:
        hits = []
        for rank, cid in enumerate(obs.chunk_ids, 1):
            path, lines, kind, digest = cid.rsplit(":", 3)
            start, _, end = lines.partition("-")
            hits.append({"rank": rank, "id": cid, "path": path, "start_line": int(start),
                         "end_line": int(end or start), "kind": kind})
        return {"hits": hits}
    if obs.proposed:
        return {k: v for k, v in obs.proposed.items() if k != "tool"}
    return None
