"""Agent mode: the model explores the repository with tools over the same index, checks and
sandbox as single-shot generation, then submits one answer.

``solve(task, index=..., config=...)`` runs one episode and returns its ``Candidate``; the
trajectory (every step: message hashes, the call, the observation, tokens, seconds) is in
``candidate.metadata["trajectory"]`` and, with ``trajectory=PATH``, in a JSONL file the episode
resumes from. Modules: ``schema`` (a tool's typed parameters and JSON schema), ``tools`` (the
tools, by name in ``TOOLS``), ``protocol`` (native tool calls, the text protocol), ``loop`` (an
episode, its budgets and fallback), ``trajectory`` (the record), ``bench`` (``mlbench run
--setting agent``), ``show`` (a trajectory as text). See docs/agent.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ragcode.errors import RagcodeError, RepoNotFoundError
from ragcode.types import Candidate, Context, Task

if TYPE_CHECKING:
    from ragcode.agent.loop import StepHook
    from ragcode.config import Config
    from ragcode.generation.llm import LLM
    from ragcode.index.store import IndexRef


def solve(task: str | Task, index: IndexRef | None = None, config: Config | None = None, llm: LLM | None = None,
          trajectory: str | Path | None = None, episode: int = 0, path: str = ".",
          context: Context | None = None, on_step: StepHook | None = None) -> Candidate:
    """One agent episode for ``task`` (an instruction or a ``Task``: only its instruction reaches
    the model) over ``index`` (a name, folder or loaded index; its repository is what the tools
    read). ``path``: where in the repository the answer runs, for ``check`` and ``run`` (a
    ``Task``'s own path when it has one). ``trajectory``: a JSONL file that records the episode
    and resumes it after its last finished step. ``context``: the context of a fallback
    answer (retrieved when needed if not given). ``on_step(record, resumed)`` sees each step."""
    from ragcode.agent.loop import run_episode
    from ragcode.agent.tools import AgentEnv
    from ragcode.agent.trajectory import Trajectory
    from ragcode.config import load_config
    from ragcode.generation.llm import load_llm
    from ragcode.index.store import load_index

    config = config or load_config()
    instruction = task.instruction if isinstance(task, Task) else str(task)
    if not instruction.strip():
        raise RagcodeError("the instruction is empty; say what the answer should do")
    if index is None:
        raise RagcodeError("the agent needs an index to work on: pass index=NAME (build one with "
                           "`ragcode index REPO`)")
    record = Trajectory(trajectory)  # a path it cannot write is refused before any work
    loaded = load_index(index, config)
    repo = Path(loaded.manifest.repo) if loaded.manifest.repo else None
    if repo is None or not repo.is_dir():
        raise RepoNotFoundError(f"index {loaded.name!r} was built from {loaded.manifest.repo!r}, which "
                                "is not there; the agent reads the repository itself: restore it "
                                "or rebuild the index from where it is now")
    workdir = task.path if isinstance(task, Task) and task.path else path
    env = AgentEnv(repo, loaded, config, workdir, instruction, repo.name)

    def retrieved() -> Context | None:
        from ragcode.retrieval.search import retrieve_context

        return context if context is not None else retrieve_context(loaded, instruction, config)

    return run_episode(instruction, env, llm or load_llm(config), config, record,
                       episode, on_step, retrieved)


__all__ = ["solve"]
